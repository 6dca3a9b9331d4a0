"""finance/portfolio at the paper level: the same month as the guided level, with its domain rules
in the advisor's plan and the broker's and the bank's mails, a workspace without backend names, a
lived-in inbox, a catalogue of funds, one latent fact (a clash in the diary) and a month that
shows more than it changes silently (the statement is an app page, later sessions are only seen).

Everything goes through the public API (``gym.make(..., level="paper")``); the reward gates of
both levels run in ``vibelife validate --family tasks/finance/portfolio --level ...``.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
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
from vibelife_env.stats import KIND_GROUPS, backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-finance-portfolio-v0"
TEST: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)]
TRAIN: list[dict[str, Any]] = [{"split": "train", "instance": s} for s in (0, 3, 7, 11)]
LATENT = "meeting_clash_raised"


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _ids(w: dict[str, Any]) -> str:
    return f"{w['split']}-{w['instance']}"


def _module() -> Any:
    import sys

    from vibelife_env.families.loader import load_family

    return sys.modules[type(load_family(gym.registry[ENV].kwargs["family_dir"])).__module__]


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"
    g = {e.id: e for e in guided.events}
    p = {e.id: e for e in paper.events}
    # what the paper level changes: the statement is seen in the app, later sessions move nothing
    # silently, two review days bring a fund's notice
    gone = set(g) - set(p)
    assert gone and all(i == "statement_lands" or (i.startswith("market_") and i.endswith("_moves")) for i in gone)
    assert "market_0_moves" in p
    added = set(p) - set(g)
    assert added and all(i == "statement_ready" or i.endswith("_fund_notice") for i in added), added
    for i in set(g) & set(p):
        if i == "statement":  # a mail's notification at guided, the app's page at paper
            assert (g[i].kind, p[i].kind) == ("notification", "world")
            continue
        assert (g[i].time, g[i].kind) == (p[i].time, p[i].kind), i
        if not i.startswith("market_"):
            assert g[i].body == p[i].body, i
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == [LATENT]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
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
    assert guided.meta.max_tool_calls_per_turn == 40


def test_the_paper_month_leans_to_what_the_person_sees():
    """Over test 0-3 and four train seeds the paper level's events approach the paper's mix
    (user 0.30, notification 0.26, world 0.24, mutation 0.20); the guided level's stay as they were."""

    def shares(level: str) -> dict[str, float]:
        kinds: Counter[str] = Counter()
        for where in TEST + TRAIN:
            kinds.update(KIND_GROUPS[e.kind] for e in _task(level, **where).events)
        n = sum(kinds.values())
        return {k: v / n for k, v in kinds.items()}

    paper, guided = shares("paper"), shares("guided")
    assert paper["world"] >= 0.22 and paper["mutation"] <= 0.23
    assert abs(paper["user_message"] - 0.30) <= 0.04 and abs(paper["notification"] - 0.26) <= 0.04
    assert guided["world"] < paper["world"] and guided["mutation"] > paper["mutation"]


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_the_paper_workspace_has_no_backend_hints(where):
    files = _task("paper", **where).workspace_files
    assert backend_hints("\n".join(files.values())) == []
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


@pytest.mark.parametrize("where", TEST, ids=_ids)
def test_the_paper_workspace_leaves_the_domain_rules_to_the_world(where):
    task = _task("paper", **where)
    story = task.oracle[0].story
    T = _module().paper.T
    text = "\n".join(task.workspace_files.values())
    for world_only in (T.targets(story), T.band(story), T.tolerance(story), T.risk(story), T.sleeves(story)):
        assert world_only not in text, world_only
    for word in ("risk level", "points of its target", "money-market funds)", story.account, story.checking):
        assert word not in text, word
    guided = "\n".join(_task("guided", **where).workspace_files.values())
    assert f"risk level {story.max_risk}" in guided and story.account in guided  # what the guided level spells out


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_at_least_two_fifths_of_the_rules_live_in_the_world_and_the_rest_are_stated(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    world = [r for r in rules.values() if not r.stated]
    assert len(world) / len(rules) >= 0.4
    assert explicitness(task)["world_share"] >= 0.4
    for r in world:  # a mail, or the one latent fact
        assert r.source.startswith("email:<") or r.source == "latent:one_place_at_a_time", r
    assert sum(r.latent for r in world) == 1
    for r in rules.values():
        if r.stated:
            assert r.source in ("USER.md", "AGENTS.md") and r.text in task.workspace_files[r.source], r
    assert {"targets", "band", "tolerance", "sleeves", "free_cash", "risk"} <= set(rules)


def test_every_check_but_a_turns_own_request_records_its_rule():
    for where in TEST:
        task = _task("paper", **where)
        unruled = {label(c.id) for c in task.checks if not c.rules}
        assert unruled <= _module().rules.REQUEST_ONLY, unruled


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
def test_the_mailbox_is_lived_in_with_near_namesakes_of_the_real_senders(where):
    task = _task("paper", **where)
    story = task.oracle[0].story
    mails = mailbox(task)
    assert 60 <= len(mails) <= 110
    assert explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    word = story.broker.split()[0].lower()
    assert any(word in s and not s.endswith("@" + story.broker_domain) for s in senders)  # the broker's namesake
    assert len(mailbox(_task("guided", **where))) < 12


@pytest.mark.parametrize("where", TEST, ids=_ids)
def test_the_fund_list_is_a_catalogue_whose_decoys_fail_on_their_risk_level(where):
    task = _task("paper", **where)
    story = task.oracle[0].story
    db = sqlite3.connect(":memory:")
    db.deserialize(world_images(task)["brokerage"])
    funds = db.execute("SELECT fund_code, category, risk_level FROM funds").fetchall()
    assert len(funds) >= 20 and explicitness(task)["catalogue"] == len(funds)
    for sleeve in ("index", "bond", "money_market"):
        rated = [r for _, c, r in funds if c == sleeve]
        assert any(r <= story.max_risk for r in rated)
    assert sum(r > story.max_risk for _, _, r in funds) >= 8  # the decoys: above the person's risk level


# ---------------------------------------------------------------- the oracle looks things up
@pytest.mark.parametrize("where", TEST, ids=_ids)
def test_the_oracle_reads_every_world_rule_before_the_check_decides(where):
    assert discoverability_problems(ENV, 0, {"level": "paper", **where}) == []


def test_an_oracle_that_does_not_look_things_up_fails_the_discoverability_gate(monkeypatch):
    where = {"level": "paper", "split": "test", "instance": 0}
    task = _task("paper", split="test", instance=0)
    oracle, ablations, variants = task.oracle
    blind = {k: [f for f in fns if f.__name__ != "lookups"] for k, fns in oracle.steps.items()}
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    problems = discoverability_problems(ENV, 0, where)
    failing = {label(p.split(":", 1)[0]) for p in problems}
    assert {"new_money_invested_by_rules", "f_sleeves_within_band", "x_nothing_excluded_or_too_risky_bought"} <= failing


# ---------------------------------------------------------------- the latent fact
@pytest.mark.parametrize("where", TEST + TRAIN, ids=_ids)
def test_the_diary_has_another_engagement_over_the_review_meeting(where):
    """Nobody mentions it: the calendar holds it over the hour the person asks for the meeting."""
    task = _task("paper", **where)
    story = task.oracle[0].story
    clash = story.extras["clash"]
    (check,) = [c for c in task.checks if label(c.id) == LATENT]
    (rule,) = check.rules
    assert rule.latent and rule.source == "latent:one_place_at_a_time" and rule.fact == clash["title"]
    assert clash["title"] not in "\n".join(task.workspace_files.values())
    assert clash["at"] == story.extras["meeting"]
    env = gym.make(ENV, level="paper", **where)
    try:
        env.reset(seed=0)
        events = base_env(env).world.call("calendar__list_events", {"max_results": 50})
        assert clash["title"] in str(events)
    finally:
        env.close()


def test_a_meeting_reply_that_does_not_raise_the_clash_fails_only_the_latent_check_and_says_why(monkeypatch):
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
def test_new_money_in_a_fund_above_the_risk_level_fails_its_own_checks_not_the_month():
    """The guided gate asks for allowed funds; at the paper level a kick-off that put the equity
    share into an index fund rated above the person's level still runs the month (the kick-off
    check and the cross-stage red line judge the pick)."""
    from vibelife_env.checks.context import CheckContext, EpisodeRecord
    from vibelife_env.probes import invest as I

    env = gym.make(ENV, level="paper", split="test", instance=0)
    try:
        env.reset(seed=0)
        core = base_env(env)
        world, story = core.world, core.task.oracle[0].story
        risky = next(f for f in story.funds if f.category == "index" and f.risk > story.max_risk)
        bond = story.held_fund("bonds")
        c = story.contribution
        rows = []
        for code, share in ((risky.code, story.targets["equity"]), (bond.code, story.targets["bonds"])):
            made = world.call(
                "brokerage__subscribe_fund",
                {"account_id": story.account, "fund_code": code, "amount_minor": c * share // 100},
            )
            rows.append(
                f"| {story.kickoff.date()} | Buy {code} | {made['order_id']} | {c * share / 10000:.2f} | filled |"
            )
        world.call(
            "workspace__write_file", {"path": "trades.md", "content": "| a | b | c | d | e |\n" + "\n".join(rows)}
        )
        ctx = CheckContext(world, EpisodeRecord())
        assert not I.month_run(ctx, story)  # the guided gate
        assert _module().paper.month_run(CheckContext(world, EpisodeRecord()), story)
    finally:
        env.close()
