"""fitness/gym_reboot at the paper level (issue #27): the same story as the guided level, with its
domain rules in the review site's mails, the physio's and the doctor's advice, the old gym's
cancellation, the card issuer's and the consumer council's notes, a latent fact (a weekly
appointment over an evening class), a workspace without backend names, a lived-in inbox and
gyms whose decoys fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/fitness/gym_reboot --level ...``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.probes import gym as G
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-fitness-gym-reboot-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
LATENT = "weekly_appointment_kept_clear"  # the label: a stage check of the last stage


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"
    assert [(e.id, e.time, e.kind, e.body) for e in guided.events] == [
        (e.id, e.time, e.kind, e.body) for e in paper.events
    ]
    assert [label(c.id) for c in paper.checks if c.rules and all(r.latent for r in c.rules)] == [LATENT]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if label(c.id) != LATENT
    ]
    assert all(not c.rules for c in guided.checks)


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_trigger_lists(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for trigger in ("safety complaint", "recall", "consecutive", "two days in a row", "bank account", "48 hours"):
        assert trigger not in text, trigger
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert {"USER.md", "GYM.md", "PLAN.md", "GEAR.md", "TIMETABLES.md", "AGENTS.md"} <= set(files)
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_gym_goer_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"safety", "join", "billing", "load", "makeup", "dispute", "one_place"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {"induction_told", "rest_of_week_told", "gym_cost_told"}, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_gyms_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 110 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any("cityrate" in x and not x.endswith("@cityrate.example") for x in senders)  # a namesake
    assert len(mailbox(_task("guided", **where))) == 2
    story = task.oracle[0].story
    assert len(story.gyms) >= 20 and len(story.extras["decoys"]) >= 14
    assert sorted(g.role for g in G.valid_gyms(story)) == ["valid", "valid2"]
    for g in story.extras["decoys"]:  # each fails on a fact the agent looks up
        near = min(G.km(story.home, (g.lat, g.lng)), G.km(story.work, (g.lat, g.lng))) <= story.radius_km
        fails = g.role.removeprefix("decoy:").split("+")
        assert ("far" in fails) == (not near)
        assert ("low" in fails) == (g.rating < story.min_rating)
        assert ("unsafe" in fails) == (g.safety == "open")
        assert ("over" in fails) == (g.monthly > story.price_cap)
        assert ("lockin" in fails) == (g.term > story.max_term)
    for g in story.gyms:  # nothing in a gym's name or timetable labels a decoy
        assert g.name in task.workspace_files["TIMETABLES.md"]


def test_the_decoys_are_on_the_review_site_and_the_valid_set_is_the_guided_one():
    where = {"split": "test", "instance": 1}
    sets = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            rows = core.world.call(
                "review_platform__search_merchants", {"category": "venue", "city": "Shanghai", "limit": 50}
            )
            rows = rows.get("merchants", rows) if isinstance(rows, dict) else rows
            story = core.task.oracle[0].story
            sets.append(({r["merchant_id"] for r in rows}, story))
        finally:
            env.close()
    (guided_ids, guided), (paper_ids, story) = sets
    assert guided_ids < paper_ids and len(paper_ids) >= 20
    assert {g.merchant for g in story.extras["decoys"]} == paper_ids - guided_ids
    assert [g.key for g in G.valid_gyms(story)] == [g.key for g in G.valid_gyms(guided)]


# ---------------------------------------------------------------- the oracle looks things up
def test_the_paper_oracle_scores_full_and_passes_the_discoverability_gate():
    where = {"level": "paper", "split": "test", "instance": 0}
    env = gym.make(ENV, **where)
    try:
        result = run_episode(env, load_oracle(base_env(env).task), seed=0, record=False)
    finally:
        env.close()
    assert result.score == pytest.approx(100.0)
    assert discoverability_problems(ENV, 0, where) == []


def test_an_oracle_that_does_not_read_the_rule_mails_fails_the_discoverability_gate(monkeypatch):
    where = {"level": "paper", "split": "test", "instance": 0}
    task = _task("paper", split="test", instance=0)
    oracle, ablations, variants = task.oracle
    blind = {k: [f for f in fns if f.__name__ != "lookups"] for k, fns in oracle.steps.items()}
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"valid_gym_proposed", "joined_valid_gym", "x_nothing_to_scammer", "f_legit_charges_stand"} <= failing
    assert LATENT not in failing  # the calendar, not a mail, shows the weekly appointment


# ---------------------------------------------------------------- the latent fact
def _over_the_appointment(agent: Any, text: str):
    """Book next week as the oracle does, then one more session over the weekly appointment."""
    s = agent.story
    said = yield from agent.story_plan(agent, text)
    a = s.extras["weekly_spans"][4][0] + timedelta(minutes=30)  # plan week 1
    yield agent.call(
        "calendar__create_event",
        summary="Gym · PT",
        start=a.isoformat(),
        end=(a + timedelta(minutes=60)).isoformat(),
        location=G.gym_of(agent).name,
    )
    return said


def _latent_run(where: dict[str, Any], break_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        oracle = base_env(env).task.oracle[0]
        steps = dict(oracle.steps)
        attrs: dict[str, Any] = {"steps": steps}
        if break_it:
            attrs["story_plan"] = staticmethod(steps["plan_1"][0])
            steps["plan_1"] = [_over_the_appointment]
        result = run_episode(env, type("Probe", (oracle,), attrs)(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_keeps_the_weekly_appointment_clear():
    where = {"split": "test", "instance": 2}
    task = _task("paper", **where)
    weekly = task.oracle[0].story.extras["weekly"]
    assert weekly not in "\n".join(task.workspace_files.values())
    assert all(weekly not in m["body_text"] for m in mailbox(task))  # nobody mentions it
    kept, broken = _latent_run(where, False), _latent_run(where, True)
    assert kept[LATENT]["passed"] and kept["f_no_session_clashes"]["passed"]
    assert not broken[LATENT]["passed"]
