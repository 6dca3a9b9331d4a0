"""travel/road_trip (held out): the rules that make its reward right, each shown by a policy that
breaks one (a copy of an instance's oracle with one step changed) or by a hand-built state.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``.
"""

from __future__ import annotations

from datetime import timedelta

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.checks.context import script_context
from vibelife_env.probes import road
from vibelife_env.services.car_rental.service import _rental_days
from vibelife_env.world import World

ENV = "VibeLife-travel-road-trip-v0"

F = FamilyHarness(ENV, level="guided")
_family, _oracle, _run, _failed, _silent = F.family, F.oracle, F.run, failed_checks, silent


def _seed(probe: str, constraint: str = "") -> int:
    return F.seed(probe, *([constraint] if constraint else []))


def _story(split: str, index: int) -> road.RoadStory:
    return F.story(index, split)


def test_the_family_is_held_out_and_states_its_rules():
    fam = _family()
    assert type(fam).heldout
    task = fam.instance("test", 2, "guided")
    story = task.oracle[0].story
    user, agents, route = (task.workspace_files[f] for f in ("USER.md", "AGENTS.md", "ROUTE.md"))
    assert f"{story.car_cap:,.0f} CNY" in user and f"{story.hotel_cap:,.0f} CNY" in user
    assert "6 hours of driving" in user and "Full cover" in user and f"{story.luggage} large suitcases" in user
    assert "International Driving Permit" in agents and f"claims@{story.domain}" in agents
    assert f"route_km_estimate={story.total_km}" in route


def test_the_cheapest_daily_rate_breaks_the_car_cap_once_fuel_counts():
    for seed in range(30):
        s = _story("train", seed)
        v8 = next(o for o in s.offers if o.vehicle.vehicle_id == "veh_v8")
        assert s.vehicle_ok(v8.vehicle)  # by the seat and luggage rules it would do...
        assert s.all_in(v8) > s.car_cap  # ...but its fuel breaks the cap
        fits = [o for o in s.valid_offers() if s.all_in(o) <= s.car_cap]
        assert len(fits) >= 2  # a second valid choice exists
        shock = s.extras.get("shock")
        if shock is not None:  # and still fits after the price shock
            kind, factor = shock
            risen = [
                s.all_in(o, toll=s.toll_price * factor)
                if kind == "toll"
                else s.all_in(o, unit_price=o.unit_price * factor)
                for o in fits[:2]
            ]
            assert max(risen) <= s.car_cap + 0.5


def test_rental_days_agree_with_the_service_across_a_daylight_saving_change():
    for seed in range(60):
        s = _story("train", seed)
        assert s.pickup_at is not None and s.return_at is not None
        assert s.days == _rental_days(s.pickup_at.isoformat(), s.return_at.isoformat())


def test_only_permit_holders_may_be_named_drivers():
    seed = _seed("licence_rule", "licence:second_driver")
    s = _story("train", seed)
    barred = next(p for p in s.party if not s.permits[p.key])
    assert not road.drivers_ok(s, (s.user.name, barred.name))
    assert road.drivers_ok(s, (s.user.name,))
    assert not road.drivers_ok(s, ())
    assert "no IDP" in _family().instance("train", seed, "guided").workspace_files["DOCUMENTS.md"]


def test_a_road_closure_splits_the_drive_and_moves_the_next_stay():
    seed = _seed("road_closure")
    s = _story("train", seed)
    probe = _family().instance("train", seed, "guided").oracle[0].steps["closure_brief"][0].__self__
    assert probe.drive.hours <= 6 < probe.drive.hours + probe.extra  # the detour breaks the stated limit
    after = {x.key: x for x in s.stays_at(probe.at)}
    assert after["s_via"].check_in == probe.day and after["s_via"].city.name == probe.via.name
    assert after[probe.stay.key].check_in == after["s_via"].check_out == probe.day + timedelta(days=1)
    assert after[probe.stay.key].check_out == probe.stay.check_out
    failed = _failed(_run(seed, _oracle(seed, closure_brief=[_silent])))
    assert {"closure_night_on_the_way", "closure_told", "f_rooms_fit"} <= failed
    # the trip is still under way (a car and every first-plan stay were booked): the closure left
    # alone fails its own checks and the final rooms check, not the trip's guards
    assert "x_no_booking_before_go_ahead" not in failed


def test_a_swapped_car_needs_the_difference_claimed_and_the_refund_booked():
    seed = _seed("car_trouble", "car_swap")
    failed = _failed(_run(seed, _oracle(seed, car_trouble_report=[_silent])))
    assert {"swap_difference_claimed", "swap_answer", "swap_refund_recorded"} <= failed
    assert "f_ledger_reconciles" not in failed  # nothing came back, so the ledger is still right


def test_the_stand_in_car_fits_the_rules_and_costs_less_a_day():
    seed = _seed("car_trouble", "car_swap")
    task = _family().instance("train", seed, "guided")
    s = task.oracle[0].story
    world = World(task.images, task.workspace_files, s.kickoff, task.meta.timezone)
    ctx = script_context(world)
    task.callables["car_trouble_swap"](ctx)
    row = ctx.sql(
        "car_rental",
        "SELECT o.*, v.* FROM rental_offers o JOIN vehicles v USING (vehicle_id) WHERE offer_id = 'of_standin'",
    )[0]
    booked = s.valid_offers()[0]
    assert s.vehicle_ok(row) and row["daily_price"] < booked.daily
