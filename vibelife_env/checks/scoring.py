"""Evaluate checks and freeze their results; score = earned weight / total weight."""

from __future__ import annotations

import asyncio
import inspect
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vibelife_env.checks.base import Check, CheckResult, CheckSuite
from vibelife_env.checks.context import CheckContext
from vibelife_env.checks.explain import explain
from vibelife_env.checks.verdict import reason_of

_ROOTS = (Path(__file__).resolve().parents[2],)


def truthy(value: Any) -> bool:
    """Interpret a check's return value: bool, ``(passed, detail)``, or ``{"passed": ...}``."""
    if isinstance(value, tuple) and value:
        return truthy(value[0])
    if isinstance(value, dict):
        for key in ("passed", "pass", "ok", "success"):
            if key in value:
                return bool(value[key])
    return bool(value)


#: The reason of a failed check that gave none and could not be explained.
UNEXPLAINED = "the check's condition was false (no further reason could be read from it)"


def evaluate(check: Check, ctx: CheckContext, explain_failures: bool = True) -> CheckResult:
    """Run one check; an exception counts as a failure and is recorded, never raised.

    A failed check gets a reason: its own (a :class:`~vibelife_env.checks.verdict.Verdict`,
    a ``(passed, detail)`` pair or a rubric's detail dict), else the first false condition
    :func:`~vibelife_env.checks.explain.explain` finds by running it again instrumented
    (skipped with ``explain_failures=False``, for throughput: the reason is then only the
    check's own, possibly ``""``).
    """
    reason = ""
    try:
        value = check.fn(ctx)
        if inspect.iscoroutine(value):
            value = asyncio.run(value)
        passed, error = truthy(value), ""
    except Exception as exc:
        passed, error = False, f"{type(exc).__name__}: {exc}"
        reason = f"the check raised {error}{_where(exc)}"
    if not passed and not reason:
        reason = reason_of(value) or (explain(check.fn, ctx) or UNEXPLAINED if explain_failures else "")
    return CheckResult(check.id, check.tier, check.stage, check.weight, passed, error, reason, check.description)


def _where(exc: BaseException) -> str:
    """`` at probes/trip.py:241`` for the innermost frame of the traceback in the project."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        path = Path(frame.filename)
        for root in _ROOTS:
            if root in path.parents:
                return f" at {path.relative_to(root)}:{frame.lineno}"
    return ""


class Scorer:
    """Holds a suite's frozen results over one episode (``explain_failures``: see :func:`evaluate`)."""

    def __init__(self, suite: CheckSuite, explain_failures: bool = True) -> None:
        self.suite = suite
        self.explain_failures = explain_failures
        self.total_weight = suite.total_weight
        self.results: dict[str, CheckResult] = {}

    def evaluate(self, checks: list[Check], context_for: Callable[[Check], CheckContext]) -> list[CheckResult]:
        """Evaluate and freeze the checks not frozen yet, each in the context ``context_for`` gives.

        The caller owns the contexts (and the sandbox they view); this only runs and records.
        """
        out = []
        for check in checks:
            if check.id in self.results:
                continue
            result = evaluate(check, context_for(check), self.explain_failures)
            self.results[check.id] = result
            out.append(result)
        return out

    @property
    def earned(self) -> float:
        """Weight earned so far."""
        return sum(r.earned for r in self.results.values())

    @property
    def score(self) -> float:
        """Earned / total, in [0, 1]."""
        return self.earned / self.total_weight if self.total_weight else 0.0

    def reward(self, results: list[CheckResult]) -> float:
        """The normalized weight newly earned by ``results``."""
        return sum(r.earned for r in results) / self.total_weight if self.total_weight else 0.0
