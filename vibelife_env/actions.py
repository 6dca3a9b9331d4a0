"""Parse the agent's action (one assistant message) into tool calls and a reply.

Accepted shapes:

- plain: ``{"tool_calls": [{"name": "email__send_email", "arguments": {...} | "json"}], "reply": "..."}``;
  a missing or ``None`` reply keeps the turn open, ``""`` closes it in deliberate silence;
- OpenAI: ``{"role": "assistant", "content": ..., "tool_calls": [{"id", "type": "function",
  "function": {"name", "arguments"}}]}``; a message with tool calls keeps the turn open
  (its content is narration), one without closes the turn with ``content`` as the reply.
  Set ``"end_turn": true`` to call tools and close the turn in the same message;
- a bare string: a reply with no tool calls.

Structural mistakes raise :class:`ActionError`; an ``arguments`` string that is not JSON is
the agent's mistake and becomes an error *result* for that call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vibelife_env.errors import ActionError


@dataclass(frozen=True)
class ToolCall:
    """One requested call. ``args`` is ``None`` when ``arguments`` was not valid JSON."""

    id: str
    name: str
    args: dict[str, Any] | None
    raw_arguments: str
    parse_error: str = ""


@dataclass(frozen=True)
class Action:
    """A parsed assistant message."""

    tool_calls: tuple[ToolCall, ...]
    reply: str | None
    narration: str = ""


def _parse_arguments(raw: Any, where: str) -> tuple[dict[str, Any] | None, str, str]:
    if raw is None or raw == "":
        return {}, "{}", ""
    if isinstance(raw, Mapping):
        return dict(raw), json.dumps(raw, ensure_ascii=False, sort_keys=True), ""
    if not isinstance(raw, str):
        raise ActionError(f"{where}.arguments must be a JSON object or a JSON string, got {type(raw).__name__}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, raw, f"arguments are not valid JSON: {exc.msg} at position {exc.pos}"
    if not isinstance(value, dict):
        return None, raw, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, raw, ""


def _parse_call(entry: Any, where: str, default_id: str) -> ToolCall:
    if not isinstance(entry, Mapping):
        raise ActionError(f"{where} must be an object, got {type(entry).__name__}")
    fn = entry.get("function")
    if isinstance(fn, Mapping):
        name, raw = fn.get("name"), fn.get("arguments")
    elif fn is not None:
        raise ActionError(f"{where}.function must be an object with name and arguments")
    else:
        name, raw = entry.get("name"), entry.get("arguments", entry.get("args"))
    if not isinstance(name, str) or not name:
        raise ActionError(f"{where}.name must be a non-empty string like 'email__send_email'")
    call_id = entry.get("id") or default_id
    if not isinstance(call_id, str):
        raise ActionError(f"{where}.id must be a string")
    args, raw_text, error = _parse_arguments(raw, where)
    return ToolCall(call_id, name, args, raw_text, error)


def parse_action(action: Any, id_prefix: str = "call") -> Action:
    """Normalize any accepted action shape.

    Raises:
        ActionError: the action is not one of the accepted shapes (message says which part).
    """
    if isinstance(action, str):
        return Action((), action)
    if not isinstance(action, Mapping):
        raise ActionError(f"action must be a dict (or a reply string), got {type(action).__name__}")
    unknown = set(action) - {"tool_calls", "reply", "role", "content", "end_turn", "name", "refusal"}
    if unknown:
        raise ActionError(
            f"action has unknown keys {sorted(unknown)}; expected tool_calls, reply (or an OpenAI message)"
        )
    raw_calls = action.get("tool_calls") or ()
    if isinstance(raw_calls, (str, bytes)) or not isinstance(raw_calls, Sequence):
        raise ActionError(f"action['tool_calls'] must be a list, got {type(raw_calls).__name__}")
    calls = tuple(_parse_call(c, f"action['tool_calls'][{i}]", f"{id_prefix}_{i}") for i, c in enumerate(raw_calls))
    openai_shape = "role" in action or "content" in action
    if openai_shape:
        if action.get("role", "assistant") != "assistant":
            raise ActionError(f"an OpenAI-shaped action must have role 'assistant', got {action.get('role')!r}")
        content = action.get("content")
        if content is not None and not isinstance(content, str):
            raise ActionError("action['content'] must be a string or null")
        closes = not calls or bool(action.get("end_turn"))
        if "reply" in action:
            raise ActionError("give either 'reply' (plain form) or 'content' (OpenAI form), not both")
        return Action(calls, (content or "") if closes else None, "" if closes else (content or ""))
    reply = action.get("reply")
    if reply is not None and not isinstance(reply, str):
        raise ActionError(f"action['reply'] must be a string or None, got {type(reply).__name__}")
    return Action(calls, reply)
