"""Agent protocol and the baseline policies used to prove a task is fair.

An agent maps ``(observation, info)`` to an action (see :mod:`vibelife_env.actions`).
``reset(info)`` receives the ``info`` of ``env.reset`` (tool schemas, read-only tools).

- :class:`NullAgent`: silent every turn.
- :class:`PollingAgent`: reads every enabled service each turn, changes nothing.
- :class:`KeywordStuffer`: writes every constraint word, name and number it can find into
  workspace files and replies — the adversary that keyword checks would reward.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any, Protocol


class Agent(Protocol):
    """What a policy provides."""

    def reset(self, info: dict[str, Any]) -> None:
        """Start of an episode; ``info`` is what ``env.reset`` returned."""

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The next action for this observation."""


class NullAgent:
    """Stays silent every turn: the do-nothing baseline."""

    name = "null"

    def reset(self, info: dict[str, Any]) -> None:
        """Nothing to remember."""

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Close the turn with an empty reply."""
        return {"tool_calls": [], "reply": ""}


def _no_required(schema: dict[str, Any]) -> bool:
    return not schema["function"]["parameters"].get("required")


class PollingAgent:
    """Calls every read-only tool that needs no arguments, each turn, then stays silent.

    Args:
        max_calls: Upper bound on calls per turn (kept under the env's per-turn budget).
    """

    name = "polling"

    def __init__(self, max_calls: int = 25) -> None:
        self.max_calls = max_calls
        self.reads: list[str] = []

    def reset(self, info: dict[str, Any]) -> None:
        """Pick the argument-free read-only tools."""
        read_only = set(info.get("read_only_tools", []))
        self.reads = [
            s["function"]["name"]
            for s in info.get("tools", [])
            if s["function"]["name"] in read_only and _no_required(s)
        ]
        budget = min(self.max_calls, int(info.get("max_tool_calls_per_turn", self.max_calls)) - 1)
        self.reads = self.reads[: max(budget, 0)]

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Read everything, write nothing, say nothing."""
        return {"tool_calls": [{"name": n, "arguments": {}} for n in self.reads], "reply": ""}


_TOKEN = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2})?|\d{1,2}:\d{2}|[\d][\d,.]*\d|[A-Z][a-zA-Z]+(?: [A-Z][a-zA-Z]+)*|"
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[\u4e00-\u9fff]{2,8}"
)


class KeywordStuffer:
    """Stuffs every name, number, date and constraint word it sees into files and replies.

    Each turn it first reads the workspace and polls every argument-free read-only tool (so
    facts that live only inside the services reach it too), then appends a dump of the
    most recent tokens it has seen (workspace, events, tool results) to every workspace file
    and to ``NOTES.md``, and replies with the same dump. It never books, sends, moves or
    pays anything: a fair check gives it nothing.
    """

    name = "stuffer"

    def __init__(self, max_tokens: int = 600) -> None:
        self.max_tokens = max_tokens
        self.tokens: dict[str, None] = {}
        self.files: list[str] = []
        self.polls: list[str] = []
        self.budget = 40
        self._phase = 0

    def reset(self, info: dict[str, Any]) -> None:
        """Forget everything; pick the read-only tools to poll."""
        self.tokens = {}
        self.files = []
        self._phase = 0
        self.budget = int(info.get("max_tool_calls_per_turn", self.budget))
        poller = PollingAgent(max_calls=10**6)
        poller.reset(info)
        self.polls = poller.reads
        self._absorb(info.get("system_prompt", ""))

    def _absorb(self, text: str) -> None:
        """Remember tokens, most recent last; the oldest are dropped past ``max_tokens``."""
        for tok in _TOKEN.findall(text or ""):
            tok = tok.strip()
            self.tokens.pop(tok, None)
            self.tokens[tok] = None
        while len(self.tokens) > self.max_tokens:
            del self.tokens[next(iter(self.tokens))]

    def _dump(self) -> str:
        words = " ".join(self.tokens)
        return f"\nNotes: {words}\nconfirmed booked paid refused authorized informed Plan-B ledger total\n"

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Read the workspace and poll the services once per turn, then stuff every file and the reply."""
        for m in observation.get("messages", ()):
            self._absorb(m.get("content", ""))
            if m.get("name") == "workspace__list_files":
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    self.files = [f["path"] for f in json.loads(m["content"])["files"]]
        files = self.files[:10]
        if self._phase == 0:
            self._phase = 1
            reads = [{"name": "workspace__list_files", "arguments": {}}]
            reads += [{"name": "workspace__read_file", "arguments": {"path": f}} for f in files]
            room = max(self.budget - 2 * len(reads) - 2, 0)  # keep room for this turn's writes
            reads += [{"name": n, "arguments": {}} for n in self.polls[:room]]
            return {"tool_calls": reads, "reply": None}
        self._phase = 0
        dump = self._dump()
        writes = [{"name": "workspace__append_file", "arguments": {"path": f, "content": dump}} for f in files]
        writes.append({"name": "workspace__append_file", "arguments": {"path": "NOTES.md", "content": dump}})
        return {"tool_calls": writes, "reply": dump}
