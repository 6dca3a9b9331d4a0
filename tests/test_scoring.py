"""checks/scoring.py and checks/base.py directly: how a check's value is read, that results
freeze, that raising checks fail without escaping, and the suite's validation."""

from __future__ import annotations

import asyncio

import pytest

from vibelife_env.checks.base import Check, CheckSet, CheckSuite
from vibelife_env.checks.scoring import Scorer, evaluate, truthy


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (0, False),
        ((True, "detail"), True),
        ((False, "why"), False),
        ({"passed": 1}, True),
        ({"ok": False}, False),
        ({"other": True}, True),  # a non-empty mapping without a verdict key is truthy
        ([], False),
    ],
)
def test_truthy_reads_every_return_shape(value, expected):
    assert truthy(value) is expected


def test_a_raising_check_fails_and_records_the_error():
    check = Check("boom", lambda ctx: 1 / 0, 2.0, "final")
    result = evaluate(check, ctx=None)
    assert not result.passed and result.earned == 0 and result.error.startswith("ZeroDivisionError")


def test_async_checks_are_awaited():
    async def later(ctx):
        await asyncio.sleep(0)
        return True

    assert evaluate(Check("async", later, 1.0, "final"), ctx=None).passed


def test_results_freeze_and_rewards_are_normalized():
    calls = []
    checks = CheckSet()

    @checks.stage(0, weight=3)
    def first(ctx):
        calls.append("first")
        return True

    @checks.final(weight=1)
    def last(ctx):
        return False

    scorer = Scorer(checks.suite())
    out = scorer.evaluate(list(checks.suite()), lambda c: None)
    again = scorer.evaluate(list(checks.suite()), lambda c: None)
    assert [r.id for r in out] == ["first", "last"] and again == [] and calls == ["first"]
    assert scorer.score == pytest.approx(0.75) and scorer.reward(out) == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Check("w", lambda c: True, 0, "final"), "weight must be positive"),
        (lambda: Check("t", lambda c: True, 1, "later"), "tier must be one of"),
        (lambda: Check("s", lambda c: True, 1, "stage"), "stage number goes with"),
        (lambda: Check("s", lambda c: True, 1, "final", stage=2), "stage number goes with"),
        (
            lambda: CheckSuite([Check("a", lambda c: True, 1, "final"), Check("a", lambda c: True, 1, "final")]),
            "duplicate",
        ),
    ],
)
def test_malformed_checks_are_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_agent_tags_name_the_personas_a_check_rewards():
    check = Check("x", lambda c: True, 1, "final", tags=frozenset({"agent:lina", "safety"}))
    assert check.agents == frozenset({"lina"})
