"""Checks declare their prerequisites by name (``requires=``) instead of ANDing a shared gate in."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from vibelife_env.checks.base import CheckSet
from vibelife_env.checks.scoring import evaluate


def _suite(booked: bool, calls: list[int]) -> CheckSet:
    checks = CheckSet()

    @checks.prerequisite("the trip is booked")
    def trip_booked(ctx):
        calls.append(1)
        return ctx.booked

    @checks.stage(1, requires=("the trip is booked",))
    def s1_quiet(ctx):
        """A short reply at a quiet turn."""
        return len(ctx.reply) <= 10

    @checks.final(requires=("the trip is booked",))
    def f_calendar(ctx):
        return True

    return checks


def test_a_failed_prerequisite_is_the_reason_and_is_evaluated_once_per_pass():
    calls: list[int] = []
    checks = _suite(False, calls)
    ctx = SimpleNamespace(booked=False, reply="ok", memo={}, now=1)
    results = [evaluate(c, ctx) for c in checks.suite()]
    assert not any(r.passed for r in results)
    assert all("its prerequisite «the trip is booked» does not hold" in r.reason for r in results)
    assert "ctx.booked" in results[0].reason  # and why it does not hold
    assert len(calls) == 2  # run once and explained once (its instrumented re-run), then memoized for the pass
    assert results[0].description == "A short reply at a quiet turn."


def test_with_its_prerequisite_met_a_check_is_judged_by_its_own_rule_and_explained_by_it():
    checks = _suite(True, [])
    quiet = next(c for c in checks.suite() if c.id == "s1_quiet")
    assert quiet.requires == ("the trip is booked",)
    assert evaluate(quiet, SimpleNamespace(booked=True, reply="short", memo={}, now=1)).passed
    failed = evaluate(quiet, SimpleNamespace(booked=True, reply="far too long a reply", memo={}, now=2))
    assert not failed.passed and "len(ctx.reply) <= 10" in failed.reason and "prerequisite" not in failed.reason


def test_unknown_or_twice_registered_prerequisites_are_errors():
    checks = CheckSet()
    with pytest.raises(ValueError, match="unknown prerequisite"):
        checks.stage(1, requires=("nothing registered",))
    checks.prerequisite("x")(lambda ctx: True)
    with pytest.raises(ValueError, match="twice"):
        checks.prerequisite("x")(lambda ctx: True)
