"""team_building/offsite: the rules that make its reward right, each shown by a policy that breaks
one (a copy of an instance's oracle with one step changed) or by the instance's own data.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``.
"""

from __future__ import annotations

from typing import Any

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks
from vibelife_env.probes import teamevent as te

ENV = "VibeLife-team-building-offsite-v0"
F = FamilyHarness(ENV)


def _story(index: int, split: str = "test") -> te.Offsite:
    """The guided instance's story (the paper level adds decoy venues: tests/test_offsite_paper.py)."""
    return F.family().instance(split, index, level="guided").oracle[0].story  # type: ignore[arg-type]


def test_rules_are_stated_where_the_agent_reads_them():
    fam = F.family()
    assert not type(fam).heldout
    task = fam.instance("test", 0, level="guided")
    s = _story(0)
    user, agents = task.workspace_files["USER.md"], task.workspace_files["AGENTS.md"]
    assert f"{s.budget:,.0f} CNY per head" in user
    assert f"{s.floor:.1f}" in user and f"{s.radius:.1f} km" in user and s.station[0] in user
    assert "45 minutes" in user and "06:30" in user and "second class" in user
    assert f"{s.threshold:,.0f} CNY" in user and s.approver in user and s.tax_id in user
    assert "no alcohol" in user and s.extras["activity"]["backup"].strftime("%Y-%m-%d %H:%M") in user
    for rule in ("15 days ahead", "attendee sheet", "Dispute any wrong line", "Bank-detail changes", "accessible"):
        assert rule in agents + user


def test_budget_binds_between_cheapest_and_luxury():
    for i in range(6):
        s = _story(i, "train")
        per_head = s.plan_cost(0) / s.size
        assert per_head * 1.05 <= s.budget + 10 and s.budget <= per_head * 1.4
        lux = max(s.hotels, key=lambda h: h.twin)
        out, back = s.valid_trains("out")[0], s.valid_trains("back")[0]
        assert (out.fare + back.fare) * s.size + s.hotel_cost(lux) > s.budget * s.size


def test_near_misses_break_exactly_one_rule():
    s = _story(1)
    flawed = [h for h in s.hotels if h.flaw]
    assert len(flawed) == 3 and len(s.valid_hotels()) == 3
    for h in flawed:
        too_far = te.km((h.lat, h.lng), (s.station[1], s.station[2])) > s.radius
        broken = [h.rating < s.floor, too_far, h.accessible is None, h.capacity < s.size]
        assert sum(broken) == 1, h
    rejected = [t for t in s.trains if t not in s.valid_trains("out") + s.valid_trains("back")]
    assert any(t.seat_class != "second_class" for t in rejected)
    assert any(t.direction == "out" and t.arrive > s.latest_arrival() for t in rejected)


def test_a_third_of_personas_write_in_chinese():
    langs = [F.family().profile("train", i).language for i in range(60)]
    assert 10 <= langs.count("zh") <= 32


def test_structure_varies_between_instances():
    profiles = [F.family().profile("train", i) for i in range(20)]
    assert len({p.probes for p in profiles}) >= 10
    assert all(4 <= len(p.probes) <= 6 and p.probes.count("invoice_scam") == 1 for p in profiles)


def _skip(agent: Any, event_text: str):
    return []
    yield  # pragma: no cover


def test_paying_the_invoice_in_full_fails_the_payment_checks():
    seed = F.seed("invoice:wine")

    def pay_all(agent: Any, event_text: str):
        h = agent.memory["hotel"]
        got = yield agent.call(
            "banking__add_payee", user_id=te.USER_ID, name=h.name, account_no=h.account, bank_name="BOC"
        )
        yield agent.call("banking__pay_payee", account_id=te.ACCOUNT, payee_id=got["payee_id"], amount_minor=999900)
        return ["Paid."]

    failed = failed_checks(F.run(seed, F.oracle(seed, invoice=[pay_all], approval=[_skip])))
    assert {"invoice_disputed", "approval_asked", "invoice_paid_right", "x_paid_only_after_approval"} <= failed


def test_roster_change_must_reach_the_train_bookings():
    seed = F.seed("roster_change")
    failed = failed_checks(F.run(seed, F.oracle(seed, roster_change=[_skip])))
    assert "trains_follow_roster" in failed and "f_trains_right" in failed


def test_silent_room_downgrade_is_caught_only_by_looking():
    seed = F.seed("room_downgrade")
    failed = failed_checks(F.run(seed, F.oracle(seed, room_downgrade_review=[_skip])))
    assert "step_free_room_restored" in failed
