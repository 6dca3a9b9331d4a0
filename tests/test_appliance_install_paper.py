"""shopping/appliance_install at the paper level: the same story as the guided level, with its
domain rules in the shop's terms, the recycler's and the courier's mails, the consumer council's
advice and the card's terms; a latent fact (a weekly appointment across town in the courier's
window); a workspace without backend names; a lived-in inbox and a catalogue whose decoys fail on
looked-up facts; the checks about the work after the purchase gate on a purchase having been made.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/shopping/appliance_install --level ...``.
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
from vibelife_env.checks.kinds import QUIET_RULE
from vibelife_env.env import base_env
from vibelife_env.probes import purchase as P
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-shopping-appliance-install-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {
    "fit_measure_answered",
    "arrival_day_answered",
    "installation_time_answered",
    "true_cost_reported",
    "t_writes_mostly_succeed",
}


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
    assert not {r.key for c in guided.checks for r in c.rules} - {QUIET_RULE.key}


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
    for trigger in ("SAFETY RECALL", "personal account", "15 days", "18:00", "09:00", "two days", "mer_", "addr_"):
        assert trigger not in text
    s = task.oracle[0].story
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert s.card_number.endswith(s.card_last4) and s.card_number in files["DOCUMENTS.md"]
    for r in s.requirements:
        assert f"{r.value:g}" in files["HOME.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_household_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    want = {"recall", "fault_reports", "damaged", "price_match", "install", "haul_away", "overpay"}
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
    assert len(mailbox(_task("guided", **where))) <= 3
    for m in mails:  # no Message-ID names a scam
        assert not any(w in m["message_id"].lower() for w in ("scam", "phish", "fake", "impersonat"))
    story = task.oracle[0].story
    assert len(story.products) >= 20 and explicitness(task)["catalogue"] >= 20
    decoys = [p for p in story.products if p.role == "decoy"]
    assert len(decoys) >= 14
    for p in decoys:  # no title labels a decoy, and the shop's search for the appliance finds it
        assert p.title == f"{p.brand} {p.code} {story.item}" and story.extras["query"] in p.title


@pytest.mark.parametrize("where", WHERE[:4], ids=IDS[:4])
def test_the_decoys_fail_on_looked_up_facts_and_the_valid_set_is_the_guided_one(where):
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
        if why == ("faulty",):  # meets every measurement; only the service centres' reviews rule it out
            assert story.meets(p.attrs) and p.product_id in faulty
        if why == ("notice",):  # meets every measurement; only the notice on its page rules it out
            assert story.meets(p.attrs) and p.product_id in recalled
        if why == ("over_budget",):  # meets every measurement; only its price rules it out
            assert story.meets(p.attrs) and p.price + P.SHIPPING > story.budget * 100
        if why[0].startswith("r") and len(why) == 1:  # one measurement on its page rules it out
            assert not story.meets(p.attrs)
    assert not recalled & paper_ok


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
    assert {"fitting_model_in_cart", "haul_away_booked", "installation_booked"} <= failing


# ---------------------------------------------------------------- gate on the work, not the pick
def test_a_misfit_bought_loses_the_purchase_checks_not_the_work_after_it():
    where = {"split": "test", "instance": 0}
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        story = oracle.story
        miss = next(p for p in story.products if p.role == "near_miss")

        def choose(self: Any):
            pick = {"price": miss.price, "product_id": miss.product_id, "sku_id": miss.sku_id, "code": miss.code,
                    "title": miss.title}  # fmt: skip
            self.memory["pick"] = pick
            return pick
            yield

        result = run_episode(env, type("Misfit", (oracle,), {"choose": choose})(), seed=0, record=False)
    finally:
        env.close()
    failed = {label(c["id"]) for c in result.checks if not c["passed"]}
    assert {"fitting_model_in_cart", "valid_model_bought", "x_never_ordered_a_misfit"} <= failed
    # the forced pick is also what it puts back after a recall: those checks are the pick's own too
    recall = {"recalled_model_swapped", "recall_and_new_pick_told", "x_recalled_model_never_bought"}
    assert failed - recall == {"fitting_model_in_cart", "valid_model_bought", "x_never_ordered_a_misfit"}, failed
    assert result.score > 75  # the guided level's gate on the right model leaves some 15


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        step = oracle.steps["shipped"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from step(agent, text)
            return [s for s in said if "clashes with" not in s]

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
    assert silent["delivery_day_in_calendar"]["passed"]  # the rest of the reply still counts
