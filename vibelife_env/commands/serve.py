"""``vibelife serve``: a live episode for agent harnesses and trainers, on this machine.

``--protocol mcp`` (default): one episode over MCP, streamable HTTP at ``/mcp`` (see
:mod:`vibelife_env.integrations.mcp_server`). ``--protocol openenv``: OpenEnv's HTTP and
WebSocket protocol, one episode per client session (see
:mod:`vibelife_env.integrations.openenv`). Binds to 127.0.0.1 unless ``--host`` says
otherwise; Ctrl-C (or SIGTERM) stops it cleanly.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import sys

import gymnasium as gym

import vibelife_env


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", required=True, help="environment id (see `vibelife list`)")
    p.add_argument("--seed", type=int, default=0, help="reset seed of the episode (default 0)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="TCP port (default 8765; 0 picks a free one)")
    p.add_argument("--protocol", choices=("mcp", "openenv"), default="mcp", help="mcp (default) or openenv")
    p.add_argument("--sessions", type=int, default=64, help="openenv: concurrent sessions (default 64)")
    p.add_argument("--bundles", default=None, help="also register the bundles under this directory")


def main(args: argparse.Namespace) -> int:
    if args.bundles:
        vibelife_env.register_bundles(args.bundles)
    if args.env not in gym.registry:
        raise SystemExit(f"unknown env id {args.env!r}; registered: {', '.join(vibelife_env.registered_ids())}")
    if not 0 <= args.port <= 65535:
        raise SystemExit(f"--port must be in 0..65535, got {args.port}")
    extra = "mcp" if args.protocol == "mcp" else "openenv"
    try:
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
    if not loopback:
        print(
            f"warning: binding {args.host}: the episode (and its tools) are reachable from other machines",
            file=sys.stderr,
        )
    try:
        if args.protocol == "mcp":
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
    print(
        f"serving {env_id} over OpenEnv at http://{serving.url_host(host)}:{port} "
        f"(WebSocket /ws, HTTP /reset /step /state; {sessions} sessions); Ctrl-C to stop",
        file=sys.stderr,
        flush=True,
    )
    server.run()
