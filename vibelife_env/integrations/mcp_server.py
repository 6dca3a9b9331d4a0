"""Live VibeLife episodes over MCP (streamable HTTP or stdio), for any MCP-capable agent harness.

``vibelife serve --env ID`` runs :func:`serve` (streamable HTTP at ``/mcp``);
``vibelife serve --env ID --transport stdio`` runs :func:`serve_stdio`, for harnesses that
launch their MCP servers as subprocesses. The server lists

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
  (grading data stays hidden while it runs);
- ``episode__reset(env_id?, instance?, seed?)``: start a new episode, so one server process
  serves many: of another env id (default: the current one), of a scenario family's
  instance (default: the one the seed picks), with another seed (default: the server's
  ``--seed``). The current episode, finished or not, is dropped. When the new
  episode's tools differ, the server sends ``notifications/tools/list_changed`` and the
  result says ``tools_changed``; when its system prompt differs from the MCP
  ``instructions``, the result carries it (``system_prompt``).

The MCP ``instructions`` carry the env's system prompt. Tool-call budgets are the env's:
stated in the system prompt, soft (a call over budget comes back as a ``TURN_BUDGET`` or
``EPISODE_BUDGET`` error and changes nothing), and counted afresh by every reset. The HTTP
server binds to 127.0.0.1 by default.

The tool handlers call the engine synchronously inside the event loop, so calls from
several clients are applied one at a time, in arrival order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import stat
import sys
from collections.abc import AsyncIterator
from typing import Any

from vibelife_env.integrations import serving
from vibelife_env.integrations.session import END_TURN_DOC, EpisodeSession

CURRENT_EVENT = "episode__current_event"
END_TURN = "episode__end_turn"
SCORE = "episode__score"
RESET = "episode__reset"

logger = logging.getLogger(__name__)

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
    {
        "name": RESET,
        "description": "Start a new episode, dropping the current one (finished or not). Every argument is "
        "optional: env_id (another registered VibeLife env id; default: the current one), instance (a scenario "
        "family's instance, 0-3 on its test split; default: the one the seed picks) and seed (the reset seed; "
        "default: the server's). Returns the new episode's first event, like episode__current_event; "
        "tools_changed says the tool list changed (list the tools again), and system_prompt comes back when it "
        "differs from the server's instructions.",
        "input_schema": {
            "type": "object",
            "properties": {
                "env_id": {"type": "string", "description": "A registered VibeLife env id (default: the current one)."},
                "instance": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "A scenario family's instance (test split: 0-3); families only.",
                },
                "seed": {"type": "integer", "description": "The reset seed (default: the server's)."},
            },
            "required": [],
        },
        "read_only": False,
    },
]


class EpisodeService:
    """The MCP-independent logic of the server: tool list and call dispatch over the live
    episode, and :meth:`reset` to start another.

    Args:
        session: The episode (started here with ``seed``).
        seed: Reset seed; also the default of :meth:`reset`.
    """

    def __init__(self, session: EpisodeSession, seed: int = 0) -> None:
        self.session = session
        self.seed = seed
        self.instructions = session.system_prompt  # what MCP clients are told at connection
        self.episodes = 0
        self._start(session, seed, None)

    def _start(self, session: EpisodeSession, seed: int, instance: int | None) -> None:
        session.start(seed, instance=instance)
        self.session = session
        self.episodes += 1
        self.episode_seed = seed
        self._read_only = set(session.env.read_only_tools())
        self._specs = [
            {
                "name": t["function"]["name"],
                "description": t["function"].get("description", ""),
                "input_schema": t["function"].get("parameters") or {"type": "object", "properties": {}},
                "read_only": t["function"]["name"] in self._read_only,
            }
            for t in session.tools
        ]

    def tool_specs(self) -> list[dict[str, Any]]:
        """Name, description, input schema and read-only flag of every tool served."""
        return self._specs + _CONTROL_TOOLS

    def reset(self, env_id: str | None = None, instance: int | None = None, seed: int | None = None) -> dict[str, Any]:
        """Start a new episode (see ``episode__reset`` in the module docstring); its status.

        Raises:
            ValueError: an unknown env id, an instance for a single task or out of range, or
                an argument of the wrong type (the current episode then goes on).
        """
        for name, value, kind in (("env_id", env_id, str), ("instance", instance, int), ("seed", seed, int)):
            if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
                raise ValueError(f"{name} must be {'a string' if kind is str else 'an integer'}, got {value!r}")
        if instance is not None and instance < 0:
            raise ValueError(f"instance must be >= 0, got {instance}")
        before = self.tool_specs()
        session = self.session
        if env_id is not None and env_id != session.env_id:
            session = EpisodeSession(env_id)  # ValueError on an unknown id, before anything changes
        if instance is not None and not session.is_family:
            raise ValueError(f"{session.env_id} is a single task: instance is for scenario families")
        self._start(session, self.seed if seed is None else seed, instance)
        out = self.status()
        out["env_id"] = session.env_id
        out["seed"] = self.episode_seed
        where = session.last_info.get("instance")
        if isinstance(where, dict):
            out["instance"] = where.get("index")
        out["episode"] = self.episodes
        out["tools_changed"] = self.tool_specs() != before
        if session.system_prompt != self.instructions:
            out["system_prompt"] = session.system_prompt
        return out

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
            if name == RESET:
                unknown = sorted(set(arguments) - {"env_id", "instance", "seed"})
                if unknown:
                    raise ValueError(f"{RESET} takes env_id, instance and seed; unknown: {', '.join(unknown)}")
                return self.reset(arguments.get("env_id"), arguments.get("instance"), arguments.get("seed")), False
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

    listed: list[Any] = [None, []]  # [the episode they were built for, the Tool objects]

    def tools() -> list[Any]:
        if listed[0] != service.episodes:  # a reset may have changed them
            listed[:] = [
                service.episodes,
                [
                    types.Tool(
                        name=s["name"],
                        description=s["description"],
                        input_schema=s["input_schema"],
                        annotations=types.ToolAnnotations(read_only_hint=s["read_only"]),
                    )
                    for s in service.tool_specs()
                ],
            ]
        return listed[1]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools())

    async def call_tool(ctx: Any, params: Any) -> Any:
        result, failed = service.call(params.name, params.arguments)
        if params.name == RESET and not failed and result.get("tools_changed"):
            await _tools_changed(ctx)
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


async def _tools_changed(ctx: Any) -> None:
    """Tell the client its tool list changed (best effort: the result says so too)."""
    send = getattr(getattr(ctx, "session", None), "send_tool_list_changed", None)
    if send is None:
        return
    try:
        await send()
    except Exception as exc:  # a transport or protocol era without a channel for it
        logger.debug("tools/list_changed not sent: %s", exc)


def initialization_options(server: Any) -> Any:
    """The server's initialization options, announcing ``tools.listChanged``."""
    from mcp.server.lowlevel import NotificationOptions

    return server.create_initialization_options(NotificationOptions(tools_changed=True))


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
    """Serve episodes of ``env_id`` over streamable HTTP until interrupted (SIGINT/SIGTERM);
    the status at shutdown.

    Raises:
        ValueError: unknown env id.
        OSError: the address cannot be bound.
    """
    service = EpisodeService(EpisodeSession(env_id, **env_kwargs), seed)
    port = serving.check_port(host, port)
    server = uvicorn_server(service, host, port)
    print(
        f"serving {env_id} (seed {seed}) over MCP at http://{serving.url_host(host)}:{port}/mcp "
        f"({len(service.tool_specs())} tools); Ctrl-C to stop",
        file=sys.stderr,
        flush=True,
    )
    server.run()
    return {**service.status(), "episodes": service.episodes}


class _StdinLines:
    """The lines of the process's stdin, read on the event loop.

    ``mcp``'s own stdin reader blocks a worker thread, which a signal cannot interrupt; this
    one is cancellable, so SIGINT/SIGTERM stop the server even while the client keeps the
    pipe open.
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _StdinLines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


async def _stdin_lines() -> _StdinLines | None:
    """stdin as :class:`_StdinLines` when it is a pipe or a socket (as MCP clients give it),
    else ``None`` (a file, a terminal, ``/dev/null``): then ``mcp`` reads it its own way."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)  # one JSON-RPC message per line, tool arguments included
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    except (ValueError, OSError):
        return None
    return _StdinLines(reader)


async def serve_stdio_async(service: EpisodeService) -> None:
    """Serve ``service`` over this process's stdin/stdout until the client closes stdin.

    While it runs, stray writes to stdout go to stderr (``mcp`` holds the descriptor), so
    only protocol messages reach the client.
    """
    from mcp.server.stdio import stdio_server

    server = build_server(service)
    stdin: Any = await _stdin_lines()
    async with stdio_server(stdin=stdin) as (read, write):
        await server.run(read, write, initialization_options(server))


def serve_stdio(env_id: str, seed: int = 0, **env_kwargs: Any) -> dict[str, Any]:
    """Serve episodes of ``env_id`` over stdio (the MCP client launched this process) until
    the client closes stdin or a SIGINT/SIGTERM; the status at shutdown.

    Raises:
        ValueError: unknown env id.
    """
    service = EpisodeService(EpisodeSession(env_id, **env_kwargs), seed)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
                loop.add_signal_handler(sig, task.cancel)
        print(  # once a signal stops it cleanly
            f"serving {env_id} (seed {seed}) over MCP on stdio ({len(service.tool_specs())} tools); "
            "the client stops it by closing stdin",
            file=sys.stderr,
            flush=True,
        )
        with contextlib.suppress(asyncio.CancelledError):
            await serve_stdio_async(service)

    asyncio.run(main())
    return {**service.status(), "episodes": service.episodes}
