"""Gymnasium spaces for chat-shaped observations and actions.

``gymnasium.spaces.Text`` only admits characters of a fixed charset; task text is
Chinese, English, emoji and JSON. :class:`UnicodeText` admits any ``str`` up to a length
and samples short printable strings, so ``check_env`` and ``space.sample()`` work.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

_SAMPLE_CHARS = tuple("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:-_{}\"'李伟旅行预算")

MESSAGE_ROLES = ("system", "user", "assistant", "tool")


class UnicodeText(spaces.Text):
    """Any Python ``str`` of length ``min_length..max_length``.

    Args:
        max_length: Longest admitted string.
        min_length: Shortest admitted string (default 0: the empty string is valid).
        sample_max_length: Longest string :meth:`sample` produces.
    """

    def __init__(self, max_length: int, *, min_length: int = 0, sample_max_length: int = 24, seed: Any = None):
        super().__init__(max_length, min_length=min_length, charset="".join(sorted(set(_SAMPLE_CHARS))), seed=seed)
        self.sample_max_length = min(sample_max_length, max_length)

    def contains(self, x: Any) -> bool:
        """True for any ``str`` whose length is within bounds."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A short random printable string."""
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        hi = max(self.min_length, self.sample_max_length)
        length = int(self.np_random.integers(self.min_length, hi + 1))
        chars = self.character_list
        return "".join(chars[int(i)] for i in self.np_random.integers(0, len(chars), size=length))

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, UnicodeText) and (self.min_length, self.max_length) == (
            other.min_length,
            other.max_length,
        )


def message_space() -> spaces.Dict:
    """One chat message: role, content, tool name and tool-call id (empty when unused)."""
    return spaces.Dict(
        {
            "role": UnicodeText(16),
            "content": UnicodeText(1_000_000),
            "name": UnicodeText(256),
            "tool_call_id": UnicodeText(256),
        }
    )


def observation_space(num_stages: int) -> spaces.Dict:
    """New messages since the last step, plus the virtual time and stage."""
    return spaces.Dict(
        {
            "messages": spaces.Sequence(message_space(), stack=False),
            "time": UnicodeText(64),
            "stage": spaces.Discrete(max(num_stages, 1)),
        }
    )


def action_space() -> spaces.Dict:
    """One assistant message: tool calls (name + JSON arguments) and a reply.

    The plain-dict form accepted by ``step`` also allows the reply to be absent or
    ``None`` (the turn continues); a sampled action always carries a reply string.
    """
    call = spaces.Dict({"name": UnicodeText(256, min_length=1), "arguments": UnicodeText(200_000)})
    return spaces.Dict({"tool_calls": spaces.Sequence(call, stack=False), "reply": UnicodeText(200_000)})


def chat_messages(obs: Any) -> list[dict[str, Any]]:
    """An observation's messages in OpenAI chat format (tool results keep their id and name)."""
    out: list[dict[str, Any]] = []
    for m in obs.get("messages", ()):
        msg: dict[str, Any] = {"role": m["role"], "content": m["content"]}
        if m["role"] == "tool":
            msg["tool_call_id"] = m["tool_call_id"]
            msg["name"] = m["name"]
        out.append(msg)
    return out


def empty_message(role: str, content: str, name: str = "", tool_call_id: str = "") -> dict[str, str]:
    """A message in the observation's shape."""
    return {"role": role, "content": content, "name": name, "tool_call_id": tool_call_id}


def as_int(value: Any) -> int:
    """Plain ``int`` (numpy integers are not JSON-able)."""
    return int(np.asarray(value).item())
