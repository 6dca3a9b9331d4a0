"""rental/accessible_flat at the paper level (issue #27): the same story as the guided level, with
its domain rules in the rental platform's terms, a disabled tenants' advice guide, the housing
office's mail and the review site's guidelines, a latent fact (the move-in inspection over a weekly
class), a workspace without backend names, a lived-in inbox and listings whose decoys fail on
looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/rental/accessible_flat --level ...``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.env import base_env
from vibelife_env.probes import accessrent as ar
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-rental-accessible-flat-v0"
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
    assert [label(i) for i in latent] == ["inspection_clash_raised"]
    # the same checks; at paper the red line "no money before the go-ahead" weighs double
    heavier = {"x_no_payment_before_go_ahead": 2.0}
    assert [(c.id, c.weight * heavier.get(c.id, 1.0), c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert all(not c.rules for c in guided.checks)


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
    for trigger in ("personal account", "post keys", "short reply", "null", "lettings@", "Swift Move", "review_"):
        assert trigger not in text
    assert "no one is paid because a mail asks" in files["AGENTS.md"]
    assert "deposit" not in text.lower()  # the deposit rule is the housing office's
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_renter_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    want = {"agency_only", "unstated", "access_reviews", "viewing_truth", "adaptation", "deposit", "review_after"}
    assert want | {"inspection_clash", "medical_privacy"} <= set(rules)
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
    assert unruled <= {"viewings_told", "payment_told", "final_summary"}, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_listings_are_long(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any("harbour" in x and not x.endswith("@harbour-lettings.example") for x in senders)  # namesakes
    assert any("keystone" in x and not x.endswith("@keystone-homes.example") for x in senders)
    assert {"hello@keystone-homes.example", "hello@swift-move.example"} <= senders  # their lettings addresses
    assert len(mailbox(_task("guided", **where))) == 2
    story = task.oracle[0].story
    assert len(story.listings) >= 20
    assert len(story.extras["decoys"]) >= 11
    for r in story.listings:  # no title or blurb labels a decoy, nor states an access claim
        blurb = r["description"].lower()
        assert not any(w in blurb for w in ("level", "step", "lift", "wet room", "shower", "private"))
        assert r["title"].endswith(f"2-bedroom flat, {story.extras['city_en']}")


@pytest.mark.parametrize("where", WHERE[:4], ids=IDS[:4])
def test_the_decoys_fail_on_looked_up_facts_and_the_valid_set_is_the_guided_one(where):
    found = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            story = core.task.oracle[0].story
            ctx = CheckContext(core.world, EpisodeRecord())
            rows = ar.rows(ctx, story)
            found.append(({r["listing_id"] for r in rows}, ar.valid_ids(ctx, story), story))
        finally:
            env.close()
    (guided_ids, guided_valid, _), (paper_ids, paper_valid, story) = found
    assert guided_ids < paper_ids and len(paper_ids) >= 20
    assert {d["listing_id"] for d in story.extras["decoys"]} == paper_ids - guided_ids
    assert paper_valid == guided_valid and len(paper_valid) >= 2


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
    assert {"shortlist_exact", "right_total_told", "x_one_review_after_signing", "x_flagged_agency_untouched"} <= (
        failing
    )


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        revised = oracle.steps["revised"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from revised(agent, text)
            return [s.split(" The move-in inspection")[0] for s in said]

        steps = oracle.steps if raise_it else {**oracle.steps, "revised": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_inspection_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["inspection_clash_raised"]["passed"]
    assert not silent["inspection_clash_raised"]["passed"]
    assert silent["inspection_clash_raised"]["reason"]
    assert silent["revised_not_paid"]["passed"]  # the rest of the reply still counts


def test_the_revised_tenancy_names_the_inspection_only_at_the_paper_level():
    where = {"split": "test", "instance": 1}
    bodies = {}
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            core = base_env(env)
            result = run_episode(env, load_oracle(core.task), seed=0, record=False)
            assert result.score == pytest.approx(100.0)
            ctx = CheckContext(core.world, EpisodeRecord())
            got = ctx.sql("email", "SELECT body_text FROM messages WHERE message_id = '<revised@tenancy.example>'")
            bodies[level] = got[0]["body_text"]
        finally:
            env.close()
    assert "inspection" not in bodies["guided"].lower()
    assert "inspection" in bodies["paper"].lower() or "验房" in bodies["paper"]
