"""``vibelife serve``: live episodes for agent harnesses and trainers, on this machine.

``--protocol mcp`` (default): episodes over MCP (see
:mod:`vibelife_env.integrations.mcp_server`), on streamable HTTP at ``/mcp`` (default) or,
with ``--transport stdio``, on this process's stdin/stdout for harnesses that launch their
MCP servers; ``episode__reset`` starts the next episode in the same process.
``--protocol openenv``: OpenEnv's HTTP and WebSocket protocol, one episode per client
session (see :mod:`vibelife_env.integrations.openenv`). HTTP binds to 127.0.0.1 unless
``--host`` says otherwise; Ctrl-C (or SIGTERM) stops it cleanly, and so does a stdio
client closing stdin.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import logging
import sys

import gymnasium as gym

import vibelife_env


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", required=True, help="environment id (see `vibelife list`)")
    p.add_argument("--seed", type=int, default=0, help="reset seed of the episode (default 0)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="TCP port (default 8765; 0 picks a free one)")
    p.add_argument("--protocol", choices=("mcp", "openenv"), default="mcp", help="mcp (default) or openenv")
    p.add_argument(
        "--transport",
        choices=("streamable-http", "stdio"),
        default="streamable-http",
        help="mcp: streamable-http (default; --host/--port) or stdio (the MCP client launches this command)",
    )
    p.add_argument("--sessions", type=int, default=64, help="openenv: concurrent sessions (default 64)")
    p.add_argument("--bundles", default=None, help="also register the bundles under this directory")


def main(args: argparse.Namespace) -> int:
    if args.bundles:
        vibelife_env.register_bundles(args.bundles)
    if args.env not in gym.registry:
        raise SystemExit(f"unknown env id {args.env!r}; registered: {', '.join(vibelife_env.registered_ids())}")
    if not 0 <= args.port <= 65535:
        raise SystemExit(f"--port must be in 0..65535, got {args.port}")
    stdio = args.transport == "stdio"
    if stdio and args.protocol != "mcp":
        raise SystemExit("--transport stdio is for --protocol mcp; OpenEnv serves over HTTP and WebSocket")
    extra = "mcp" if args.protocol == "mcp" else "openenv"
    try:
        if not stdio:
            import uvicorn  # noqa: F401
        if args.protocol == "mcp":
            import mcp  # noqa: F401
        else:
            import openenv.core  # noqa: F401
    except ImportError as exc:
        raise SystemExit(
            f"vibelife serve --protocol {args.protocol} needs: pip install 'vibelife-env[{extra}]' ({exc})"
        ) from None
    try:
        loopback = args.host == "localhost" or ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        raise SystemExit(f"--host must be an IP address or localhost, got {args.host!r}") from None
    if not loopback and not stdio:
        print(
            f"warning: binding {args.host}: the episode (and its tools) are reachable from other machines",
            file=sys.stderr,
        )
    try:
        if args.protocol == "mcp" and stdio:
            from vibelife_env.integrations.mcp_server import serve_stdio

            status = serve_stdio(args.env, seed=args.seed)
            print(json.dumps(status, ensure_ascii=False), file=sys.stderr, flush=True)
        elif args.protocol == "mcp":
            from vibelife_env.integrations.mcp_server import serve

            status = serve(args.env, seed=args.seed, host=args.host, port=args.port)
            print(json.dumps(status, ensure_ascii=False), file=sys.stderr)
        else:
            serve_openenv(args.env, args.host, args.port, args.sessions)
    except OSError as exc:
        raise SystemExit(str(exc)) from None  # the CLI prefixes "vibelife serve: error:"
    return 0


def serve_openenv(env_id: str, host: str, port: int, sessions: int) -> None:
    """Serve ``env_id`` over OpenEnv until interrupted."""
    from vibelife_env.integrations import serving
    from vibelife_env.integrations.openenv import create_app

    if sessions < 1:
        raise SystemExit(f"--sessions must be >= 1, got {sessions}")
    port = serving.check_port(host, port)
    server = serving.uvicorn_server(create_app(env_id, max_sessions=sessions), host, port)
    _log_sessions_to_stderr()
    print(
        f"serving {env_id} over OpenEnv at http://{serving.url_host(host)}:{port} "
        f"(WebSocket /ws, HTTP /reset /step /state; {sessions} sessions); Ctrl-C to stop",
        file=sys.stderr,
        flush=True,
    )
    server.run()


def _log_sessions_to_stderr() -> None:
    """The OpenEnv adapter's session lines (a client that left without closing) on stderr."""
    log = logging.getLogger("vibelife_env.integrations.openenv")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
