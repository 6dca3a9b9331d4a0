"""team_building/workshop_dinner at the paper level (issue #27): the same story as the guided level,
with its domain rules in finance's team-events expense policy, the review platform's terms for
group bookings and the card issuer's terms, a latent fact (an appointment elsewhere on the
workshop day), a workspace without backend names, a lived-in inbox and restaurants whose decoys
fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/team_building/workshop_dinner --level ...``.
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
from vibelife_env.probes import dinner as D
from vibelife_env.probes.teamevent import km
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-team-building-workshop-dinner-v0"
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
    for trigger in ("Bank-detail changes", "alcohol", "22:00", "duplicate", "cancel and rebook", "rated", "10%"):
        assert trigger not in text, trigger
    for backend in (D.USER_ID, D.ACCOUNT, D.CARD, "mer_venue_room", D.STEP_FREE, D.FINANCE):
        assert backend not in text, backend
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_team_lead_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    want = {"rating", "alcohol", "claim", "deposit", "service", "party", "room_hold", "workshop_clash"}
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
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {"address_given", "deposit_reported"}, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_restaurants_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    story: D.Workshop = task.oracle[0].story
    senders = {m["from_addr"] for m in mails}
    word = story.company.split()[0].lower()
    assert any(word in x for x in senders)  # a near-namesake of the company
    assert len(mailbox(_task("guided", **where))) < 10
    assert len(story.restaurants) >= 22 and len(story.extras["paper"]["decoys"]) >= 14
    assert explicitness(task)["catalogue"] >= 20
    kinds = set(D.KINDS)
    for v in story.restaurants:  # no name labels a decoy
        assert len(v.name.split()) >= 2 and " ".join(v.name.split()[1:]) in kinds
    assert sorted(v.merchant_id for v in story.restaurants) == [
        f"mer_rest_{i:02d}" for i in range(len(story.restaurants))
    ]


@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_decoys_fail_on_looked_up_facts_and_the_valid_set_is_the_guided_one(where):
    guided, paper = _task("guided", **where).oracle[0].story, _task("paper", **where).oracle[0].story
    assert [v.name for v in guided.valid()] == [v.name for v in paper.valid()]
    assert paper.room is not None
    fake = set(paper.extras["paper"]["decoys"])
    for v in paper.restaurants:
        if v.merchant_id not in fake:
            continue
        broken = [
            v.rating < paper.floor,
            not {t for t in paper.needs(paper.kickoff) if t != D.STEP_FREE} <= set(v.tags),
            D.STEP_FREE not in v.tags,
            km((v.lat, v.lng), (paper.room.lat, paper.room.lng)) > paper.walk_km,
            paper.cost(v) > paper.budget,
            v.capacity < len(paper.roster) - 1,
        ]
        assert sum(broken) == len(v.flaw.split("+")) >= 1, (v, broken)


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
    assert {"proposal_valid", "deposit_paid", "claim_sent", "x_bank_change_never_paid"} <= failing


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
    assert silent["proposal_valid"]["passed"]  # the rest of the reply still counts
