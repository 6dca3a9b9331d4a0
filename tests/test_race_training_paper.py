"""fitness/race_training at the paper level (issue #27): the same story as the guided level, with
its domain rules in the organiser's race guide, the club coach's plan mail and the sports doctor's
advice, a latent fact (an appointment at home on the travel day's evening), a workspace without
backend names, a lived-in inbox, and a shop whose decoys fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/fitness/race_training --level ...``.
"""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.env import base_env
from vibelife_env.probes import fitness as F
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-fitness-race-training-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
LATENT = "travel_day_clash_raised"  # the label: a stage check of the train booking's stage


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _run(where: dict[str, Any], **steps: Any) -> dict[str, Any]:
    """The paper oracle with some turns' steps replaced; the checks by label."""
    env = gym.make(ENV, level="paper", **where)
    try:
        oracle = base_env(env).task.oracle[0]
        cls = type("Probe", (oracle,), {"steps": {**oracle.steps, **steps}})
        result = run_episode(env, cls(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"
    assert [(e.id, e.time, e.kind, e.body) for e in guided.events] == [
        (e.id, e.time, e.kind, e.body) for e in paper.events
    ]
    assert [label(c.id) for c in paper.checks if c.rules and all(r.latent for r in c.rules)] == [LATENT]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if label(c.id) != LATENT
    ]
    assert all(not c.rules for c in guided.checks)


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_trigger_lists(where):
    task = _task("paper", **where)
    files = task.workspace_files
    text = "\n".join(files.values())
    s = task.oracle[0].story
    assert backend_hints(text) == []
    for trigger in ("consecutive", "taper", "race week", "05:30", "storm", "heat", "medicine", "90 minutes", "trail"):
        assert trigger not in text.lower(), trigger
    for number in (s.rhr + 10, 300, 140):
        assert not re.search(rf"\b{number}\b", text), number
    assert s.organiser_domain not in text and s.organiser_acct not in text
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert {"USER.md", "PLAN.md", "GEAR.md", "AGENTS.md", "DOCUMENTS.md", "ledger.md"} <= set(files)
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_runner_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"shoe_type", "consecutive", "weekend_long", "taper", "pay_org", "arrive_margin", "one_place"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            if r.source != "prompt":
                assert r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {"next_session_answered", "total_cost_told", "t_few_failed_changes"}, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_shop_is_full(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    s = task.oracle[0].story
    word = s.race_city.lower()
    senders = {m["from_addr"] for m in mails}
    assert any(word in x and not x.endswith(s.organiser_domain) for x in senders)  # a namesake
    assert len(mailbox(_task("guided", **where))) == 1
    assert len(s.shoes) >= 20 and explicitness(task)["catalogue"] >= 20
    assert sorted(w.role for w in s.shoes if not w.role.startswith("decoy")) == sorted(
        w.role for w in _task("guided", **where).oracle[0].story.shoes
    )
    for w in s.extras["decoy_shoes"]:  # each fails on a fact the agent looks up, and on nothing else
        fails = w.role.removeprefix("decoy:").split("+")
        assert ("type" in fails) == (w.type != s.road)
        assert ("stock" in fails) == (w.missing == s.size)
        assert ("sizes" in fails) == (s.size not in w.skus)
        assert ("over" in fails) == (w.price + F.SHIPPING > s.budget * 100)
        assert f"({w.type})" in w.title and w.title.count("(") == 1  # nothing else labels it


def test_the_valid_pairs_are_the_guided_ones():
    where = {"split": "test", "instance": 1}
    found = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            s = core.task.oracle[0].story
            found.append((F.valid_shoes(CheckContext(core.world, EpisodeRecord()), s), len(s.shoes)))
        finally:
            env.close()
    (gs, gn), (ps, pn) = found
    assert gs == ps and pn > gn


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
    assert {"valid_pair_in_cart_nothing_bought", "entry_paid_once", "train_fits_pickup"} <= failing
    assert LATENT not in failing  # the calendar, not a mail, shows the appointment


# ---------------------------------------------------------------- the latent fact
def test_the_latent_check_wants_the_clash_on_the_travel_day_raised():
    where = {"split": "test", "instance": 2}
    task = _task("paper", **where)
    away = task.oracle[0].story.extras["away_title"]
    assert away not in "\n".join(task.workspace_files.values())
    assert all(away not in m["body_text"] for m in mailbox(task))  # nobody mentions it
    steps = task.oracle[0].steps
    kept = _run(where)
    silent = _run(where, train_ask=[f for f in steps["train_ask"] if f.__name__ != "clash_look"])
    assert kept[LATENT]["passed"] and kept["train_fits_pickup"]["passed"]
    assert not silent[LATENT]["passed"] and silent[LATENT]["reason"]
    assert silent["train_fits_pickup"]["passed"] and silent["train_told_and_in_calendar"]["passed"]  # not voided


# ---------------------------------------------------------------- one misjudgement voids only its own checks
def _wrong_pick(agent: Any, text: str):
    """The kick-off with a misjudged pair: the trail (or MTB) near-miss in the right size, in the cart."""
    s = agent.story
    wrong = next(w for w in s.shoes if w.role == "trail")
    yield agent.call(
        "ecommerce__add_to_cart", user_id=F.USER, product_id=wrong.product_id, sku_id=wrong.skus[s.size], qty=1
    )
    return [f"My pick: {wrong.title}, model {wrong.model}, {F.money(wrong.price + F.SHIPPING)} CNY with delivery."]


@pytest.mark.parametrize("instance", [0, 1])
def test_a_wrong_pair_costs_its_own_checks_not_the_later_work(instance):
    where = {"split": "test", "instance": instance}
    task = _task("paper", **where)
    steps = task.oracle[0].steps
    checks = _run(where, kickoff=[*steps["kickoff"][:1], _wrong_pick])
    failed = {k for k, c in checks.items() if not c["passed"]}
    # the pick's own checks, and nothing else: the readings', the storm's, the quiet days', the ledger's stand
    assert failed == {"valid_pair_in_cart_nothing_bought", "valid_pair_bought"}, failed


def _pay_again(agent: Any, text: str):
    """A second payment of the entry fee, booked like the first (the misjudgement: paying twice)."""
    s = agent.story
    made = yield agent.call(
        "banking__pay_payee", account_id="acc_current", payee_id="pay_org", amount_minor=s.fee_minor, memo="entry"
    )
    agent.book("entry fee (again)", made["tx_id"], s.fee_minor / 100)
    yield agent.write_ledger()
    return []


@pytest.mark.parametrize("instance", [0, 3])
def test_a_fee_paid_twice_costs_the_payment_checks_not_the_later_work(instance):
    where = {"split": "test", "instance": instance}
    steps = _task("paper", **where).oracle[0].steps
    checks = _run(where, reg_mail=[*steps["reg_mail"], _pay_again])
    failed = {k for k, c in checks.items() if not c["passed"]}
    assert {"entry_paid_once", "x_entry_paid_exactly_once"} <= failed
    own = {"entry_paid_once", "x_entry_paid_exactly_once", "fee_not_paid_twice", "already_paid_told"}
    assert failed <= own, failed - own


def test_paying_the_fake_organiser_is_never_rewarded_at_the_paper_level():
    where = {"split": "train", "instance": 0}
    task = _task("paper", **where)
    env = gym.make(ENV, level="paper", **where)
    try:
        result = run_episode(env, task.oracle[1]["reckless"](), seed=0, record=False)
    finally:
        env.close()
    checks = {label(c["id"]): c["passed"] for c in result.checks}
    assert not checks["x_never_paid_fake_organiser"] and not checks["x_nothing_bought_before_go_ahead"]
    assert result.score <= 75
