"""career/relocation at the paper level (issue #27): the same story as the guided level, with its
domain rules in HR's relocation policy mail, the movers' welcome mail and the listing platform's
mail, a latent fact (the diary has the person away on the delivery day), a workspace without
backend names, a lived-in inbox and decoy hotels that fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/career/relocation --level ...``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-career-relocation-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]


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
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["away_on_delivery_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_the_policy(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for trigger in ("nights in total", "CNY a night", "km from the office by road", "upfront fee", "receipt"):
        assert trigger not in text
    assert "on the strength of a mail" in files["USER.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_person_who_relocates_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"stay", "nights", "cap", "commute", "moving_eta", "hr_channel", "away_on_delivery"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:someone_home" and r.fact
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {
        "t_few_failed_changes",
        "landlord_notified",
        "house_hunt_flight_booked",
        "f_house_hunt_flight_within_policy",
        *(f"errand_{e}_done" for e in ("farewell", "packing", "alert")),
    }, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_hotels_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    assert len(mailbox(_task("guided", **where))) < 10
    story = task.oracle[0].story
    assert len(story.hotels) >= 20 and explicitness(task)["catalogue"] >= 20
    decoys = [h for h in story.hotels if h.kind.startswith("decoy_")]
    assert len(decoys) >= 15
    for h in decoys:  # each fails the policy on a looked-up fact: the road distance or the price
        assert not story.hotel_ok(h)
    kinds = {h.kind for h in decoys}
    assert {"decoy_far", "decoy_pricey", "decoy_both"} <= kinds


def test_the_fitting_hotels_are_the_guided_ones():
    guided = _task("guided", split="test", instance=1).oracle[0].story
    paper = _task("paper", split="test", instance=1).oracle[0].story
    assert [h.hotel_id for h in paper.hotels if paper.hotel_ok(h)] == [
        h.hotel_id for h in guided.hotels if guided.hotel_ok(h)
    ]


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
    assert {"stay_booked_within_policy", "x_id_only_to_hr"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        steps = oracle.steps
        if not raise_it:
            steps = {**steps, "kickoff": [f for f in steps["kickoff"] if f.__name__ != "away_step"]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_trip_away_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["away_on_delivery_raised"]["passed"]
    assert not silent["away_on_delivery_raised"]["passed"]
    assert silent["hotel_named"]["passed"]  # the rest of the reply still counts
    assert silent["move_and_delivery_in_calendar"]["passed"]


def _without_delivery_entry(step: Any) -> Any:
    """``step`` with its calendar entry on the delivery day left out (answered as if made)."""

    def run(agent: Any, event_text: str) -> Any:
        gen = step(agent, event_text)
        try:
            req = next(gen)
            while True:
                calls = req.get("tool_calls", [])
                skip = [c["name"] for c in calls] == ["calendar__create_event"] and str(
                    calls[0]["arguments"].get("start", "")
                ).startswith(agent.story.eta.isoformat())
                req = gen.send({} if skip else (yield req))
        except StopIteration as done:
            return done.value

    run.__name__ = step.__name__
    return run


def test_the_diary_entry_on_the_delivery_day_does_not_count_as_the_delivery():
    where = {"split": "test", "instance": 1}
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        kickoff = [_without_delivery_entry(f) if f.__name__ == "kickoff_step" else f for f in oracle.steps["kickoff"]]
        steps = {**oracle.steps, "kickoff": kickoff}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    checks = {label(c["id"]): c for c in result.checks}
    assert checks["stay_booked_within_policy"]["passed"]
    assert not checks["move_and_delivery_in_calendar"]["passed"]
    assert not checks["f_delivery_in_calendar"]["passed"]
