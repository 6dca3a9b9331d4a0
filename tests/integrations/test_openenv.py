"""OpenEnv: a VibeLife server on loopback and its client, round trip over WebSocket and HTTP."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator

import gymnasium as gym
import pytest

pytest.importorskip("openenv.core")
uvicorn = pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from vibelife_env.agents import make_agent  # noqa: E402
from vibelife_env.integrations.openenv import VibeLifeAction, VibeLifeEnvClient, create_app  # noqa: E402

DEMO = "VibeLife-demo-errands-v0"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    server = uvicorn.Server(
        uvicorn.Config(create_app(DEMO, max_sessions=4), host="127.0.0.1", port=0, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 60
    while not server.started:
        assert time.time() < deadline and thread.is_alive(), "the OpenEnv server did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=30)


def as_action(action: dict) -> VibeLifeAction:
    calls = [
        {
            "name": c["name"],
            "arguments": c["arguments"] if isinstance(c["arguments"], dict) else json.loads(c["arguments"]),
        }
        for c in action.get("tool_calls") or []
    ]
    return VibeLifeAction(tool_calls=calls, reply=action.get("reply"))


def test_oracle_episode_round_trip(server_url: str) -> None:
    oracle = make_agent("oracle", gym.make(DEMO).unwrapped.task)
    with VibeLifeEnvClient(base_url=server_url).sync() as env:
        result = env.reset(seed=0)
        obs = result.observation
        assert obs.system_prompt and obs.tools and obs.tools[0]["type"] == "function"
        assert obs.messages[-1]["role"] == "user" and obs.turn == 0 and not result.done
        info = {"tools": obs.tools, "system_prompt": obs.system_prompt, "event_id": obs.event_id, "turn": obs.turn}
        oracle.reset(info)
        rewards = []
        while not result.done:
            action = oracle.act({"messages": obs.messages}, {**info, "event_id": obs.event_id, "turn": obs.turn})
            result = env.step(as_action(action))
            obs = result.observation
            rewards.append(result.reward)
            assert env.state().score is None or result.done  # the score appears only at the end
        state = env.state()
    assert state.done and state.score == 100.0 and abs(sum(rewards) - 1.0) < 1e-9
    assert state.task_id and state.env_id == DEMO and state.step_count == len(rewards)


def test_turn_indexed_reset_and_http_endpoints(server_url: str) -> None:
    async def main() -> None:
        async with VibeLifeEnvClient(base_url=server_url) as env:
            result = await env.reset(seed=0, turn=2, prefix="oracle")
            assert result.observation.turn == 2 and result.observation.messages[-1]["role"] == "user"
            result = await env.step(VibeLifeAction(tool_calls=[{"name": "workspace__list_files", "arguments": {}}]))
            tool = result.observation.messages[0]
            assert tool["role"] == "tool" and "files" in json.loads(tool["content"]) and not result.done

    asyncio.run(main())
    health = httpx.get(f"{server_url}/health", timeout=30)
    assert health.status_code == 200
    reset = httpx.post(f"{server_url}/reset", json={"seed": 1}, timeout=60).json()
    assert reset["observation"]["messages"] and reset["done"] is False
