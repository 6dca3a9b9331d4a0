"""Running an ASGI app on uvicorn for ``vibelife serve``: port checks and a clean shutdown."""

from __future__ import annotations

import signal
import socket
from typing import Any


def check_port(host: str, port: int) -> int:
    """Fail early, with a clear message, when ``host:port`` cannot be bound; the port
    (a free one when ``port`` is 0).

    Raises:
        OSError: the address is in use or not available here.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise OSError(
                f"cannot listen on {host}:{port} ({exc.strerror}); pick another --port (0 picks a free one)"
            ) from None
        return int(sock.getsockname()[1])


def uvicorn_server(app: Any, host: str = "127.0.0.1", port: int = 0) -> Any:
    """A ``uvicorn.Server`` for ``app`` (not started).

    SIGINT/SIGTERM shut it down gracefully and ``run()`` then returns normally (uvicorn's
    default re-raises the signal after shutdown, which kills the process); a second SIGINT
    forces the exit.
    """
    import uvicorn

    class _Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            self.should_exit = True

    return _Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))


def url_host(host: str) -> str:
    """``host`` as it goes in a URL (IPv6 in brackets)."""
    return f"[{host}]" if ":" in host else host
