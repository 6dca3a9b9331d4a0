"""renovation/office_fitout at the paper level: the same story as the guided level, with its domain
rules in the listing site's terms, the bank's fraud notice, the review site's guidelines, the
agency's lease terms and the fire inspector's mail, a latent fact (the key handover over a weekly
appointment), a workspace without backend names, a lived-in inbox and listings whose decoys fail on
looked-up facts; later checks gate on the work done, not on earlier picks.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/renovation/office_fitout --level ...``.
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

ENV = "VibeLife-renovation-office-fitout-v0"
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
    assert [label(i) for i in latent] == ["handover_clash_raised"]
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
    for trigger in ("bank account changed", "new account", "fake photos", "sublet", "weekday", "review_platform"):
        assert trigger not in text
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_tenant_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"agency_only", "fake_photos", "bank_change", "deposit", "weekdays", "review_after"} <= set(rules)
    assert {"reinspection", "handover_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            if r.key not in ("deposit", "weekdays", "reinspection"):  # those mails come later
                assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {"choice_told", "it_day_told", "furniture_total_told", "final_summary"}, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_listings_are_long(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any("hengtai" in x and not x.endswith("@hengtai-commercial.example") for x in senders)  # namesakes
    assert any("xinyu" in x and not x.endswith("@xinyu-workspace.example") for x in senders)
    assert len(mailbox(_task("guided", **where))) == 2
    story = task.oracle[0].story
    assert len(story.listings) >= 20
    assert len(story.extras["decoys"]) >= 14
    for r in story.listings:  # no title or blurb labels a decoy
        blurb = r["description"].lower()
        assert "sublet" not in blurb and "steps" not in blurb and "step-free" not in blurb
        assert r["title"].endswith(f"office unit, {story.extras['city_en']}")


def test_the_scripted_mails_do_not_label_themselves():
    task = _task("paper", split="test", instance=0)
    story = task.oracle[0].story
    ids = [m["message_id"] for m in mailbox(task)]
    assert not any("new-account" in i or "id-please" in i for i in ids)
    assert story.extras["legit_mail"][:2] == [
        "<welcome@hengtai-commercial.example>",
        "<accountant@ledger-firm.example>",
    ]


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
    assert {"shortlist_exact", "x_no_review", "x_bank_change_never_paid"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        proposal = oracle.steps["lease_terms"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from proposal(agent, text)
            return [s.split(" The key handover")[0] for s in said]

        steps = oracle.steps if raise_it else {**oracle.steps, "lease_terms": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_handover_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["handover_clash_raised"]["passed"]
    assert not silent["handover_clash_raised"]["passed"]
    assert silent["proposal_no_payment"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- gates on the work
def _without(where: dict[str, Any], event: str, drop: str) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        oracle = base_env(env).task.oracle[0]
        steps = {**oracle.steps, event: [f for f in oracle.steps[event] if f.__name__ != drop]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_a_wrong_furniture_order_does_not_void_the_budget_and_summary_checks():
    where = {"split": "test", "instance": 3}
    env = gym.make(ENV, level="paper", **where)
    try:
        oracle = base_env(env).task.oracle[0]
        furniture = oracle.steps["furniture"][0]

        def one_chair_short(agent: Any, text: str):
            s = agent.story
            staff = s.extras["staff"]
            s.extras["staff"] = staff - 1  # the oracle orders a set short
            try:
                said = yield from furniture(agent, text)
            finally:
                s.extras["staff"] = staff
            return said

        steps = {**oracle.steps, "furniture": [one_chair_short]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    checks = {label(c["id"]): c for c in result.checks}
    assert not checks["furniture_ordered"]["passed"] and not checks["one_set_per_person"]["passed"]
    for kept in ("budget_file", "budget_left_told", "final_summary", "it_install_booked", "x_balance_matches"):
        assert checks[kept]["passed"], kept
