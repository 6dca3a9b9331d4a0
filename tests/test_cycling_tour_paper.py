"""fitness/cycling_tour at the paper level (issue #27): the same story as the guided level, with
its domain rules in the organiser's rider guide, the club coach's training rules, the sports
doctor's advice and the rental company's terms, a latent fact (an evening at home on the support
car's pick-up day), a workspace without backend names, a lived-in inbox, a shop whose decoy
helmets fail on looked-up facts, and checks of later work that gate on the work done.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/fitness/cycling_tour --level ...``.
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
from vibelife_env.checks.kinds import PROMPT
from vibelife_env.env import base_env
from vibelife_env.probes import cycling as C
from vibelife_env.probes import fitness as F
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-fitness-cycling-tour-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
LATENT = "car_pickup_clash_raised"  # the label: a stage check of the car booking's stage
REQUEST_ONLY = {"next_session_answered", "total_cost_told", "drive_time_told", "t_few_failed_changes"}


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
    for trigger in ("bpm", "mmHg", "300 minutes", "05:30", "storm", "heat", "excess", "hard session", *C.STANDARDS):
        assert trigger not in text, trigger
    assert f"{s.fleet.radius_km:g} km" not in text and "straight line" not in text
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert {"USER.md", "PLAN.md", "GEAR.md", "CAR.md", "AGENTS.md", "DOCUMENTS.md", "ledger.md"} <= set(files)
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_rider_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"helmet_standard", "pay_org", "desk_near", "excess", "car_return", "consecutive", "one_place"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.source == PROMPT or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_shop_is_full(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 110 and explicitness(task)["mails_at_reset"] == len(mails)
    s = task.oracle[0].story
    word = s.organiser.split()[0].lower()
    senders = {m["from_addr"] for m in mails}
    assert any(word in x and not x.endswith(s.organiser_domain) for x in senders)  # a namesake
    assert len(mailbox(_task("guided", **where))) < 5
    assert len(s.shoes) >= 20 and len(s.extras["decoy_helmets"]) >= 14
    assert sorted(w.role for w in s.shoes if not w.role.startswith("decoy")) == sorted(
        w.role for w in _task("guided", **where).oracle[0].story.shoes
    )
    for w in s.extras["decoy_helmets"]:  # each fails on a fact the agent looks up, and on nothing else
        fails = w.role.removeprefix("decoy:").split("+")
        assert ("type" in fails) == (w.type != s.road)
        assert ("stock" in fails) == (w.missing == s.size)
        assert ("sizes" in fails) == (s.size not in w.skus)
        assert ("over" in fails) == (w.price + F.SHIPPING > s.budget * 100)


def test_the_valid_helmets_and_cars_are_the_guided_ones():
    where = {"split": "test", "instance": 1}
    found = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            ctx = CheckContext(core.world, EpisodeRecord())
            s = core.task.oracle[0].story
            found.append((F.valid_shoes(ctx, s), C.valid_offers(ctx, s), len(s.shoes)))
        finally:
            env.close()
    (gs, gc, gn), (ps, pc, pn) = found
    assert gs == ps and gc == pc and pn > gn


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
    assert {"valid_pair_in_cart_nothing_bought", "entry_paid_once", "car_meets_rules"} <= failing
    assert LATENT not in failing  # the calendar, not a mail, shows the evening at home


# ---------------------------------------------------------------- the latent fact
def _run(level: str, where: dict[str, Any], change: Any) -> dict[str, Any]:
    env = gym.make(ENV, level=level, **where)
    try:
        oracle = base_env(env).task.oracle[0]
        steps = change(dict(oracle.steps))
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_clash_raised_and_nothing_else():
    where = {"split": "test", "instance": 2}
    task = _task("paper", **where)
    away = task.oracle[0].story.extras["away_title"]
    assert away not in "\n".join(task.workspace_files.values())
    assert all(away not in m["body_text"] for m in mailbox(task))  # nobody mentions it

    def quiet(steps: dict[str, Any]) -> dict[str, Any]:
        steps["car_ask"] = [f for f in steps["car_ask"] if f.__name__ != "clash_look"]
        return steps

    kept, silent = _run("paper", where, lambda x: x), _run("paper", where, quiet)
    assert kept[LATENT]["passed"] and kept["car_meets_rules"]["passed"]
    assert not silent[LATENT]["passed"] and silent[LATENT]["reason"]
    assert [k for k, c in silent.items() if not c["passed"]] == [LATENT]


# ---------------------------------------------------------------- gates on the work, not on the pick
def _wrong_helmet(agent: Any, event_text: str):
    """Put the helmet certified to the other standard in the cart (a misjudged pick)."""
    s = agent.story
    wrong = next(sh for sh in s.shoes if sh.role == "other_standard")
    yield agent.call(
        "ecommerce__add_to_cart", user_id=F.USER, product_id=wrong.product_id, sku_id=wrong.skus[s.size], qty=1
    )
    return [f"My pick: {wrong.title}. It is in the cart; shall I order it?"]


def test_a_wrong_helmet_costs_the_helmet_checks_only_at_the_paper_level():
    where = {"split": "test", "instance": 0}

    def wrong(steps: dict[str, Any]) -> dict[str, Any]:
        steps["kickoff"] = [f for f in steps["kickoff"] if f.__name__ != "propose"] + [_wrong_helmet]
        return steps

    paper, guided = _run("paper", where, wrong), _run("guided", where, wrong)
    helmet = {
        "valid_pair_in_cart_nothing_bought",
        "price_with_delivery_told",
        "model_named",
        "valid_pair_bought",
        "order_total_told",
        "order_in_ledger",
    }
    failed = {k for k, c in paper.items() if not c["passed"]}
    assert {"valid_pair_in_cart_nothing_bought", "valid_pair_bought"} <= failed <= helmet, failed
    assert all(paper[k]["reason"] for k in failed)
    assert {k for k, c in guided.items() if not c["passed"]} - helmet  # the shared gates cascade at guided
