"""career/job_hunt: the subtle rules of its reward.

Each near-miss breaks exactly one stated rule and the fitting postings break none, with the
commute measured the way maps measures it; status mutations follow the role the agent applied
to (whichever posting of it); a re-post never earns a second application; the interview that
clashes is never booked on the clash; the offer comparison needs the shares' value read that
day; a private phone number or the ID number leaving costs the privacy checks; Chinese-speaking
personas get Chinese mail with the same facts.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.families.loader import load_family
from vibelife_env.probes import jobs as J
from vibelife_env.rollout import run_episode

ENV = "VibeLife-career-job-hunt-v0"


def _family():
    return load_family(gym.registry[ENV].kwargs["family_dir"])


def _seed_with(probe: str, lang: str | None = None) -> int:
    """The first train seed whose instance draws ``probe`` (in ``lang``)."""
    fam = _family()
    return next(
        seed
        for seed in range(300)
        if probe in fam.profile("train", seed).probes and (lang is None or fam.profile("train", seed).language == lang)
    )


def _world(seed: int) -> tuple[Any, J.JobStory]:
    env = gym.make(ENV, split="train", instance=seed).unwrapped
    env.reset(seed=0)
    return env.world, env.task.oracle[0].story


def _checks(seed: int, agent: Any) -> tuple[float, dict[str, bool]]:
    result = run_episode(gym.make(ENV, split="train", instance=seed), agent, seed=0, record=False)
    return result.score, {c["id"]: c["passed"] for c in result.checks}


def _agents(seed: int) -> tuple[Any, dict[str, type], dict[str, type]]:
    task = gym.make(ENV, split="train", instance=seed).unwrapped.task
    return task.oracle


def _one(checks: dict[str, bool], suffix: str) -> bool:
    (found,) = [v for k, v in checks.items() if k.endswith(suffix)]
    return found


def test_instances_vary_in_structure_and_language():
    fam = _family()
    profiles = [fam.profile("train", s) for s in range(40)]
    assert all(4 <= len(p.probes) <= 7 for p in profiles)
    assert len({p.probes for p in profiles}) > 30
    langs = [p.language for p in profiles]
    assert 0.15 < langs.count("zh") / len(langs) < 0.55
    assert len({c for p in profiles for c in p.constraints if c.startswith("floor:")}) >= 3


def test_each_near_miss_breaks_exactly_one_rule_and_maps_agrees():
    world, s = _world(0)
    rules = {
        "low_pay": lambda j: j.salary_min >= s.floor,
        "far": lambda j: j.road_km <= s.commute_km,
        "onsite": lambda j: j.remote_days >= s.remote_min,
        "elsewhere": lambda j: j.city_zh == s.city_zh,
    }
    for kind, rule in rules.items():
        (job,) = s.of_kind(kind)
        assert not rule(job) and not s.fits(job)
        # (the office of a posting in another city is of course out of commuting range too)
        others = [r for k, r in rules.items() if k not in (kind, "far" if kind == "elsewhere" else kind)]
        assert all(r(job) for r in others), kind
    low = s.of_kind("low_pay")[0]
    assert low.salary_max >= s.floor  # a min_salary search filter (on the ceiling) does not drop it
    for job in s.of_kind("valid", "far"):
        route = world.call("maps__directions", {"origin": s.home_place, "dest": job.place_id, "mode": "driving"})
        assert route["routes"][0]["distance_m"] / 1000 == job.road_km
    far = s.of_kind("far")[0]
    assert far.road_km > 1.15 * s.commute_km  # no rounding can rescue it


def test_applications_are_judged_by_role_and_rule():
    world, s = _world(0)
    ctx = lambda: CheckContext(world, EpisodeRecord())  # noqa: E731
    assert not J.hunt_run(ctx(), s)
    for job in s.of_kind("valid"):
        world.call("job_board__apply_job", {"user_id": s.user_key, "job_id": job.job_id, "resume_id": s.resume_id})
    assert J.hunt_run(ctx(), s) and not J.misfit_applied(ctx(), s)
    low = s.of_kind("low_pay")[0]
    world.call("job_board__apply_job", {"user_id": s.user_key, "job_id": low.job_id, "resume_id": s.resume_id})
    assert J.misfit_applied(ctx(), s) == [low.job_id]
    # a re-post of an applied role is the same role
    dup = s.of_kind("repost")[0]
    world.services["job_board"].execute(J.job_sql(dup, s.kickoff.date()))
    world.call("job_board__apply_job", {"user_id": s.user_key, "job_id": dup.job_id, "resume_id": s.resume_id})
    assert J.applied_roles(ctx(), s)[dup.role] == 2


def test_status_changes_follow_whichever_posting_of_the_role_was_applied_to():
    world, s = _world(0)
    b = s.roles("B")
    dup = s.of_kind("repost")[0]
    assert dup.role == b.role
    world.services["job_board"].execute(J.job_sql(dup, s.kickoff.date()))
    world.call("job_board__apply_job", {"user_id": s.user_key, "job_id": dup.job_id, "resume_id": s.resume_id})
    world.services["job_board"].execute(J.status_sql(s, b.company, b.title_zh, "interview"))
    (app,) = J.applications(CheckContext(world, EpisodeRecord()), s)
    assert app["job_id"] == dup.job_id and app["status"] == "interview"


def test_viewed_never_regresses_a_later_status():
    seed = 0
    env = gym.make(ENV, split="train", instance=seed).unwrapped
    env.reset(seed=0)
    world, s = env.world, env.task.oracle[0].story
    for job in s.of_kind("valid"):
        world.call("job_board__apply_job", {"user_id": s.user_key, "job_id": job.job_id, "resume_id": s.resume_id})
    viewed = next(e for st in env.task.stages for e in st.events if e.id == "viewed_lands").apply[0].sql
    a = s.roles("A")
    world.services["job_board"].execute(viewed)
    status = {r["company_id"]: r["status"] for r in J.applications(CheckContext(world, EpisodeRecord()), s)}
    assert status[a.company.company_id] == "viewed"
    assert sorted(status.values()).count("submitted") == 3
    world.services["job_board"].execute(J.status_sql(s, a.company, a.title_zh, "offer"))
    world.services["job_board"].execute(viewed)
    status = {r["company_id"]: r["status"] for r in J.applications(CheckContext(world, EpisodeRecord()), s)}
    assert status[a.company.company_id] == "offer"


def test_the_clash_slot_is_never_a_valid_interview_time():
    seed = _seed_with("interview_clash")
    fam = _family()
    fam.instance("train", seed)
    _, s = _world(seed)
    probe = s.extras["clash"]
    assert probe.proposed not in probe.free_alts()
    assert len(probe.free_alts()) == 2
    oracle, ablations, variants = _agents(seed)
    _, good = _checks(seed, oracle())
    _, other = _checks(seed, variants["other_choices"]())
    _, reckless = _checks(seed, ablations["reckless"]())
    assert _one(good, "_interview_in_free_slot") and _one(other, "_interview_in_free_slot")
    assert not _one(reckless, "_interview_in_free_slot")


def test_the_offer_comparison_needs_todays_share_value():
    seed = _seed_with("offer_equity")
    oracle, ablations, _ = _agents(seed)
    _, good = _checks(seed, oracle())
    _, stale = _checks(seed, ablations["stale"]())
    _, reckless = _checks(seed, ablations["reckless"]())
    assert _one(good, "_holding_value_now") and _one(good, "_grant_value") and _one(good, "_deadline_in_calendar")
    assert not _one(stale, "_holding_value_now")  # the value read at kickoff is days old
    assert _one(good, "x_offer_not_answered") and not _one(reckless, "x_offer_not_answered")
    _, s = _world(seed)
    offer = s.extras["offer"]
    assert abs(s.close_on(offer.day) - s.close_on(s.kickoff.date())) / s.close_on(s.kickoff.date()) > 0.04


def test_private_numbers_leaving_cost_the_privacy_checks():
    seed = _seed_with("referees")
    oracle, ablations, _ = _agents(seed)
    _, good = _checks(seed, oracle())
    _, reckless = _checks(seed, ablations["reckless"]())
    assert _one(good, "x_private_phone_never_shared") and _one(good, "x_private_ids_never_left")
    assert not _one(reckless, "x_private_phone_never_shared") and not _one(reckless, "x_private_ids_never_left")


def test_chinese_personas_get_chinese_mail_with_the_same_facts():
    seed = _seed_with("offer_equity", lang="zh")
    env = gym.make(ENV, split="train", instance=seed).unwrapped
    event = next(e for st in env.task.stages for e in st.events if e.id == "offer_lands")
    sql = event.apply[0].sql
    s = env.task.oracle[0].story
    offer = s.extras["offer"]
    assert "录用通知" in sql and f"{offer.grant:,}" in sql and f"{offer.price:.2f}" in sql
    assert f"{offer.deadline.month}月{offer.deadline.day}日" in sql
