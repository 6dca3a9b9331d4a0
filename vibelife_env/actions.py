"""Parse the agent's action (one assistant message) into tool calls and a reply.

Accepted shapes:

- plain: ``{"tool_calls": [{"name": "email__send_email", "arguments": {...} | "json"}], "reply": "..."}``;
  a missing or ``None`` reply keeps the turn open, ``""`` closes it in deliberate silence;
- OpenAI: ``{"role": "assistant", "content": ..., "tool_calls": [{"id", "type": "function",
  "function": {"name", "arguments"}}]}``; a message with tool calls keeps the turn open
  (its content is narration), one without closes the turn with ``content`` as the reply.
  Set ``"end_turn": true`` to call tools and close the turn in the same message;
- a bare string: a reply with no tool calls.

Structural mistakes (wrong types where the shape is fixed) raise :class:`ActionError`.
Arguments that cannot be used are the agent's mistake and become an error *result* for
that call only (``ToolCall.args`` is ``None`` and ``ToolCall.parse_error`` says why):
text that is not JSON, longer than :data:`MAX_ARGUMENT_CHARS`, numbers Python cannot read,
nesting deeper than the services accept, or Python objects that are not JSON data
(circular, ``set``, ``bytes``...). Nothing raised while parsing escapes as anything but
:class:`ActionError`.

Text that reaches the world and the transcript is valid Unicode: lone surrogate code
points (``"\\ud83d"``, which cannot be encoded as UTF-8) in the reply, the narration, tool
names, call ids and the kept ``raw_arguments`` are replaced with U+FFFD (a valid surrogate
pair becomes its character). Inside the arguments themselves they are refused instead,
since the agent meant some other text.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vibelife_env.errors import ActionError, ToolError
from vibelife_env.services.arguments import screen_arguments, short_repr

#: Longest ``arguments`` JSON text accepted for one call.
MAX_ARGUMENT_CHARS = 2_000_000


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


def clean_text(text: str) -> str:
    """``text`` with lone surrogate code points replaced by U+FFFD (valid pairs are joined)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _plain_number(value: Any) -> int | float:
    """JSON for the numpy numbers screening lets through (nothing else reaches here)."""
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _unusable(raw_text: str, problem: str) -> tuple[None, str, str]:
    return None, raw_text, problem


def _parse_arguments(raw: Any, where: str) -> tuple[dict[str, Any] | None, str, str]:
    if raw is None or raw == "":
        return {}, "{}", ""
    if isinstance(raw, Mapping):
        args = dict(raw)
        try:
            screen_arguments(args)
        except ToolError as exc:
            return _unusable(short_repr(raw), f"arguments are not usable JSON data: {exc.message}")
        return args, json.dumps(args, ensure_ascii=False, sort_keys=True, default=_plain_number), ""
    if not isinstance(raw, str):
        raise ActionError(f"{where}.arguments must be a JSON object or a JSON string, got {type(raw).__name__}")
    shown = clean_text(raw)  # what the transcript keeps; the original is what gets judged
    if len(raw) > MAX_ARGUMENT_CHARS:
        return _unusable(shown[:200], f"arguments are {len(raw)} characters of JSON; at most {MAX_ARGUMENT_CHARS}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _unusable(shown, f"arguments are not valid JSON: {exc.msg} at position {exc.pos}")
    except ValueError:  # an integer literal of more than 4300 digits
        return _unusable(shown, "arguments are not usable JSON: a number has too many digits")
    except RecursionError:
        return _unusable(shown, "arguments are not usable JSON: nested too deep")
    if not isinstance(value, dict):
        return _unusable(shown, f"arguments must be a JSON object, got {type(value).__name__}")
    try:
        screen_arguments(value)
    except ToolError as exc:
        return _unusable(shown, f"arguments are not usable JSON data: {exc.message}")
    return value, shown, ""


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
    return ToolCall(clean_text(call_id), clean_text(name), args, raw_text, error)


def parse_action(action: Any, id_prefix: str = "call") -> Action:
    """Normalize any accepted action shape.

    Reply, narration, tool names and call ids come back with lone surrogates replaced by
    U+FFFD (see :func:`clean_text`).

    Raises:
        ActionError: the action is not one of the accepted shapes (message says which part).
    """
    if isinstance(action, str):
        return Action((), clean_text(action))
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
        text = clean_text(content or "")
        return Action(calls, text if closes else None, "" if closes else text)
    reply = action.get("reply")
    if reply is not None and not isinstance(reply, str):
        raise ActionError(f"action['reply'] must be a string or None, got {type(reply).__name__}")
    return Action(calls, None if reply is None else clean_text(reply))


#: The key of the budget note in a tool message's result (see :meth:`vibelife_env.episode.Episode.run_call`).
BUDGET_NOTE = "tool_calls_left"


def tool_result(content: str) -> Any:
    """A tool message's result as the tool returned it: the parsed JSON without the budget
    note (``tool_calls_left``) the engine adds while few calls are left; the text itself when
    it is not JSON.

    >>> tool_result('{"result": [1, 2], "tool_calls_left": "3 in this turn, 90 in the episode"}')
    [1, 2]
    >>> tool_result('{"ok": true, "tool_calls_left": "0 in this turn, 12 in the episode"}')
    {'ok': True}
    """
    try:
        value = json.loads(content)
    except (TypeError, ValueError):
        return content
    if isinstance(value, dict) and BUDGET_NOTE in value:
        value = dict(value)
        del value[BUDGET_NOTE]
        if set(value) == {"result"}:
            return value["result"]
    return value
