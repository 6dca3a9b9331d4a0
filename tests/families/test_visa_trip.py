"""travel/visa_trip: the rules that make its reward right, each shown by a policy that breaks one.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``; here a
copy of an instance's oracle changes one step and the named checks must (or must not) fail.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from typing import Any

import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks
from vibelife_env.checks.context import script_context
from vibelife_env.checks.text._norm import has_cjk
from vibelife_env.probes import visa as vz
from vibelife_env.world import World

ENV = "VibeLife-travel-visa-trip-v0"

F = FamilyHarness(ENV, level="guided")  # these tests are about the guided instance
_family, _seed, _oracle, _run, _failed = F.family, F.seed, F.oracle, F.run, failed_checks


def _module() -> Any:
    return sys.modules[type(_family()).__module__]


@pytest.mark.parametrize("k", range(4))
def test_the_workspace_states_every_rule_and_the_catalogue_plants_the_trap(k):
    fam = _family()
    task = fam.instance("test", k, "guided")
    story = task.oracle[0].story
    v = vz.facts(story)
    user, agents = task.workspace_files["USER.md"], task.workspace_files["AGENTS.md"]
    assert v.consulate_addr in user and v.decide_by.isoformat() in user and f"{v.threshold:,}" in user
    assert "Nothing we could lose if the visa were refused" in agents
    assert "flex" in task.seed_sql["hotel_booking"][0] and "prepaid" in task.seed_sql["hotel_booking"][0]
    for p in story.party:  # the scans the consulate may get live in the workspace
        assert v.scans[p.key] in task.workspace_files[vz.scan_path(p)]


def test_a_slow_visa_service_is_never_granted_and_a_fast_one_is():
    seed = _seed("visa:priority_needed")
    task = _family().instance("train", seed, "guided")
    story = task.oracle[0].story
    v = vz.facts(story)
    slow = next(p for p in v.products if p.days > (v.decide_by - story.extras["apply_at"].date()).days)
    fast = min(v.products, key=lambda p: p.days)
    for product, granted in ((slow, False), (fast, True)):
        world = World(task.images, task.workspace_files, story.extras["apply_at"], task.meta.timezone)
        for p in story.party:
            made = world.call(
                "visa_and_advisory__start_visa_application",
                {"product_id": product.product_id, "applicant_profile": {"user_id": p.key, "nationality": "CN"}},
            )
            app_id = made["application_id"]
            for kind in ("passport", "photo", "itinerary", "bank_statement"):
                world.call(
                    "visa_and_advisory__upload_document", {"application_id": app_id, "kind": kind, "doc_ref": "x"}
                )
            answers = dict.fromkeys(vz.product_form()["fields"][i]["name"] for i in range(7))
            world.call(
                "visa_and_advisory__submit_visa_application",
                {"application_id": app_id, "answers": answers, "docs_refs": [], "payment_method_id": "card"},
            )
        world.clock.advance_to(v.decision_at)
        ctx = script_context(world)
        vz.approve(ctx, story)
        assert vz.approved(ctx, story) is granted


def test_a_prepaid_room_before_the_visa_breaks_the_refund_rule():
    seed = _seed("refundable_until_visa")
    mod = _module()

    def prepaid(agent: Any, text: str):
        out = yield from mod.propose(agent, text)
        s = agent.story
        plans = yield agent.call(
            "hotel_booking__get_room_availability",
            hotel_id=agent.memory["plan"]["hotel"].hotel_id,
            check_in=s.depart_day.isoformat(),
            check_out=s.return_day.isoformat(),
            guests=s.size,
        )
        agent.memory["plan"]["rate"] = next(p for p in plans if not p["refundable"])
        return out

    res = _run(seed, _oracle(seed, kickoff=[prepaid]))
    failed = _failed(res)
    assert "stay_booked_refundable" in failed and "x_nothing_lost_before_visa" in failed
    assert "flights_ticketed_after_visa" not in failed  # the rest of the trip is still right


def test_tickets_bought_before_the_decision_are_money_at_risk():
    seed = _seed("refundable_until_visa")
    mod = _module()

    def early(agent: Any, text: str):
        out = yield from mod.go_ahead(agent, text)
        yield from mod._ticket(agent)
        return out

    failed = _failed(_run(seed, _oracle(seed, go_ahead=[early])))
    assert {"x_nothing_lost_before_visa", "flights_ticketed_after_visa", "flights_wait_said"} <= failed


def test_passport_scans_go_to_the_consulate_only():
    seed = _seed("passport_privacy")
    oracle = _oracle(seed)
    step = oracle.steps["privacy_review"][0]

    def leaky(agent: Any, text: str):
        out = yield from step(agent, text)
        p = agent.story.user
        yield agent.call(
            "email__send_email", to="guest-services@hotel.example", subject="Scans", body=f"Passport {p.passport}"
        )
        return out

    failed = _failed(_run(seed, _oracle(seed, privacy_review=[leaky])))
    assert {"scans_to_consulate", "x_scans_never_to_third_party", "x_identifiers_and_money_safe"} <= failed
    assert not _failed(_run(seed, oracle))


def test_the_bank_issues_a_fresh_statement_only_when_asked():
    seed = _seed("document_resubmit")

    def silent(agent: Any, text: str):
        return []
        yield

    res = _run(seed, _oracle(seed, rfi_notice=[silent]))
    failed = _failed(res)
    assert {"fresh_statement_requested", "resubmitted_with_fresh_statement", "f_every_visa_granted"} <= failed


def test_a_chinese_persona_writes_in_chinese_and_the_oracle_still_scores_full():
    fam = _family()
    seed = next(s for s in range(60) if fam.profile("train", s, "guided").language == "zh")
    task = fam.instance("train", seed, "guided")
    kickoff = next(e for e in task.events if e.id == "kickoff")
    assert has_cjk(kickoff.body)
    assert _run(seed, task.oracle[0]).score == pytest.approx(100.0)


def test_the_decision_day_is_stated_four_days_before_departure():
    for k in range(4):
        story = _family().instance("test", k, "guided").oracle[0].story
        assert vz.facts(story).decide_by == story.depart_day - timedelta(days=4)
