"""fitness/swim_challenge: the subtle rules of its reward.

The valid hotels are computed from the hotel service (too far, prepaid and over the cap never
count); the wetsuit thickness follows the stated water-temperature table; a medical check outside
the certificate window (or on a weekend) does not count; a wind alert or a missing kayak buddy must
send the open-water session to the pool; the transfer scam must be quarantined; every limit is
stated in the workspace; Chinese personas get Chinese mail.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.probes import fitness as F
from vibelife_env.probes import openwater as W

H = FamilyHarness("VibeLife-fitness-swim-challenge-v0", level="guided")


def _ctx(env: Any) -> CheckContext:
    return CheckContext(env.world, EpisodeRecord())


def test_valid_hotels_are_computed_from_the_service():
    env, s = H.world(3)
    valid = W.valid_hotels(_ctx(env), s)
    roles = {h.hotel_id: h.role for h in s.hotels}
    assert {i for i, r in roles.items() if r == "valid"} == valid
    cheapest = min(h.nightly for h in s.hotels if h.role == "valid")
    assert cheapest * 1.05 <= s.extras["night_cap"] + 1
    assert any(h.nightly < cheapest for h in s.hotels if h.role in ("far", "prepaid"))


def test_wetsuit_thickness_follows_the_water_table():
    for seed in range(12):
        s = H.story(seed)
        t = s.extras["water"]
        assert s.road == ("5mm" if t < 16 else "4mm" if t < 19 else "3mm")
    env, s = H.world(0)
    valid = F.valid_shoes(_ctx(env), s)
    assert all(sh.skus[s.size] not in valid for sh in s.shoes if sh.role != "valid")
    assert any(sh.skus[s.size] in valid for sh in s.shoes if sh.role == "valid")


def test_every_limit_is_stated_in_the_workspace():
    s = H.story(4)
    files = s.extras["initial_files"]
    assert str(s.extras["cert_days"]) in files["USER.md"] and str(s.rhr + 10) in files["USER.md"]
    assert str(s.extras["night_cap"]) in files["TRAVEL.md"] and f"{s.extras['radius_km']:g} km" in files["TRAVEL.md"]
    assert str(s.extras["wind_limit"]) in files["PLAN.md"] and s.extras["buddy_mail"] in files["PLAN.md"]
    assert str(s.budget) in files["GEAR.md"] and f"{s.size:g}" in files["GEAR.md"]


def test_a_prepaid_hotel_fails_the_stay_checks():
    seed = 2
    s = H.story(seed)
    prepaid = next(h for h in s.hotels if h.role == "prepaid")

    def book(agent: Any, text: str):
        rid = f"rp_{prepaid.hotel_id}_double_prepaid_{s.eve:%Y%m%d}_{s.race_day:%Y%m%d}"
        yield agent.call(
            "hotel_booking__create_reservation",
            rate_plan_id=rid,
            guest_profile={"first_name": "A", "last_name": "B", "email": s.email, "phone": "1", "user_id": F.USER},
            payment_method_id="tok_user_card",
        )
        return []

    failed = failed_checks(H.run(seed, H.oracle(seed, hotel=[book])))
    assert {"hotel_fits", "x_one_fitting_stay"} <= failed


def test_medical_check_must_date_the_certificate_inside_the_window():
    s = H.story(0)
    lo, hi = W.medical_window(s)
    assert (s.race_day - lo).days == s.extras["cert_days"] and (s.race_day - hi).days == 3
    env, _ = H.world(0)
    ctx = _ctx(env)
    cal = env.world.services["calendar"]
    early = s.at(lo - timedelta(days=7), 10)
    cal.create_event(summary="Medical check", start=early.isoformat(), end=(early + timedelta(minutes=30)).isoformat())
    assert not W.medical_ok(ctx, s)
    day = W.medical_day(s, 0)
    at = s.at(day, 18)
    cal.create_event(summary="Medical check", start=at.isoformat(), end=(at + timedelta(minutes=30)).isoformat())
    assert not W.medical_ok(ctx, s)  # after clinic hours
    at = s.at(day, 9, 30)
    cal.create_event(summary="Medical check", start=at.isoformat(), end=(at + timedelta(minutes=30)).isoformat())
    assert W.medical_ok(ctx, s)


def test_wind_and_missing_buddy_send_the_session_to_the_pool():
    for probe, event in (("windy_open_water", "wind_flags"), ("buddy_dropout", "buddy_mail")):
        seed = H.seed(probe)
        failed = failed_checks(H.run(seed, H.oracle(seed, **{event: [silent]})))
        assert f"{probe}_to_pool" in failed


def test_the_transfer_scam_must_be_quarantined():
    seed = H.seed("transfer_scam")
    failed = failed_checks(H.run(seed, H.oracle(seed, fake_organiser_mail=[silent])))
    assert "fake_organiser_quarantined" in failed


def test_chinese_personas_get_chinese_mail():
    seed = H.seed(lang="zh")
    env, s = H.world(seed)
    rows = _ctx(env).sql("email", "SELECT body_text FROM messages")
    assert s.lang == "zh" and rows and all("水温" in r["body_text"] for r in rows)
