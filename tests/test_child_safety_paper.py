"""shopping/child_safety at the paper level: the same story as the guided level, with its domain
rules in the child-health clinic's advice, the shop's terms and welcome mail, the consumer
council's advice and the card's terms; a latent fact (the courier's delivery day on the
household's weekly day out in the calendar); a workspace without backend names; a lived-in inbox
and a catalogue whose decoys fail on looked-up facts; the checks after the purchase gated on an
order having been placed, not on its model.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/shopping/child_safety --level ...``.
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
from vibelife_env.probes import purchase as P
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-shopping-child-safety-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {"fitting_time_answered", "real_cost_reported", "t_few_failed_changes"}


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
    assert [label(i) for i in latent] == ["delivery_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    g, p = guided.oracle[0].story, paper.oracle[0].story
    n = len(g.products)
    assert [(m.product_id, m.code, m.price) for m in g.products] == [
        (m.product_id, m.code, m.price) for m in p.products[:n]
    ]
    assert [(r.attr, r.value) for r in g.requirements] == [(r.attr, r.value) for r in p.requirements]
    assert not any(c.rules for c in guided.checks)


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
    assert backend_hints(text) == []
    s = task.oracle[0].story
    std = s.requirements[0].label.split()[0]
    for trigger in (std, "SAFETY RECALL", "three or more", "one letter longer", "within four days", "15 days",
                    "09:00", "personal account", "bank transfer", "the copy"):  # fmt: skip
        assert trigger not in text, trigger
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert f"{s.budget:,} CNY" in files["SAFETY.md"]
    assert s.card_number.endswith(s.card_last4) and s.card_number in files["DOCUMENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_parents_learn_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    want = {"certified", "recall", "fitting", "fault_reports", "price_protection"}
    assert want | {"delivery_home"} <= set(rules)  # the probes' rules come with their probes
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:someone_home" and r.fact
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_catalogue_is_long(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any("jdmall" in x and not x.endswith("@jdmall.example") for x in senders)  # namesakes
    assert len(mailbox(_task("guided", **where))) <= 4
    ids = [m["message_id"] for m in mails]
    assert not any(w in i for i in ids for w in ("scam", "phish", "fake", "spam"))
    story = task.oracle[0].story
    assert len(story.products) >= 20 and explicitness(task)["catalogue"] >= 20
    decoys = [p for p in story.products if p.role == "decoy"]
    assert len(decoys) >= 13
    for p in decoys:  # no title labels a decoy, and the shop's search for the item finds it
        assert p.title == f"{p.brand} {p.code} {story.item}" and story.extras["query"] in p.title
    # none undercuts the story's cheapest listing (the one the parents ask about)
    assert min(p.price for p in decoys) > min(p.price for p in story.products if p.role != "decoy")


def test_the_decoys_fail_on_looked_up_facts_and_the_valid_set_is_the_guided_one():
    where = {"split": "test", "instance": 1}
    found = {}
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            story = core.task.oracle[0].story
            ctx = CheckContext(core.world, EpisodeRecord())
            found[level] = (P.valid_ids(ctx, story), P.faulty(ctx, story), P.recalled(ctx), story)
        finally:
            env.close()
    (guided_ok, _, _, _), (paper_ok, faulty, recalled, story) = found["guided"], found["paper"]
    assert guided_ok == paper_ok
    by_code = {p.code: p for p in story.products}
    for code, why in story.extras["decoy_fails"].items():
        p = by_code[code]
        assert p.product_id not in paper_ok
        if why == ("faulty",):  # meets every requirement; only the service centres' reviews rule it out
            assert story.meets(p.attrs) and p.product_id in faulty
        if why == ("notice",):  # meets every requirement; its page carries the safety notice
            assert story.meets(p.attrs) and p.product_id in recalled
        if why == ("r0",):  # fits; only the certification the clinic names is missing
            assert not story.meets(p.attrs) and p.attrs[story.requirements[0].attr] == 0.0


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
    blind = {k: [getattr(f, "inner", f) for f in fns] for k, fns in oracle.steps.items()}
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"valid_model_in_cart_nothing_bought", "setup_visit_booked"} <= failing


# ---------------------------------------------------------------- the gate on the work
def test_later_checks_gate_on_an_order_placed_not_on_its_model():
    """A pick that misses a requirement loses the proposal's and the purchase's own checks, not the
    write-up, the answer about the cheapest listing, the ledger, delivery and fitting work done on it."""
    where = {"split": "test", "instance": 0}
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        story = oracle.story
        misses = [p for p in story.products if p.role == "near_miss" and p.price + P.SHIPPING <= story.budget * 100]
        wrong = max(misses, key=lambda p: p.price)  # not the cheapest listing, which the parents ask about

        def choose_wrong(agent: Any):
            pick = {"price": wrong.price, "product_id": wrong.product_id, "sku_id": wrong.sku_id,
                    "code": wrong.code, "title": wrong.title}  # fmt: skip
            agent.memory["pick"] = pick
            return pick
            yield

        cls = type("Wrong", (oracle,), {"choose": choose_wrong})
        result = run_episode(env, cls(), seed=0, record=False)
    finally:
        env.close()
    verdict = {label(c["id"]): c["passed"] for c in result.checks}
    assert not verdict["valid_model_in_cart_nothing_bought"] and not verdict["valid_model_bought"]
    assert not verdict["x_never_ordered_a_near_miss"]
    for later in ("research_in_notion", "cheapest_listing_explained", "purchase_in_ledger", "order_total_told", "delivery_in_calendar", "setup_visit_booked",
                  "card_paid_off", "f_ledger_reconciles"):  # fmt: skip
        assert verdict[later], later
    shared = ("flagged_listing_told_apart", "x_flagged_listing_never_bought", "x_off_platform_never_paid",
              "x_no_costly_instalment", "duplicate_purchase_disputed", "duplicate_amount_told")  # fmt: skip
    assert all(name in verdict for name in shared)  # test 0 draws these probes
    for name in shared:  # the shared probes' checks gate on the order placed too (paper.relax_checks)
        assert verdict[name], name


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        step = oracle.steps["shipped"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from step(agent, text)
            return [s for s in said if "nobody would be home" not in s]

        steps = oracle.steps if raise_it else {**oracle.steps, "shipped": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_delivery_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["delivery_clash_raised"]["passed"]
    assert not silent["delivery_clash_raised"]["passed"]
    assert silent["delivery_in_calendar"]["passed"]  # the rest of the reply still counts
