"""finance/household_bills at the paper level: the same month as the guided level, with its domain
rules in the mails of the flat's house agreement, the bank, the card issuer, the utilities and the
shop, a workspace without backend names, a lived-in inbox and catalogue, what the person sees in
the month (world observations) and one latent fact (away when the router arrives).

Everything goes through the public API (``gym.make(..., level="paper")``); the reward gates of
both levels run in ``vibelife validate --family tasks/finance/household_bills --level ...``.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from datetime import timedelta
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.release.world import world_images
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems, strings_in

ENV = "VibeLife-finance-household-bills-v0"
TEST: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)]
TRAIN: list[dict[str, Any]] = [{"split": "train", "instance": s} for s in (0, 3, 7, 11)]
LATENT = "delivery_while_away_raised"


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _ids(where: dict[str, Any]) -> str:
    return f"{where['split']}-{where['instance']}"


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    at_paper = {e.id: e for e in paper.events}
    for e in guided.events:  # every guided event, at its time, as it is
        twin = at_paper[e.id]
        assert (twin.time, twin.kind) == (e.time, e.kind), e.id
    extra = sorted(set(at_paper) - {e.id for e in guided.events})
    assert extra == ["chat_3", "chat_4", "chat_5", "chat_6"]
    assert all(at_paper[i].kind == "world" for i in extra)
    latent = [label(c.id) for c in paper.checks if any(r.latent for r in c.rules)]
    assert latent == [LATENT]
    guided_labels = Counter(label(c.id) for c in guided.checks)
    paper_labels = Counter(label(c.id) for c in paper.checks)
    assert not guided_labels - paper_labels
    assert set(paper_labels - guided_labels) <= {LATENT, *(f"quiet_{i}" for i in extra)}
    assert paper.meta.name == guided.meta.name + "-paper"
    assert not any(c.rules for c in guided.checks)  # the guided level records none


def test_the_family_renders_both_levels_and_defaults_to_paper():
    env = gym.make(ENV, split="test", instance=0)
    try:
        task = base_env(env).task
        assert task.meta.name.endswith("-paper")
        assert task.meta.max_tool_calls_per_turn == 80 and task.meta.max_tool_calls_per_episode == 2000
    finally:
        env.close()
    guided = _task("guided", split="test", instance=0)
    assert guided.meta.max_tool_calls_per_turn == 25 and guided.meta.max_tool_calls_per_episode == 700


def test_the_paper_level_sees_more_of_the_world_and_changes_it_silently_less():
    def shares(level: str) -> dict[str, float]:
        kinds = Counter(e.kind for w in TEST for e in _task(level, **w).events)
        return {k: v / sum(kinds.values()) for k, v in kinds.items()}

    guided, paper = shares("guided"), shares("paper")
    assert paper["world"] > guided["world"] + 0.07 and paper["world"] >= 0.2
    assert paper["mutation"] < guided["mutation"]


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_the_paper_workspace_has_no_backend_hints(where):
    files = _task("paper", **where).workspace_files
    assert backend_hints("\n".join(files.values())) == []
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


@pytest.mark.parametrize("where", TEST, ids=_ids)
def test_the_paper_workspace_leaves_the_domain_rules_to_the_world(where):
    task = _task("paper", **where)
    text = "\n".join(task.workspace_files.values())
    for rule in rules_of(task).values():
        if not rule.stated and not rule.latent:
            assert rule.text not in text, rule.key
    for world_only in ("dispute the copy only", "8.00", "within two days", "reply to their mail"):
        assert world_only not in text, world_only
    guided = "\n".join(_task("guided", **where).workspace_files.values())
    assert "dispute the copy only" in guided and "reply to their mail" in guided  # what the guided level spells out


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_at_least_two_fifths_of_the_rules_live_in_the_world_and_the_rest_are_stated(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    world = [r for r in rules.values() if not r.stated]
    assert len(world) / len(rules) >= 0.4
    assert explicitness(task)["world_share"] >= 0.4
    for r in world:  # a mail, or the one latent fact
        assert r.source.startswith("email:<") or r.source == "latent:someone_home", r
    assert sum(r.latent for r in world) == 1
    for r in rules.values():
        if r.stated:
            assert r.source in ("USER.md", "HOUSE.md", "AGENTS.md") and r.text in task.workspace_files[r.source], r
    assert {"split", "one_off", "month_end", "requests", "bank_minimum", "card_dispute", "shipping"} <= set(rules)


def test_every_check_but_a_turns_own_request_records_its_rule():
    import sys

    from vibelife_env.families.loader import load_family

    module = sys.modules[type(load_family(gym.registry[ENV].kwargs["family_dir"])).__module__]
    for where in TEST + TRAIN:
        task = _task("paper", **where)
        unruled = {label(c.id) for c in task.checks if not c.rules}
        assert unruled <= module.rules.REQUEST_ONLY, unruled


@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_each_world_rule_is_a_sentence_of_the_mail_it_names(where):
    task = _task("paper", **where)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for rule in rules_of(task).values():
        if rule.stated or rule.latent:
            continue
        assert rule.text in by_id[rule.source.removeprefix("email:")]["body_text"], rule


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_the_mailbox_and_the_shop_are_lived_in(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 120
    assert explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any("state" in s and not s.endswith("@stategrid.example") for s in senders)  # State Grid's namesake
    assert len(mailbox(_task("guided", **where))) < 12
    db = sqlite3.connect(":memory:")
    db.deserialize(world_images(task)["ecommerce"])
    assert db.execute("SELECT COUNT(*) FROM products").fetchone()[0] >= 28


@pytest.mark.parametrize("where", TEST, ids=_ids)
def test_the_card_in_the_papers_is_the_card_on_file(where):
    task = _task("paper", **where)
    story = task.oracle[0].story
    assert story.card_number.replace(" ", "").endswith(story.card_last4)
    assert story.card_number in task.workspace_files["DOCUMENTS.md"]


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


@pytest.mark.parametrize("where", TEST, ids=_ids)
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
    assert {"router_cost_split", "valid_router_ordered", "x_minimum_kept"} <= failing, problems


# ---------------------------------------------------------------- the latent fact
@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_the_diary_has_the_person_away_when_the_router_arrives(where):
    """Nobody mentions it: the calendar holds the trip over the days the order takes, and the
    shop's welcome mail says parcels are handed over only against the recipient's signature."""
    task = _task("paper", **where)
    story = task.oracle[0].story
    away = story.extras["away"]
    (check,) = [c for c in task.checks if label(c.id) == LATENT]
    (rule,) = check.rules
    assert rule.latent and rule.source == "latent:someone_home" and rule.fact == away["title"]
    assert away["title"] not in "\n".join(task.workspace_files.values())
    go = story.extras["go_ahead"]
    assert go.date() < away["leave"].date() <= (go + timedelta(days=3)).date()
    assert any("signature" in m["body_text"] or "签收" in m["body_text"] for m in mailbox(task))


# ---------------------------------------------------------------- gates on the work, not on a pick
PAPER = FamilyHarness(ENV, level="paper")


@pytest.mark.parametrize("seed", [0, 3])
def test_a_router_that_breaks_the_rules_costs_its_own_checks_not_the_month(seed):
    """An agent that orders the Wi-Fi 5 router (the wrong pick) loses the proposal and the order
    checks; the split, the ledger and every later check of the month still judge its work."""
    story = PAPER.story(seed)
    wrong = next(it for it in story.extras["routers"]["items"] if it["role"] == "wifi5")

    def pick_wrong(agent: Any, event_text: str):
        agent.memory["router"] = {k: wrong[k] for k in ("product_id", "sku_id", "code", "price")}
        return [f"I suggest the {wrong['brand']} {wrong['code']}. Shall I order it?"]
        yield

    score, checks = PAPER.scores(seed, PAPER.oracle(seed, router_ask=[pick_wrong])())
    failed = {label(k) for k, ok in checks.items() if not ok}
    assert failed == {"valid_router_proposed_nothing_bought", "valid_router_ordered"}, failed
    assert score > 85


def test_the_scam_mail_is_named_by_a_bulk_mailer_not_by_what_it_is():
    """The fake disconnection notice and the mail posing as the bank land with a bulk mailer's
    Message-ID at the paper level (the guided level keeps the probes' own)."""

    def landed(level: str) -> str:
        return "\n".join(
            str(op.model_dump().get("sql", ""))
            for w in TEST + TRAIN
            for e in _task(level, **w).events
            for op in e.apply
        )

    paper, guided = landed("paper"), landed("guided")
    assert "<final-notice@" not in paper and "<verify@" not in paper and "@mx.mailout.example>" in paper
    assert "<final-notice@" in guided or "<verify@" in guided


@pytest.mark.parametrize("where", TEST, ids=_ids)
def test_the_routers_decoys_fail_on_their_details_not_on_their_listing(where):
    """At the paper level every router's listing reads alike; the Wi-Fi 5 model and the extender
    show what they are in the product's specifications (the guided listing names them)."""

    def listings(level: str) -> list[tuple[str, str]]:
        db = sqlite3.connect(":memory:")
        db.deserialize(world_images(_task(level, **where))["ecommerce"])
        return db.execute("SELECT title, description FROM products WHERE product_id LIKE 'prd_rt_%'").fetchall()

    paper = listings("paper")
    assert len(paper) == 6
    assert not any(w in t + d for t, d in paper for w in ("Wi-Fi 5", "Wi-Fi 6", "extender"))
    assert any("Wi-Fi 5" in t for t, _ in listings("guided"))
