"""travel/rail_tour: the rules that make its reward right, each shown by a policy that breaks one
(a copy of an instance's oracle with one step changed) or by a hand-built state.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``.
"""

from __future__ import annotations

import re
from typing import Any

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.checks.context import script_context
from vibelife_env.probes import rail
from vibelife_env.rollout import EpisodeResult, run_episode
from vibelife_env.world import World

ENV = "VibeLife-travel-rail-tour-v0"

F = FamilyHarness(ENV)
_family, _oracle, _failed, _silent = F.family, F.oracle, failed_checks, silent


def _seed(probe: str, **extra: Any) -> int:
    return F.seed(probe, *extra.values())


def _story(split: str, index: int) -> rail.RailStory:
    return F.story(index, split)


def _run(seed: int, cls: type) -> tuple[EpisodeResult, Any]:
    env = F.make(seed, strict_mutations=True)
    return run_episode(env, cls(), seed=seed), env.unwrapped


def _world(index: int = 0) -> tuple[Any, rail.RailStory]:
    task = _family().instance("test", index, level="guided")
    story = task.oracle[0].story
    world = World(task.images, task.workspace_files, story.kickoff, task.meta.timezone)
    return script_context(world), story


def test_rules_are_stated_where_the_agent_reads_them():
    fam = _family()
    assert not type(fam).heldout
    task = fam.instance("test", 1, level="guided")
    story = task.oracle[0].story
    user, agents = task.workspace_files["USER.md"], task.workspace_files["AGENTS.md"]
    assert f"{story.budget:,.0f} CNY" in user and "second class" in user
    assert story.rules.earliest.strftime("%H:%M") in user and story.rules.arrive_by.strftime("%H:%M") in user
    for rule in ("15 days ahead", "accessible", "after 21:00", "@12306.example", "same time the next evening"):
        assert rule in agents
    if story.mobility is not None:  # the fact is planted; the rule that binds it is general
        assert "wheelchair" in user and "accessible" not in user


def test_only_second_class_trains_inside_the_stated_window_are_valid():
    ctx, story = _world(0)
    for leg in story.legs:
        rows = ctx.sql(
            "rail_booking",
            "SELECT * FROM train_offers WHERE date = ? AND origin_city = ?",
            (leg.day.isoformat(), leg.origin.name),
        )
        valid = {r["offer_id"] for r in rows if story.offer_ok(r)}
        assert len(valid) == 3  # room for another valid choice
        for r in rows:
            if r["offer_id"].endswith(("_early", "_late", "_1st", "_biz")):
                assert r["offer_id"] not in valid


def test_legs_beyond_the_presale_window_open_later_and_are_due_then():
    task = _family().instance("test", 1, level="guided")
    story = task.oracle[0].story
    ctx, _ = _world(1)
    ids = {e.id for e in task.events}
    for leg in story.legs:
        seats = ctx.sql(
            "rail_booking",
            "SELECT MAX(adult_seats_remaining) AS n FROM train_offers WHERE date = ? AND origin_city = ? AND dest_city = ?",
            (leg.day.isoformat(), leg.origin.name, leg.dest.name),
        )[0]["n"]
        if leg.opens is None:
            assert seats > 0 and story.due(leg) == story.extras["go_ahead"]
        else:
            assert seats == 0 and story.due(leg) > story.extras["go_ahead"]
            assert f"presale_{leg.index}_opens" in ids or "fare_hold_lands" in ids


def test_the_budget_binds_and_leaves_room_for_the_second_choice():
    for seed in range(25):
        s = _story("train", seed)
        cheapest = s.extras["cheapest"]
        second = sum(s.valid_trains(g)[1].fare for g in s.legs) * s.size + sum(
            s.valid_rooms(st)[1][1].nightly * st.nights for st in s.stays
        )
        assert cheapest * 1.04 <= s.budget <= max(cheapest * 1.26, second * 1.02 + 150)
        assert second <= s.budget
        luxury = sum(max(r.nightly for h in s.hotels_in(st.city.name) for r in h.rooms) * st.nights for st in s.stays)
        assert cheapest - sum(s.valid_rooms(st)[0][1].nightly * st.nights for st in s.stays) + luxury > s.budget


def test_a_third_of_personas_write_in_chinese_and_the_facts_stay_the_same():
    fam = _family()
    langs = [fam.profile("train", s).language for s in range(60)]
    assert 0.2 <= langs.count("zh") / len(langs) <= 0.5
    seed = langs.index("zh")
    kickoff = next(e for e in fam.instance("train", seed, level="guided").events if e.id == "kickoff")
    story = _story("train", seed)
    assert re.search(r"[\u4e00-\u9fff]", kickoff.body)
    assert story.depart_day.isoformat() in kickoff.body and story.return_day.isoformat() in kickoff.body


def test_generation_is_deterministic():
    fam = _family()  # generation time is measured in benchmarks/bench_families.py, not here
    fam._cache.clear()
    a = fam.instance("train", 1003, level="guided").seed_sql
    fam._cache.clear()
    assert fam.instance("train", 1003, level="guided").seed_sql == a


def test_a_disrupted_train_must_be_covered_again_and_its_cascade_followed():
    seed = _seed("train_disruption")
    story = _story("train", seed)
    probe_kind = "cancelled" if "train_cancelled" in _family().profile("train", seed).constraints else "retimed"
    failed = _failed(_run(seed, _oracle(seed, disruption_board=[_silent]))[0])
    assert {
        f"{probe_kind}_hotel_told_late",
        f"{probe_kind}_evening_plan_moved",
        f"{probe_kind}_new_time_told",
    } <= failed
    if probe_kind == "cancelled":  # a dead ticket is no cover
        assert f"{probe_kind}_leg_still_covered" in failed
    else:  # the calendar still shows the old time
        assert "f_calendar_matches" in failed
    probe = _family().instance("train", seed, level="guided").oracle[0].steps["disruption_board"][0].__self__
    for _, _, _, arrive, _ in probe.relief:
        assert arrive.astimezone(story.tz).hour >= 21  # the only trains left arrive late: the cascade is due


def test_the_fake_refund_names_the_train_the_user_holds():
    seed = _seed("fake_refund")
    res, env = _run(seed, _oracle(seed))
    assert res.score == 100.0
    ctx = script_context(env.world)
    story = env.task.oracle[0].story
    mail = ctx.sql("email", "SELECT subject, body_text FROM messages WHERE from_addr LIKE '%12306-refund%'")[0]
    held = {t.train_no for t in rail.tickets(ctx, story, live=False)}  # held when the mail came
    assert any(no in mail["subject"] + mail["body_text"] for no in held)


def test_the_fare_hold_lapses_into_higher_fares_only_without_a_ticket():
    seed = _seed("fare_hold")
    task = _family().instance("train", seed, level="guided")
    story = task.oracle[0].story
    world = World(task.images, task.workspace_files, story.kickoff, task.meta.timezone)
    ctx = script_context(world)
    hold = _family().instance("train", seed, level="guided").oracle[0].steps["fare_hold_review"][0].__self__
    before = {r["offer_id"]: r["adult_fare"] for r in ctx.sql("rail_booking", "SELECT * FROM train_offers")}
    task.callables["fare_hold_lapse"](ctx)
    after = {r["offer_id"]: r["adult_fare"] for r in ctx.sql("rail_booking", "SELECT * FROM train_offers")}
    raised = {k for k in before if after[k] > before[k]}
    assert raised == {t.offer_id for t in story.trains if t.leg == hold.leg.index}


def test_a_silent_fare_hold_is_missed_by_an_agent_that_does_not_read_its_mail():
    seed = _seed("fare_hold")
    failed = _failed(_run(seed, _oracle(seed, fare_hold_review=[_silent]))[0])
    assert {"held_leg_bought", "x_fare_hold_met", "f_ledger_reconciles"} <= failed
