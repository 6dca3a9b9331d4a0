"""Weighted checks in tiers, and the declarative way a bundle defines them.

A check is ``(id, predicate(ctx) -> bool, weight)`` in one tier:

- ``stage``: evaluated when stage *n* closes, then frozen (credit for timely behaviour);
- ``cross_stage``: constraints over the whole episode, evaluated at the end;
- ``final``: the world and artifacts left at the end;
- ``tool_quality``: how the agent used its tools, evaluated at the end.

A bundle's ``checks.py`` builds a :class:`CheckSet`::

    checks = CheckSet()

    @checks.stage(1, weight=2.0, tags=("proactivity",))
    def s1_passport_flagged(ctx):
        return ...

    CHECKS = checks
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

Tier = Literal["stage", "cross_stage", "final", "tool_quality"]
TIERS: tuple[Tier, ...] = ("stage", "cross_stage", "final", "tool_quality")
END_TIERS: tuple[Tier, ...] = ("cross_stage", "final", "tool_quality")


@dataclass(frozen=True)
class Check:
    """One weighted, deterministic predicate over observable artifacts.

    Attributes:
        id: Unique id within the task (capability axes are read from it, as the paper does).
        fn: ``fn(ctx) -> bool``; a raise counts as a failure.
        weight: Positive weight.
        tier: When it is evaluated (see module docstring).
        stage: The stage it belongs to (``stage`` tier only).
        tags: Free labels: capability axes, and ``agent:<persona>`` for multi-agent rewards.
        description: What the check requires, in one or two sentences (default: the
            first paragraph of ``fn``'s docstring, else words made from the id).
    """

    id: str
    fn: Callable[[Any], Any]
    weight: float
    tier: Tier
    stage: int | None = None
    tags: frozenset[str] = frozenset()
    description: str = ""

    def __post_init__(self) -> None:
        if not self.description:
            object.__setattr__(self, "description", describe(self.fn, self.id))
        if self.weight <= 0:
            raise ValueError(f"check {self.id!r}: weight must be positive, got {self.weight}")
        if self.tier not in TIERS:
            raise ValueError(f"check {self.id!r}: tier must be one of {TIERS}, got {self.tier!r}")
        if (self.tier == "stage") != (self.stage is not None):
            raise ValueError(f"check {self.id!r}: a stage number goes with the 'stage' tier only")

    @property
    def agents(self) -> frozenset[str]:
        """Personas this check rewards (empty: a team check shared by all)."""
        return frozenset(t.split(":", 1)[1] for t in self.tags if t.startswith("agent:"))


def describe(fn: Callable[..., Any], check_id: str) -> str:
    """A check's description: the first paragraph of its docstring, else its id in words."""
    doc = inspect.getdoc(fn) if not isinstance(fn, type) else None
    if doc:
        return " ".join(doc.split("\n\n", 1)[0].split())
    words = re.sub(r"^(s\d+|x|f|t|q)_", "", check_id).replace("_", " ").strip()
    return words[:1].upper() + words[1:] + "."


@dataclass(frozen=True)
class CheckResult:
    """The frozen outcome of one check.

    Attributes:
        reason: Why it failed (or raised), in words with the values seen; ``""`` when it passed.
        description: What the check requires (:attr:`Check.description`).
    """

    id: str
    tier: Tier
    stage: int | None
    weight: float
    passed: bool
    error: str = ""
    reason: str = ""
    description: str = ""

    @property
    def earned(self) -> float:
        """Weight earned (0 when failed)."""
        return self.weight if self.passed else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form for ``info`` and datasets."""
        return {
            "id": self.id,
            "tier": self.tier,
            "stage": self.stage,
            "weight": self.weight,
            "passed": self.passed,
            "error": self.error,
            "reason": self.reason,
            "description": self.description,
        }


@dataclass
class CheckSuite:
    """All checks of a task, with lookups by tier and stage."""

    checks: list[Check] = field(default_factory=list)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for c in self.checks:
            if c.id in seen:
                raise ValueError(f"duplicate check id {c.id!r}")
            seen.add(c.id)

    def __iter__(self) -> Iterator[Check]:
        return iter(self.checks)

    def __len__(self) -> int:
        return len(self.checks)

    @property
    def total_weight(self) -> float:
        """Sum of all weights (the score's denominator)."""
        return sum(c.weight for c in self.checks)

    def for_stage(self, stage: int) -> list[Check]:
        """Stage-tier checks of one stage."""
        return [c for c in self.checks if c.tier == "stage" and c.stage == stage]

    def for_tier(self, tier: Tier) -> list[Check]:
        """Checks of one tier."""
        return [c for c in self.checks if c.tier == tier]


class CheckSet:
    """Decorator-based builder of checks for a bundle's ``checks.py``."""

    def __init__(self) -> None:
        self.checks: list[Check] = []

    def _add(self, tier: Tier, stage: int | None, weight: float, tags: Iterable[str], cid: str | None) -> Callable:
        def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
            self.checks.append(Check(cid or fn.__name__, fn, float(weight), tier, stage, frozenset(tags)))
            return fn

        return deco

    def stage(self, n: int, weight: float = 1.0, tags: Iterable[str] = (), id: str | None = None) -> Callable:
        """Register a check evaluated when stage ``n`` closes."""
        return self._add("stage", n, weight, tags, id)

    def cross_stage(self, weight: float = 1.0, tags: Iterable[str] = (), id: str | None = None) -> Callable:
        """Register a whole-episode constraint."""
        return self._add("cross_stage", None, weight, tags, id)

    def final(self, weight: float = 1.0, tags: Iterable[str] = (), id: str | None = None) -> Callable:
        """Register an end-state check."""
        return self._add("final", None, weight, tags, id)

    def tool_quality(self, weight: float = 1.0, tags: Iterable[str] = (), id: str | None = None) -> Callable:
        """Register a tool-use check."""
        return self._add("tool_quality", None, weight, tags, id)

    def suite(self) -> CheckSuite:
        """The checks as a validated suite."""
        return CheckSuite(list(self.checks))
