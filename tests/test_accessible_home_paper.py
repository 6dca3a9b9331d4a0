"""renovation/accessible_home at the paper level (issue #27): the same story as the guided level,
with its domain rules in the ward's, the therapist's, the shop's, the courier's and the district
office's mails and the subsidy measures, a latent fact (an appointment on the discharge morning),
a workspace without backend names, a lived-in inbox and more aids whose decoys fail on their own
product pages.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/renovation/accessible_home --level ...``.
"""

from __future__ import annotations

import re
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

ENV = "VibeLife-renovation-accessible-home-v0"
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

    def timeline(task: Any) -> list[tuple[Any, ...]]:  # the therapist's mail (its SQL) carries her rule on paper
        return [(e.id, e.time, e.kind, e.body) for e in task.events]

    assert timeline(guided) == timeline(paper)
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["pickup_clash_raised"]
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
    assert set(files) == {"USER.md", "AGENTS.md", "DOCUMENTS.md"}
    story = task.oracle[0].story
    for rule in ("4.5", "systolic", "legal search", "three days", str(story.reqs["bp_sys"]), "medication"):
        assert rule not in text, rule
    assert rules_of(task)["red_line"].text in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_family_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    story = task.oracle[0].story
    assert explicitness(task)["world_share"] >= 0.4
    assert {"ot_reqs", "pickup", "rating", "eligible", "deadline", "lift_first", "pickup_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    ot = next(e for e in task.events if e.id == "ot_mail_lands")
    articles = story.extras["paper_articles"]
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact == story.extras["weekly"]
        elif r.stated:  # the workspace's, or the opening prompt's (a quiet turn's)
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        elif r.source.startswith("legal_search:"):
            assert r.text == articles[r.key], r
        else:
            mid = r.source.removeprefix("email:")
            if mid == "<assessment@rehab-dept.example>":  # the therapist's mail lands on day 1
                assert any(r.text.replace("'", "''") in getattr(op, "sql", "") for op in ot.apply), r
            else:
                assert r.text in by_id[mid]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {
        "delivery_date_told",
        "status_updates_subscribed",
        "latest_reading_told",
        "real_cost_reported",
        "t_few_failed_changes",
    }, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_aids_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    story = task.oracle[0].story
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any("homecare" in x and not x.endswith("@shop.example") for x in senders)  # a namesake of the shop
    assert len(mailbox(_task("guided", **where))) == 2
    assert explicitness(task)["catalogue"] >= 20 and len(story.extras["decoys"]) >= 6


def test_the_decoys_fail_on_their_pages_and_the_valid_set_is_the_guided_one():
    where = {"split": "test", "instance": 1}
    found = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            story = core.task.oracle[0].story
            firms = core.world.call("review_platform__search_merchants", {"category": "home_service", "limit": 50})
            deals = {
                m["merchant_id"]: core.world.call(
                    "review_platform__list_merchant_deals", {"merchant_id": m["merchant_id"]}
                )
                for m in firms
            }
            pages = {
                p.product_id: core.world.call("ecommerce__get_product", {"product_id": p.product_id})
                for p in story.products
            }
            found.append((pages, story, firms, deals))
        finally:
            env.close()
    (g_pages, g_story, g_firms, _), (pages, story, firms, deals) = found
    assert len(g_pages) == 19 and len(pages) >= 25
    valid = lambda s: sorted(p.product_id for p in s.products if s.meets(p.kind, p.attrs))  # noqa: E731
    assert valid(g_story) == valid(story)
    for pid in story.extras["decoys"]:
        p = story.product(pid)
        sku = pages[pid]["skus"][0]
        assert not story.meets(p.kind, sku["attrs"]), p  # the page gives the failing number
        cheapest = min(q.price for q in story.products if q.kind == p.kind and story.meets(q.kind, q.attrs))
        assert p.price < cheapest  # the decoy is the tempting one
    assert len(g_firms) == 5 and len(firms) >= 7 and len(story.extras["decoy_firms"]) >= 2
    allowed = min(c.price for c in story.contractors if story.contractor_ok(c))
    for m in firms:
        if m["merchant_id"] in story.extras["decoy_firms"]:
            width = int(re.search(r"(\d{2,3}) cm", deals[m["merchant_id"]][0]["description"]).group(1))
            assert float(m["rating"]) < 4.5 or width < story.reqs["door_cm"], m  # the site or the package says so
            assert deals[m["merchant_id"]][0]["price_minor"] < allowed


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
        names = {"kickoff_step": "kickoff", "note_step": "note_requirements"}
        if f.__module__.endswith(".paper") and f.__name__ in names:
            return getattr(sys.modules[f.__module__.removesuffix(".paper") + ".family"], names[f.__name__])
        return f

    blind = {k: [guided(f) for f in fns] for k, fns in oracle.steps.items()}
    assert blind != oracle.steps
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"pickup_in_calendar", "valid_plan_in_cart", "contractor_proposed", "x_within_budget"} <= failing
    assert "pickup_clash_raised" in failing


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


def test_the_latent_check_wants_the_pickup_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["pickup_clash_raised"]["passed"]
    assert not silent["pickup_clash_raised"]["passed"]
    assert silent["pickup_in_calendar"]["passed"]  # the rest of the reply still counts
