"""litigation/deposit_dispute at the paper level (issue #27): the same story as the guided level,
with its domain rules in the housing bureau's, the legal aid centre's, the listing app's, the
review site's and the bank's mails and in legal search (the Civil Code on wear, the city
regulation's deposit deadline), a latent fact (a weekly appointment over the mediation's hour), a
workspace without backend names, a lived-in inbox and a listing app a person searches.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/litigation/deposit_dispute --level ...``.
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

ENV = "VibeLife-litigation-deposit-dispute-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {"total_told", "t_few_failed_changes"}


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
    assert [label(i) for i in latent] == ["mediation_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert not any(c.rules for c in guided.checks if label(c.id).startswith("case_file"))


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_the_domain_rules(where):
    task = _task("paper", **where)
    files = task.workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    story = task.oracle[0].story
    for hint in (story.listing_id, story.checking, "art_", "case_", "legal_search", "notification_hub", "Civil Code"):
        assert hint not in text, hint
    for domain in ("wear and tear", "commercial", "another city", "settled in full", "protection scheme"):
        assert domain not in text, domain
    assert "goes to Spam, and you tell me" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_tenant_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    world = {"deductible", "wear", "deadline", "authorities", "demand", "listing_changes", "review_after", "no_scheme"}
    assert {*world, "mediation_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    story = task.oracle[0].story
    env = gym.make(ENV, level="paper", **where)
    try:
        env.reset(seed=0)
        world_of = base_env(env).world
        for r in rules.values():
            if r.latent:
                assert r.source == "latent:one_place_at_a_time" and r.fact == story.extras["weekly"]
            elif r.stated:
                assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
            elif r.source.startswith("legal_search:"):
                article = world_of.call("legal_search__get_article", {"article_id": r.source.split(":", 1)[1]})
                assert r.text in article["text"], r
            else:
                assert r.source.startswith("email:<"), r
                assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    finally:
        env.close()
    assert str(story.return_days) in rules["deadline"].text
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    story = task.oracle[0].story
    senders = {m["from_addr"] for m in mails}
    word = story.agency[0].split()[0].lower()
    assert any(word in x and not x.endswith("@" + story.agency[1]) for x in senders)  # namesakes
    assert any("cmb" in x and "secure-check" not in x for x in senders)
    assert len(mailbox(_task("guided", **where))) == 4
    # the evidence mail is the one a search for it finds first
    photos = [m for m in mails if "Move-out" in m["subject"] or "退租照片" in m["subject"]]
    assert len(photos) == 1


def test_the_listing_app_is_searched_and_only_the_old_listing_records_the_defects():
    where = {"split": "test", "instance": 1}
    found = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            rows = core.world.call("listing_platform__search_listings", {"category": "rent", "limit": 100})
            details = [
                core.world.call("listing_platform__get_listing_detail", {"listing_id": r["listing_id"]}) for r in rows
            ]
            found.append((details, core.task))
        finally:
            env.close()
    (guided_rows, _), (paper_rows, task) = found
    story = task.oracle[0].story
    assert {r["listing_id"] for r in guided_rows} < {r["listing_id"] for r in paper_rows}
    assert len(paper_rows) >= 20
    building = story.flat.split(", ")[1]
    same = [r for r in paper_rows if building in r["community"]]
    assert len(same) >= 5 and sum(r["community"] == story.flat for r in paper_rows) == 1
    pre = [c for c in story.claims if c.kind == "preexisting"]
    for r in paper_rows:
        if r["listing_id"] != story.listing_id:
            shown = f"{r['description']} {r['photos']}"
            assert not any(c.phrases.found_in(shown) for c in pre), r
        else:
            assert all(c.phrases.found_in(r["description"]) for c in pre)
    assert set(story.extras["decoys"]) == {r["listing_id"] for r in paper_rows} - {r["listing_id"] for r in guided_rows}


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


def test_an_oracle_that_does_not_look_things_up_fails_the_discoverability_gate(monkeypatch):
    where = {"level": "paper", "split": "test", "instance": 0}
    task = _task("paper", split="test", instance=0)
    oracle, ablations, variants = task.oracle
    skip = {"lookups", "deadline_lookup"}
    blind = {k: [f for f in fns if f.__name__ not in skip] for k, fns in oracle.steps.items()}
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"case_file_opened", "authorities_apply", "deadline_told", "x_no_review_before_settlement"} <= failing
    assert "deposit_scam_quarantined" in failing and "listing_watched" in failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        invite = oracle.steps["mediation_invite"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from invite(agent, text)
            return [s for s in said if "clashes" not in s]

        steps = oracle.steps if raise_it else {**oracle.steps, "mediation_invite": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_mediation_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["mediation_clash_raised"]["passed"]
    assert not silent["mediation_clash_raised"]["passed"]
    assert silent["mediation_told"]["passed"]  # the rest of the reply still counts
