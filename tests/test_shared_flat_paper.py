"""rental/shared_flat at the paper level: the same story as the guided level, with its domain
rules in the flatshare app's terms, the housing bureau's mail and the review site's guidelines, a
latent fact (the signing at the flat over a weekly appointment), a workspace without backend
names, a lived-in inbox and rooms whose decoys fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/rental/shared_flat --level ...``.
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

ENV = "VibeLife-rental-shared-flat-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {"evenings_named", "reserved_room_named", "deposit_amount_told", "final_wrap_up_amounts"}


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
    assert [label(i) for i in latent] == ["signing_clash_raised"]
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
    for trigger in ("gift card", "months upfront", "personal account", "stock photos", "bills", "a fifth"):
        assert trigger not in text.lower()
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_flatsharer_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"agency_only", "stock_photos", "scam", "hold", "monthly_cost", "review_after", "signing_clash"} <= set(
        rules
    )
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
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_rooms_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any("harbour" in x and not x.endswith("@harbour-share.example") for x in senders)  # namesakes
    assert len(mailbox(_task("guided", **where))) == 2
    story = task.oracle[0].story
    assert len(story.listings) >= 20
    assert len(story.extras["decoys"]) >= 12
    for r in story.listings:  # no title or blurb labels a decoy or states a house rule
        d = r["description"].lower()
        assert not any(w in d for w in ("smok", "pet", "quiet", "dog", "flatmate", "agency"))
        assert r["title"] == f"{r['community']}: room in a shared flat"


def test_scripted_scam_mails_carry_no_verdict_in_their_message_ids():
    for n in range(6):
        task = _task("paper", split="train", instance=n)
        ids = [op.sql for e in task.events for op in e.apply if getattr(op, "server", "") == "email"]
        assert not any(w in sql for sql in ids for w in ("<secure-room@", "<id-please@", "<deposit_first@"))


def test_the_decoys_fail_on_looked_up_facts_and_the_valid_set_is_the_guided_one():
    where = {"split": "test", "instance": 1}
    sets = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            rows = core.world.call("listing_platform__search_listings", {"category": "rent", "limit": 100})
            sets.append(({r["listing_id"] for r in rows}, core.task.oracle[0].story))
        finally:
            env.close()
    (guided_ids, _), (paper_ids, story) = sets
    assert guided_ids < paper_ids and len(paper_ids) >= 20
    assert {d["listing_id"] for d in story.extras["decoys"]} == paper_ids - guided_ids


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
    assert {"rooms_exact", "x_single_review_after_move_in", "x_gift_scam_never_paid"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        hold = oracle.steps["hold_mail"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from hold(agent, text)
            return [s.split(" The signing at the flat")[0] for s in said]

        steps = oracle.steps if raise_it else {**oracle.steps, "hold_mail": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_signing_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["signing_clash_raised"]["passed"]
    assert not silent["signing_clash_raised"]["passed"]
    assert silent["deposit_quoted_not_paid"]["passed"]  # the rest of the reply still counts
