"""team_building/ski_weekend at the paper level (issue #27): the same story as the guided level,
with its domain rules in the lodge platform's terms, the rental company's winter terms, the ski
school's booking mail and the lift pass office's mail, a latent fact (an appointment at home during
the weekend), a workspace without backend names, a lived-in inbox and lodges and vans whose decoys
fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/team_building/ski_weekend --level ...``.
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
from vibelife_env.probes import ski
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-team-building-ski-weekend-v0"
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
    assert [(e.id, e.time, e.kind) for e in guided.events] == [(e.id, e.time, e.kind) for e in paper.events]
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["appointment_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert not any(c.rules for c in guided.checks)


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        task = base_env(env).task
        assert task.meta.name.endswith("-paper")
        assert task.meta.max_tool_calls_per_turn == 80 and task.meta.max_tool_calls_per_episode == 2000
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_trigger_lists(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for trigger in ("winter tyres", "max occupancy", "driver notes", "deposit", "10:00", "09:00", ski.STORM[0]):
        assert trigger not in text, trigger
    for backend in (ski.USER_ID, ski.ACCOUNT, "card_kitty", "htl_ski", "off_van"):
        assert backend not in text, backend
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_an_organiser_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    want = {"beds", "no_deposit", "winter", "driver_age", "lesson", "storm", "weekend_clash", "budget", "ask"}
    assert want <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    assert not [c.id for c in task.checks if not c.rules]


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_lodges_and_vans_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    assert len(mailbox(_task("guided", **where))) < 10
    for m in mails:  # no Message-ID says what its mail is
        for word in ("scam", "deposit", "fake", "needs", "background"):
            assert word not in m["message_id"].split("@")[0].lower(), m["message_id"]
    story: ski.SkiStory = task.oracle[0].story
    assert len(story.lodges) >= 20 and explicitness(task)["catalogue"] >= 20
    assert sorted(x.hotel_id for x in story.lodges) == [f"htl_ski_{i:02d}" for i in range(len(story.lodges))]
    assert sorted(v.offer_id for v in story.vans) == [f"off_van_{i:02d}" for i in range(len(story.vans))]
    models = [v.model.lower() for v in story.vans]
    assert not any(a != b and a in b for a in models for b in models)  # a model named in a reply is one van


@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_decoys_fail_on_looked_up_facts_and_the_pick_is_the_guided_one(where):
    guided, paper = _task("guided", **where).oracle[0].story, _task("paper", **where).oracle[0].story
    for rank in (0, 1):
        g, p = guided.cheapest(rank), paper.cheapest(rank)
        assert (g[0].name, g[1].model, g[2]) == (p[0].name, p[1].model, p[2])
    van_cost = paper.van_cost(*paper.cheapest(0)[1:])
    for x in paper.lodges:
        if x.flaw:
            assert x.beds < paper.size or x.nightly * paper.nights + van_cost > paper.budget, x
    for v in paper.vans:
        if not (v.winter and v.seats >= paper.size):
            assert v.daily <= max(w.daily for w in paper.vans)  # a decoy van fails on tyres or seats, not price


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
    assert {"valid_proposal", "lodge_booked", "van_booked"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        steps = oracle.steps
        if not raise_it:
            steps = {**steps, "kickoff": [f for f in steps["kickoff"] if f.__name__ != "raise_clash"]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_appointment_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["appointment_clash_raised"]["passed"]
    assert not silent["appointment_clash_raised"]["passed"]
    assert silent["valid_proposal"]["passed"]  # the rest of the reply still counts


def test_a_member_ruled_out_as_a_driver_is_not_named_to_drive():
    """The drivers checks fail a reply that puts the member too young to drive among the drivers,
    not one that names them to rule them out (the ski-weekend audit: "Lan Sun（24岁）不能开")."""
    import sys

    from vibelife_env.families.loader import family_of

    mod = sys.modules[type(family_of(ENV)).__module__]
    young = ["Lan Sun"]
    assert not mod.named_to_drive("Hao Li drives; Lan Sun (24) may not drive.", young)
    assert not mod.named_to_drive("司机是 Hao Li。Lan Sun（24岁）不能开。", young)
    assert mod.named_to_drive("Drivers: Hao Li and Lan Sun.", young)
    assert mod.named_to_drive("Lan Sun can drive the second leg.", young)
