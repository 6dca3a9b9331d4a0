"""team_building/workshop_dinner: the rules that make its reward right, each shown by a policy that
breaks one (a copy of an instance's oracle with one step changed) or by the instance's own data.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``.
"""

from __future__ import annotations

from typing import Any

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.probes import dinner as D
from vibelife_env.probes.teamevent import km

ENV = "VibeLife-team-building-workshop-dinner-v0"
F = FamilyHarness(ENV)


def _story(index: int, split: str = "train") -> D.Workshop:
    """The guided instance's story (the paper level adds decoy restaurants: tests/test_workshop_dinner_paper.py)."""
    return F.family().instance(split, index, level="guided").oracle[0].story  # type: ignore[return-value]


def test_rules_are_stated_where_the_agent_reads_them():
    fam = F.family()
    assert type(fam).heldout
    task = fam.instance("test", 0, level="guided")
    s: D.Workshop = _story(0, "test")
    user, agents = task.workspace_files["USER.md"], task.workspace_files["AGENTS.md"]
    assert f"{s.floor:.1f}" in user and f"{s.walk_km:.1f} km" in user and f"{s.budget} CNY" in user
    assert "10% service" in user and D.STEP_FREE in user
    for name, diet in s.diets.items():
        assert name in user and diet in user
    assert f"{s.alcohol_cap} CNY per attendee" in agents and f"{s.taxi_cap} CNY" in agents and D.FINANCE in agents
    for rule in ("no reservation before my go-ahead", "Bank-detail changes", "cancel and rebook", "duplicate only"):
        assert rule in agents


def test_budget_binds_and_near_misses_break_one_rule():
    for i in range(8):
        s: D.Workshop = _story(i)
        valid = s.valid()
        assert len(valid) == 3
        assert s.cost(valid[0]) * 1.05 <= s.budget + 1 and s.budget <= s.cost(valid[0]) * 1.25 + 1
        assert all(s.cost(v) <= s.budget for v in valid)
        assert s.room is not None
        for v in s.restaurants:
            if not v.flaw:
                continue
            broken = [
                v.rating < s.floor,
                not s.needs(s.kickoff) <= set(v.tags),
                km((v.lat, v.lng), (s.room.lat, s.room.lng)) > s.walk_km,
                s.cost(v) > s.budget,
            ]
            assert sum(broken) == 1, (v, broken)


def _claim_everything(agent: Any, text: str):
    s: D.Workshop = agent.story
    body = f"Claim: {s.extras['bill']:.2f} CNY"
    yield agent.call("email__send_email", to=D.FINANCE, subject="claim", body=body)
    return [f"Claimed {s.extras['bill']:.2f} CNY."]


def test_claiming_alcohol_above_the_cap_fails():
    seed = F.seed("scam:bank_change")
    res = F.run(seed, F.oracle(seed, receipt=[_claim_everything]))
    failed = failed_checks(res)
    assert "claim_sent" in failed and "x_claim_once_within_policy" in failed


def test_ignoring_a_cancellation_fails_the_replacement():
    seed = F.seed("cancelled")
    res = F.run(seed, F.oracle(seed, cancelled=[silent]))
    assert "replacement_booked" in failed_checks(res)


def test_a_table_below_the_new_rating_floor_must_move():
    seed = F.seed("rating_drop")
    res = F.run(seed, F.oracle(seed, rating_drop=[silent]))
    assert "rebooked_after_rating_drop" in failed_checks(res)


def test_paying_the_deposit_twice_fails():
    seed = F.seed("scam:bank_change")
    oracle = F.oracle(seed)
    twice = oracle.steps["invoice"] * 2
    res = F.run(seed, F.oracle(seed, invoice=twice))
    failed = failed_checks(res)
    assert "deposit_paid" in failed and "x_one_deposit" in failed


def test_disputing_the_real_bill_fails():
    seed = F.seed("duplicate_card_charge")

    def both(agent: Any, text: str):
        rows = yield agent.call("credit_card__list_unbilled", card_id=D.CARD)
        for r in rows:
            yield agent.call("credit_card__dispute_transaction", tx_id=r["tx_id"], reason="duplicate")
        return ["Disputed."]

    res = F.run(seed, F.oracle(seed, double_charge=[both]))
    failed = failed_checks(res)
    assert "duplicate_disputed" in failed and "x_real_bill_never_disputed" in failed


def test_headcount_change_resizes_the_table():
    seed = F.seed("headcount:+1")
    res = F.run(seed, F.oracle(seed, headcount=[silent]))
    assert {"table_resized", "f_table_at_end"} <= failed_checks(res)
