"""finance/tax_season at the paper level: the same season as the guided level, with its domain
rules in the tax law's articles and in the mails of the tax bureau, the accountant and the bank, a
workspace without backend names, a lived-in inbox and one latent fact (a clash in the diary).

Everything goes through the public API (``gym.make(..., level="paper")``); the reward gates of
both levels run in ``vibelife validate --family tasks/finance/tax_season --level ...``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.release.world import world_images
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems, strings_in

ENV = "VibeLife-finance-tax-season-v0"
TEST: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)]
TRAIN: list[dict[str, Any]] = [{"split": "train", "instance": s} for s in (0, 3, 7, 11)]
LATENT = "appointment_clash_raised"


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _articles(task: Any) -> dict[str, str]:
    """The statute articles legal search holds at reset, by id."""
    db = sqlite3.connect(":memory:")
    db.deserialize(world_images(task)["legal_search"])
    return dict(db.execute("SELECT article_id, text FROM statute_articles").fetchall())


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert [(e.id, e.time, e.kind, e.body) for e in guided.events] == [
        (e.id, e.time, e.kind, e.body) for e in paper.events
    ]
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == [LATENT]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in (*latent, "f_filing_appointment_current")
    ]
    assert paper.meta.name == guided.meta.name + "-paper"
    assert all(label(c.id).startswith("quiet_") for c in guided.checks if c.rules)  # the guided level records none


def test_the_family_renders_both_levels_and_defaults_to_paper():
    assert _task("paper", split="test", instance=0).meta.name.endswith("-paper")
    env = gym.make(ENV, split="test", instance=0)
    try:
        task = base_env(env).task
        assert task.meta.name.endswith("-paper")
        assert task.meta.max_tool_calls_per_turn == 80 and task.meta.max_tool_calls_per_episode == 2000
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_the_paper_workspace_has_no_backend_hints(where):
    files = _task("paper", **where).workspace_files
    assert backend_hints("\n".join(files.values())) == []
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


@pytest.mark.parametrize("where", TEST, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_the_paper_workspace_leaves_the_domain_rules_to_the_world(where):
    task = _task("paper", **where)
    story = task.oracle[0].story
    text = "\n".join(task.workspace_files.values())
    for world_only in (story.accountant["drop"], "secure drop", "15,000", "2,520", "12,000", "etax"):
        assert world_only not in text, world_only
    guided = "\n".join(_task("guided", **where).workspace_files.values())
    assert story.accountant["drop"] in guided and "2,520" in guided  # what the guided level spells out


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_at_least_two_fifths_of_the_rules_live_in_the_world_and_the_rest_are_stated(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    world = [r for r in rules.values() if not r.stated]
    assert len(world) / len(rules) >= 0.4
    assert explicitness(task)["world_share"] >= 0.4
    for r in world:  # a mail, a statute, or the one latent fact
        assert r.source.startswith(("email:<", "legal_search:")) or r.source == "latent:one_place_at_a_time", r
    assert sum(r.latent for r in world) == 1
    for r in rules.values():
        if r.stated and r.source != "prompt":
            assert r.source in ("USER.md", "TAX.md", "AGENTS.md") and r.text in task.workspace_files[r.source], r
    assert {"brackets", "taxable", "balance", "pay", "drop", "package", "bureau_security"} <= set(rules)


def test_every_check_but_a_turns_own_request_records_its_rule():
    import sys

    from vibelife_env.families.loader import load_family

    module = sys.modules[type(load_family(gym.registry[ENV].kwargs["family_dir"])).__module__]
    for where in TEST:
        task = _task("paper", **where)
        unruled = {label(c.id) for c in task.checks if not c.rules}
        assert unruled <= module.rules.REQUEST_ONLY, unruled


@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_each_world_rule_is_a_sentence_of_the_mail_or_article_it_names(where):
    task = _task("paper", **where)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    articles = "\n".join(_articles(task).values())
    for rule in rules_of(task).values():
        if rule.stated or rule.latent:
            continue
        if rule.source.startswith("email:"):
            assert rule.text in by_id[rule.source.removeprefix("email:")]["body_text"], rule
        elif rule.key != "child_new":  # the raised standard lands with the rule change
            assert rule.text in articles, rule


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_the_mailbox_is_lived_in_with_near_namesakes_of_the_real_senders(where):
    task = _task("paper", **where)
    story = task.oracle[0].story
    mails = mailbox(task)
    assert 60 <= len(mails) <= 120
    assert explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    word = story.employer[0].split()[0].lower()
    assert any(word in s and not s.endswith("@" + story.employer[1]) for s in senders)  # the employer's namesake
    assert len(mailbox(_task("guided", **where))) < 12


# ---------------------------------------------------------------- the oracle looks things up
def _returned_by_stage(where: dict[str, Any]) -> tuple[Any, dict[int, list[str]]]:
    env = gym.make(ENV, level="paper", **where)
    try:
        core = base_env(env)
        result = run_episode(env, load_oracle(core.task), seed=0, record=False)
        assert result.score == pytest.approx(100.0)
        seen = {
            stage: [s for c in calls if c.get("ok") for s in strings_in(c.get("result"))]
            for stage, calls in core.episode.record.traces.items()
        }
        return core.task, seen
    finally:
        env.close()


@pytest.mark.parametrize("where", TEST, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_the_oracle_reads_every_world_rule_before_the_check_decides(where):
    task, seen = _returned_by_stage(where)
    for check in task.checks:
        for rule in check.rules:
            if rule.stated:
                continue
            by = check.stage if check.tier == "stage" else max(seen)
            wanted = rule.fact if rule.latent else rule.text
            found = [t for stage, texts in seen.items() if stage <= by for t in texts if wanted in t]
            assert found, (check.id, rule.key)
    assert discoverability_problems(ENV, 0, {"level": "paper", **where}) == []


def test_an_oracle_that_does_not_look_things_up_fails_the_discoverability_gate(monkeypatch):
    where = {"level": "paper", "split": "test", "instance": 0}
    task = _task("paper", split="test", instance=0)
    oracle, ablations, variants = task.oracle
    blind = {k: [f for f in fns if f.__name__ != "lookups"] for k, fns in oracle.steps.items()}
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    problems = discoverability_problems(ENV, 0, where)
    failing = {label(p.split(":", 1)[0]) for p in problems}
    assert {"tax_computed", "household_deductions_entered", "balance_settled"} <= failing, problems


# ---------------------------------------------------------------- the latent fact
@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_the_diary_has_another_engagement_at_the_filing_appointment(where):
    """Nobody mentions it: the calendar holds it at the time the tax office has the appointment at
    the end (moved or not)."""
    task = _task("paper", **where)
    story = task.oracle[0].story
    clash = story.extras["clash"]
    (check,) = [c for c in task.checks if label(c.id) == LATENT]
    (rule,) = check.rules
    assert rule.latent and rule.source == "latent:one_place_at_a_time" and rule.fact == clash["title"]
    assert clash["title"] not in "\n".join(task.workspace_files.values())
    move = story.extras.get("move")
    assert clash["at"] == (move[1] if move else story.appointment)
    env = gym.make(ENV, level="paper", **where)
    try:
        env.reset(seed=0)
        events = base_env(env).world.call("calendar__list_events", {"max_results": 50})
        assert clash["title"] in str(events)
    finally:
        env.close()


def test_a_wrap_that_does_not_raise_the_clash_fails_only_the_latent_check_and_says_why(monkeypatch):
    where = {"split": "test", "instance": 1}
    task = _task("paper", **where)
    oracle, ablations, variants = task.oracle
    silent = {k: [f for f in fns if f.__name__ != "clash_step"] for k, fns in oracle.steps.items()}
    env = gym.make(ENV, level="paper", **where)
    try:
        core = base_env(env)
        monkeypatch.setattr(core.task, "oracle", (type("Unaware", (oracle,), {"steps": silent}), ablations, variants))
        run_episode(env, load_oracle(core.task), seed=0, record=False)
        results = core.scorer.results
        (key,) = [k for k in results if label(k) == LATENT]
        assert not results[key].passed and "not name" in results[key].reason
        assert all(r.passed for k, r in results.items() if k != key)
    finally:
        env.close()


# ---------------------------------------------------------------- later work is judged on its own
def test_a_wrong_item_costs_its_own_check_not_the_recomputation(monkeypatch):
    """At the paper level the tax computed at the kick-off follows from the worksheet's own items:
    an item misread costs that item's check, not the recomputation done right from it."""
    from vibelife_env.probes import tax as T

    where = {"split": "test", "instance": 0}
    env = gym.make(ENV, level="paper", **where)
    try:
        core = base_env(env)
        oracle, ablations, variants = core.task.oracle

        class Misreads(oracle):  # type: ignore[misc, valid-type]
            def figures(self) -> dict[str, float]:
                out = dict(super().figures())
                out["social_insurance"] += 1_000.0
                ded = sum(out[k] for k in T.ITEMS[1:7])
                out["taxable_income"] = round(max(0.0, out["wages"] - ded), 2)
                out["tax_due"] = T.tax_on(out["taxable_income"])
                out["balance"] = round(out["tax_due"] - out["withheld"], 2)
                return out

        monkeypatch.setattr(core.task, "oracle", (Misreads, ablations, variants))
        run_episode(env, load_oracle(core.task), seed=0, record=False)
        results = {label(k): r for k, r in core.scorer.results.items()}
        assert not results["documents_entered"].passed
        assert results["tax_computed"].passed
    finally:
        env.close()
