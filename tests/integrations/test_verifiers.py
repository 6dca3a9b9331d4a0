"""verifiers.v1: the VibeLife taskset, env and harness end to end against a fake chat server."""

from __future__ import annotations

import asyncio

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
