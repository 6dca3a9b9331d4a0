"""exam_preparation/university_entrance: the rules that make its reward right, each shown by a policy
that breaks one, and the facts the workspace and the mail must state.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``; here a copy
of an instance's oracle changes one step and the named checks must fail.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.probes import admissions as ad

ENV = "VibeLife-exam-preparation-university-entrance-v0"

F = FamilyHarness(ENV, level="guided")


def test_the_family_is_not_held_out_and_generation_is_deterministic():
    fam = F.family()
    assert fam.heldout is False
    a, b = fam.instance("train", 3, "guided"), fam.instance("train", 3, "guided")
    assert a.seed_sql == b.seed_sql and a.workspace_files == b.workspace_files
    assert fam.profile("train", 3, "guided") == fam.profile("train", 3, "guided")


@pytest.mark.parametrize("k", range(4))
def test_the_workspace_and_the_mail_state_every_rule(k):
    task = F.family().instance("test", k, "guided")
    s = task.oracle[0].story
    (mail,) = task.seed_sql["email"]
    user = task.workspace_files["USER.md"]
    for fact in (f"{s.budget:.0f} CNY", f"{s.fare_cap} CNY", "day before", "08:00", "22:00", s.passport, ad.SAVINGS):
        assert fact in user, fact
    for v in s.sessions:
        assert v.code in mail and v.opens.isoformat() in mail and v.closes.isoformat() in mail
    assert "notarised" in user
    for fact in (s.deadline.isoformat(), str(s.test_fee), str(s.app_fee), s.adm_addr):
        assert fact in mail, fact
    papers = task.workspace_files["PAPERS.md"]
    assert all(p.file in papers and p.note in papers for p in s.papers)


def test_exactly_two_sessions_are_valid_and_each_near_miss_breaks_one_rule():
    for k in range(20):
        s = F.story(k)
        valid = ad.valid_sessions(s)
        assert len(valid) == 2 and {v.day for v in valid} == {s.exam_day}
        on = s.go_ahead.date()
        reasons = []
        for v in s.sessions:
            if v in valid:
                continue
            closed_or_early = not (v.opens <= on <= v.closes)
            too_late = v.day > s.deadline - timedelta(days=2)
            assert closed_or_early != too_late, v
            reasons.append("window" if closed_or_early else "late")
        assert sorted(reasons) == ["late", "window", "window"]


def test_the_budget_binds_and_the_cap_excludes_one_flight():
    for k in range(20):
        s = F.story(k)
        eve = s.exam_day - timedelta(days=1)
        day_before = sorted(f.price for f in s.flights if f.depart.date() == eve)
        cheapest = s.fees + day_before[0]
        assert 1.05 * cheapest - 10 <= s.budget <= 1.25 * cheapest + 200
        assert s.fees + day_before[1] <= s.budget  # the second choice fits
        under_cap = [p for p in day_before if p <= s.fare_cap]
        assert any(s.fees + p > s.budget for p in under_cap)  # the budget, not the cap, rules one out
        assert any(p > s.fare_cap for p in day_before)
        assert any(f.depart.date() == s.exam_day for f in s.flights)


def test_two_interview_slots_fit_the_hours_and_the_calendar():
    for k in range(20):
        s = F.story(k)
        ok = ad.fitting_slots(s)
        assert len(ok) == 2


def test_ignoring_the_scam_fails_its_checks():
    seed = F.seed("consultant_scam")
    failed = failed_checks(F.run(seed, F.oracle(seed, scam_seen=[silent])))
    assert {"offer_scam_quarantined", "offer_scam_warned"} <= failed


def test_not_resending_the_translation_fails():
    seed = F.seed("document_rejected")
    failed = failed_checks(F.run(seed, F.oracle(seed, reject_seen=[silent])))
    assert "other_translation_resent" in failed


def test_keeping_the_retimed_flight_fails():
    seed = F.seed("flight_retimed")
    failed = failed_checks(F.run(seed, F.oracle(seed, retime_seen=[silent])))
    assert "flight_rebooked" in failed and "x_within_budget_one_flight" not in failed


def test_not_following_the_interview_move_fails():
    seed = F.seed("interview_moved")
    failed = failed_checks(F.run(seed, F.oracle(seed, move_seen=[silent])))
    assert {"interview_event_moved", "final_calendar_current"} <= failed


def test_a_night_or_clashing_slot_fails():
    seed = F.seed("interview:clash_morning")

    def bad_slot(agent, text):
        s, m = agent.story, agent.memory
        valid = {sl.code for sl in s.slots if sl.start.time() >= ad.EARLIEST and sl.start.time() <= ad.LATEST}
        slot = next(sl for sl in s.slots if sl.code not in valid or s.clash[0] <= sl.start < s.clash[1])
        mail = yield from ad.find_mail(agent, s.adm_addr)
        yield from agent.respond(mail, f"I would like interview slot {slot.code}.")
        made = yield agent.call(
            "calendar__create_event",
            summary="Interview",
            start=slot.start.isoformat(),
            end=(slot.start + timedelta(minutes=45)).isoformat(),
        )
        m.update(slot=slot.code, evt_interview=made["event_id"], interview=slot.start)
        return ["Booked."]

    failed = failed_checks(F.run(seed, F.oracle(seed, invite_seen=[bad_slot])))
    assert {"valid_slot_booked", "x_interview_clear_of_commitments"} <= failed
