"""Apply a silent ``mutation`` event to the world, all or nothing.

Semantics follow the public release's runner:

- with an ``idempotency_key``, an event applies at most once per episode, and an event
  whose postconditions already hold is recorded as applied without touching the world;
- the operations run in order inside :meth:`World.atomic`; if one fails, or the
  postconditions do not hold after them, that event alone is rolled back (the agent's
  work since reset is never touched);
- a failure is fatal in strict mode (the env raises :class:`MutationError`; authoring and
  ``vibelife validate`` use it); otherwise it is rolled back, reported in
  ``info["mutation_errors"]`` and the episode goes on (an agent's earlier actions can make
  a scripted change impossible). ``abort_stage`` is kept on the outcome for reporting.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vibelife_env.errors import MutationError
from vibelife_env.services.registry import canonical_name
from vibelife_env.task.models import (
    Event,
    Postcondition,
    RowOp,
    ScriptOp,
    SqlFileOp,
    SqlOp,
    ToolCallOp,
    WorkspaceFileOp,
    WorkspacePathOp,
)
from vibelife_env.task.modules import bundle_callable
from vibelife_env.world import World

#: What a bundle's world script receives, made from the world (the episode passes
#: :func:`vibelife_env.checks.context.script_context`: a check context over it).
ScriptContext = Callable[[World], Any]


@dataclass(frozen=True)
class MutationOutcome:
    """What happened to one mutation event."""

    event_id: str
    status: str  # "applied" | "already_applied" | "failed"
    error: str = ""
    abort_stage: bool = False


def apply_mutation(
    world: World,
    event: Event,
    root: Path,
    resolve: Callable[[str], Callable[..., Any]] | None = None,
    context: ScriptContext | None = None,
) -> MutationOutcome:
    """Apply every operation of ``event``; roll back and report on failure.

    Args:
        world: The episode's world.
        event: A ``mutation`` event.
        root: The bundle folder (SQL and workspace files are read from it).
        resolve: Finds the function a script operation names (default: a bundle file's).
        context: Makes what a script operation's function receives from the world (a
            script operation without one fails the event).
    """
    key = event.idempotency_key
    if key and key in world.applied_keys:
        return MutationOutcome(event.id, "already_applied")
    if key and event.postconditions and not failed_postconditions(world, event.postconditions):
        world.applied_keys.add(key)
        return MutationOutcome(event.id, "already_applied")
    try:
        with world.atomic():  # a failure rolls back this event only, never the agent's work
            touched = set()
            for op in event.apply:
                touched.add(_apply_op(world, op, root, resolve, context))
            if "*" in touched:  # a script may have written to any service
                touched |= set(world.services)
            for name in sorted(touched - {"workspace", "*"}):
                world.services[name].after_mutation()
            failures = failed_postconditions(world, event.postconditions)
            if failures:
                raise MutationError("postconditions failed: " + "; ".join(failures))
    except Exception as exc:
        return MutationOutcome(event.id, "failed", f"{type(exc).__name__}: {exc}"[:1000], event.abort_stage)
    if key:
        world.applied_keys.add(key)
    return MutationOutcome(event.id, "applied")


def _apply_op(
    world: World,
    op: Any,
    root: Path,
    resolve: Callable[[str], Callable[..., Any]] | None = None,
    context: ScriptContext | None = None,
) -> str:
    """Run one operation; returns the name of what it touched (``*``: possibly anything)."""
    if isinstance(op, ScriptOp):
        fn = resolve(op.script) if resolve is not None else bundle_callable(root, op.script)
        if context is None:
            raise MutationError(f"script {op.script!r} needs a script context (apply_mutation(context=...))")
        fn(context(world), **op.args)
        return "*"
    if isinstance(op, (WorkspaceFileOp, WorkspacePathOp)):
        if isinstance(op, WorkspaceFileOp):
            spec = op.workspace_file
            text = spec.content if spec.content is not None else (root / str(spec.source)).read_text(encoding="utf-8")
            world.workspace.put(spec.destination, text)
        else:
            world.workspace.put(op.workspace_path, (root / op.source_file).read_text(encoding="utf-8"))
        return "workspace"
    name = canonical_name(op.server)
    svc = world.services.get(name)
    if svc is None:
        raise MutationError(f"service {op.server!r} is not enabled")
    if isinstance(op, SqlFileOp):
        svc.load_sql((root / op.sql_file).read_text(encoding="utf-8"))
    elif isinstance(op, SqlOp):
        svc.load_sql(op.sql)
    elif isinstance(op, RowOp):
        _apply_rows(svc, op)
    elif isinstance(op, ToolCallOp):
        result = svc.call(op.tool, op.args)
        if isinstance(result, dict) and ("error" in result or result.get("success") is False):
            raise MutationError(f"{name}.{op.tool} refused: {result}")
    return name


def _apply_rows(svc: Any, op: RowOp) -> None:
    if op.op == "insert":
        rows = op.values if isinstance(op.values, list) else [op.values]
        svc.insert_rows(op.table, rows)
    elif op.op == "update":
        if svc.update_rows(op.table, op.set or {}, op.where or {}) == 0:
            raise MutationError(f"update of {op.table} matched no row for {op.where}")
    elif op.op == "upsert":
        for row in op.values if isinstance(op.values, list) else [op.values]:
            svc.upsert_rows(op.table, row, op.conflict_keys or [])
    else:
        svc.delete_rows(op.table, op.where or {})


def failed_postconditions(world: World, conditions: list[Postcondition]) -> list[str]:
    """Descriptions of the postconditions that do not hold (empty when all hold)."""
    return [msg for pc in conditions if (msg := _check(world, pc))]


def _check(world: World, pc: Postcondition) -> str:
    if pc.workspace_path is not None:
        text = world.workspace.read(pc.workspace_path)
        if text is None:
            return f"workspace file {pc.workspace_path} missing"
        missing = [t for t in pc.contains if t not in text]
        if missing:
            return f"{pc.workspace_path} lacks {missing}"
        if pc.sha256 and hashlib.sha256(text.encode("utf-8")).hexdigest() != pc.sha256:
            return f"{pc.workspace_path} sha256 differs from {pc.sha256}"
        return ""
    svc = world.services.get(canonical_name(pc.server or ""))
    if svc is None:
        return f"service {pc.server!r} not enabled"
    if pc.table is not None:
        if not pc.where:
            return f"{pc.server}.{pc.table}: a row postcondition needs a non-empty 'where'"
        cond = " AND ".join(f'"{k}" IS NULL' if v is None else f'"{k}" = ?' for k, v in pc.where.items())
        rows = svc.query(
            f'SELECT * FROM "{pc.table}" WHERE {cond} LIMIT 100', [v for v in pc.where.values() if v is not None]
        )
        if not rows:
            return f"no {pc.server}.{pc.table} row for {pc.where}"
        if pc.expect and not any(value_matches(r, pc.expect) for r in rows):
            return f"{pc.server}.{pc.table} rows do not match {pc.expect}"
        payload: Any = rows
    else:
        payload = svc.call(str(pc.tool), pc.args)
        if isinstance(payload, dict) and "error" in payload and "code" in payload:
            return f"{pc.server}.{pc.tool} failed: {payload['error']}"
        if pc.expect and not matches_somewhere(payload, pc.expect):
            return f"{pc.server}.{pc.tool} result does not match {pc.expect}"
        if pc.equals is not None and not matches_somewhere(payload, pc.equals):
            return f"{pc.server}.{pc.tool} result does not match {pc.equals!r}"
    blob = json.dumps(payload, ensure_ascii=False, default=str).lower()
    missing = [t for t in pc.contains if str(t).lower() not in blob]
    forbidden = [t for t in pc.not_contains if str(t).lower() in blob]
    if missing or forbidden:
        return f"{pc.server}: missing {missing}, forbidden present {forbidden}"
    return ""


def _mappings(value: Any) -> Any:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _mappings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _mappings(item)


def matches_somewhere(actual: Any, expected: Any) -> bool:
    """The release's tool postcondition: the result, or any mapping nested in it, matches."""
    return value_matches(actual, expected) or any(value_matches(m, expected) for m in _mappings(actual))


def value_matches(actual: Any, expected: Any) -> bool:
    """Structural match: dict keys recursively, list items anywhere, scalars by value."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and value_matches(actual[k], v) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and all(any(value_matches(a, item) for a in actual) for item in expected)
    if isinstance(actual, bool) or isinstance(expected, bool):
        return bool(actual) == bool(expected)
    if isinstance(actual, (int, float)) and isinstance(expected, (int, float)):
        return actual == expected
    return str(actual) == str(expected)
