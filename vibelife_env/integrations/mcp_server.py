"""One live VibeLife episode over MCP (streamable HTTP), for any MCP-capable agent harness.

``vibelife serve --env ID`` runs :func:`serve`. The server lists

- every tool of the task under its agent-facing name (``email__send_email``, ...), with the
  same JSON schema the env publishes; a call runs in the open turn, exactly like a tool
  call in ``env.step`` (a failed call returns the service's ``{"error", "code"}`` object
  with ``isError`` set, and changes nothing);
- ``episode__current_event``: the open turn's opening text (message, notification, world
  observation or wake-up), with the virtual time and turn number;
- ``episode__end_turn(reply)``: close the turn with a reply to the user (``""`` = stay
  silent); the world moves on, and the next turn's event comes back (or the final score,
  when the timeline is over);
- ``episode__score``: the final score and per-tier results, once the episode is over
  (grading data stays hidden while it runs).

The MCP ``instructions`` carry the env's system prompt. The server binds to 127.0.0.1 by
default; one process serves one episode (restart it, or use ``--seed``, for another).

The tool handlers call the engine synchronously inside the event loop, so calls from
several clients are applied one at a time, in arrival order.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from vibelife_env.integrations import serving
from vibelife_env.integrations.session import END_TURN_DOC, EpisodeSession

CURRENT_EVENT = "episode__current_event"
END_TURN = "episode__end_turn"
SCORE = "episode__score"

_CONTROL_TOOLS: list[dict[str, Any]] = [
    {
        "name": CURRENT_EVENT,
        "description": "Read the event that opened the current turn (what the user or the world just said), "
        "with the virtual time and the turn number.",
        "input_schema": {"type": "object", "properties": {}, "required": []},
        "read_only": True,
    },
    {
        "name": END_TURN,
        "description": END_TURN_DOC,
        "input_schema": {
            "type": "object",
            "properties": {"reply": {"type": "string", "description": "Your reply to the user; empty to stay silent."}},
            "required": ["reply"],
        },
        "read_only": False,
    },
    {
        "name": SCORE,
        "description": "The episode's final score (0-100) and its results by tier; available once the episode is over.",
        "input_schema": {"type": "object", "properties": {}, "required": []},
        "read_only": True,
    },
]


class EpisodeService:
    """The MCP-independent logic of the server: tool list and call dispatch over one session.

    Args:
        session: The episode (started here with ``seed``).
        seed: Reset seed.
    """

    def __init__(self, session: EpisodeSession, seed: int = 0) -> None:
        self.session = session
        self.seed = seed
        session.start(seed)
        self._read_only = set(session.env.read_only_tools())

    def tool_specs(self) -> list[dict[str, Any]]:
        """Name, description, input schema and read-only flag of every tool served."""
        specs = [
            {
                "name": t["function"]["name"],
                "description": t["function"].get("description", ""),
                "input_schema": t["function"].get("parameters") or {"type": "object", "properties": {}},
                "read_only": t["function"]["name"] in self._read_only,
            }
            for t in self.session.tools
        ]
        return specs + _CONTROL_TOOLS

    def status(self) -> dict[str, Any]:
        """Where the episode is (no grading data)."""
        info = self.session.agent_info
        out: dict[str, Any] = {
            "time": info.get("time"),
            "turn": self.session.turn,
            "episode_over": self.session.done,
        }
        if self.session.done:
            out["final_score"] = self.session.score
            out["truncated"] = self.session.truncated
        else:
            out["event_id"] = info.get("event_id")
            out["event_kind"] = info.get("event_kind")
            out["event"] = self.session.event or ""
        return out

    def final(self) -> dict[str, Any]:
        """The final score and per-tier pass rates.

        Raises:
            ValueError: the episode is still running.
        """
        if not self.session.done:
            raise ValueError("the score is available once the episode is over; end the remaining turns first")
        tiers: dict[str, dict[str, float]] = {}
        for c in self.session.env.scorer.results.values():
            row = tiers.setdefault(c.tier, {"checks": 0, "passed": 0, "weight": 0.0, "earned": 0.0})
            row["checks"] += 1
            row["weight"] += c.weight
            if c.passed:
                row["passed"] += 1
                row["earned"] += c.weight
        return {"score": self.session.score, "truncated": self.session.truncated, "tiers": tiers}

    def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[Any, bool]:
        """Run one tool; ``(result, is_error)``."""
        arguments = dict(arguments or {})
        try:
            if name == CURRENT_EVENT:
                return self.status(), False
            if name == SCORE:
                return self.final(), False
            if name == END_TURN:
                reply = arguments.get("reply", "")
                if not isinstance(reply, str):
                    raise ValueError(f"reply must be a string, got {type(reply).__name__}")
                self.session.end_turn(reply)
                return self.status(), False
            result = self.session.call(name, arguments)
        except (RuntimeError, ValueError, TypeError) as exc:
            return {"error": str(exc), "code": "EPISODE_STATE" if isinstance(exc, RuntimeError) else "BAD_ARG"}, True
        failed = isinstance(result, dict) and "error" in result and "code" in result
        return result, failed


def build_server(service: EpisodeService, name: str = "vibelife") -> Any:
    """A low-level ``mcp.server.Server`` over ``service``.

    Raises:
        ImportError: ``mcp`` is not installed (``pip install 'vibelife-env[mcp]'``).
    """
    try:
        import mcp_types as types
        from mcp.server import Server
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("MCP serving needs the mcp package: pip install 'vibelife-env[mcp]'") from exc

    tools = [
        types.Tool(
            name=s["name"],
            description=s["description"],
            input_schema=s["input_schema"],
            annotations=types.ToolAnnotations(read_only_hint=s["read_only"]),
        )
        for s in service.tool_specs()
    ]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        result, failed = service.call(params.name, params.arguments)
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
        structured = result if isinstance(result, dict) else None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=structured, is_error=failed
        )

    from vibelife_env.env import VERSION

    return Server(
        name,
        version=VERSION,
        instructions=service.session.system_prompt,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


class ServerHandle:
    """A running server: its URL, and :meth:`stop`."""

    def __init__(self, server: Any, url: str) -> None:
        self._server = server
        self.url = url

    def stop(self) -> None:
        """Ask the server to shut down (returns at once)."""
        self._server.should_exit = True


def uvicorn_server(service: EpisodeService, host: str = "127.0.0.1", port: int = 0, path: str = "/mcp") -> Any:
    """A ``uvicorn.Server`` for the streamable HTTP app (not started; see
    :func:`vibelife_env.integrations.serving.uvicorn_server`)."""
    app = build_server(service).streamable_http_app(streamable_http_path=path, host=host)
    return serving.uvicorn_server(app, host, port)


@contextlib.asynccontextmanager
async def running(service: EpisodeService, host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[ServerHandle]:
    """Serve ``service`` in this event loop for the duration of the block (tests, embedding)."""
    import asyncio

    server = uvicorn_server(service, host, port)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # re-raise the start-up failure
        await asyncio.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    handle = ServerHandle(server, f"http://{serving.url_host(host)}:{bound}/mcp")
    try:
        yield handle
    finally:
        handle.stop()
        await task


def serve(env_id: str, seed: int = 0, host: str = "127.0.0.1", port: int = 8765, **env_kwargs: Any) -> dict[str, Any]:
    """Serve one episode until interrupted (SIGINT/SIGTERM); the status at shutdown.

    Raises:
        ValueError: unknown env id.
        OSError: the address cannot be bound.
    """
    service = EpisodeService(EpisodeSession(env_id, **env_kwargs), seed)
    port = serving.check_port(host, port)
    server = uvicorn_server(service, host, port)
    import sys

    print(
        f"serving {env_id} (seed {seed}) over MCP at http://{serving.url_host(host)}:{port}/mcp "
        f"({len(service.tool_specs())} tools); Ctrl-C to stop",
        file=sys.stderr,
        flush=True,
    )
    server.run()
    return service.status()
