"""exam_preparation/music_grade at the paper level: the same story as the guided level, with its
domain rules in the board's, the teacher's and the school's own mails, a latent fact (the board's
sound check over a weekly appointment), a workspace without backend names, a lived-in inbox and a
shop catalogue whose decoys fail on the listing's facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/exam_preparation/music_grade --level ...``.
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
from vibelife_env.probes import music as mu
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-exam-preparation-music-grade-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [{"split": "train", "instance": 5}]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {"told"}


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _run(oracle: Any, where: dict[str, Any]) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        result = run_episode(env, oracle(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"
    assert [(e.id, e.time, e.kind) for e in guided.events] == [(e.id, e.time, e.kind) for e in paper.events]
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["sound_check_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert not any(c.rules for c in guided.checks)  # the guided level records no rules


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_the_domain_rules(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for domain in ("19:00 and 20:00", "averaging", "full name", "saved payee", "16:30"):
        assert domain not in text
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_parent_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    stats = explicitness(task)
    assert stats["world_share"] >= 0.4 and stats["rules_latent"] == 1
    assert {"fee", "book", "accompanist", "rehearsal", "privacy", "no_sale"} <= set(rules)
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
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_catalogue_is_long(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    assert len(mailbox(_task("guided", **where))) == 2
    story, guided = task.oracle[0].story, _task("guided", **where).oracle[0].story
    assert len(story.items) >= 20 and mu.valid_books(story) == mu.valid_books(guided)
    ids = {m["message_id"] for m in mails}
    assert not any("fasttrack" in i or "scam" in i for i in ids)


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
    assert {"proposal", "rehearsal", "note_private"} <= failing


# ---------------------------------------------------------------- the latent fact
def test_the_latent_check_wants_the_sound_check_clash_raised():
    where = {"split": "test", "instance": 2}
    oracle = _task("paper", **where).oracle[0]
    quiet = {**oracle.steps, "kickoff": [f for f in oracle.steps["kickoff"] if f.__name__ != "raise_clash"]}
    raised = _run(oracle, where)
    silent = _run(type("Quiet", (oracle,), {"steps": quiet}), where)
    assert raised["sound_check_clash_raised"]["passed"]
    assert not silent["sound_check_clash_raised"]["passed"]
    assert silent["proposal"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- the work, not an earlier pick
def test_a_fee_paid_twice_fails_the_fee_checks_not_the_rest():
    where = {"split": "test", "instance": 0}
    oracle = _task("paper", **where).oracle[0]
    register = oracle.steps["go_ahead"][0]

    def twice(agent: Any, event_text: str):
        out = yield from register(agent, event_text)
        s = agent.story
        yield agent.call(
            "banking__pay_payee",
            account_id=mu.ACCOUNT,
            payee_id=mu.BOARD_PAYEE,
            amount_minor=s.fee,
            memo=s.candidate_no,
        )
        return out

    checks = _run(type("Twice", (oracle,), {"steps": {**oracle.steps, "go_ahead": [twice]}}), where)
    assert not checks["fee_paid"]["passed"]
    assert checks["exam_in_calendar"]["passed"] and checks["entry_sent"]["passed"]
    assert checks["rehearsal"]["passed"] and checks["f_practice_log"]["passed"]
