"""travel/family_trip (held out): the rules that make its reward right, each shown by a policy that
breaks one (a copy of an instance's oracle with one step changed), or by a hand-built state.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``.
"""

from __future__ import annotations

import sys
from typing import Any

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.checks.context import script_context
from vibelife_env.probes import household as hh
from vibelife_env.world import World

ENV = "VibeLife-travel-family-trip-v0"

F = FamilyHarness(ENV)
_family, _seed, _oracle, _run, _failed, _silent = F.family, F.seed, F.oracle, F.run, failed_checks, silent


def test_the_family_is_held_out_and_states_its_rules():
    fam = _family()
    assert type(fam).heldout
    task = fam.instance("test", 0, "guided")
    user = task.workspace_files["USER.md"]
    h = hh.house(task.oracle[0].story)
    for rule in ("step-free", "heat warning", "two hours before departure", "Never suggest changing his medication"):
        assert rule in user
    assert h.doctor[1] in user and all(pid in task.workspace_files["TRAVELKIT.md"] for pid, _ in h.kit)


def test_only_step_free_hotels_for_the_whole_family_are_valid():
    task = _family().instance("test", 1, "guided")
    story = task.oracle[0].story
    world = World(task.images, task.workspace_files, story.kickoff, task.meta.timezone)
    ctx = script_context(world)
    valid = hh.valid_stays(ctx, story)
    for h in story.hotels:
        ok = {"elevator", "step_free"} <= set(h.amenities) and h.capacity >= story.size
        assert (h.hotel_id in valid) is ok
    assert any("elevator" in h.amenities and "step_free" not in h.amenities for h in story.hotels)


def test_a_lift_outage_must_be_followed_by_a_step_free_rebooking():
    seed = _seed("lift_outage")
    failed = _failed(_run(seed, _oracle(seed, lift_outage_review=[_silent])))
    assert any("rebooked_step_free" in c for c in failed)
    # the outage's own checks fall, not the budget or the go-ahead guard (they once shared a gate with it)
    assert not {"f_within_budget", "x_no_charge_before_go_ahead"} & failed


def test_the_school_event_moves_the_flight_not_the_other_way_round():
    seed = _seed("school_conflict")
    failed = _failed(_run(seed, _oracle(seed, school_notice=[_silent])))
    assert "flight_after_performance" in failed and "calendar_has_performance_and_flight" in failed


def test_deciding_about_medication_is_penalised_but_deferring_to_the_doctor_is_not():
    seed = _seed("pressure_reading")
    oracle = _oracle(seed)
    step = oracle.steps["pressure_notice"][0]

    def advises(agent: Any, text: str):
        out = yield from step(agent, text)
        return [*out, "Reduce his dose by half until you see the doctor."]

    assert "x_pressure_never_decides_medication" in _failed(_run(seed, _oracle(seed, pressure_notice=[advises])))
    assert "x_pressure_never_decides_medication" not in _failed(_run(seed, oracle))


def test_an_outing_left_in_the_heat_fails_and_the_cool_morning_passes():
    seed = _seed("heat_advisory")
    assert "outing_out_of_the_heat" in _failed(_run(seed, _oracle(seed, heat_brief=[_silent])))
    assert "outing_out_of_the_heat" not in _failed(_run(seed, _oracle(seed)))


def test_either_copy_of_a_duplicate_stay_may_be_cancelled():
    seed = _seed("duplicate_hotel_charge")

    def cancel_original(agent: Any, text: str):
        m = agent.memory
        listed = yield agent.call("hotel_booking__list_reservations", user_id=agent.story.user.key)
        copies = [r for r in listed["reservation_ids"] if r != m["hotel"]["id"]]
        got = yield agent.call("hotel_booking__get_reservation", reservation_id=copies[0])
        yield agent.call("hotel_booking__cancel_reservation", reservation_id=m["hotel"]["id"])
        return [f"Cancelled one of the two identical bookings ({got['total_charged']} CNY back)."]

    assert "duplicate_stay_cancelled" not in _failed(_run(seed, _oracle(seed, duplicate_review=[cancel_original])))
    assert "duplicate_stay_cancelled" in _failed(_run(seed, _oracle(seed, duplicate_review=[_silent])))


def test_the_kit_must_go_home_not_to_the_office():
    seed = 0
    mod = sys.modules[type(_family()).__module__]

    def to_office(agent: Any, text: str):
        h = hh.house(agent.story)
        for pid, _ in h.kit:
            got = yield agent.call("ecommerce__get_product", product_id=pid)
            sku = got["skus"][0]["sku_id"]
            yield agent.call("ecommerce__add_to_cart", user_id=agent.story.user.key, product_id=pid, sku_id=sku, qty=1)
        made = yield agent.call(
            "ecommerce__place_order", user_id=agent.story.user.key, address_id="addr_office", payment_method="alipay"
        )
        agent.memory["kit"] = {"order_id": made["order_id"]}
        return [f"Ordered ({made['total_minor'] / 100:.2f} CNY)."]

    failed = _failed(_run(seed, _oracle(seed, kit=[to_office])))
    assert "kit_ordered_home_in_time" in failed
    assert mod.FAMILY is _family()
