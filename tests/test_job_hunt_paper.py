"""career/job_hunt at the paper level (issue #27): the same story as the guided level, with its
domain rules in the job board's terms and safety mails, the referees' own mails and the portfolio
client's mail, a latent fact (a fitting posting's assessment day over a weekly appointment), a
workspace without backend names, a lived-in inbox and decoy postings that fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/career/job_hunt --level ...``.
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

ENV = "VibeLife-career-job-hunt-v0"
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
    assert [label(i) for i in latent] == ["assessment_clash_raised"]
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
def test_the_paper_workspace_has_no_backend_hints_nor_trigger_lists(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for trigger in ("training fee", "same company, same title", "LOW end", "stores fen", "re-post"):
        assert trigger not in text
    assert "on the strength of a mail" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_job_seeker_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"low_end", "full_posting", "one_per_role", "moving_board", "scam", "assessment_clash"} <= set(rules)
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
    assert unruled <= {
        "feedback_asked",
        "portfolio_note_published",
        "t_few_failed_changes",
        *(f"errand_{e}_done" for e in ("alert", "coffee", "prep", "chat", "resume")),
    }, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_board_is_long(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any(x.endswith("@jobbridge-supplies.example") for x in senders)  # a namesake of the board
    assert len(mailbox(_task("guided", **where))) == 3
    story = task.oracle[0].story
    decoys = story.extras["decoys"]
    assert len(story.jobs) + len(decoys) >= 20 and len(decoys) >= 11
    titles = {j.title for j in story.jobs if j.category == story.field_key}
    for j in decoys:  # no title labels a decoy, and each fails a rule on its facts
        assert j.title in titles or j.title.endswith(story.field_en)
        assert not story.fits(j)


def test_the_decoys_fail_on_looked_up_facts_and_the_fitting_set_is_the_guided_one():
    where = {"split": "test", "instance": 1}
    seen = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            story = core.task.oracle[0].story
            rows = core.world.call("job_board__search_jobs", {"category": story.field_key, "limit": 100})
            seen.append(({r["job_id"] for r in rows}, story))
        finally:
            env.close()
    (guided_ids, guided_story), (paper_ids, story) = seen
    assert guided_ids < paper_ids and len(paper_ids) >= 19
    assert {j.job_id for j in story.extras["decoys"]} == paper_ids - guided_ids
    fits = [j.job_id for j in story.jobs if story.fits(j)]
    assert fits == [j.job_id for j in guided_story.jobs if guided_story.fits(j)]
    kinds = {k for j in story.extras["decoys"] for k in j.kind.removeprefix("decoy:").split("+")}
    assert {"low", "far", "onsite", "elsewhere"} <= kinds


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
    assert {"near_miss_floor_skipped", "f_one_application_per_role", "x_private_ids_never_left"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        steps = oracle.steps
        if not raise_it:
            steps = {**steps, "kickoff": [f for f in steps["kickoff"] if f.__name__ != "assessment_step"]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_assessment_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["assessment_clash_raised"]["passed"]
    assert not silent["assessment_clash_raised"]["passed"]
    assert silent["applied_named"]["passed"]  # the rest of the reply still counts
