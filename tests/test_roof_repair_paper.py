"""renovation/roof_repair at the paper level (issue #27): the same story as the guided level, with
its domain rules in the insurer's mails, the roofers' quotes, the scaffolding rule's mail and the
weather service's, courier's and review site's mails, a latent fact (the tarp visit over a weekly
appointment), a workspace without backend names, a lived-in inbox and more quotes whose decoys fail
on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/renovation/roof_repair --level ...``.
"""

from __future__ import annotations

import sys
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

ENV = "VibeLife-renovation-roof-repair-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _family() -> Any:
    from vibelife_env.families.loader import load_family

    return load_family(gym.registry[ENV].kwargs["family_dir"])


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"

    def timeline(task: Any) -> list[tuple[Any, ...]]:  # the quotes' mutation note counts the quotes
        return [(e.id, e.time, e.kind, e.body if e.id != "quotes_land" else "") for e in task.events]

    assert timeline(guided) == timeline(paper)
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["tarp_visit_clash_raised"]
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
def test_the_paper_workspace_has_no_backend_hints_nor_domain_rules(where):
    task = _task("paper", **where)
    files = task.workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    assert set(files) == {"USER.md", "AGENTS.md"}
    for rule in ("licensed", "insured", "40%", "excess", "scaffold", "permit", "48 hours", "personal account"):
        assert rule not in text
    assert rules_of(task)["red_line"].text in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_householder_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    story = task.oracle[0].story
    assert explicitness(task)["world_share"] >= 0.4
    assert {"tarp_licensed", "insured", "excess", "contract", "dry_days", "scaffold", "tarp_visit_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    quotes = {c.mail_id: _family()._quote_body(story, c) for c in story.contractors}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:someone_home" and r.fact == story.extras["weekly"]
        elif r.stated:
            assert r.text in task.workspace_files[r.source], r
        else:
            mid = r.source.removeprefix("email:")
            if mid in quotes:  # the quotes land on day 1; every quote carries the roofers' terms
                assert all(r.text in body for body in quotes.values()), r
            else:
                assert r.text in by_id[mid]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert all(x.endswith("_told") for x in unruled), unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_quotes_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    story = task.oracle[0].story
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    word = story.insurer.split()[0].lower()
    assert any(word in x and not x.endswith("@" + story.insurer_domain) for x in senders)  # a namesake
    assert len(mailbox(_task("guided", **where))) == 3
    assert 12 <= len(story.contractors) <= 14 and len(story.extras["decoys"]) >= 6


def test_the_decoys_fail_on_looked_up_facts_and_the_valid_set_is_the_guided_one():
    where = {"split": "test", "instance": 1}
    found = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            rows = core.world.call("review_platform__search_merchants", {"category": "home_service", "limit": 50})
            found.append((rows, core.task.oracle[0].story))
        finally:
            env.close()
    (g_rows, g_story), (p_rows, story) = found
    assert len(g_rows) == 8 and len(p_rows) >= 20
    valid = lambda s: sorted((c.name, c.quote) for c in s.contractors if c.role == "valid")  # noqa: E731
    assert valid(g_story) == valid(story)
    by_id = {r["merchant_id"]: r for r in p_rows}
    for c in story.contractors:
        if c.key in story.extras["decoys"]:
            r = by_id[c.merchant_id]
            fits = {"licensed", "insured"} <= set(r["tags"]) and r["rating"] >= story.min_rating
            assert not (fits and c.quote <= story.qmax), c


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

    def guided(f: Any) -> Any:  # the guided level's step in place of the paper level's reading one
        if f.__module__.endswith(".paper") and f.__name__ in ("tarp_step", "proposal_step"):
            return getattr(sys.modules[f.__module__.removesuffix(".paper") + ".family"], f.__name__)
        return f

    blind = {k: [guided(f) for f in fns] for k, fns in oracle.steps.items()}
    assert blind != oracle.steps
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"tarp_paid_to_licensed_roofer", "deposit_paid_once", "x_notice_before_start"} <= failing
    assert "tarp_visit_clash_raised" in failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        kickoff = oracle.steps["kickoff"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from kickoff(agent, text)
            return [s for s in said if "clashes with" not in s]

        steps = oracle.steps if raise_it else {**oracle.steps, "kickoff": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_tarp_visit_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["tarp_visit_clash_raised"]["passed"]
    assert not silent["tarp_visit_clash_raised"]["passed"]
    assert silent["tarp_paid_to_licensed_roofer"]["passed"]  # the rest of the reply still counts
