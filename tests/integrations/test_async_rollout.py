"""Async rollouts: many LLM-bound episodes on one event loop, same results as one at a time."""

from __future__ import annotations

import asyncio
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("openai")

from tests.test_openai_agent import FakeChatServer, completion, oracle_script
from vibelife_env.agents import OpenAIChatAgent
from vibelife_env.async_rollout import (
    AsyncEpisodeWorker,
    AsyncOpenAIChatAgent,
    run_episode_async,
    run_jobs,
    run_jobs_sync,
)
from vibelife_env.rollout import run_episode
from vibelife_env.runner import AgentFactory, EpisodeJob

DEMO = "VibeLife-demo-errands-v0"


def conversation_policy(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A deterministic 'model': read a workspace file after each event, then reply."""
    messages = request["messages"]
    if messages[-1]["role"] == "user":
        call = {
            "id": f"c{len(messages)}",
            "type": "function",
            "function": {"name": "workspace__read_file", "arguments": '{"path": "USER.md"}'},
        }
        return 200, completion({"content": None, "tool_calls": [call]})
    return 200, completion({"content": f"Noted after {len(messages)} messages."})


@pytest.fixture
def server():
    srv = FakeChatServer()
    yield srv
    srv.close()


def test_async_agent_completes_the_oracle_script(server: FakeChatServer) -> None:
    script = iter(oracle_script(DEMO, seed=0))
    server.script = lambda req: (200, completion(next(script)))
    agent = AsyncOpenAIChatAgent("fake-model", server.base_url, "k", timeout=10, retry_backoff=0.0)
    result = asyncio.run(run_episode_async(gym.make(DEMO), agent, seed=0))
    assert result.terminated and result.score == 100.0 and agent.usage["requests"] == result.steps
    with pytest.raises(TypeError, match="asynchronous"):
        agent.act({}, {})


def test_many_in_flight_match_sequential_runs(server: FakeChatServer) -> None:
    server.script = conversation_policy
    seeds = list(range(12))
    expected = {
        s: run_episode(gym.make(DEMO), OpenAIChatAgent("fake-model", server.base_url, "k", timeout=10), seed=s)
        for s in seeds
    }
    live = {"now": 0, "max": 0}

    class Counted(AsyncOpenAIChatAgent):
        async def act_async(self, obs, info):
            live["now"] += 1
            live["max"] = max(live["max"], live["now"])
            try:
                return await super().act_async(obs, info)
            finally:
                live["now"] -= 1

    factory = AgentFactory(lambda: Counted("fake-model", server.base_url, "k", timeout=10))
    jobs = [EpisodeJob(DEMO, seed=s) for s in seeds]
    results = run_jobs_sync(jobs, factory, max_in_flight=8)
    assert [r.index for r in results] == list(range(12)) and all(r.ok for r in results)
    assert live["max"] == 8  # eight requests were waiting at once
    for r in results:
        want = expected[r.job.seed]
        assert r.result.messages == want.messages and r.result.rewards == want.rewards
        assert r.result.score == want.score


def test_errors_stay_in_their_episode_and_worker_surface(server: FakeChatServer) -> None:
    server.script = conversation_policy

    class Broken:
        name = "broken"

        def reset(self, info):
            pass

        async def act_async(self, obs, info):
            raise ValueError("policy bug")

    def make() -> Any:
        return Broken()

    async def collect() -> list:
        return [r async for r in run_jobs([EpisodeJob(DEMO, seed=0), EpisodeJob(DEMO, seed=1)], make, max_in_flight=2)]

    results = asyncio.run(collect())
    assert len(results) == 2 and all("policy bug" in r.error for r in results)
    with pytest.raises(ValueError, match="max_in_flight"):
        run_jobs_sync([], make, max_in_flight=0)
    with pytest.raises(TypeError, match="fresh agent per episode"):
        run_jobs_sync([EpisodeJob(DEMO, seed=0)], Broken(), max_in_flight=1)
    worker = AsyncEpisodeWorker("oracle")
    assert asyncio.run(worker.ping())
    assert asyncio.run(worker.run(EpisodeJob(DEMO, seed=3))).score == 100.0
