"""`vibelife serve`: live episodes over MCP (streamable HTTP and stdio), driven with the mcp client."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

import vibelife_env  # noqa: F401
from vibelife_env.agents import make_agent
from vibelife_env.integrations.mcp_server import EpisodeService, running
from vibelife_env.integrations.session import EpisodeSession

DEMO = "VibeLife-demo-errands-v0"
REPO = Path(__file__).resolve().parents[2]


async def play_oracle(client: Client, env_id: str) -> dict[str, Any]:
    """The task's oracle, seeing only what MCP returns; the final status."""
    oracle = make_agent("oracle", gym.make(env_id).unwrapped.task)
    tools = (await client.list_tools()).tools
    status = (await client.call_tool("episode__current_event", {})).structured_content
    info = {"tools": [t.name for t in tools], "system_prompt": client.instructions, **status}
    oracle.reset(info)
    obs = {
        "messages": [{"role": "system", "content": client.instructions}, {"role": "user", "content": status["event"]}]
    }
    while True:
        action = oracle.act(obs, info)
        messages = []
        for i, call in enumerate(action.get("tool_calls") or []):
            args = call["arguments"] if isinstance(call["arguments"], dict) else json.loads(call["arguments"])
            result = await client.call_tool(call["name"], args)
            messages.append(
                {"role": "tool", "content": result.content[0].text, "name": call["name"], "tool_call_id": str(i)}
            )
        if action.get("reply") is None:
            obs = {"messages": messages}
            continue
        status = (await client.call_tool("episode__end_turn", {"reply": action["reply"]})).structured_content
        if status["episode_over"]:
            return status
        info = {**info, **status}
        obs = {"messages": [*messages, {"role": "user", "content": status["event"]}]}


@pytest.mark.parametrize("env_id", [DEMO, "VibeLife-travel-japan-v0"])
def test_oracle_scores_100_through_mcp(env_id: str) -> None:
    async def main() -> tuple[dict, Any]:
        async with running(EpisodeService(EpisodeSession(env_id), seed=0)) as server, Client(server.url) as client:
            assert "assistant" in (client.instructions or "")
            status = await play_oracle(client, env_id)
            score = await client.call_tool("episode__score", {})
            return status, score

    status, score = asyncio.run(main())
    assert status["episode_over"] and status["final_score"] == 100.0
    assert not score.is_error and score.structured_content["score"] == 100.0
    assert set(score.structured_content["tiers"]) >= {"stage", "final"}


def test_tools_errors_and_hidden_score() -> None:
    async def main() -> None:
        service = EpisodeService(EpisodeSession(DEMO), seed=0)
        async with running(service) as server, Client(server.url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            schemas = {t["function"]["name"]: t["function"]["parameters"] for t in service.session.tools}
            assert set(schemas) < set(tools) and {
                "episode__current_event",
                "episode__end_turn",
                "episode__score",
            } < set(tools)
            assert tools["email__read_email"].input_schema == schemas["email__read_email"]
            assert tools["email__get_emails"].annotations.read_only_hint is True
            early = await client.call_tool("episode__score", {})
            assert early.is_error and "once the episode is over" in early.content[0].text
            unknown = await client.call_tool("email__no_such_tool", {})
            assert unknown.is_error and unknown.structured_content["code"]
            bad = await client.call_tool("email__read_email", {"email_id": 12})
            assert bad.is_error
            ok = await client.call_tool("workspace__list_files", {})
            assert not ok.is_error and ok.structured_content["files"]
            bad_reply = await client.call_tool("episode__end_turn", {"reply": 3})
            assert bad_reply.is_error
            status = (await client.call_tool("episode__current_event", {})).structured_content
            assert status["turn"] == 0 and "check_results" not in status and "score" not in json.dumps(status)
            # a new episode in the same server, over HTTP too
            assert (await client.call_tool("episode__end_turn", {"reply": "On it."})).structured_content["turn"] == 1
            again = await client.call_tool("episode__reset", {})
            assert not again.is_error and again.structured_content["turn"] == 0
            assert again.structured_content["episode"] == 2 and again.structured_content["tools_changed"] is False
            for bad in ({"seed": "1"}, {"instance": 1}, {"env_id": "VibeLife-nope-v0"}, {"turn": 2}):
                refused = await client.call_tool("episode__reset", bad)
                assert refused.is_error and refused.structured_content["code"] == "BAD_ARG", bad
            assert service.episodes == 2  # a refused reset leaves the episode alone

    asyncio.run(main())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_cli_serves_loopback_and_stops_cleanly() -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "vibelife_env.cli", "serve", "--env", DEMO, "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        banner = proc.stderr.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", banner)
        assert match, banner
        url = match.group(1)

        async def talk() -> dict:
            for _ in range(100):  # the banner comes just before uvicorn binds
                try:
                    async with Client(url) as client:
                        return (await client.call_tool("episode__current_event", {})).structured_content
                except Exception:
                    await asyncio.sleep(0.1)
            raise AssertionError(f"no MCP server at {url}")

        assert asyncio.run(talk())["turn"] == 0
        with socket.socket() as s:  # loopback only by default
            assert s.connect_ex(("127.0.0.1", port)) == 0
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert '"episode_over": false' in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_cli_errors_are_clear() -> None:
    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "vibelife_env.cli", "serve", *argv], capture_output=True, text=True, timeout=120
        )

    unknown = run("--env", "VibeLife-nope-v0")
    assert unknown.returncode != 0 and "unknown env id 'VibeLife-nope-v0'" in unknown.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = run("--env", DEMO, "--port", str(busy.getsockname()[1]))
    assert taken.returncode != 0 and "pick another --port" in taken.stderr
    bad_host = run("--env", DEMO, "--host", "not-an-address")
    assert bad_host.returncode != 0 and "--host" in bad_host.stderr
    openenv_stdio = run("--env", DEMO, "--protocol", "openenv", "--transport", "stdio")
    assert openenv_stdio.returncode != 0 and "--transport stdio is for --protocol mcp" in openenv_stdio.stderr
    assert time.time()  # keep the imports honest


# ------------------------------------------------------------------------------ stdio
def documented_stdio_entry() -> dict[str, Any]:
    """The ``mcpServers`` entry docs/integrations.md gives for stdio MCP harnesses."""
    text = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(\{\s*\"mcpServers\".*?)```", text, re.S)
    assert block, "no mcpServers example in docs/integrations.md"
    [entry] = json.loads(block.group(1))["mcpServers"].values()
    return entry


def stdio_server(entry: dict[str, Any]) -> StdioServerParameters:
    """The documented entry, run from this checkout (``python -m vibelife_env.cli`` for ``vibelife``)."""
    assert entry["command"] == "vibelife" and entry["args"][0] == "serve" and "--transport" in entry["args"]
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "vibelife_env.cli", *entry["args"]],
        env={**entry.get("env", {}), "PYTHONPATH": path},
        cwd=str(REPO),
    )


def test_stdio_serves_many_episodes_in_one_process(tmp_path: Path) -> None:
    """The documented stdio entry, with the official client spawning it: two oracle episodes,
    budgets as the env states them, then another env id (its tools announced), one process."""
    entry = documented_stdio_entry()
    notes: list[str] = []

    async def on_message(message: Any) -> None:
        notes.append(getattr(message, "method", type(message).__name__))

    async def main() -> dict[str, Any]:
        with (tmp_path / "stderr.log").open("w") as errlog:
            server = stdio_client(stdio_server(entry), errlog=errlog)
            async with Client(server, mode="legacy", message_handler=on_message) as client:
                assert "Limits: at most 30 tool calls per turn" in (client.instructions or "")
                first = await play_oracle(client, DEMO)
                assert (await client.call_tool("episode__score", {})).structured_content["score"] == 100.0
                reset = (await client.call_tool("episode__reset", {"seed": 1})).structured_content
                assert reset["episode"] == 2 and reset["turn"] == 0 and not reset["episode_over"]
                assert reset["seed"] == 1 and reset["tools_changed"] is False and "system_prompt" not in reset
                early = await client.call_tool("episode__score", {})
                assert early.is_error  # a new episode: its score is hidden again
                second = await play_oracle(client, DEMO)

                # the budgets stay the env's: the 31st call of a turn is refused, the turn stays open
                await client.call_tool("episode__reset", {})
                results = [await client.call_tool("workspace__list_files", {}) for _ in range(31)]
                assert not any(r.is_error for r in results[:30]) and "tool_calls_left" in results[29].content[0].text
                assert results[30].is_error and results[30].structured_content["code"] == "TURN_BUDGET"
                status = (await client.call_tool("episode__end_turn", {"reply": "Done for now."})).structured_content
                assert status["turn"] == 1
                assert not (await client.call_tool("workspace__list_files", {})).is_error  # a new turn, a new budget

                other = (
                    await client.call_tool("episode__reset", {"env_id": "VibeLife-travel-japan-v0"})
                ).structured_content
                assert other["env_id"] == "VibeLife-travel-japan-v0" and other["episode"] == 4
                assert other["tools_changed"] is True and "Li Wei" in other["system_prompt"]
                tools = {t.name for t in (await client.list_tools()).tools}
                japan = {t["function"]["name"] for t in EpisodeSession("VibeLife-travel-japan-v0").tools}
                assert japan < tools and "episode__reset" in tools
                await asyncio.sleep(0.2)  # let the notification land
            return {"first": first, "second": second}

    played = asyncio.run(main())
    assert played["first"]["final_score"] == 100.0 and played["second"]["final_score"] == 100.0
    assert "notifications/tools/list_changed" in notes
    log = (tmp_path / "stderr.log").read_text()
    assert log.count("over MCP on stdio") == 1  # one process served all four episodes
    final = json.loads(log.strip().splitlines()[-1])  # it stopped when the client closed stdin
    assert final["episodes"] == 4 and final["turn"] == 0


def test_stdio_stops_on_sigterm_with_stdin_open() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "vibelife_env.cli", "serve", "--env", DEMO, "--transport", "stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert "over MCP on stdio" in proc.stderr.readline()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert proc.stdout.read() == ""  # nothing but protocol messages ever goes to stdout
        assert json.loads(proc.stderr.read().strip().splitlines()[-1])["episodes"] == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
