"""Action wrappers: change what the agent sends.

- :class:`TextToolCallAction`: text with Hermes/Qwen ``<tool_call>`` blocks → tool calls,
  for models without native tool calling.
- :class:`ToolMenuAction`: ``Discrete(n)`` over a menu of macro actions, for classic RL.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import yaml
from gymnasium import spaces

from vibelife_env.actions import parse_action
from vibelife_env.env import base_env
from vibelife_env.errors import ActionError

from ._chat import tool_results

TOOL_CALL_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.S)
INVALID_CALL = "invalid_tool_call"


def hermes_tools_prompt(tools: Sequence[Mapping[str, Any]]) -> str:
    """A system-prompt section that teaches a model the ``<tool_call>`` text format.

    Args:
        tools: The OpenAI tool schemas (``info["tools"]`` of ``env.reset``).
    """
    lines = [
        "# Tools",
        "",
        "You can call functions. Their signatures are inside <tools></tools>:",
        "<tools>",
        *(json.dumps(t, ensure_ascii=False) for t in tools),
        "</tools>",
        "",
        "To call a function, write a JSON object with its name and arguments inside <tool_call></tool_call>:",
        '<tool_call>\n{"name": "<function-name>", "arguments": {<arguments>}}\n</tool_call>',
        "Results come back in the next message. A message without <tool_call> ends your turn and is your reply.",
    ]
    return "\n".join(lines)


def parse_tool_call_text(text: str) -> tuple[list[dict[str, Any]], list[str], str]:
    """Split model text into tool calls, per-call parse errors and the remaining text.

    Each ``<tool_call>`` block (an unclosed last block runs to the end of the text) must
    hold ``{"name": str, "arguments": object | JSON string}`` (``parameters`` is accepted
    for ``arguments``). A malformed block becomes a call named ``invalid_tool_call``
    whose error (``errors[i]``, else ``""``) the wrapper returns as its tool result.

    Example:
        >>> calls, errors, rest = parse_tool_call_text(
        ...     'Checking.<tool_call>{"name": "email__get_emails", "arguments": {"folder": "INBOX"}}</tool_call>'
        ... )
        >>> calls, errors, rest
        ([{'name': 'email__get_emails', 'arguments': '{"folder": "INBOX"}'}], [''], 'Checking.')
    """
    calls: list[dict[str, Any]] = []
    errors: list[str] = []
    for k, match in enumerate(TOOL_CALL_BLOCK.finditer(text), start=1):
        call, error = _parse_block(match.group(1).strip(), k)
        calls.append(call)
        errors.append(error)
    rest = TOOL_CALL_BLOCK.sub("", text).strip()
    return calls, errors, rest


def _parse_block(raw: str, k: int) -> tuple[dict[str, Any], str]:
    expected = 'expected <tool_call>{"name": "<service>__<tool>", "arguments": {...}}</tool_call>'
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _invalid(), f"<tool_call> block {k} is not valid JSON ({exc.msg} at position {exc.pos}); {expected}"
    if not isinstance(value, dict) or not isinstance(value.get("name"), str) or not value["name"]:
        return _invalid(), f"<tool_call> block {k} has no string 'name'; {expected}"
    args = value.get("arguments", value.get("parameters", {}))
    if args is None:
        args = {}
    if isinstance(args, str):
        return {"name": value["name"], "arguments": args}, ""
    return {"name": value["name"], "arguments": json.dumps(args, ensure_ascii=False)}, ""


def _invalid() -> dict[str, Any]:
    return {"name": INVALID_CALL, "arguments": "<malformed tool_call>"}


class TextToolCallAction(gym.Wrapper):
    """Accept text actions with Hermes/Qwen ``<tool_call>`` blocks.

    A text action (a ``str``, or an assistant message whose ``content`` holds the text and
    which has no ``tool_calls``) is parsed with :func:`parse_tool_call_text`. With blocks,
    they become tool calls and the turn stays open (the rest of the text is narration);
    without, the text is the reply and the turn closes. A malformed block runs as a failed
    call (it counts against the budget and in tool-quality checks) whose result explains
    the expected format: the agent gets an error, never an exception. Structured actions
    pass through unchanged.

    Args:
        env: A VibeLife env.
        end_turn_with_calls: Close the turn in the same message as the calls (the rest of
            the text is the reply).

    Raises:
        TypeError: ``end_turn_with_calls`` is not a bool.

    Example:
        >>> import gymnasium as gym
        >>> import vibelife_env
        >>> from vibelife_env.wrappers import TextToolCallAction
        >>> env = TextToolCallAction(gym.make("VibeLife-demo-errands-v0"))
        >>> _ = env.reset(seed=0)
        >>> text = 'Let me look.<tool_call>{"name": "workspace__read_file", "arguments": {"path": "USER.md"}}</tool_call>'
        >>> obs, *_ = env.step(text)
        >>> [(m["role"], m["name"]) for m in obs["messages"]]
        [('tool', 'workspace__read_file')]
        >>> obs, *_ = env.step('<tool_call>{"name": "workspace__read_file", "arguments": {"path": </tool_call>')
        >>> json.loads(obs["messages"][0]["content"])["code"]
        'BAD_TOOL_CALL'
    """

    def __init__(self, env: gym.Env, end_turn_with_calls: bool = False) -> None:
        if not isinstance(end_turn_with_calls, bool):
            raise TypeError(f"end_turn_with_calls must be a bool, got {type(end_turn_with_calls).__name__}")
        super().__init__(env)
        self.end_turn_with_calls = end_turn_with_calls

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Parse a text action, step, and explain malformed blocks in their results."""
        text = _text_of(action)
        if text is None:
            obs, reward, terminated, truncated, info = self.env.step(action)
            return obs, float(reward), terminated, truncated, info
        calls, errors, rest = parse_tool_call_text(text)
        if not calls:
            obs, reward, terminated, truncated, info = self.env.step({"role": "assistant", "content": text})
            return obs, float(reward), terminated, truncated, info
        structured = {
            "role": "assistant",
            "content": rest,
            "tool_calls": [{"type": "function", "function": c} for c in calls],
            "end_turn": self.end_turn_with_calls,
        }
        obs, reward, terminated, truncated, info = self.env.step(structured)
        results = tool_results(obs)
        bad = {results[i]["tool_call_id"]: e for i, e in enumerate(errors) if e and i < len(results)}
        if bad:
            messages = tuple(
                {**m, "content": json.dumps({"error": bad[m["tool_call_id"]], "code": "BAD_TOOL_CALL"})}
                if m.get("role") == "tool" and m.get("tool_call_id") in bad
                else m
                for m in obs["messages"]
            )
            obs = {**obs, "messages": messages}
        return obs, float(reward), terminated, truncated, info


def _text_of(action: Any) -> str | None:
    if isinstance(action, str):
        return action
    if isinstance(action, Mapping) and "content" in action and not action.get("tool_calls"):
        content = action.get("content")
        return content if isinstance(content, str) else None
    return None


# ------------------------------------------------------------------ tool menu
SILENT_REPLY = ("reply_silently", {"tool_calls": [], "reply": ""})
MACROS_FILE = "macros.yaml"


class ToolMenuAction(gym.ActionWrapper):
    """``Discrete(n)`` over a fixed menu of macro actions, for classic RL libraries.

    The menu is built once, deterministically, in this order:

    1. ``reply_silently``: close the turn with an empty reply;
    2. ``call:<tool>`` for every read-only tool with no required parameter, sorted by
       name: that one call with ``{}`` (the turn stays open);
    3. the task's macros: the bundle's optional ``macros.yaml``, a list of
       ``{label: str, action: <action>}`` in file order;
    4. ``macros`` given here, in order.

    ``include_defaults=False`` leaves out groups 1 and 2. An action is any shape
    ``env.step`` accepts (see :mod:`vibelife_env.actions`); a macro is ``(label,
    action)``, ``{"label", "action"}`` or a bare action (labelled ``macro_<i>``).
    ``menu`` lists ``(label, action)`` pairs; index ``i`` of the action space runs
    ``menu[i]``.

    Args:
        env: A VibeLife env.
        macros: Extra macro actions.
        include_defaults: Include the silent reply and the argument-free read-only tools.
        include_task_macros: Include the bundle's ``macros.yaml`` if it exists.

    Raises:
        TypeError: ``macros`` is not a list of macros.
        ValueError: a macro is not a valid action, labels repeat, or the menu is empty.

    Example:
        >>> import gymnasium as gym
        >>> import vibelife_env
        >>> from vibelife_env.wrappers import ToolMenuAction
        >>> book = {"tool_calls": [{"name": "workspace__read_file", "arguments": {"path": "USER.md"}}]}
        >>> env = ToolMenuAction(gym.make("VibeLife-demo-errands-v0"), macros=[("read_user", book)])
        >>> env.labels[:3], env.labels[-1]
        (['reply_silently', 'call:assistant__list_wakeups', 'call:calendar__list_events'], 'read_user')
        >>> env.action_space == gym.spaces.Discrete(len(env.menu))
        True
        >>> _ = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step(env.labels.index("read_user"))
        >>> obs["messages"][0]["name"]
        'workspace__read_file'
    """

    def __init__(
        self,
        env: gym.Env,
        macros: Sequence[Any] = (),
        include_defaults: bool = True,
        include_task_macros: bool = True,
    ) -> None:
        if isinstance(macros, (str, bytes, Mapping)) or not isinstance(macros, Sequence):
            raise TypeError(f"macros must be a list of actions or (label, action) pairs, got {type(macros).__name__}")
        super().__init__(env)
        menu: list[tuple[str, Any]] = []
        if include_defaults:
            menu.append(SILENT_REPLY)
            menu.extend((f"call:{n}", {"tool_calls": [{"name": n, "arguments": {}}]}) for n in _free_reads(env))
        if include_task_macros:
            menu.extend(_task_macros(env))
        menu.extend(_macro(m, i) for i, m in enumerate(macros))
        if not menu:
            raise ValueError("the tool menu is empty: pass macros or keep include_defaults=True")
        labels = [label for label, _ in menu]
        repeated = sorted({x for x in labels if labels.count(x) > 1})
        if repeated:
            raise ValueError(f"macro labels must be unique; repeated: {repeated}")
        self.menu = menu
        self.labels = labels
        self.action_space = spaces.Discrete(len(menu))

    def action(self, action: Any) -> Any:
        """The macro at index ``action``.

        Raises:
            ValueError: not an integer in ``[0, n)``.
        """
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < len(self.menu):
            raise ValueError(f"action must be an int in [0, {len(self.menu)}), got {action!r}")
        return copy.deepcopy(self.menu[int(action)][1])


def _free_reads(env: gym.Env) -> list[str]:
    """Read-only tools with no required parameter, sorted by name."""
    base = base_env(env)
    if base.world is None:  # read_only_tools needs a world: probe a fresh env
        probe = type(base)(base.task.root)
        probe.reset(seed=0)
        base = probe
    read_only = set(base.read_only_tools())
    return sorted(
        s["function"]["name"]
        for s in base.tool_schemas()
        if s["function"]["name"] in read_only and not s["function"].get("parameters", {}).get("required")
    )


def _task_macros(env: gym.Env) -> list[tuple[str, Any]]:
    path = Path(base_env(env).task.root) / MACROS_FILE
    if not path.is_file():
        return []
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of {{label, action}} entries")
    out = []
    for i, entry in enumerate(data):
        if not isinstance(entry, Mapping) or set(entry) != {"label", "action"}:
            raise ValueError(f"{path}: entry {i} must have exactly the keys 'label' and 'action'")
        out.append(_macro(entry, i, where=str(path)))
    return out


def _macro(m: Any, i: int, where: str = "macros") -> tuple[str, Any]:
    if isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str):
        label, action = m
    elif isinstance(m, Mapping) and set(m) == {"label", "action"}:
        label, action = m["label"], m["action"]
    else:
        label, action = f"macro_{i}", m
    if not isinstance(label, str) or not label:
        raise ValueError(f"{where}[{i}]: the label must be a non-empty string")
    try:
        parse_action(action)
    except ActionError as exc:
        raise ValueError(f"{where}[{i}] ({label}): not a valid action: {exc}") from None
    return label, copy.deepcopy(action)
