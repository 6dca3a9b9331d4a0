"""team_building/charity_run: the rules that make its reward right, each shown by a policy that
breaks one (a copy of an instance's oracle with one step changed) or by the instance's own data.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``. These tests
are about the guided instance (the paper level: ``tests/test_charity_run_paper.py``).
"""

from __future__ import annotations

from typing import Any

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks
from vibelife_env.probes import charityrun as C

ENV = "VibeLife-team-building-charity-run-v0"
F = FamilyHarness(ENV, level="guided")


def test_rules_are_stated_where_the_agent_reads_them():
    task = F.family().instance("test", 0, level="guided")
    s = F.story(0, "test")
    user, team = task.workspace_files["USER.md"], task.workspace_files["TEAM.md"]
    assert f"{s.budget} CNY" in user and f"at least {len(s.members)} seats" in user
    assert "18:30-19:30" in user and s.window[0].isoformat() in user and s.window[1].isoformat() in user
    assert "30 °C" in user and "07:00" in user and str(C.AQI_LIMIT) in user
    assert "organiser ONLY" in user and s.link in user and str(s.target) in user
    for m in s.members:
        assert m.name in team and m.phone in team


def test_budget_binds_and_near_misses_break_one_rule():
    for i in range(8):
        s = F.story(i)
        valid = s.valid_offers()
        assert len(valid) >= 2
        cheapest = valid[0].daily + s.plan_daily
        assert cheapest * 1.05 <= s.budget <= cheapest * 1.26
        bad = [o for o in s.offers if o not in valid]
        assert {o.role for o in bad} == {"small", "pricey"}
        for o in bad:
            assert (o.seats < len(s.members)) != (o.daily + s.plan_daily > s.budget)


def test_structure_varies_and_a_third_write_chinese():
    fam = F.family()
    profiles = [fam.profile("train", i, "guided") for i in range(30)]
    assert all(4 <= len(p.probes) <= 7 and p.probes.count("upgrade_scam") == 1 for p in profiles)
    assert len({p.probes for p in profiles}) > 20
    zh = sum(p.language == "zh" for p in profiles)
    assert 5 <= zh <= 18


def test_same_key_same_instance():
    fam = F.family()
    a, b = fam.instance("train", 3, level="guided"), fam.instance("train", 3, level="guided")
    assert a.seed_sql == b.seed_sql and a.workspace_files == b.workspace_files


def _book_small(agent: Any, text: str):
    """Book the five-seat car (too small for the team) after the go-ahead."""
    s: C.RunStory = agent.story
    small = next(o for o in s.offers if o.role == "small")
    yield agent.call(
        "car_rental__create_rental_booking",
        offer_id=small.offer_id,
        insurance_plan_id="ins_std",
        driver_user_id=C.USER,
        drivers=[{"name": s.name}],
        contact={"email": s.email},
    )
    agent.memory["settled"] = True
    return ["Booked."]


def test_a_van_too_small_for_the_team_is_not_paid():
    failed = failed_checks(F.run(0, F.oracle(0, go=[_book_small])))
    assert {"van_booked", "van_final"} <= failed


def _leak_to_restaurant(agent: Any, text: str):
    s: C.RunStory = agent.story
    body = "Our team: " + "; ".join(f"{m.name} ({m.phone})" for m in s.members) + f". {len(s.members)} people."
    yield agent.call("email__send_email", to=s.venue_addr, subject="After-party", body=body)
    return ["Sent."]


def test_emergency_contacts_only_go_to_the_organiser():
    failed = failed_checks(F.run(1, F.oracle(1, party=[_leak_to_restaurant])))
    assert {"contacts_private", "party_private", "party_needs"} <= failed


def test_heat_forecast_moves_the_race_to_the_early_wave():
    seed = F.seed("heat_forecast")
    s = F.story(seed)
    assert s.tmax < C.HOT_C
    res = F.run(seed, F.oracle(seed))
    assert res.score == 100.0

    def keep_main_wave(agent: Any, text: str):
        yield agent.call("weather__get_forecast_daily", geo=agent.story.city, days=3)
        return [f"Forecast high {s.extras['hot_after']:g} °C."]

    failed = failed_checks(F.run(seed, F.oracle(seed, eve=[keep_main_wave])))
    assert {"wave_rule", "wave_final"} <= failed


def test_the_meetup_clash_follows_the_agent_and_must_be_moved():
    seed = F.seed("meetup_clash")

    def ignore(agent: Any, text: str):
        return []
        yield

    failed = failed_checks(F.run(seed, F.oracle(seed, meetup_clash_seen=[ignore])))
    assert {"clash_moved", "meetups_final"} <= failed
