"""The ``vibelife`` command line run as a user would (subprocesses): mistakes give one
clear line on stderr and exit status 2, never a traceback; ``--debug`` shows it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from vibelife_env.commands import find_bundle_dirs

DEMO = "VibeLife-demo-errands-v0"
DATA = Path(__file__).resolve().parent / "data" / "bundles"
AGENT_MODULE = """
class Quiet:
    name = "quiet"

    def reset(self, info):
        pass

    def act(self, obs, info):
        return {"tool_calls": [], "reply": ""}


def make(task):
    return Quiet()
"""


def vibelife(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "VIBELIFE_"))}
    return subprocess.run(
        [sys.executable, "-m", "vibelife_env.cli", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**base, **(env or {})},
        timeout=300,
    )


def assert_usage_error(done: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit status 2, one line on stderr naming the problem, no traceback."""
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "argv, fragments",
    [
        (["run", "--env", DEMO, "--agent", "nope"], ["unknown agent 'nope'", "openai", "module:factory"]),
        (["rollout", "--env", DEMO, "--agent", "nope", "--out", "{tmp}/r.jsonl"], ["unknown agent 'nope'"]),
        (["eval", "--env", DEMO, "--agent", "nope", "--out", "{tmp}/e"], ["unknown agent 'nope'"]),
        (["run", "--env", "VibeLife-nope-v0"], ["unknown env id 'VibeLife-nope-v0'", "`vibelife list` prints them"]),
        (["run", "--env", "VibeLife-travel-japn-v0"], ["did you mean VibeLife-travel-japan-v0"]),
        (["rollout", "--env", "VibeLife-nope-v0", "--out", "{tmp}/r.jsonl"], ["unknown env id"]),
        (["eval", "--env", "VibeLife-nope-v0", "--agent", "null", "--out", "{tmp}/e"], ["unknown env id"]),
        (["validate", "VibeLife-nope-v0"], ["unknown env id"]),
        (["stats", "VibeLife-nope-v0"], ["unknown env id"]),
        (["list", "--bundles", "{tmp}/missing"], ["--bundles", "no such directory"]),
        (["stats", "--bundles", "{tmp}/missing"], ["--bundles", "no such directory"]),
        (["run", "--bundles", "{tmp}/missing"], ["no such directory"]),
        (["stats", "--bundles", "{tmp}/empty"], ["no task bundles"]),
        (["list", "--bundles", "{tmp}/a-file"], ["not a directory"]),
        (["run", "--env", DEMO, "--agent", "no_such_module:make"], ["no module named 'no_such_module'"]),
        (["rollout", "--env", DEMO, "--out", "{tmp}"], ["is a directory"]),
        (["rollout", "--env", DEMO, "--out", "{tmp}/a-file"], ["exists", "--resume"]),
        (["eval", "--env", DEMO, "--agent", "null", "--out", "{tmp}/a-file"], ["is a file"]),
        (["rollout", "--env", DEMO, "--episodes", "0", "--out", "{tmp}/r.jsonl"], ["--episodes"]),
        (["tools", "--service", "nope"], ["unknown service"]),
    ],
)
def test_mistakes_give_one_line_and_status_2(tmp_path: Path, argv: list[str], fragments: list[str]) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "a-file").write_text("x\n")
    done = vibelife(*[a.format(tmp=tmp_path) for a in argv], cwd=tmp_path)
    assert_usage_error(done, *fragments)
    assert not (tmp_path / "r.jsonl").exists() and not (tmp_path / "e").exists()  # nothing written before checks


def test_openai_needs_a_model_and_a_reachable_endpoint(tmp_path: Path) -> None:
    assert_usage_error(vibelife("run", "--env", DEMO, "--agent", "openai"), "VIBELIFE_MODEL")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    env = {"VIBELIFE_MODEL": "m", "OPENAI_BASE_URL": url}
    for argv in (
        ["run", "--env", DEMO, "--agent", "openai"],
        ["rollout", "--env", DEMO, "--agent", "openai", "--out", str(tmp_path / "r.jsonl")],
        ["eval", "--env", DEMO, "--agent", "openai", "--out", str(tmp_path / "e")],
    ):
        assert_usage_error(vibelife(*argv, env=env), "cannot reach the model endpoint", url)
    assert not (tmp_path / "r.jsonl").exists()


def test_rollout_accepts_openai_like_run(tmp_path: Path) -> None:
    from tests.test_openai_agent import FakeChatServer, completion

    server = FakeChatServer()
    server.script = lambda req: (200, completion({"content": ""}))  # a silent assistant
    try:
        env = {"VIBELIFE_MODEL": "fake-model", "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "k"}
        out = tmp_path / "llm.jsonl"
        done = vibelife("rollout", "--env", DEMO, "--agent", "openai", "--out", str(out), "--no-progress", env=env)
        assert done.returncode == 0, done.stderr
        (row,) = [json.loads(line) for line in out.read_text().splitlines()]
        assert row["agent"] == "openai" and row["terminated"] and server.requests
        assert server.requests[0]["model"] == "fake-model"
    finally:
        server.close()


def test_module_factory_agent_resolves_from_the_current_directory(tmp_path: Path) -> None:
    (tmp_path / "my_agents.py").write_text(AGENT_MODULE)
    done = vibelife("run", "--env", DEMO, "--agent", "my_agents:make", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "with agent 'my_agents:make'" in done.stdout and "score 0.00/100" in done.stdout
    out = tmp_path / "q.jsonl"
    done = vibelife(
        "rollout", "--env", DEMO, "--agent", "my_agents:make", "--out", str(out), "--no-progress", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["agent"] == "quiet"


def test_version_and_debug() -> None:
    done = vibelife("--version")
    assert done.returncode == 0 and done.stdout.startswith("vibelife ")
    for argv in (["--debug", "run", "--env", "VibeLife-nope-v0"], ["run", "--env", "VibeLife-nope-v0", "--debug"]):
        done = vibelife(*argv)
        assert done.returncode != 0 and "Traceback" in done.stderr and "CLIError" in done.stderr


def test_stats_bundles_reports_real_bundles_only(tmp_path: Path) -> None:
    done = vibelife("stats", "--bundles", str(DATA), "--json")
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["task"] for line in done.stdout.splitlines()] == ["chores/tea_party"]
    done = vibelife("list", "--bundles", str(DATA))
    assert done.returncode == 0 and "VibeLife-chores-tea-party-v0" in done.stdout
    assert "1 bundle(s)" in done.stderr


def test_bundle_search_is_bounded(tmp_path: Path) -> None:
    """A broad ``--bundles`` path (``/tmp``, a home folder) is searched a few levels deep,
    skipping hidden folders and virtualenvs, and a stray ``task.toml`` is not a bundle."""

    def bundle(folder: Path) -> Path:
        folder.mkdir(parents=True)
        (folder / "task.toml").write_text('[metadata]\nname = "x"\n')
        (folder / "event.yaml").write_text("stages: {}\n")
        return folder

    near = bundle(tmp_path / "eval_set" / "home" / "near")
    bundle(tmp_path / "a" / "b" / "c" / "too_deep")
    bundle(tmp_path / ".hidden" / "x")
    bundle(tmp_path / "venv" / "x")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "task.toml").write_text("[tool]\n")  # some other project's task.toml
    found, ignored = find_bundle_dirs(tmp_path)
    assert found == [near.resolve()]
    assert ignored == [(tmp_path / "other").resolve()]
