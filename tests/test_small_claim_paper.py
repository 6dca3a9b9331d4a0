"""litigation/small_claim at the paper level (issue #27): the same story as the guided level, with
its domain rules in the litigation service centre's guide, the legal aid adviser's answer, the
bank's notice and in legal search (the Civil Code's limitation period), a latent fact (an
appointment across town over the hearing's hour), a workspace without backend names, a lived-in
inbox and a review site of some twenty firms (the defendant's name at other districts' branches
among them).

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/litigation/small_claim --level ...``.
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

ENV = "VibeLife-litigation-small-claim-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {"t_few_failed_changes"}


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
    assert [label(i) for i in latent] == ["hearing_clash_raised"]
    # at paper the guided case gate's rule (right court, claim and article) is a check of its own
    gate = [c.id for c in paper.checks if label(c.id) == "court_and_claim_filed"]
    assert len(gate) == 1 and not [c for c in guided.checks if label(c.id) == "court_and_claim_filed"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent + gate
    ]
    assert not any(c.rules for c in guided.checks)


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_the_domain_rules(where):
    task = _task("paper", **where)
    files = task.workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for hint in ("pl_home", "acc_current", "art_", "case_", "legal_search", "Civil Code", "mer_"):
        assert hint not in text, hint
    for domain in ("2.5%", "现行有效", "合同纠纷", "one forward per item", "personal account", "three years"):
        assert domain not in text, domain
    assert "goes to Spam and you tell me" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_claimant_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    world = {"venue", "filing", "fee", "fee_account", "evidence", "citations", "precedents", "ids", "bank_safety"}
    assert {*world, "hearing_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    story = task.oracle[0].story
    env = gym.make(ENV, level="paper", **where)
    try:
        env.reset(seed=0)
        world_of = base_env(env).world
        for r in rules.values():
            if r.latent:
                assert r.source == "latent:one_place_at_a_time" and r.fact == story.extras["clash"]
            elif r.stated:
                assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
            elif r.source.startswith("legal_search:"):
                article = world_of.call("legal_search__get_article", {"article_id": r.source.split(":", 1)[1]})
                assert r.text in article["text"], r
            else:
                assert r.source.startswith("email:<"), r
                assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
                assert "@mx.mailout.example>" in r.source  # the Message-ID says nothing of what the mail is
    finally:
        env.close()
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_review_site_has_twenty_firms(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    story = task.oracle[0].story
    word = story.defendant["en"].split()[0].lower()
    senders = {m["from_addr"] for m in mails}
    assert any(word in x and not x.endswith("@" + story.defendant["domain"]) for x in senders)  # namesakes
    assert len(mailbox(_task("guided", **where))) < 20
    assert explicitness(task)["catalogue"] >= 20


@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_defendants_namesakes_on_the_review_site_sit_in_other_districts(where):
    task = _task("paper", **where)
    story = task.oracle[0].story
    env = gym.make(ENV, level="paper", **where)
    try:
        env.reset(seed=0)
        db = base_env(env).world.services["review_platform"]
        same = db.query(
            "SELECT merchant_id, area FROM merchants WHERE name = ?",
            (story.defendant["en"] + " " + story.defendant["zh"],),
        )
        reviewed = db.query("SELECT DISTINCT merchant_id FROM reviews")
    finally:
        env.close()
    assert len(same) == 4
    own = [m for m in same if m["area"] == story.defendant["district"]]
    assert [m["merchant_id"] for m in own] == [story.defendant["merchant_id"]]
    assert story.defendant["merchant_id"] in {r["merchant_id"] for r in reviewed}


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


def test_an_oracle_that_does_not_look_things_up_fails_the_discoverability_gate(monkeypatch):
    where = {"level": "paper", "split": "test", "instance": 0}
    task = _task("paper", split="test", instance=0)
    oracle, ablations, variants = task.oracle
    blind = {k: [f for f in fns if f.__name__ != "lookups"] for k, fns in oracle.steps.items()}
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"case_file_takes_notice", "claim_filed_with_court", "fake_fee_quarantined"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        accept = oracle.steps["acceptance_notice"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from accept(agent, text)
            return [s for s in said if "clashes" not in s]

        steps = oracle.steps if raise_it else {**oracle.steps, "acceptance_notice": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_hearing_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["hearing_clash_raised"]["passed"]
    assert not silent["hearing_clash_raised"]["passed"]
    assert silent["acceptance_told"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- the case gate judges the work, not the pick
def _wrong_court_run(level: str) -> tuple[float, set[str]]:
    """The oracle, except that its case file names the other district's court."""
    env = gym.make(ENV, level=level, split="test", instance=0)
    try:
        oracle = base_env(env).task.oracle[0]
        other = oracle.story.other_court

        def write_case(agent: Any):
            agent.case()["court"] = other["en"]
            yield from oracle.write_case(agent)

        result = run_episode(env, type("WrongCourt", (oracle,), {"write_case": write_case})(), seed=0, record=False)
    finally:
        env.close()
    return result.score, {label(c["id"]) for c in result.checks if not c["passed"]}


def test_a_wrong_court_costs_its_own_check_at_paper_not_the_later_work():
    score, failed = _wrong_court_run("paper")
    assert "court_and_claim_filed" in failed
    # the hearing, evidence and fee work done right keeps its credit (the guided gate voids it)
    assert not failed & {"hearing_in_calendar", "evidence_submitted", "f_hearing_in_calendar", "evidence_listed"}
    guided_score, guided_failed = _wrong_court_run("guided")
    assert {"hearing_in_calendar", "evidence_listed"} <= guided_failed
    assert score > guided_score + 20
