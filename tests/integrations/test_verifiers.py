"""verifiers.v1: the VibeLife taskset, env and harness end to end against a fake chat server."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("verifiers.v1")
pytest.importorskip("openai")

import verifiers.v1 as vf

from tests.test_openai_agent import FakeChatServer, completion, oracle_script
from vibelife_env.integrations.verifiers import (
    TASKSET_ID,
    VibeLifeEnv,
    VibeLifeEnvConfig,
    VibeLifeTasksetConfig,
    run_eval,
)

DEMO = "VibeLife-demo-errands-v0"


@pytest.fixture
def server():
    srv = FakeChatServer()
    yield srv
    srv.close()


def test_plugin_ids_resolve_to_this_module() -> None:
    from verifiers.v1.utils.loaders import default_harness_id, environment_class, taskset_class

    assert environment_class(TASKSET_ID) is VibeLifeEnv
    assert taskset_class(TASKSET_ID).__name__ == "VibeLifeTaskset" and default_harness_id(TASKSET_ID) == TASKSET_ID
    tasks = list(taskset_class(TASKSET_ID)(VibeLifeTasksetConfig(id=TASKSET_ID, envs=[DEMO], seeds=[0, 3])))
    assert [t.data.info for t in tasks] == [{"env_id": DEMO, "seed": 0}, {"env_id": DEMO, "seed": 3}]
    assert tasks[0].data.prompt is None and "assistant" in tasks[0].data.system_prompt


def test_oracle_through_verifiers_scores_one(server: FakeChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    script = oracle_script(DEMO, seed=0)
    replies = iter(script)
    server.script = lambda req: (200, completion(next(replies)))
    monkeypatch.setenv("FAKE_API_KEY", "test-key")
    config = VibeLifeEnvConfig(taskset=VibeLifeTasksetConfig(id=TASKSET_ID, envs=[DEMO], seeds=[0]))
    client = vf.EvalClientConfig(base_url=server.base_url, api_key_var="FAKE_API_KEY")
    [episode] = asyncio.run(run_eval(config, model="fake-model", client=client))
    assert episode.ok, episode.errors
    [trace] = episode.traces
    assert trace.rewards["score"].score == 1.0 and trace.info["vibelife_score"] == 100.0
    assert trace.num_turns == len(script)  # every model call went through the interception
    assert len(server.requests) == len(script)
    first = server.requests[0]
    assert first["model"] == "fake-model" and first["messages"][0]["role"] == "system"
    assert {t["function"]["name"] for t in first["tools"]} >= {"email__get_emails", "workspace__read_file"}
    # the conversation the model sees grows turn by turn: tool results, then the next event
    assert any(m["role"] == "tool" for m in server.requests[-1]["messages"])


# ------------------------------------------------------------------------- the vf-eval CLI
REPO = Path(__file__).resolve().parents[2]


def documented_shim() -> str:
    """The one-line ``vibelife_verifiers.py`` that docs/integrations.md tells users to install."""
    text = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("from vibelife_env.integrations.verifiers import")]
    assert len(lines) == 1, lines
    return lines[0] + "\n"


def vf_eval(shim_dir: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``vf-eval vibelife_verifiers ARGS`` with the shim on the path (this checkout first)."""
    exe = shutil.which("vf-eval") or str(Path(sys.executable).with_name("vf-eval"))
    if not Path(exe).exists():
        pytest.skip("verifiers installs no vf-eval command here")
    path = os.pathsep.join([str(shim_dir), str(REPO), os.environ.get("PYTHONPATH", "")])
    return subprocess.Popen(
        [exe, TASKSET_ID, *args],
        cwd=shim_dir,
        env={**os.environ, **(env or {}), "PYTHONPATH": path, "NO_COLOR": "1", "COLUMNS": "200"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(proc: subprocess.Popen, timeout: float = 420) -> str:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        raise AssertionError(f"vf-eval did not finish in {timeout} s:\n{out[-4000:]}") from None
    assert proc.returncode == 0, out[-4000:]
    return out


def test_documented_shim_is_the_module_constant() -> None:
    from vibelife_env.integrations.verifiers import SHIM

    assert documented_shim() == SHIM
    namespace: dict = {}
    exec(SHIM, namespace)
    assert namespace["__all__"] == ["VibeLifeEnv", "VibeLifeHarness", "VibeLifeTaskset"]


def test_vf_eval_runs_the_documented_shim(tmp_path: Path, server: FakeChatServer) -> None:
    """The real CLI, as the docs say: a dry run (config only), then an eval against the fake
    chat server on loopback (``--no-push``: nothing leaves the machine) that plays the oracle."""
    (tmp_path / "vibelife_verifiers.py").write_text(documented_shim(), encoding="utf-8")
    script = oracle_script(DEMO, seed=0)
    replies = iter(script)
    server.script = lambda req: (200, completion(next(replies)))
    dry = vf_eval(tmp_path, "--dry-run", "True", "--no-push", "-o", str(tmp_path / "dry"))
    run = vf_eval(
        tmp_path,
        "--no-push",
        "-m",
        "fake-model",
        "--client.base-url",
        server.base_url,
        "--client.api-key-var",
        "FAKE_API_KEY",
        "--env.taskset.envs",
        DEMO,
        "--env.taskset.seeds",
        "0",
        "-o",
        str(tmp_path / "run"),
        env={"FAKE_API_KEY": "test-key"},
    )
    finish(dry)
    [config] = (tmp_path / "dry").glob("*/configs/resolved/eval.json")
    resolved = json.loads(config.read_text())
    assert resolved["env"]["taskset"]["id"] == TASKSET_ID and resolved["env"]["taskset"]["envs"] == [DEMO]
    assert not list((tmp_path / "dry").glob("*/traces.jsonl"))  # a dry run plays nothing
    out = finish(run)
    [traces] = (tmp_path / "run").glob("*/traces.jsonl")
    [episode] = [json.loads(line) for line in traces.read_text().splitlines()]
    assert episode["ok"] and not episode["errors"], out[-4000:]
    [trace] = episode["traces"]
    assert trace["rewards"]["score"]["score"] == 1.0 and trace["info"]["vibelife_score"] == 100.0
    assert len(server.requests) == len(script) and server.requests[0]["model"] == "fake-model"
