"""Read a release runner's event-rendering function as data, without importing it.

The public release renders every turn-opening event with a ``_render_event`` function in
the bundle's ``task.py`` (or ``render_event`` in ``lib/handbook_task_runtime.py``); the
tags differ per task (English or Chinese, source labels, a scheduled-trigger suffix, an
event-id prefix). We never import or execute that file. Instead :func:`extract_renderer`
parses it with :mod:`ast` and keeps the function as a *template*: the branch per event
kind, the f-string pieces and the few field lookups they use. :class:`Renderer` then
fills the template from an event with our own code. Anything outside that small, known
vocabulary raises :class:`TemplateError`, so an unfamiliar runner is reported, never
guessed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

__all__ = ["Renderer", "TemplateError", "extract_renderer", "inbound_email", "stage_day_time"]


class TemplateError(ValueError):
    """The render function uses a construct the template reader does not know."""


_FROM = re.compile(r"(?m)^\s*From:\s*(.+?)\s*$")
_SUBJECT = re.compile(r"(?m)^\s*Subject:\s*(.+?)\s*$")


def inbound_email(event: Mapping[str, Any]) -> dict[str, str] | None:
    """A ``world`` event from the email source whose body carries From/Subject headers."""
    if event.get("kind") != "world" or event.get("source") not in {"email", "emails"}:
        return None
    body = event_body(event)
    if "From:" not in body or "Subject:" not in body:
        return None
    sender, subject = _FROM.search(body), _SUBJECT.search(body)
    if not sender or not subject:
        return None
    text = body[subject.end() :].lstrip("\r\n ")
    if not text:
        return None
    return {"from_addr": sender.group(1).strip(), "subject": subject.group(1).strip(), "body_text": text}


def event_body(event: Mapping[str, Any]) -> str:
    """The body, falling back to ``payload`` or ``text`` (as one release runner does)."""
    return str(event.get("body") or event.get("payload") or event.get("text") or "")


def stage_day_time(event: Mapping[str, Any], stage: int, first_day: date, utc_offset: str) -> str:
    """A time-of-day event time placed on day ``first_day + stage`` (release day-per-stage form)."""
    raw = str(event.get("time") or "")
    if "T" in raw:
        return raw
    day = first_day + timedelta(days=stage)
    return f"{day.isoformat()}T{raw or '09:00'}:00{utc_offset}"


@dataclass
class _Scope:
    """What a template expression may refer to while one event is rendered."""

    event: Mapping[str, Any]
    stage: int
    names: dict[str, Any] = field(default_factory=dict)


class Renderer:
    """A release render function held as an AST template (see the module docstring).

    Args:
        func: The parsed render function.
        module: The parsed module it comes from (for helper functions and label tables).
        time_of_day: ``(first_day, utc_offset)`` when the runner places ``HH:MM`` times on
            day ``first_day + stage`` (otherwise the raw time is shown as written).
    """

    def __init__(self, func: ast.FunctionDef, module: ast.Module, time_of_day: tuple[date, str] | None = None) -> None:
        self.func = func
        self.param = func.args.args[0].arg if func.args.args else "ev"
        self.helpers = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}
        self.tables: dict[str, Any] = {}
        for node in module.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    self.tables[node.targets[0].id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
        self.time_of_day = time_of_day
        self.render({"kind": "user_message", "time": "", "body": ""}, 0)  # fail early on unknown constructs

    # ---------------------------------------------------------------- public
    def render(self, event: Mapping[str, Any], stage: int) -> str:
        """The text the release shows the agent for ``event`` (in stage ``stage``)."""
        scope = _Scope(event, stage)
        result = self._block(self.func.body, scope)
        if result is None:
            raise TemplateError(f"{self.func.name} returned nothing for kind {event.get('kind')!r}")
        return str(result)

    # ------------------------------------------------------------- statements
    def _block(self, body: list[ast.stmt], scope: _Scope) -> Any:
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # docstring
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                scope.names[stmt.targets[0].id] = self._expr(stmt.value, scope)
            elif isinstance(stmt, ast.Return):
                return self._expr(stmt.value, scope) if stmt.value is not None else None
            elif isinstance(stmt, ast.If):
                branch = stmt.body if self._truthy(self._expr(stmt.test, scope)) else stmt.orelse
                result = self._block(branch, scope)
                if result is not None:
                    return result
            else:
                raise TemplateError(f"unsupported statement {type(stmt).__name__} at line {stmt.lineno}")
        return None

    @staticmethod
    def _truthy(value: Any) -> bool:
        return bool(value)

    # ------------------------------------------------------------ expressions
    def _expr(self, node: ast.expr | None, scope: _Scope) -> Any:
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(self._fstring_part(v, scope) for v in node.values)
        if isinstance(node, ast.Name):
            if node.id in scope.names:
                return scope.names[node.id]
            if node.id == self.param:
                return scope.event
            if node.id in self.tables:
                return self.tables[node.id]
            raise TemplateError(f"unknown name {node.id!r} at line {node.lineno}")
        if isinstance(node, ast.NamedExpr):
            value = self._expr(node.value, scope)
            scope.names[node.target.id] = value
            return value
        if isinstance(node, ast.BoolOp):
            values = node.values
            if isinstance(node.op, ast.Or):
                result: Any = None
                for v in values:
                    result = self._expr(v, scope)
                    if result:
                        return result
                return result
            result = True
            for v in values:
                result = self._expr(v, scope)
                if not result:
                    return result
            return result
        if isinstance(node, ast.IfExp):
            return self._expr(node.body if self._expr(node.test, scope) else node.orelse, scope)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self._expr(node.left, scope), self._expr(node.comparators[0], scope)
            op = node.ops[0]
            if isinstance(op, ast.Eq):
                return left == right
            if isinstance(op, ast.NotEq):
                return left != right
            if isinstance(op, ast.Is):
                return left is right
            if isinstance(op, ast.IsNot):
                return left is not right
            if isinstance(op, ast.In):
                return left in right
            if isinstance(op, ast.NotIn):
                return left not in right
        if isinstance(node, ast.Subscript):
            container, key = self._expr(node.value, scope), self._expr(node.slice, scope)
            return container[key]
        if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
            return [self._expr(e, scope) for e in node.elts]
        if isinstance(node, ast.Call):
            return self._call(node, scope)
        raise TemplateError(f"unsupported expression {type(node).__name__} at line {node.lineno}")

    def _fstring_part(self, node: ast.expr, scope: _Scope) -> str:
        if isinstance(node, ast.Constant):
            return str(node.value)
        if isinstance(node, ast.FormattedValue):
            if node.format_spec is not None or node.conversion not in (-1, None):
                raise TemplateError(f"unsupported f-string format at line {node.lineno}")
            return str(self._expr(node.value, scope))
        raise TemplateError(f"unsupported f-string part at line {node.lineno}")

    def _call(self, node: ast.Call, scope: _Scope) -> Any:
        func = node.func
        args = [self._expr(a, scope) for a in node.args]
        if node.keywords:
            raise TemplateError(f"keyword arguments are not supported at line {node.lineno}")
        if isinstance(func, ast.Attribute):
            target = self._expr(func.value, scope)
            if func.attr == "get" and isinstance(target, Mapping):
                return target.get(*args)
            if func.attr in {"removesuffix", "removeprefix", "replace", "strip", "lower"} and isinstance(target, str):
                return getattr(target, func.attr)(*args)
            raise TemplateError(f"unsupported method .{func.attr}() at line {node.lineno}")
        if isinstance(func, ast.Name):
            if func.id == "str":
                return str(*args)
            known = self._known_helper(func.id)
            if known is not None:
                return known(scope, *args)
            helper = self.helpers.get(func.id)
            if helper is not None:  # a small pure helper: render it as a template too
                params = [a.arg for a in helper.args.args]
                inner = _Scope(scope.event, scope.stage, dict(zip(params, args, strict=False)))
                return self._block(helper.body, inner)
        raise TemplateError(f"unsupported call at line {node.lineno}")

    def _known_helper(self, name: str) -> Callable[..., Any] | None:
        """Helpers whose behaviour is reproduced here rather than read from the AST."""
        if name == "_event_body":
            return lambda scope, ev: event_body(ev)
        if name == "_parse_inbound_email":
            return lambda scope, ev: inbound_email(ev)
        if name == "_event_datetime":
            if self.time_of_day is None:
                raise TemplateError("_event_datetime needs the scenario start date")
            first, offset = self.time_of_day
            return lambda scope, ev: stage_day_time(ev, scope.stage, first, offset)
        return None


def extract_renderer(
    source: str, names: tuple[str, ...] = ("_render_event", "render_event"), **kwargs: Any
) -> Renderer | None:
    """The renderer of a runner module's source, or ``None`` when it defines none."""
    module = ast.parse(source)
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name in names:
            return Renderer(node, module, **kwargs)
    return None
