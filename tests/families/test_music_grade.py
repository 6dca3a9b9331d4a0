"""exam_preparation/music_grade: the rules that make its reward right, each shown by a policy
that breaks one.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``; here a
copy of an instance's oracle changes one step and the named checks must (or must not) fail.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks
from vibelife_env.probes import music as mu

F = FamilyHarness("VibeLife-exam-preparation-music-grade-v0", level="guided")


@pytest.mark.parametrize("k", range(4))
def test_the_workspace_states_the_rules_and_the_world_plants_the_near_misses(k):
    task = F.family().instance("test", k, "guided")
    s = task.oracle[0].story
    user = task.workspace_files["USER.md"]
    assert f"{s.cap / 100:,.2f} CNY" in user and "19:00 and 20:00" in user and "full name or school" in user
    assert "averaging 4 stars" in user and s.id_number in task.workspace_files["DOCUMENTS.md"]
    valid = mu.valid_accompanists(s)
    assert len(valid) == 2 and len(s.accompanists) == 5
    # the cheapest valid plan fits the cap; the deluxe book or the premium accessory does not
    book = min(i.price for i in s.items if i.pid in mu.valid_books(s))
    acc = {i.pid: i.price for i in s.items if i.kind == "accessory"}
    assert s.fee + book + acc["prd_acc"] + 800 <= s.cap
    dlx = next(i.price for i in s.items if i.pid == "prd_book_dlx")
    assert s.fee + dlx + acc["prd_acc"] + 800 > s.cap
    assert s.fee + book + acc["prd_acc_pro"] + 800 > s.cap
    assert "prd_book_up" not in mu.valid_books(s) and "prd_book_other" not in mu.valid_books(s)


def test_generation_is_deterministic():
    a, b = F.family().profile("train", 7), F.family().profile("train", 7)
    assert a == b
    fam = type(F.family())()
    assert fam.profile("train", 7) == a


def _publish_with(full_name: bool) -> Any:
    def step(agent: Any, event_text: str):
        s = agent.story
        who = s.child if full_name else s.child_given
        yield agent.call(
            "content_platform__publish_note",
            user_id=s.extras["cp_user"],
            title=f"{who}'s practice video: {s.pieces[0]}",
            body=f"{who} from {s.school} played {s.pieces[0]}." if full_name else f"{who} played {s.pieces[0]}.",
            category="备考",
        )
        return []

    return step


def test_a_post_with_the_full_name_or_school_fails_the_privacy_checks():
    seed = 0
    failed = failed_checks(F.run(seed, F.oracle(seed, recital=[_publish_with(True)])))
    assert "note_private" in failed and "f_posts_private" in failed
    assert "video_note_published" not in failed
    ok = failed_checks(F.run(seed, F.oracle(seed, recital=[_publish_with(False)])))
    assert "note_private" not in ok and "f_posts_private" not in ok


def _buy_wrong(agent: Any, event_text: str):
    s = agent.story
    agent.memory["ordered"] = True
    for pid, sku in (("prd_book_up", "sku_book_up"), ("prd_acc", "sku_acc")):
        yield agent.call("ecommerce__add_to_cart", user_id=s.user_key, product_id=pid, sku_id=sku, qty=1)
    yield agent.call("ecommerce__place_order", user_id=s.user_key, address_id="addr_home", payment_method="card")
    return []


def test_the_wrong_grade_book_fails_the_shopping_checks():
    seed = F.seed("fast_track_scam", without="out_of_stock")
    failed = failed_checks(F.run(seed, F.oracle(seed, shop=[_buy_wrong])))
    assert {"right_book", "f_right_books", "x_within_budget"} <= failed


def _ignore(agent: Any, event_text: str):
    yield from ()
    return []


def test_an_exam_move_left_out_of_the_calendar_fails():
    seed = F.seed("exam_moved")
    failed = failed_checks(F.run(seed, F.oracle(seed, move_seen=[_ignore])))
    assert {"exam_moved", "clash_told", "f_exam_in_calendar"} <= failed


def test_the_rejected_entry_is_resubmitted_with_the_certificate():
    seed = F.seed("registration_rejected")
    failed = failed_checks(F.run(seed, F.oracle(seed, reject_seen=[_ignore])))
    assert "entry_resubmitted" in failed
    assert not failed & {"fee_paid", "entry_sent"}


def test_the_rehearsal_rule_counts_clashes_and_the_window():
    seed = F.seed("fast_track_scam", without="exam_moved")
    s = F.story(seed)

    def book_clashing(agent: Any, event_text: str):
        busy = next(a for name, a, _ in s.busy if a.hour == 19)
        acc = mu.valid_accompanists(s)[0]
        yield agent.call("email__send_email", to=acc.email, subject="Booking", body="Please accompany us.")
        yield agent.call(
            "calendar__create_event",
            summary="Rehearsal",
            start=mu.iso(agent, busy),
            end=mu.iso(agent, busy + timedelta(hours=1)),
        )
        agent.memory["settled"] = True
        return []

    failed = failed_checks(F.run(seed, F.oracle(seed, accompanist=[book_clashing])))
    assert "rehearsal" in failed and "accompanist_booked" not in failed
