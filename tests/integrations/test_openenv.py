"""OpenEnv: a VibeLife server on loopback and its client, round trip over WebSocket and HTTP."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
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


async def leave_without_closing(url: str, say_close: bool = False) -> int:
    """A client that resets, then drops the connection with no close frame (as when its
    process exits or the network goes): the server sees a WebSocketDisconnect. With
    ``say_close`` it sends the protocol's close message first (a client that closed, then
    hung up before the server's own close went out)."""
    client = VibeLifeEnvClient(base_url=url)
    await client.connect()
    turn = (await client.reset(seed=0)).observation.turn
    if say_close:
        await client._send({"type": "close"})
    client._ws.transport.abort()
    client._ws = None  # nothing left to close
    return turn


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_client_gone_without_closing_ends_its_session_quietly() -> None:
    """One session slot: a client that goes away mid-episode without closing costs one log
    line (no traceback) and frees the slot for the next client."""
    ours, uvicorns = Records(), Records()
    adapter = logging.getLogger("vibelife_env.integrations.openenv")
    level = adapter.level
    adapter.setLevel(logging.INFO)
    adapter.addHandler(ours)
    logging.getLogger("uvicorn.error").addHandler(uvicorns)
    server = uvicorn.Server(
        uvicorn.Config(create_app(DEMO, max_sessions=1), host="127.0.0.1", port=0, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.time() + 60
        while not server.started:
            assert time.time() < deadline and thread.is_alive(), "the OpenEnv server did not start"
            time.sleep(0.05)
        url = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
        assert asyncio.run(leave_without_closing(url)) == 0
        deadline = time.time() + 30
        while not ours.records:
            assert time.time() < deadline, "no log line for the session that ended"
            time.sleep(0.05)
        # the only slot is free again: a new client plays on it, and closes properly
        with VibeLifeEnvClient(base_url=url).sync() as client:
            result = client.reset(seed=0)
            assert result.observation.turn == 0 and not result.done
            result = client.step(VibeLifeAction(tool_calls=[{"name": "workspace__list_files", "arguments": {}}]))
            assert result.observation.messages[0]["role"] == "tool"
        # closed, then gone at once: a normal end, no line (the slot must be free for it)
        deadline = time.time() + 30
        while True:
            try:
                assert asyncio.run(leave_without_closing(url, say_close=True)) == 0
                break
            except Exception:  # the proper close above may still be freeing the slot
                assert time.time() < deadline
                time.sleep(0.1)
        time.sleep(0.5)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        adapter.removeHandler(ours)
        adapter.setLevel(level)
        logging.getLogger("uvicorn.error").removeHandler(uvicorns)
    [line] = [r.getMessage() for r in ours.records]  # one line, for the client that left
    assert "disconnected without closing" in line and "episode is dropped" in line
    assert all(r.exc_info is None for r in ours.records)
    assert not [r.getMessage() for r in uvicorns.records if r.levelno >= logging.WARNING]  # no traceback


def test_serve_prints_the_session_lines() -> None:
    from vibelife_env.commands import serve

    adapter = logging.getLogger("vibelife_env.integrations.openenv")
    before = (list(adapter.handlers), adapter.level, adapter.propagate)
    try:
        serve._log_sessions_to_stderr()
        assert adapter.isEnabledFor(logging.INFO)
        assert any(isinstance(h, logging.StreamHandler) and h.stream is sys.stderr for h in adapter.handlers)
    finally:
        adapter.handlers[:] = before[0]
        adapter.setLevel(before[1])
        adapter.propagate = before[2]
