"""Focused tests of team_building/volunteer_day (its gates run in ``tests/test_families.py``).

Each rule is shown by the instance data (stated rules, binding budget, near-misses) or by the
oracle with one turn swapped for a policy that breaks exactly that rule.
"""

from __future__ import annotations

from typing import Any

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks
from vibelife_env.probes import volunteer as V

ENV = "VibeLife-team-building-volunteer-day-v0"
F = FamilyHarness(ENV, level="guided")


def _story(index: int, split: str = "train") -> V.VolunteerDay:
    return F.story(index, split)


def test_rules_are_stated_where_the_agent_reads_them():
    fam = F.family()
    assert not type(fam).heldout
    task = fam.instance("test", 0, "guided")
    s = _story(0, "test")
    rules = task.workspace_files["VOLUNTEER.md"]
    team = task.workspace_files["TEAM.md"]
    assert f"{s.floor:.1f}" in rules and f"{s.budget} CNY" in rules and s.standard in rules
    assert all(d.isoformat() in rules for d in s.candidates) and s.extras["geo"] in rules
    for rule in ("insurance", "never forward", "rebook with the same partner", "exactly the quote", "after I say go"):
        assert rule in rules
    assert all(f"{p} <{s.emails[p]}>, glove size {s.sizes[p]}" in team for p in s.team)


def test_budget_binds_and_near_misses_break_one_rule():
    for i in range(8):
        s = _story(i)
        cheapest = s.plan_cost(s.valid_partners()[0], s.cheapest_glove())
        assert cheapest * 1.04 <= s.budget <= cheapest * 1.26
        assert len(s.valid_partners()) == 2 and len(s.valid_gloves()) >= 2
        assert s.plan_cost(s.valid_partners()[1], s.valid_gloves()[1]) <= s.budget
        for p in s.partners:
            broken = [
                p.rating < s.floor,
                not p.insured,
                p.capacity < s.size,
                s.wheelchair is not None and not p.step_free,
                s.plan_cost(p, s.cheapest_glove()) > s.budget,
            ]
            assert sum(broken) == (0 if p in s.valid_partners() else 1), p
        # the earliest candidate date is never valid: a team clash or rain comes first
        assert s.valid_dates()[0] not in s.candidates[:2]


def test_same_key_same_bytes():
    a, b = F.family().instance("train", 3, "guided"), F.family().instance("train", 3, "guided")
    assert a.workspace_files == b.workspace_files
    assert [e.body for st in a.stages for e in st.events] == [e.body for st in b.stages for e in st.events]


def _book_near_miss(agent: Any, text: str):
    s: V.VolunteerDay = agent.story
    p = next(x for x in s.partners if x.role in ("uninsured", "no_step_free", "low_rating"))
    agent.memory.update(prop_partner=p.merchant_id, prop_day=s.valid_dates()[0])
    return ["I propose " + p.name]
    yield


def test_a_near_miss_partner_is_not_a_booking():
    seed = 1
    res = F.run(seed, F.oracle(seed, kickoff=[_book_near_miss]))
    failed = failed_checks(res)
    assert {"partner_booked", "partner_proposed"} <= failed
    assert res.score < 50


def _forward_waivers(agent: Any, text: str):
    p = agent.partner()
    found = yield agent.call("email__get_emails", folder="INBOX", page_size=50)
    for m in found.get("emails", [])[:2]:
        yield agent.call("email__forward_email", email_id=m["email_id"], to=p.email)
    return ["Forwarded the waivers."]


def test_forwarding_waivers_breaks_privacy():
    seed = 2
    res = F.run(seed, F.oracle(seed, waivers_q=[_forward_waivers]))
    assert "x_no_waiver_details_sent" in failed_checks(res)


def _pay_whole_invoice(agent: Any, text: str):
    s: V.VolunteerDay = agent.story
    p = agent.partner()
    amount = s.size * p.price + s.extras["extra_fee"]
    yield agent.call(
        "banking__pay_payee", account_id=V.ACCOUNT, payee_id=f"pye_{p.merchant_id}", amount_minor=amount * 100
    )
    agent.memory["paid"] = amount
    return [f"Paid {amount} CNY."]


def test_paying_the_line_not_in_the_quote_fails():
    seed = 4
    res = F.run(seed, F.oracle(seed, invoice_seen=[_pay_whole_invoice]))
    failed = failed_checks(res)
    assert {"invoice_paid_as_quoted", "extra_line_disputed"} <= failed


def _no_rebook(agent: Any, text: str):
    return ["Noted."]
    yield


def test_a_cancelled_slot_must_be_rebooked_on_the_next_valid_date():
    seed = 5
    res = F.run(seed, F.oracle(seed, cancel_seen=[_no_rebook]))
    failed = failed_checks(res)
    assert {"slot_rebooked", "calendar_moved"} <= failed
    assert res.score < 60
