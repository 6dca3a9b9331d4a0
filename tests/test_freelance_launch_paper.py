"""career/freelance_launch at the paper level (issue #27): the same first month as the guided level,
with its domain rules in the job board's terms mail, the bank's welcome mail, the freelancers'
co-op guide and the NDA client's own mail; a latent fact (a fitting gig's video call at the hour
of the user's swim); a workspace without backend names; a lived-in inbox and a board whose other
gigs each break a rule only their full description shows.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/career/freelance_launch --level ...``.
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

ENV = "VibeLife-career-freelance-launch-v0"
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
    assert [(e.id, e.time, e.kind, e.body) for e in guided.events] == [
        (e.id, e.time, e.kind, e.body) for e in paper.events
    ]
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["gig_call_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    g, p = guided.oracle[0].story, paper.oracle[0].story
    assert [(x.job_id, x.rate_lo, x.remote, x.test_hours, x.fee) for x in g.gigs] == [
        (x.job_id, x.rate_lo, x.remote, x.test_hours, x.fee) for x in p.gigs
    ]


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_trigger_lists(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for trigger in ("fen", "non-compete", "30 days", "time zone", "registration fee", "counterparty", "NDA:"):
        assert trigger not in text
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_freelancer_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"listing_terms", "rate_low", "no_fee", "counterparty", "gig_call_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact == "Swimming"
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert all(u.startswith("errand_") or u == "t_few_failed_changes" for u in unruled), unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_board_is_long(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    assert explicitness(task)["catalogue"] >= 20
    story = task.oracle[0].story
    decoys = story.extras["decoys"]
    assert len(decoys) >= 14 and not any(story.fits(g) for g in decoys)
    assert {g.kind for g in decoys} == {"paper_low_rate", "paper_onsite", "paper_long_test", "paper_fee"}
    assert all(not m["message_id"].startswith(("<terms", "<nda", "<guide")) for m in mails)


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
    assert discoverability_problems(ENV, 0, where)


# ---------------------------------------------------------------- the latent fact
def _run(where: dict[str, Any], drop: str = "", add: Any = None) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        kick = [f for f in oracle.steps["kickoff"] if f.__name__ != drop] + ([add] if add else [])
        steps = {**oracle.steps, "kickoff": kick}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_call_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _run(where), _run(where, drop="call_step")
    assert raised["gig_call_clash_raised"]["passed"]
    assert not silent["gig_call_clash_raised"]["passed"]
    assert silent["tracker_started"]["passed"]  # the rest of the kick-off still counts


# ---------------------------------------------------------------- the work, not an earlier pick
def _misstep(agent: Any, event_text: str) -> Any:
    """Also apply to the gig whose day rate starts under the minimum."""
    g = agent.story.of_kind("low_rate")[0]
    yield from agent.apply_gig({"job_id": g.job_id, "company_name": g.company.name_zh, "title": g.title_zh})
    return []


def test_one_misjudged_gig_costs_its_own_checks_not_the_later_work():
    where = {"split": "test", "instance": 1}
    checks = _run(where, add=_misstep)
    assert not checks["near_miss_low_rate_named"]["passed"]
    assert not checks["f_no_misfit_applications"]["passed"]
    later = [k for k in checks if k.startswith(("wrap_", "x_private", "payment_recorded", "answered_"))]
    assert later and all(checks[k]["passed"] for k in later), [k for k in later if not checks[k]["passed"]]
    assert all(checks[f"applied_fit_{n}"]["passed"] for n in (1, 2, 3))


def test_the_scam_mails_carry_no_verdict_in_their_message_ids():
    task = _task("paper", split="test", instance=2)
    lands = [e for e in task.events if e.id in ("refund_scam_lands", "fake_cheque_lands")]
    assert len(lands) == 2
    for e in lands:
        seen = str(e.__dict__)
        assert "@mx.mailout.example>" in seen and "<refund_scam" not in seen and "<fake_cheque" not in seen
    guided = [e for e in _task("guided", split="test", instance=2).events if e.id == "refund_scam_lands"]
    assert "<refund_scam-" in str(guided[0].__dict__)  # the guided level keeps its ids
