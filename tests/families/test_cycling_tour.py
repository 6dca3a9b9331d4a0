"""fitness/cycling_tour: the subtle rules of its reward.

The valid support cars are computed from the rental service and the map (a manual car for a C2
licence, a car without a bike carrier, a desk too far from the start village and a premium car
over the budget are never valid; a manual car is valid for a C1 licence); the insurance plan
counts by its excess; a helmet must carry the stated standard; the damage at return must be filed
as an incident on the booking; a moved start time moves the race in the calendar; every rule is
stated in the workspace (these are the guided instance's rules: the harness builds it with
``level="guided"``; the paper level is tested in ``tests/test_cycling_tour_paper.py``).
"""

from __future__ import annotations

from typing import Any

from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.probes import cycling as C
from vibelife_env.probes import fitness as F

H = FamilyHarness("VibeLife-fitness-cycling-tour-v0", level="guided")


def _ctx(world: Any) -> CheckContext:
    return CheckContext(world, EpisodeRecord())


def _by_role(s: C.CyclingStory) -> dict[str, C.CarOffer]:
    return {o.role: o for o in s.fleet.offers if o.role != "ok"}


def test_valid_cars_are_computed_from_the_world():
    for lic in ("licence:C2", "licence:C1"):
        env, s = H.world(H.seed(lic))
        valid = C.valid_offers(_ctx(env.world), s)
        roles = _by_role(s)
        ok = {o.offer_id for o in s.fleet.offers if o.role == "ok"}
        assert ok <= valid
        for role in ("no_rack", "far"):
            assert roles[role].offer_id not in valid
        assert (roles["manual"].offer_id in valid) == (lic == "licence:C1")
        # the premium car fits every rule but the budget, even with the cheapest allowed plan
        plans = C.valid_plans(_ctx(env.world), s)
        cheapest_plan = min(s.fleet.plans[p][1] for p in plans)
        assert (roles["premium"].daily + cheapest_plan) * s.fleet.days > s.fleet.budget


def test_plans_count_by_excess_and_the_budget_binds():
    for cap in ("excess_cap:0", "excess_cap:2000"):
        env, s = H.world(H.seed(cap))
        plans = C.valid_plans(_ctx(env.world), s)
        assert "ins_basic" not in plans and "ins_zero" in plans
        assert ("ins_plus" in plans) == (cap == "excess_cap:2000")
        fl = s.fleet
        totals = sorted((o.daily + fl.plans[p][1]) * fl.days for o in fl.offers if C.offer_fits(fl, o) for p in plans)
        assert totals[1] <= fl.budget  # a second valid choice for other_choices
        assert fl.budget <= max(totals[0] * 1.25, totals[1] + 10) + 10


def test_helmet_must_carry_the_stated_standard():
    env, s = H.world(0)
    valid = F.valid_shoes(_ctx(env.world), s)
    other = next(sh for sh in s.shoes if sh.role == "other_standard")
    assert other.type != s.road and other.skus[s.size] not in valid
    assert other.price < min(sh.price for sh in s.shoes if sh.role == "valid")


def test_rules_are_stated_in_the_workspace():
    env, s = H.world(H.seed("licence:C2"))
    files = env.task.workspace_files
    car = files["CAR.md"]
    fl = s.fleet
    assert f"{fl.budget:,}" in car and f"{fl.radius_km:g} km" in car and "C2" in car and fl.start[1] in car
    assert s.road in files["GEAR.md"] and f"{s.size:g}" in files["GEAR.md"]


def _book_no_rack(agent: Any, text: str):
    s = agent.story
    o = _by_role(s)["no_rack"]
    made = yield agent.call(
        "car_rental__create_rental_booking",
        offer_id=o.offer_id,
        insurance_plan_id="ins_zero",
        driver_user_id=F.USER,
        drivers=[{"name": s.name}],
        contact={"email": s.email},
    )
    agent.memory["car"] = {"ref": made["booking_ref"], "desk": o.desk}
    return [f"Booked {made['booking_ref']}."]


def test_a_car_without_a_carrier_fails_and_unfiled_damage_fails():
    seed = H.seed("start_moved")
    failed = failed_checks(H.run(seed, H.oracle(seed, car_ask=[_book_no_rack])))
    assert "car_meets_rules" in failed and "x_one_car_within_rules" in failed
    failed = failed_checks(H.run(seed, H.oracle(seed, car_return=[silent], start_moved_note=[silent])))
    assert {"damage_reported", "return_condition_recorded", "race_moved_to_new_start"} <= failed
    assert "car_meets_rules" not in failed and "pickup_condition_recorded" not in failed
