"""``vibelife rollout`` and ``vibelife eval`` stream each episode as it ends, survive Ctrl-C
(SIGINT to the running command), and ``--resume`` finishes byte-identically to a run that
was never interrupted; tool schemas are written once, to a sidecar."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vibelife_env.cli import main as cli_main
from vibelife_env.rollout import JsonlAppender, iter_spans, read_dataset, read_lines, tools_sidecar, write_in_order

DEMO = "VibeLife-demo-errands-v0"
SLOW_AGENT = """
import time

from vibelife_env.agents import make_agent


class SlowOracle:
    name = "oracle"

    def __init__(self, task):
        self.inner = make_agent("oracle", task)

    def reset(self, info):
        self.inner.reset(info)

    def act(self, obs, info):
        time.sleep(0.03)
        return self.inner.act(obs, info)
"""


def vibelife(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vibelife_env.cli", *argv], capture_output=True, text=True, cwd=cwd, timeout=600
    )


def interrupt(argv: list[str], cwd: Path, watch: Path, min_lines: int) -> subprocess.CompletedProcess:
    """Start ``vibelife *argv``, send SIGINT once ``watch`` holds ``min_lines`` lines."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vibelife_env.cli", *argv],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if watch.exists() and len(read_lines(watch)) >= min_lines:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "slow_agents.py").write_text(SLOW_AGENT)
    return tmp_path


def test_rollout_ctrl_c_keeps_finished_episodes_and_resume_is_byte_identical(work: Path) -> None:
    args = ["rollout", "--env", DEMO, "--agent", "slow_agents:SlowOracle", "--episodes", "8", "--no-progress"]
    cut = work / "cut.jsonl"
    stopped = interrupt([*args, "--out", str(cut)], work, cut, min_lines=2)
    assert stopped.returncode == 130, stopped.stderr
    assert "--resume" in stopped.stderr and "Traceback" not in stopped.stderr
    kept = read_lines(cut)
    assert 2 <= len(kept) < 8 and cut.read_bytes().endswith(b"\n")
    assert [json.loads(line)["seed"] for line in kept] == list(range(len(kept)))  # whole lines, in order
    again = vibelife(*args, "--out", str(cut), cwd=work)
    assert again.returncode == 2 and "--resume" in again.stderr  # never clobbered by accident
    resumed = vibelife(*args, "--out", str(cut), "--resume", cwd=work)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(kept)} of 8 episodes already there" in resumed.stderr
    whole = work / "whole.jsonl"
    assert vibelife(*args, "--out", str(whole), cwd=work).returncode == 0
    assert cut.read_bytes() == whole.read_bytes()
    assert tools_sidecar(cut).read_bytes() == tools_sidecar(whole).read_bytes()


def test_resume_drops_a_torn_line_and_refuses_another_run(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    args = ["rollout", "--env", DEMO, "--agent", "oracle", "--episodes", "3", "--seed", "5", "--no-progress"]
    whole = tmp_path / "whole.jsonl"
    assert cli_main([*args, "--out", str(whole)]) == 0
    part = tmp_path / "part.jsonl"
    lines = whole.read_bytes().splitlines(keepends=True)
    part.write_bytes(lines[0] + lines[1][: len(lines[1]) // 2])  # a crash mid-write
    assert cli_main([*args, "--out", str(part), "--resume"]) == 0
    assert part.read_bytes() == whole.read_bytes()
    capsys.readouterr()
    for argv, message in (
        ([*args[:4], "null", *args[5:]], "played by agent 'oracle'"),
        ([*args[:-3], "--no-progress"], "not part of this run"),
        ([*args, "--inline-tools"], "--inline-tools"),
    ):
        assert cli_main([*argv, "--out", str(part), "--resume"]) == 2
        assert message in capsys.readouterr().err
    assert part.read_bytes() == whole.read_bytes()


def test_tool_schemas_go_to_a_sidecar_once(tmp_path: Path) -> None:
    base = [
        "rollout",
        "--env",
        DEMO,
        "--env",
        "VibeLife-family-grandma-birthday-v0",
        "--episodes",
        "2",
        "--no-progress",
    ]
    slim, fat = tmp_path / "slim.jsonl", tmp_path / "fat.jsonl"
    assert cli_main([*base, "--out", str(slim)]) == 0
    assert cli_main([*base, "--out", str(fat), "--inline-tools"]) == 0
    rows = [json.loads(line) for line in read_lines(slim)]
    assert all("tools" not in r and len(r["tools_sha256"]) == 64 for r in rows)
    table = json.loads(tools_sidecar(slim).read_text())
    assert set(table) == {r["tools_sha256"] for r in rows} and len(table) == 2
    assert list(read_dataset(slim)) == list(read_dataset(fat)) == [json.loads(line) for line in read_lines(fat)]
    assert not tools_sidecar(fat).exists()
    assert slim.stat().st_size * 2 < fat.stat().st_size  # the schemas were most of each demo line


def test_eval_streams_with_a_progress_bar_and_resumes_after_ctrl_c(work: Path) -> None:
    args = ["eval", "--agent", "slow_agents:SlowOracle", "--agent", "null", "--env", DEMO, "--attempts", "3"]
    cut, whole = work / "cut", work / "whole"
    stopped = interrupt([*args, "--out", str(cut)], work, cut / "episodes.jsonl", min_lines=1)
    assert stopped.returncode == 130 and "--resume" in stopped.stderr, stopped.stderr
    kept = read_lines(cut / "episodes.jsonl")
    assert 1 <= len(kept) < 6 and not (cut / "report.html").exists()
    resumed = vibelife(*args, "--out", str(cut), "--resume", cwd=work)
    assert resumed.returncode == 0, resumed.stderr
    assert "6/6" in resumed.stderr  # the tqdm bar, on stderr
    done = vibelife(*args, "--out", str(whole), "--no-progress", cwd=work)
    assert done.returncode == 0 and "6/6" not in done.stderr
    for name in ("episodes.jsonl", "report.json", "report.html"):
        assert (cut / name).read_bytes() == (whole / name).read_bytes(), name
    pages = sorted(p.relative_to(whole) for p in (whole / "transcripts").rglob("*.html"))
    assert len(pages) == 6
    assert all((cut / p).read_bytes() == (whole / p).read_bytes() for p in pages)


def test_appender_writes_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    with JsonlAppender(path) as sink:
        sink.append('{"a": 1}')
        with pytest.raises(ValueError, match="newline"):
            sink.append("two\nlines")
    with JsonlAppender(path) as sink:
        sink.append('{"a": 2}')
    assert path.read_text() == '{"a": 1}\n{"a": 2}\n'
    os.truncate(path, path.stat().st_size - 3)
    assert read_lines(path, repair=True) == ['{"a": 1}'] and path.read_text() == '{"a": 1}\n'


def test_spans_stream_lines_and_write_in_order_rewrites_only_when_needed(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    with JsonlAppender(path) as sink:
        spans = [sink.append(f'{{"n": {n}}}') for n in (2, 0, 1)]
    assert [line for _, line in iter_spans(path)] == ['{"n": 2}', '{"n": 0}', '{"n": 1}']
    assert [span for span, _ in iter_spans(path)] == spans
    assert not write_in_order(path, spans)  # already in that order: untouched
    assert write_in_order(path, [spans[1], spans[2], spans[0]])
    assert path.read_text() == '{"n": 0}\n{"n": 1}\n{"n": 2}\n'
    first = next(iter_spans(path))[0]
    assert write_in_order(path, [first, first])  # a line kept twice, the rest dropped
    assert path.read_text() == '{"n": 0}\n{"n": 0}\n'
    with path.open("a") as fh:
        fh.write('{"torn"')
    assert len(list(iter_spans(path))) == 2 and path.read_text().endswith('{"torn"')
    assert len(list(iter_spans(path, repair=True))) == 2 and path.read_text() == '{"n": 0}\n{"n": 0}\n'
    assert list(iter_spans(tmp_path / "missing.jsonl")) == []
