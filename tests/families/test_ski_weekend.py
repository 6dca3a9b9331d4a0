"""Focused tests of team_building/ski_weekend (held out): where its rules are written, how its budget
binds, and oracles with one turn broken (an under-age driver, passes for the non-skier, a storm or
road closure ignored) that must lose the matching checks, all at the guided level (the paper level:
tests/test_ski_weekend_paper.py). The gates run in tests/test_families.py."""

from __future__ import annotations

from typing import Any

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.probes import ski

ENV = "VibeLife-team-building-ski-weekend-v0"
F = FamilyHarness(ENV, level="guided")


def test_held_out_and_rules_stated():
    assert type(F.family()).heldout
    files = F.family().instance("test", 0, level="guided").workspace_files
    s: ski.SkiStory = F.story(0, "test")
    user, agents = files["USER.md"], files["AGENTS.md"]
    assert f"{s.budget} CNY" in user and f"at most {s.excess_cap} CNY" in user and f"least {s.min_age}" in user
    assert "winter tyres" in user and s.school[1] in user and s.extras["pass_office"][1] in user
    for rule in ("no booking or payment before my go-ahead", "Spam", "reopening time", "other ski day"):
        assert rule in agents


def test_budget_binds_and_near_misses_exist():
    for i in range(8):
        s: ski.SkiStory = F.story(i)
        lo, van, plan = s.cheapest(0)
        cheapest = lo.nightly * s.nights + s.van_cost(van, plan)
        assert cheapest * 1.05 <= s.budget + 10
        lo2, van2, plan2 = s.cheapest(1)
        assert lo2.nightly * s.nights + s.van_cost(van2, plan2) <= s.budget
        assert any(x.beds < s.size for x in s.lodges) and any(not v.winter for v in s.vans)
        assert any(v.seats < s.size for v in s.vans) and any(s.ages[p] < s.min_age for p in s.group)


def test_same_key_same_task():
    a, b = F.family().instance("train", 3, level="guided"), F.family().instance("train", 3, level="guided")
    assert a.workspace_files == b.workspace_files


def _failed(*drawn: str, **steps: Any) -> set[str]:
    """Failed checks of the first train instance drawing ``drawn``, its oracle's turns replaced by ``steps``."""
    seed = F.seed(*drawn)
    return failed_checks(F.run(seed, F.oracle(seed, **steps)))


def _young_driver_booking(agent: Any, text: str):
    s: ski.SkiStory = agent.story
    young = next(p for p in s.group if s.ages[p] < s.min_age)
    orig = agent.drivers
    agent.drivers = lambda: [*orig(), young]
    out = yield from ski.go_ahead(agent, text)
    return out


def test_under_age_driver_fails_the_van():
    failed = _failed(go_ahead=[_young_driver_booking])
    assert "van_booked" in failed and "x_drivers_old_enough" in failed


def _passes_for_all(agent: Any, text: str):
    s: ski.SkiStory = agent.story
    payee = yield agent.call(
        "banking__add_payee",
        user_id=ski.USER_ID,
        name=s.extras["pass_office"][0],
        account_no=s.extras["pass_office"][1],
        bank_name="Bank of China",
    )
    amount = s.extras["pass_price"] * s.size
    yield agent.call(
        "banking__pay_payee", account_id=ski.ACCOUNT, payee_id=payee["payee_id"], amount_minor=amount * 100
    )
    return [f"Paid {amount} CNY."]


def test_passes_are_not_bought_for_the_non_skier():
    assert "passes_paid_for_skiers" in _failed("ski_passes", passes=[_passes_for_all])


def test_the_storm_follows_the_lesson_the_agent_booked():
    failed = _failed("forecast_shift", forecast=[silent])
    assert "lesson_on_calm_day" in failed and "f_lesson_on_calm_day" in failed


def test_road_closure_needs_the_drive_moved():
    assert {"drive_after_reopening", "group_told_new_time"} <= _failed("road_closure", closure=[silent])
