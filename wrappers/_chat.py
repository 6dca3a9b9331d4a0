"""OpenAI-format message helpers shared by the wrappers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gymnasium import spaces

from vibelife_env.actions import parse_action
from vibelife_env.spaces import chat_messages as env_messages

ROLES = ("system", "user", "assistant", "tool")
__all__ = ["ROLES", "ChatMessages", "assistant_message", "env_messages", "tool_results"]


def tool_results(obs: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The tool-result messages of an env observation, in call order."""
    return [m for m in obs.get("messages", ()) if m.get("role") == "tool"]


def assistant_message(action: Any, obs_after: Mapping[str, Any]) -> dict[str, Any]:
    """``action`` as an OpenAI assistant message whose tool-call ids match the results.

    ``obs_after`` is the observation the env returned for ``action``: its tool results
    carry the ids the env used. Calls that did not run (a budget ran out) are left out,
    so the message and its results always pair up.
    """
    parsed = parse_action(action)
    results = tool_results(obs_after)
    msg: dict[str, Any] = {
        "role": "assistant",
        "content": parsed.reply if parsed.reply is not None else (parsed.narration or None),
    }
    calls = [
        {
            "id": result["tool_call_id"],
            "type": "function",
            "function": {"name": call.name, "arguments": call.raw_arguments},
        }
        for call, result in zip(parsed.tool_calls, results, strict=False)
    ]
    if calls:
        msg["tool_calls"] = calls
    elif msg["content"] is None:
        msg["content"] = ""
    return msg


class ChatMessages(spaces.Space[list]):
    """A list of OpenAI-format chat messages.

    Contains a list (or tuple) of dicts with a ``role`` in :data:`ROLES` and a ``str``
    (or, for assistant messages with tool calls, ``None``) ``content``; tool messages
    carry a ``tool_call_id``; ``tool_calls`` entries have an ``id`` and a ``function``.
    """

    def __init__(self, seed: Any = None) -> None:
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Chat text has no fixed-size array form."""
        return False

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a well-formed message list."""
        if not isinstance(x, (list, tuple)):
            return False
        return all(_valid_message(m) for m in x)

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, Any]]:
        """A short random conversation (system, user, assistant)."""
        n = int(self.np_random.integers(0, 1000))
        return [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": f"message {n}"},
            {"role": "assistant", "content": ""},
        ]

    def __repr__(self) -> str:
        return "ChatMessages()"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ChatMessages)


def _valid_message(m: Any) -> bool:
    if not isinstance(m, Mapping) or m.get("role") not in ROLES:
        return False
    content = m.get("content")
    calls = m.get("tool_calls")
    if not (isinstance(content, str) or (content is None and m["role"] == "assistant" and calls)):
        return False
    if m["role"] == "tool" and not isinstance(m.get("tool_call_id"), str):
        return False
    if calls is not None:
        if not isinstance(calls, Sequence) or m["role"] != "assistant":
            return False
        return all(isinstance(c, Mapping) and "id" in c and isinstance(c.get("function"), Mapping) for c in calls)
    return True
