"""Scripted agents (oracles) written as one generator per turn-opening event.

A handler is a method ``on_<event_id>(self, event_text)`` that yields actions and receives
the tool results of each yielded call batch (a wake-up the agent scheduled itself opens
``on_wakeup_<id>``, or ``on_wakeup`` when there is no handler for that id)::

    class Oracle(ScriptedAgent):
        def on_S0_user_request(self, text):
            page = yield self.call("email__search_emails", query="slot")
            yield self.reply("Booked Wednesday 15:30.")

``yield self.call(...)`` (one call) receives that call's parsed result; ``yield
self.calls([...])`` receives a list. A handler that returns without replying closes the
turn silently; events without a handler get a silent reply. Oracles use only
agent-facing tools, so what they prove solvable is solvable by an agent.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from vibelife_env.actions import tool_result

Handler = Generator[dict[str, Any], Any, None]


class ScriptedAgent:
    """Base class of generator-scripted policies; see the module docstring."""

    name = "scripted"

    def __init__(self) -> None:
        self._gen: Handler | None = None
        self._single = False
        self._event_id: str | None = None
        self.memory: dict[str, Any] = {}

    # ------------------------------------------------------------ action helpers
    @staticmethod
    def call(name: str, /, **arguments: Any) -> dict[str, Any]:
        """An action with one tool call (the turn stays open); ``name`` is positional-only, so
        a tool's own ``name`` argument (e.g. ``banking__add_payee``) can be passed."""
        return {"tool_calls": [{"name": name, "arguments": arguments}], "reply": None, "_single": True}

    @staticmethod
    def calls(batch: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        """An action with several tool calls (the turn stays open)."""
        return {"tool_calls": [{"name": n, "arguments": a} for n, a in batch], "reply": None}

    @staticmethod
    def reply(text: str) -> dict[str, Any]:
        """An action that closes the turn with ``text`` (``""`` = silence)."""
        return {"tool_calls": [], "reply": text}

    # ------------------------------------------------------------------ protocol
    def reset(self, info: dict[str, Any]) -> None:
        """Forget the previous episode."""
        self._gen = None
        self._event_id = None
        self.memory = {}

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Advance the current event's handler, starting a new one when a new turn opens."""
        event_id = info.get("event_id")
        results = [_parse(m["content"]) for m in observation.get("messages", ()) if m.get("role") == "tool"]
        if event_id != self._event_id or self._gen is None:
            self._event_id = event_id
            text = "\n".join(m["content"] for m in observation.get("messages", ()) if m.get("role") == "user")
            handler = getattr(self, f"on_{event_id}", None)
            if handler is None and str(event_id).startswith("wakeup_"):
                handler = getattr(self, "on_wakeup", None)  # any wake-up the agent scheduled itself
            if handler is None:
                self._gen = None
                return self.reply("")
            self._gen = handler(text)
            return self._next(None)
        return self._next(results[0] if self._single and results else results)

    def _next(self, value: Any) -> Any:
        assert self._gen is not None
        try:
            action = self._gen.send(value) if value is not None else next(self._gen)
        except StopIteration:
            self._gen = None
            return self.reply("")
        self._single = bool(action.pop("_single", False))
        if action.get("reply") is not None:
            self._gen = None
        return action


def _parse(content: str) -> Any:
    return tool_result(content)
