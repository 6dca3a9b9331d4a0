"""Async rollouts: many LLM-bound episodes on one event loop, same results as one at a time."""

from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("openai")

import openai

from tests.test_openai_agent import FakeChatServer, completion, oracle_script
from vibelife_env.agents import OpenAIChatAgent
from vibelife_env.async_rollout import (
    AsyncEpisodeWorker,
    AsyncOpenAIChatAgent,
    EpisodesFailed,
    failure_summary,
    run_episode_async,
    run_jobs,
    run_jobs_sync,
)
from vibelife_env.rollout import run_episode
from vibelife_env.runner import AgentFactory, EpisodeJob

DEMO = "VibeLife-demo-errands-v0"
REPO = Path(__file__).resolve().parents[2]


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

    jobs = [EpisodeJob(DEMO, seed=0), EpisodeJob(DEMO, seed=1)]

    async def collect(on_error: str) -> list:
        return [r async for r in run_jobs(jobs, make, max_in_flight=2, on_error=on_error)]

    results = asyncio.run(collect("report"))
    assert len(results) == 2 and all("policy bug" in r.error and not r.ok for r in results)
    with pytest.raises(EpisodesFailed, match=r"2 of 2 episodes failed: ValueError: policy bug") as raised:
        asyncio.run(collect("raise"))
    assert len(raised.value.failures) == 2
    with pytest.raises(ValueError, match="max_in_flight"):
        run_jobs_sync([], make, max_in_flight=0)
    with pytest.raises(TypeError, match="fresh agent per episode"):
        run_jobs_sync([EpisodeJob(DEMO, seed=0)], Broken(), max_in_flight=1)
    worker = AsyncEpisodeWorker("oracle")
    assert asyncio.run(worker.ping())
    assert asyncio.run(worker.run(EpisodeJob(DEMO, seed=3))).score == 100.0


def test_failed_episodes_raise_by_default_and_are_logged(
    server: FakeChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The documented snippet (`run_jobs_sync`) never hands back a silent ``ok=False``."""
    server.script = lambda req: (400, {"error": {"message": "model 'nope' does not exist"}})
    make = AgentFactory(lambda: AsyncOpenAIChatAgent("nope", server.base_url, "k", timeout=10, max_retries=0))
    jobs = [EpisodeJob(DEMO, seed=s) for s in range(3)]
    with caplog.at_level(logging.WARNING, logger="vibelife_env.async_rollout"), pytest.raises(EpisodesFailed) as raised:
        run_jobs_sync(jobs, make, max_in_flight=3)
    message = str(raised.value)
    assert message.startswith("3 of 3 episodes failed: BadRequestError") and "does not exist" in message
    assert "seed 0" in message and [r.index for r in raised.value.results] == [0, 1, 2]
    failed_lines = [r.getMessage() for r in caplog.records if "failed:" in r.getMessage()]
    assert len(failed_lines) == 3 and all("BadRequestError" in line for line in failed_lines)  # one line each, at once

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="vibelife_env.async_rollout"):
        results = run_jobs_sync(jobs[:2], make, max_in_flight=2, on_error="report")
    assert [r.ok for r in results] == [False, False] and all("BadRequestError" in r.error for r in results)
    assert caplog.records[-1].getMessage() == failure_summary(results)  # the summary, as a warning
    assert failure_summary(results).startswith("2 of 2 episodes failed")
    with pytest.raises(ValueError, match="on_error"):
        run_jobs_sync(jobs, make, on_error="ignore")  # type: ignore[arg-type]


def test_a_body_that_is_no_completion_fails_the_episode(server: FakeChatServer) -> None:
    server.script = lambda req: (200, "<html>gateway</html>")
    make = AgentFactory(lambda: AsyncOpenAIChatAgent("m", server.base_url, "k", timeout=10, max_retries=0))
    [result] = run_jobs_sync([EpisodeJob(DEMO, seed=0)], make, on_error="report")
    assert not result.ok and "no JSON completion" in result.error


class PostWithoutContent:
    """An ``AsyncOpenAI`` whose ``post`` has the signature of the openai releases before the
    raw ``content=`` parameter (body only), forwarding to the real client."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls = 0

    async def post(self, path: str, *, cast_to: Any, body: Any = None, options: Any = None) -> Any:
        assert isinstance(body, dict) and cast_to is bytes
        self.calls += 1
        return await self.client.post(path, body=body, cast_to=cast_to, options=options or {})

    async def close(self) -> None:
        await self.client.close()


def test_both_post_signatures_of_the_allowed_openai_releases(server: FakeChatServer) -> None:
    """openai's raw `post` with `content=` (2.15 and later) and without it (1.55.3 ... 2.14):
    the same episode, the same requests. Neither path imports an HTTP library of its own."""
    script = oracle_script(DEMO, seed=0)

    def play(client: Any = None) -> tuple[Any, list[dict]]:
        replies = iter(script)
        server.script = lambda req: (200, completion(next(replies)))
        server.requests.clear()
        kwargs = {"client": client} if client is not None else {}
        agent = AsyncOpenAIChatAgent("fake-model", server.base_url, "k", timeout=10, retry_backoff=0.0, **kwargs)

        async def run() -> Any:
            try:
                return await run_episode_async(gym.make(DEMO), agent, seed=0)
            finally:
                if client is not None:
                    await client.close()

        return asyncio.run(run()), list(server.requests)

    new, new_requests = play()  # whichever signature the installed openai has
    old_client = PostWithoutContent(openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0))
    old, old_requests = play(old_client)
    assert new.score == old.score == 100.0 and old_client.calls == len(script)
    assert new_requests == old_requests and new.messages == old.messages
    assert {t["function"]["name"] for t in old_requests[0]["tools"]} >= {"email__get_emails"}


def test_bench_concurrency_passes_and_fails_loudly() -> None:
    """`benchmarks/bench_concurrency.py`: a small run passes with its figures; a dead
    endpoint is a FAIL line and exit code 1, never figures of nothing."""
    bench = [sys.executable, str(REPO / "benchmarks" / "bench_concurrency.py")]
    small = ["--in-flight", "4", "--latency", "0.01", "--episodes", "4", "--min-efficiency", "0"]
    ok = subprocess.run([*bench, *small], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert '"server_requests": 32' in ok.stdout and ok.stdout.strip().splitlines()[-1].startswith("PASS")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    failed = subprocess.run([*bench, *small, "--base-url", dead], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert failed.returncode == 1
    assert failed.stdout.strip().splitlines()[-1].startswith("FAIL: episode 0 (seed 0) failed: APIConnectionError")
