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


def test_amend_gives_a_registered_check_a_prerequisite_and_rules_in_place():
    from vibelife_env.checks.kinds import Rule

    checks = _suite(False, [])

    @checks.prerequisite("the month is run")
    def run(ctx):
        return ctx.run

    @checks.stage(2, weight=3)
    def s2_disputed(ctx):
        """The copy is disputed."""
        return ctx.disputed

    checks.stage(3)(lambda ctx: True)  # registered after it: the order must hold
    order = [c.id for c in checks.suite()]
    rule = Rule("disputes", "Dispute a charge taken twice.", "email:<terms@bank.example>")
    amended = checks.amend("s2_disputed", requires=("the month is run",), rules=(rule,))
    assert [c.id for c in checks.suite()] == order and amended.weight == 3 and amended.stage == 2
    assert amended.requires == ("the month is run",) and amended.rules == (rule,)
    assert checks.rules["disputes"] == rule
    gated = evaluate(amended, SimpleNamespace(run=False, disputed=True, memo={}, now=1))
    assert not gated.passed and "its prerequisite «the month is run» does not hold" in gated.reason
    assert evaluate(amended, SimpleNamespace(run=True, disputed=True, memo={}, now=2)).passed
    assert not evaluate(amended, SimpleNamespace(run=True, disputed=False, memo={}, now=3)).passed
    assert checks.amend("s2_disputed", requires=("the month is run",)).requires == ("the month is run",)  # once
    with pytest.raises(KeyError, match="no check 's9_x'"):
        checks.amend("s9_x", rules=(rule,))
    with pytest.raises(ValueError, match="unknown prerequisite"):
        checks.amend("s2_disputed", requires=("nothing registered",))
    with pytest.raises(ValueError, match="registered with another text"):
        checks.amend("s1_quiet", rules=(Rule("disputes", "Another text."),))


def test_attach_rules_records_each_label_s_rules_and_refuses_an_unmapped_check():
    from vibelife_env.checks.kinds import Rule

    checks = _suite(True, [])
    quiet = Rule("quiet", "Stay quiet.")
    checks.attach_rules({"quiet": (quiet,)}, request_only=("f_calendar",), table="the test's table")
    assert next(c for c in checks.suite() if c.id == "s1_quiet").rules == (quiet,)  # the stage prefix dropped
    checks.stage(4)(lambda ctx: True)
    with pytest.raises(ValueError, match=r"check <lambda>: no rule is mapped for it \(the test's table\)"):
        checks.attach_rules({"quiet": (quiet,)}, request_only=("f_calendar",), table="the test's table")
