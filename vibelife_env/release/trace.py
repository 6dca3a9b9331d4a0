"""The per-stage tool trace a release runner writes, read from its source and reproduced.

Most runners write ``/terrarium/agent_traces/stage_N.json`` when a stage closes; a few
write none (the litigation runners; the namespace-style runner keeps a ``turn_log``
instead). Those that write it differ in the rows: the keys (``success`` or
``succeeded``, ``arguments`` or ``args``, with or without ``result``), and whether a
call is one row or a ``tool_call`` row plus a ``tool_result`` row. :func:`read_trace_shape`
reads that from the runner's extractor function (``_extract_tool_calls``,
``_extract_full_trace`` or the handbook runtime's ``extract_tool_calls``) with
:mod:`ast`, never importing it, into a :class:`TraceShape`: the keys of the dict
literals the extractor builds rows from (a ``{**call, ...}`` literal extends the call
row it spreads), and how the ``result`` it stores is made from the tool-result content:

- ``decoded``: the content parsed as JSON (``_decode_tool_value(content)``);
- ``raw``: the content as the MCP server returned it, a JSON string;
- ``payload``: ``{"content": <raw>, "details": {}}``, the handbook runtime's result
  message payload.

:func:`trace_rows` fills those keys from one of our call records. Each key has one fixed
meaning (:data:`KNOWN_KEYS`); a runner whose rows use any other key is reported
(:class:`TraceShapeError`), never guessed. What the values assume:

- every call has exactly one result with the same id (our calls always do), so the
  structural pairing checks of the paired runners always pass;
- a call succeeded when our result is not an error object (``ok`` of the call record);
  the runners' own failure heuristics over the result text are not reproduced;
- the paired runners that record a ``pair_error`` expose ``name``, ``paired`` and
  ``success`` only for a successful pair and never set the call row's ``success``
  (it stays ``None``); the others mark every pair ``paired`` and put the call's success
  on both rows;
- a tool-result row's ``role`` is ``"user"`` (Terrarium hands tool results back inside a
  user message); a call row's block ``type`` is ``"tool_use"`` unless the runner writes
  a literal.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: Extractor functions, in the order they are looked for (the first found is the root).
EXTRACTORS = ("_extract_tool_calls", "extract_tool_calls", "_extract_full_trace")
#: Keys a runner's trace rows may use; each has one meaning in :func:`trace_rows`.
KNOWN_KEYS = frozenset(
    {
        "event_id",
        "id",
        "role",
        "type",
        "name",
        "attempted_name",
        "arguments",
        "args",
        "input",
        "result",
        "success",
        "succeeded",
        "error",
        "paired",
        "pair_error",
        "attempted_success",
    }
)
CALL_BLOCK_TYPE = "tool_use"
RESULT_ROLE = "user"


class TraceShapeError(ValueError):
    """The runner's trace extractor builds rows this reader does not know."""


@dataclass(frozen=True)
class TraceShape:
    """How one runner writes ``stage_N.json`` (see the module docstring).

    Attributes:
        call: Keys of a call's row (the only row per call when ``result`` is empty).
        result: Keys of a call's ``tool_result`` row; empty for one row per call.
        call_type: The literal ``type`` of call rows, or ``None`` (the block type).
        result_type: The literal ``type`` of result rows.
        result_form: ``decoded``, ``raw`` or ``payload``: what ``result`` holds.
    """

    call: tuple[str, ...]
    result: tuple[str, ...] = ()
    call_type: str | None = None
    result_type: str | None = None
    result_form: str = "decoded"

    @property
    def paired(self) -> bool:
        """Separate ``tool_call`` and ``tool_result`` rows."""
        return bool(self.result)

    @property
    def strict(self) -> bool:
        """The paired runner that records a ``pair_error`` (see the module docstring)."""
        return "pair_error" in self.call or "pair_error" in self.result


#: The shape of a bundle without a runner (our plain trace file) and of older fixtures.
PLAIN_SHAPE = TraceShape(("event_id", "id", "type", "name", "arguments", "result", "success", "error"))


# --------------------------------------------------------------------- reading
def _functions(modules: list[ast.Module]) -> dict[str, ast.FunctionDef]:
    return {n.name: n for m in modules for n in m.body if isinstance(n, ast.FunctionDef)}


def _closure(root: ast.FunctionDef, funcs: dict[str, ast.FunctionDef]) -> list[ast.FunctionDef]:
    """``root`` and every module function it calls, transitively."""
    seen: dict[str, ast.FunctionDef] = {root.name: root}
    todo = [root]
    while todo:
        for node in ast.walk(todo.pop()):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                callee = funcs.get(node.func.id)
                if callee is not None and callee.name not in seen:
                    seen[callee.name] = callee
                    todo.append(callee)
    return list(seen.values())


def _keys(node: ast.Dict) -> tuple[str, ...]:
    return tuple(str(k.value) for k in node.keys if isinstance(k, ast.Constant))


def _literal(node: ast.Dict, key: str) -> Any:
    for k, v in zip(node.keys, node.values, strict=False):
        if isinstance(k, ast.Constant) and k.value == key and isinstance(v, ast.Constant):
            return v.value
    return None


def _with_parents(funcs: list[ast.FunctionDef]) -> Iterator[tuple[ast.AST, ast.AST]]:
    for func in funcs:
        for parent in ast.walk(func):
            for child in ast.iter_child_nodes(parent):
                yield child, parent


def _result_form(funcs: list[ast.FunctionDef]) -> str:
    """How the extractor turns a tool-result block's ``content`` into the stored ``result``.

    Read from the call that wraps ``_field(block, "content", ...)``: ``_decode_tool_value``
    decodes it; a wrapper inside a literal that also has ``details`` is the message
    payload; any other wrapper (``_jsonable``) keeps it raw.
    """
    parents = dict(_with_parents(funcs))
    for node, parent in parents.items():
        if not (
            isinstance(node, ast.Call)
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value == "content"
            and isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
        ):
            continue
        if parent.func.id == "_decode_tool_value":
            return "decoded"
        holder = parents.get(parent)
        if isinstance(holder, ast.Dict) and "details" in _keys(holder):
            return "payload"
        return "raw"
    return "decoded"


def read_trace_shape(modules: list[ast.Module]) -> TraceShape | None:
    """The trace shape of a runner (``modules``: its ``task.py``, then any shared runtime).

    Returns ``None`` when the runner writes no trace files (no ``/terrarium/agent_traces``
    in its source).

    Raises:
        TraceShapeError: the runner writes traces but its extractor is missing or builds
            rows with keys outside :data:`KNOWN_KEYS`.
    """
    strings = {
        n.value for m in modules for n in ast.walk(m) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    if not any("/terrarium/agent_traces" in s for s in strings):
        return None
    funcs = _functions(modules)
    root = next((funcs[n] for n in EXTRACTORS if n in funcs), None)
    if root is None:
        raise TraceShapeError(f"writes agent_traces but defines none of {', '.join(EXTRACTORS)}")
    closure = _closure(root, funcs)
    dicts = [n for f in closure for n in ast.walk(f) if isinstance(n, ast.Dict)]
    rows = [d for d in dicts if "name" in _keys(d) and None not in d.keys]
    spreads = [d for d in dicts if None in d.keys]
    if not rows:
        raise TraceShapeError(f"{root.name} builds no row with a 'name'")
    if spreads:  # {**call, "result": ..., ...}: the call row extended
        base = _keys(rows[0])
        shapes = {base + tuple(k for k in _keys(s) if k not in base) for s in spreads}
        if len(shapes) != 1:
            raise TraceShapeError(f"{root.name} builds rows of several shapes: {sorted(shapes)}")
        shape = TraceShape(call=shapes.pop())
    else:
        by_type = {_literal(d, "type"): d for d in rows}
        if {"tool_call", "tool_result"} <= set(by_type):
            call, result = by_type["tool_call"], by_type["tool_result"]
            shape = TraceShape(_keys(call), _keys(result), "tool_call", "tool_result")
        elif len({_keys(d) for d in rows}) == 1:
            shape = TraceShape(_keys(rows[0]), call_type=_literal(rows[0], "type"))
        else:
            raise TraceShapeError(f"{root.name} builds rows of several shapes: {sorted({_keys(d) for d in rows})}")
    unknown = sorted(set(shape.call + shape.result) - KNOWN_KEYS)
    if unknown:
        raise TraceShapeError(f"{root.name} writes trace keys this reader does not know: {', '.join(unknown)}")
    if "result" in shape.call + shape.result:
        shape = TraceShape(shape.call, shape.result, shape.call_type, shape.result_type, _result_form(closure))
    return shape


# -------------------------------------------------------------------- writing
def raw_content(result: Any) -> str:
    """A tool result as the MCP server returned it (and as the agent saw it): JSON text."""
    return json.dumps(result, ensure_ascii=False, default=str)


def _error_text(result: Any) -> str:
    return str(result.get("error") if isinstance(result, dict) else result)


def _stored_result(shape: TraceShape, result: Any) -> Any:
    if shape.result_form == "raw":
        return raw_content(result)
    if shape.result_form == "payload":
        return {"content": raw_content(result), "details": {}}
    return result


def trace_rows(shape: TraceShape, event_id: str, call: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows ``shape``'s runner writes for one call record (one row, or a call and a result row)."""
    ok = bool(call.get("ok"))
    name = str(call["name"])
    result = call.get("result")
    args = call.get("args") or {}
    shown = name if ok or not shape.paired else ""  # paired runners name only successful pairs
    common: dict[str, Any] = {
        "event_id": event_id,
        "result": _stored_result(shape, result),
        "id": call.get("id"),
        "name": shown,
        "attempted_name": name,
        "arguments": args,
        "args": args,
        "input": args,
        "succeeded": ok,
        "error": None if ok else _error_text(result),
        "paired": ok if shape.strict else True,
        "pair_error": None if ok else "tool_failure",
        "attempted_success": ok,
    }
    if not shape.paired:
        values = {**common, "type": shape.call_type or CALL_BLOCK_TYPE, "success": ok}
        return [{k: values[k] for k in shape.call}]
    call_values = {**common, "role": "assistant", "type": shape.call_type, "success": None if shape.strict else ok}
    result_values = {**common, "role": RESULT_ROLE, "type": shape.result_type, "success": ok}
    return [{k: call_values[k] for k in shape.call}, {k: result_values[k] for k in shape.result}]
