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

A check that only means something once other work is done (a quiet turn counts only on a
trip that is booked) declares that by name instead of ANDing a shared gate into its rule::

    @checks.prerequisite("the trip is booked")
    def booked(ctx):
        return ...

    @checks.stage(4, requires=("the trip is booked",))
    def s4_quiet(ctx):
        return ...  # its own rule only

When a prerequisite does not hold, the check fails with that as its reason ("its prerequisite
«the trip is booked» does not hold: …"); each prerequisite is evaluated once per check pass.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
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
        requires: The prerequisites it declares by name (see the module docstring).
        rules: The rules it enforces and where each is stated or found, for a check made from a
            check kind (:mod:`vibelife_env.checks.kinds`); empty for a hand-written check.
    """

    id: str
    fn: Callable[[Any], Any]
    weight: float
    tier: Tier
    stage: int | None = None
    tags: frozenset[str] = frozenset()
    description: str = ""
    requires: tuple[str, ...] = ()
    rules: tuple[Any, ...] = ()

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
        self.prerequisites: dict[str, Callable[[Any], Any]] = {}
        self.rules: dict[str, Any] = {}  # key -> kinds.Rule of the checks made from kinds

    def prerequisite(self, name: str) -> Callable:
        """Register ``fn(ctx)`` as the prerequisite ``name`` that checks can declare (``requires=``).

        Raises:
            ValueError: ``name`` is empty or already registered.
        """

        def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
            if not name.strip():
                raise ValueError("a prerequisite needs a name")
            if name in self.prerequisites:
                raise ValueError(f"prerequisite {name!r} is registered twice")
            self.prerequisites[name] = fn
            return fn

        return deco

    def _add(
        self,
        tier: Tier,
        stage: int | None,
        weight: float,
        tags: Iterable[str],
        cid: str | None,
        requires: Iterable[str] = (),
        description: str = "",
        rules: tuple[Any, ...] = (),
    ) -> Callable:
        needs = tuple(requires)
        unknown = [n for n in needs if n not in self.prerequisites]
        if unknown:
            raise ValueError(
                f"check {cid or '?'}: unknown prerequisite(s) {unknown}; register them with prerequisite()"
            )

        def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
            run = _gated(fn, [(n, self.prerequisites[n]) for n in needs]) if needs else fn
            self.checks.append(
                Check(
                    cid or fn.__name__,
                    run,
                    float(weight),
                    tier,
                    stage,
                    frozenset(tags),
                    description or describe(fn, cid or fn.__name__),
                    needs,
                    rules,
                )
            )
            return fn

        return deco

    def _known(self, cid: str | None, rules: Iterable[Any]) -> tuple[Any, ...]:
        """Record ``rules`` on the set (one text and source per key); returns them as a tuple.

        Raises:
            ValueError: a rule key is already registered with another text or source.
        """
        out = tuple(rules)
        for rule in out:
            known = self.rules.setdefault(rule.key, rule)
            if known != rule:
                raise ValueError(f"check {cid or '?'}: rule {rule.key!r} is registered with another text or source")
        return out

    def amend(self, check_id: str, *, requires: Iterable[str] = (), rules: Iterable[Any] = ()) -> Check:
        """Give a registered check more prerequisites and rules, in place (its position, id,
        weight and rule of its own unchanged): a family giving a shared probe's check its own
        real-work prerequisite, or recording the rules its checks enforce. Returns the new check.

        Raises:
            KeyError: no check has ``check_id``.
            ValueError: an unknown prerequisite, or a rule key registered with another text.
        """
        i = next((i for i, c in enumerate(self.checks) if c.id == check_id), None)
        if i is None:
            raise KeyError(f"no check {check_id!r} to amend")
        c = self.checks[i]
        needs = tuple(n for n in dict.fromkeys(requires) if n not in c.requires)
        unknown = [n for n in needs if n not in self.prerequisites]
        if unknown:
            raise ValueError(f"check {check_id}: unknown prerequisite(s) {unknown}; register them with prerequisite()")
        mine = self._known(check_id, dict.fromkeys((*c.rules, *rules)))
        fn = _gated(c.fn, [(n, self.prerequisites[n]) for n in needs]) if needs else c.fn
        self.checks[i] = replace(c, fn=fn, requires=(*c.requires, *needs), rules=mine)
        return self.checks[i]

    def attach_rules(
        self, by_label: Mapping[str, Iterable[Any]], *, request_only: Iterable[str] = (), table: str = "the rule table"
    ) -> None:
        """Record on every check the rules its label (:func:`label`) maps to in ``by_label``.

        A check whose label is in ``request_only`` enforces only its turn's own request; one that
        already carries rules (a kind's) may be left out of the table; any other check the table
        does not know is refused, so no check goes unruled by accident.

        Raises:
            ValueError: a check ``table`` (named in the message) does not know, or a rule key
                registered with another text or source.
        """
        asked = frozenset(request_only)
        for c in list(self.checks):
            name = label(c.id)
            if name in by_label:
                self.amend(c.id, rules=by_label[name])
            elif name not in asked and not c.rules:
                raise ValueError(f"check {c.id}: no rule is mapped for it ({table})")

    def add_kind(self, kind: Any) -> Check:
        """Register the check a :class:`~vibelife_env.checks.kinds.Kind` makes, and its rules.

        Raises:
            ValueError: one of the kind's rule keys is already registered with another text or source.
        """
        rules = self._known(kind.id, kind.rules)
        self._add(kind.tier, kind.stage, kind.weight, kind.tags, kind.id, kind.requires, kind.description, rules)(
            kind.holds
        )
        return self.checks[-1]

    def stage(
        self,
        n: int,
        weight: float = 1.0,
        tags: Iterable[str] = (),
        id: str | None = None,
        requires: Iterable[str] = (),
        rules: Iterable[Any] = (),
    ) -> Callable:
        """Register a check evaluated when stage ``n`` closes (``requires``: prerequisites by name;
        ``rules``: the :class:`~vibelife_env.checks.kinds.Rule` objects it enforces, recorded as a kind's are)."""
        return self._add("stage", n, weight, tags, id, requires, rules=self._known(id, rules))

    def cross_stage(
        self,
        weight: float = 1.0,
        tags: Iterable[str] = (),
        id: str | None = None,
        requires: Iterable[str] = (),
        rules: Iterable[Any] = (),
    ) -> Callable:
        """Register a whole-episode constraint."""
        return self._add("cross_stage", None, weight, tags, id, requires, rules=self._known(id, rules))

    def final(
        self,
        weight: float = 1.0,
        tags: Iterable[str] = (),
        id: str | None = None,
        requires: Iterable[str] = (),
        rules: Iterable[Any] = (),
    ) -> Callable:
        """Register an end-state check."""
        return self._add("final", None, weight, tags, id, requires, rules=self._known(id, rules))

    def tool_quality(
        self,
        weight: float = 1.0,
        tags: Iterable[str] = (),
        id: str | None = None,
        requires: Iterable[str] = (),
        rules: Iterable[Any] = (),
    ) -> Callable:
        """Register a tool-use check."""
        return self._add("tool_quality", None, weight, tags, id, requires, rules=self._known(id, rules))

    def suite(self) -> CheckSuite:
        """The checks as a validated suite."""
        return CheckSuite(list(self.checks))


def label(check_id: str) -> str:
    """A check id without its stage prefix: ``s08_duplicate_disputed`` -> ``duplicate_disputed``
    (the end tiers' ``x_``/``f_``/``t_`` ids stay whole)."""
    return re.sub(r"^s\d+_", "", check_id)


def _gated(fn: Callable[[Any], Any], needs: list[tuple[str, Callable[[Any], Any]]]) -> Callable[[Any], Any]:
    """``fn`` behind its declared prerequisites: the first that does not hold is the failure's
    reason; each is evaluated once per check pass (memoized on ``ctx.memo`` by name and time)."""
    from vibelife_env.checks.explain import explain
    from vibelife_env.checks.verdict import because, reason_of

    def check(ctx: Any) -> Any:
        for name, pre in needs:
            memo = getattr(ctx, "memo", None)
            key = ("prerequisite", name, getattr(ctx, "now", None))
            if memo is not None and key in memo:
                held, why = memo[key]
            else:
                value = pre(ctx)
                held = bool(value)
                why = "" if held else (reason_of(value) or explain(pre, ctx))
                if memo is not None:
                    memo[key] = (held, why)
            if not held:
                return because(False, f"its prerequisite «{name}» does not hold" + (f": {why}" if why else ""))
        return fn(ctx)

    check.__name__ = getattr(fn, "__name__", "check")
    check.__doc__ = fn.__doc__
    check.__explain__ = lambda ctx: (fn, (ctx,))  # type: ignore[attr-defined]  # its own rule is what to read
    return check
