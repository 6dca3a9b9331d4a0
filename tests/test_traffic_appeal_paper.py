"""litigation/traffic_appeal at the paper level (issue #27): the same story as the guided level,
with its domain rules in the authority's guide to appeals, the legal aid centre's answer, the
rental company's terms and agreement and the card issuer's notice, a latent fact (a weekly
appointment over the hearing's hour), a workspace without backend names, a lived-in inbox, a
rental desk with the platform's fleet, and checks gated on the work rather than an earlier pick.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/litigation/traffic_appeal --level ...``.
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

ENV = "VibeLife-litigation-traffic-appeal-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
PAPER_ONLY = {"hearing_clash_raised", "appeal_file_opened"}


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _run(where: dict[str, Any], steps: dict[str, Any] | None = None) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        oracle = base_env(env).task.oracle[0]
        policy = type("Probe", (oracle,), {"steps": {**oracle.steps, **(steps or {})}})()
        result = run_episode(env, policy, seed=0, record=False)
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
    extra = [c.id for c in paper.checks if label(c.id) in PAPER_ONLY]
    assert sorted(label(i) for i in extra) == sorted(PAPER_ONLY)
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in extra
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
    story = task.oracle[0].story
    for hint in (story.rental["booking_ref"], "pl_home", "pl_hearing", "art_", "case_", "legal_search", "car_rental"):
        assert hint not in text, hint
    for domain in (
        "现行有效",
        "陈述申辩",
        "支持",
        "once per notice",
        "incident",
        "extra charge",
        story.authority["appeals"],
    ):
        assert domain not in text, domain
    assert "goes to Spam, and you tell me" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_person_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    world = {"appeal_where", "never_pay_appealed", "authority_only", "statutes", "precedents", "ground", "refund"}
    assert {*world, "fee_once", "hearing_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    story = task.oracle[0].story
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact == story.extras["weekly"]
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {"t_few_failed_changes"}, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_scam_is_not_labelled(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    story = task.oracle[0].story
    senders = {m["from_addr"] for m in mails}
    word = story.rental["en"].split()[0].lower()
    assert any(word in x and not x.endswith("@" + story.rental["domain"]) for x in senders)  # namesakes
    assert len(mailbox(_task("guided", **where))) == 3
    landed = " ".join(str(e.apply) for e in task.events if e.id.startswith("pay_now_scam") and e.id.endswith("_lands"))
    assert "@mx.mailout.example>" in landed  # a bulk mailer's Message-ID, nothing that says scam
    for word in ("court-warning", "final-warning"):
        assert word not in landed
    guided = _task("guided", **where)
    assert "court-warning" in " ".join(str(e.apply) for e in guided.events if e.id == "pay_now_scam_lands")


@pytest.mark.parametrize("where", WHERE[:4], ids=IDS[:4])
def test_the_rental_desk_has_a_fleet_and_earlier_rentals_that_do_not_hold_the_offence(where):
    task = _task("paper", **where)
    assert explicitness(task)["catalogue"] >= 20
    story = task.oracle[0].story
    env = gym.make(ENV, level="paper", **where)
    try:
        env.reset(seed=0)
        world = base_env(env).world
        got = world.call("car_rental__list_bookings", {"user_id": story.user_key})
        rows = got.get("bookings", got) if isinstance(got, dict) else got
        refs = {r["booking_ref"] for r in rows}
        assert {story.rental["booking_ref"], *story.extras["decoy_bookings"]} == refs
        for ref in story.extras["decoy_bookings"]:
            b = world.call("car_rental__get_booking", {"booking_ref": ref})
            back = b["return_condition"]["recorded_at"]
            assert back < story.rental["picked_at"].isoformat()
    finally:
        env.close()


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
    assert {"citations_valid", "ground_from_platform", "appeal_sent", "x_appealed_notice_never_paid"} <= failing


# ---------------------------------------------------------------- gated on the work, not the pick
def test_a_wrong_citation_costs_its_own_checks_not_the_later_work():
    where = {"split": "test", "instance": 0}
    full = _run(where)

    def drop_heard(agent: Any, text: str):
        agent.memory["articles"] = [a for a in agent.memory.get("articles", []) if a != "art_xzcf_45"]
        agent.file()["statutes"] = " ".join(agent.memory["articles"])
        yield from agent.write_file()
        return []

    env = gym.make(ENV, level="paper", **where)
    try:
        oracle = base_env(env).task.oracle[0]
    finally:
        env.close()
    kickoff = [*oracle.steps["kickoff"], drop_heard]
    broken = _run(where, {"kickoff": kickoff})
    assert all(c["passed"] for c in full.values())
    assert not broken["appeal_file_opened"]["passed"] and not broken["citations_valid"]["passed"]
    for later in ("hearing_in_calendar", "walk_block_set", "outcome_filed", "x_originals_intact"):
        assert broken[later]["passed"], later


# ---------------------------------------------------------------- the latent fact
def test_the_latent_check_wants_the_hearing_clash_raised():
    where = {"split": "test", "instance": 2}
    env = gym.make(ENV, level="paper", **where)
    try:
        ack = base_env(env).task.oracle[0].steps["acknowledgement"][0]
    finally:
        env.close()

    def quiet_about_it(agent: Any, text: str):
        said = yield from ack(agent, text)
        return [s for s in said if "clashes" not in s]

    raised, silent = _run(where), _run(where, {"acknowledgement": [quiet_about_it]})
    assert raised["hearing_clash_raised"]["passed"]
    assert not silent["hearing_clash_raised"]["passed"]
    assert silent["hearing_told"]["passed"]  # the rest of the reply still counts
