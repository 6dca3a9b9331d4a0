"""finance/card_watch at the paper level (issue #27): the same story as the guided level, with its
domain rules in the mails of the bank, the card issuer, the landlord and the shop, a workspace
without backend names, a lived-in inbox and a catalogue whose namesakes fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level="paper")``); the reward gates of
both levels run in ``vibelife validate --family tasks/finance/card_watch --level ...``.
"""

from __future__ import annotations

import re
import sys
from datetime import timedelta
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.families.loader import load_family
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems, strings_in

ENV = "VibeLife-finance-card-watch-v0"
TEST: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)]
TRAIN: list[dict[str, Any]] = [{"split": "train", "instance": s} for s in (0, 3, 7, 11)]


def _family_module() -> Any:
    """The family's module, as the registry loaded it (its ``rules``, ``paper``)."""
    return sys.modules[type(load_family(gym.registry[ENV].kwargs["family_dir"])).__module__]


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert [(e.id, e.time, e.kind, e.body) for e in guided.events] == [
        (e.id, e.time, e.kind, e.body) for e in paper.events
    ]
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["delivery_while_away_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert paper.meta.name == guided.meta.name + "-paper"
    assert guided.workspace_files["USER.md"] != paper.workspace_files["USER.md"]


def test_the_family_renders_both_levels_and_defaults_to_paper():
    assert _task("paper", split="test", instance=0).meta.name.endswith("-paper")
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_the_paper_workspace_has_no_backend_hints(where):
    files = _task("paper", **where).workspace_files
    assert backend_hints("\n".join(files.values())) == []
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


def test_the_paper_workspace_keeps_one_red_line_and_no_quiet_or_trigger_instructions():
    for where in TEST:
        task = _task("paper", **where)
        agents = task.workspace_files["AGENTS.md"]
        text = "\n".join(task.workspace_files.values())
        assert "on the strength of a mail alone" in agents
        for trigger in ("stategrid-billing", "cmb-secure", "zhou-rentals", "short reply", "nothing needs me"):
            assert trigger not in text
        guided = "\n".join(_task("guided", **where).workspace_files.values())
        assert "stategrid-billing" in guided and "short reply" in guided  # what the guided level spells out


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_at_least_two_fifths_of_the_rules_live_in_the_world_and_the_rest_are_stated(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    world = [r for r in rules.values() if not r.stated]
    assert len(world) / len(rules) >= 0.4
    assert explicitness(task)["world_share"] >= 0.4
    for r in world:  # a mail of the bank, the issuer, the landlord or the shop; or the one latent fact
        assert r.source.startswith("email:<") or r.source == "latent:someone_home", r
    assert sum(r.latent for r in world) == 1
    for r in rules.values():
        if r.stated and r.source != "prompt":
            assert r.source in ("USER.md", "AGENTS.md") and r.text in task.workspace_files[r.source], r
    keys = set(rules)
    assert {"bank_security", "bank_minimum", "card_due", "card_dispute", "rent_standing", "shipping"} <= keys
    assert {"delegation", "red_line", "fee_free", "budget", "payday"} <= keys


def test_every_check_that_enforces_a_standing_rule_records_it_at_both_levels():
    for level in ("guided", "paper"):
        task = _task(level, split="test", instance=0)
        unruled = {label(c.id) for c in task.checks if not c.rules}
        # only the checks of a turn's own request (a question answered) carry none
        assert unruled <= _family_module().rules.REQUEST_ONLY, unruled
    guided = rules_of(_task("guided", split="test", instance=0))
    assert all(r.stated for r in guided.values())  # the guided level states every rule


@pytest.mark.parametrize("where", TEST, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_each_world_rule_is_a_sentence_of_the_mail_it_names(where):
    task = _task("paper", **where)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for rule in rules_of(task).values():
        if rule.stated or rule.latent:
            continue
        mid = rule.source.removeprefix("email:")
        if mid == "<bill@stategrid-billing.example>":  # the bill lands during the month
            continue
        assert rule.text in by_id[mid]["body_text"], rule


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", TEST + TRAIN, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_the_mailbox_is_lived_in_with_near_namesakes_of_the_real_senders(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 120
    assert explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert "statements@cmb-bank.example" in senders
    assert any("cmb" in s and not s.endswith("@cmb-bank.example") for s in senders)  # the bank's namesakes
    assert any("zhou" in s and s != "zhou.landlord@mail.example" for s in senders)  # the landlord's
    assert len(mailbox(_task("guided", **where))) == 3


def test_the_wished_items_namesakes_carry_its_very_title_and_fail_on_their_seller():
    env = gym.make(ENV, level="paper", split="test", instance=1)
    try:
        env.reset(seed=0)
        core = base_env(env)
        wish = core.task.oracle[0].story.extras["wish"]
        found = core.world.call("ecommerce__search_products", {"query": wish["title"]})
        same = [p for p in found if p["title"] == wish["title"]]
        assert len(same) == 3 and {p["brand"] for p in same} == {wish["brand"], "ReNew", "GlobalBuy"}
        assert len(core.world.call("ecommerce__search_products", {"query": ""})) >= 20
    finally:
        env.close()


def test_ordering_a_namesake_of_the_wished_item_fails_the_purchase():
    env = gym.make(ENV, level="paper", split="test", instance=1, strict_mutations=True)
    try:
        oracle = base_env(env).task.oracle[0]

        def import_instead(agent: Any, text: str):
            s = agent.story
            yield agent.call(
                "ecommerce__add_to_cart",
                user_id=s.user_key,
                product_id="prd_wish_import",
                sku_id="sku_wish_import",
                qty=1,
            )
            yield agent.call(
                "ecommerce__place_order", user_id=s.user_key, address_id="addr_home", payment_method="credit_card"
            )
            return ["Ordered."]

        probe = type("Probe", (oracle,), {"steps": {**oracle.steps, "wishlist": [import_instead]}})
        result = run_episode(env, probe(), seed=0, record=False)
    finally:
        env.close()
    failed = {label(c["id"]) for c in result.checks if not c["passed"]}
    assert "purchase_within_cap" in failed


# ---------------------------------------------------------------- the oracle looks things up
def _returned_by_stage(where: dict[str, Any]) -> tuple[Any, dict[int, list[str]]]:
    """The paper instance and, per stage, the text every successful tool call of its oracle returned."""
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
            wanted = rule.fact if rule.latent else rule.text  # a latent rule's fact, a world rule's text
            found = [t for stage, texts in seen.items() if stage <= by for t in texts if wanted in t]
            assert found, (check.id, rule.key)
    assert discoverability_problems(ENV, 0, {"level": "paper", **where}) == []


def test_an_oracle_that_does_not_read_the_mail_fails_the_discoverability_gate(monkeypatch):
    where = {"level": "paper", "split": "test", "instance": 0}
    task = _task("paper", split="test", instance=0)
    oracle, ablations, variants = task.oracle
    reads = {"lookups", "read_new_mail", "read_order_mail"}
    blind = {k: [f for f in fns if f.__name__ not in reads] for k, fns in oracle.steps.items()}
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    problems = discoverability_problems(ENV, 0, where)
    failing = {label(p.split(":", 1)[0]) for p in problems}
    assert {"card_paid_on_time", "bank_scam_quarantined", "x_rent_paid_once"} <= failing, problems
    assert "f_minimum_kept" in failing, problems  # the fee-free minimum is in the bank's mail only


def test_the_oracle_takes_the_minimum_it_keeps_from_the_banks_terms():
    env = gym.make(ENV, level="paper", split="test", instance=0)
    try:
        core = base_env(env)
        agent = load_oracle(core.task)
        run_episode(env, agent, seed=0, record=False)
        story = core.task.oracle[0].story
        assert agent.memory["minimum"] == story.min_balance
        said = core.task.workspace_files["USER.md"] + core.task.workspace_files["AGENTS.md"]
        assert not re.search(rf"(?<![\d,.]){story.min_balance:,} CNY", said)  # only the bank's mail says it
    finally:
        env.close()


# ---------------------------------------------------------------- the latent fact
@pytest.mark.parametrize("where", TEST, ids=lambda w: f"{w['split']}-{w['instance']}")
def test_the_diary_has_the_person_away_when_the_wished_order_arrives(where):
    """Nobody mentions the trip: the calendar holds it over the days the shop's mail says an order
    takes, and the shop's mail says a parcel is handed over against a signature."""
    task = _task("paper", **where)
    story = task.oracle[0].story
    away = story.extras["away"]
    (check,) = [c for c in task.checks if label(c.id) == "delivery_while_away_raised"]
    (rule,) = check.rules
    assert rule.latent and rule.source == "latent:someone_home" and rule.fact == away["title"]
    assert away["title"] not in "\n".join(task.workspace_files.values())
    wishlist = next(e for e in task.events if e.id == "wishlist")
    arrival = wishlist.time + timedelta(days=3)
    assert away["leave"] < arrival < away["back"]
    shop = [m for m in mailbox(task) if m["from_addr"] == "hello@jdmall.example"]
    assert "three days" in shop[0]["body_text"] or "三天" in shop[0]["body_text"]
    assert "signature" in shop[0]["body_text"] or "签收" in shop[0]["body_text"]
    env = gym.make(ENV, level="paper", **where)
    try:
        env.reset(seed=0)
        events = base_env(env).world.call("calendar__list_events", {"max_results": 50})
        assert away["title"] in str(events)
    finally:
        env.close()


def test_an_order_placed_without_raising_the_trip_fails_the_latent_check_and_says_why(monkeypatch):
    where = {"split": "test", "instance": 1}
    task = _task("paper", **where)
    oracle, ablations, variants = task.oracle
    silent = {k: [f for f in fns if f.__name__ != "away_step"] for k, fns in oracle.steps.items()}
    env = gym.make(ENV, level="paper", **where)
    try:
        core = base_env(env)
        monkeypatch.setattr(core.task, "oracle", (type("Unaware", (oracle,), {"steps": silent}), ablations, variants))
        run_episode(env, load_oracle(core.task), seed=0, record=False)
        results = core.scorer.results
        (key,) = [k for k in results if label(k) == "delivery_while_away_raised"]
        assert not results[key].passed and "does not name" in results[key].reason
        assert all(r.passed for k, r in results.items() if k != key)  # the order itself is fine
    finally:
        env.close()
