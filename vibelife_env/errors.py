"""Exceptions a user of the environment can cause, each naming what was wrong."""

from __future__ import annotations

from pathlib import Path


class VibeLifeError(Exception):
    """Base class of every error raised by ``vibelife_env``."""


class ToolError(VibeLifeError):
    """Raised inside a tool to refuse a call; becomes ``{"error", "code"}`` for the agent.

    Args:
        code: A stable upper-case error code, e.g. ``"EMAIL_NOT_FOUND"``.
        message: A human-readable sentence naming the offending value.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def as_result(self) -> dict[str, str]:
        """The error object returned to the agent."""
        return {"error": self.message, "code": self.code}


class TaskLoadError(VibeLifeError):
    """A task bundle is malformed.

    Args:
        path: The file (or directory) that is wrong.
        field: Dotted path of the offending field inside that file, or ``""``.
        message: What was expected.
    """

    def __init__(self, path: str | Path, field: str, message: str) -> None:
        self.path = str(path)
        self.field = field
        self.message = message
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(f"{where}: {message}")


class ActionError(VibeLifeError, ValueError):
    """An action passed to ``step()`` does not have an accepted shape."""


class MutationError(VibeLifeError):
    """A timeline mutation could not be applied or its postconditions failed."""
