"""Evaluate checks and freeze their results; score = earned weight / total weight."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from vibelife_env.checks.base import END_TIERS, Check, CheckResult, CheckSuite
from vibelife_env.checks.context import CheckContext


def truthy(value: Any) -> bool:
    """Interpret a check's return value: bool, ``(passed, detail)``, or ``{"passed": ...}``."""
    if isinstance(value, tuple) and value:
        return truthy(value[0])
    if isinstance(value, dict):
        for key in ("passed", "pass", "ok", "success"):
            if key in value:
                return bool(value[key])
    return bool(value)


def evaluate(check: Check, ctx: CheckContext) -> CheckResult:
    """Run one check; an exception counts as a failure and is recorded, never raised."""
    try:
        value = check.fn(ctx)
        if inspect.iscoroutine(value):
            value = asyncio.run(value)
        passed, error = truthy(value), ""
    except Exception as exc:
        passed, error = False, f"{type(exc).__name__}: {exc}"
    return CheckResult(check.id, check.tier, check.stage, check.weight, passed, error)


class Scorer:
    """Holds a suite's frozen results over one episode."""

    def __init__(self, suite: CheckSuite) -> None:
        self.suite = suite
        self.total_weight = suite.total_weight
        self.results: dict[str, CheckResult] = {}

    def _run(self, checks: list[Check], make_ctx: Callable[[], CheckContext]) -> list[CheckResult]:
        pending = [c for c in checks if c.id not in self.results]
        if not pending:
            return []
        ctx = make_ctx()
        out = []
        try:
            for c in pending:
                result = evaluate(c, ctx)
                self.results[c.id] = result
                out.append(result)
        finally:
            ctx.close()
        return out

    def close_stage(self, stage: int, make_ctx: Callable[[], CheckContext]) -> list[CheckResult]:
        """Evaluate and freeze the checks of a stage that just closed."""
        return self._run(self.suite.for_stage(stage), make_ctx)

    def finish(self, make_ctx: Callable[[], CheckContext]) -> list[CheckResult]:
        """Evaluate the cross-stage, final and tool-quality tiers."""
        return self._run([c for t in END_TIERS for c in self.suite.for_tier(t)], make_ctx)

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
