"""team_building/volunteer_day at the paper level (issue #27): the same story as the guided level,
with its domain rules in HR's volunteering policy and the city volunteer network's guide for
groups, a latent fact (an appointment elsewhere on the morning of the day proposed), a workspace
without backend names, a lived-in inbox and some twenty partners whose decoys fail on looked-up
facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/team_building/volunteer_day --level ...``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, built_task, failed_checks, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.probes import volunteer as V
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-team-building-volunteer-day-v0"
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
    assert [label(i) for i in latent] == ["day_clash_raised"]
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
    assert "VOLUNTEER.md" not in files and "TEAM.md" not in files
    for trigger in ("insurance", "rated at least", "step-free", "EN 388", "GB 24541", "rain", "waiver", "dispute"):
        assert trigger not in text, trigger
    for backend in (V.USER_ID, V.ACCOUNT, V.ADDRESS, "alipay", "vol_", "mer_vol", "venue"):
        assert backend not in text, backend
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_an_organiser_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    want = {"rating", "insured", "gloves_std", "waivers", "session", "rain", "invoice", "bank", "day_clash", "ask"}
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
    unruled = [label(c.id) for c in task.checks if not c.rules]
    assert set(unruled) <= {"forecast_high_given", "partner_reviewed", "f_one_review_on_partner_held"}  # asked for


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_partners_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    assert len(mailbox(_task("guided", **where))) < 10
    for m in mails:  # no Message-ID says what its mail is
        for word in ("scam", "bank", "fake", "background", "namesake"):
            assert word not in m["message_id"].split("@")[0].lower(), m["message_id"]
    story: V.VolunteerDay = task.oracle[0].story
    assert len(story.partners) >= 20 and explicitness(task)["catalogue"] >= 20
    assert sorted(p.merchant_id for p in story.partners) == [f"mer_vol{i:02d}" for i in range(len(story.partners))]
    names = [p.name.lower() for p in story.partners]
    assert len(set(names)) == len(names)
    assert not any(a != b and a in b for a in names for b in names)  # a name in a reply is one partner


@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_decoys_fail_on_looked_up_facts_and_the_pick_is_the_guided_one(where):
    guided, paper = _task("guided", **where).oracle[0].story, _task("paper", **where).oracle[0].story
    assert [p.name for p in guided.valid_partners()] == [p.name for p in paper.valid_partners()]
    assert guided.valid_dates() == paper.valid_dates() and guided.budget == paper.budget
    for p in paper.partners:
        broken = [
            p.rating < paper.floor,
            not p.insured,
            p.capacity < paper.size,
            paper.wheelchair is not None and not p.step_free,
            paper.plan_cost(p, paper.cheapest_glove()) > paper.budget,
        ]
        assert sum(broken) == (0 if p in paper.valid_partners() else 1), p


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
    assert {"partner_proposed", "partner_booked", "gloves_ordered"} <= failing


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
    assert raised["day_clash_raised"]["passed"]
    assert not silent["day_clash_raised"]["passed"]
    assert silent["partner_proposed"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- gates on the work, not on the pick
def _near_miss(agent: Any, text: str):
    s: V.VolunteerDay = agent.story
    yield from ()
    p = next(x for x in s.partners if x.role in ("uninsured", "no_step_free", "low_rating"))
    agent.memory.update(prop_partner=p.merchant_id, prop_day=s.valid_dates()[0])
    return ["I propose " + p.name]


def test_a_near_miss_pick_costs_the_pick_not_the_work_after_it():
    seed = 1
    scores = {}
    for level in ("guided", "paper"):
        h = FamilyHarness(ENV, level=level)
        res = h.run(seed, h.oracle(seed, kickoff=[_near_miss]))
        scores[level] = res.score
        if level == "paper":
            failed = failed_checks(res)
            assert {"partner_proposed", "partner_booked"} <= failed
            for later in ("invoice_paid_as_quoted", "slot_rebooked", "partner_reviewed", "x_partner_paid_once"):
                assert later not in failed, later
    assert scores["guided"] < 20 and scores["paper"] > 75
