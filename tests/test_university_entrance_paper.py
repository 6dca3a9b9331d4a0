"""exam_preparation/university_entrance at the paper level (issue #27): the same story as the guided
level, with its domain rules in the test centre's, the admissions office's and the airline app's own
mails and in the visa product, a latent fact (a compulsory identity check in the test city over a
weekly appointment at home), a workspace without backend names, a lived-in inbox and a flight
catalogue whose decoys fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/exam_preparation/university_entrance --level ...``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.probes import admissions as ad
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-exam-preparation-university-entrance-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {"go_ahead_reported", "flight_told", "total_answered", "advisories_followed", "advisory_level_told"}


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"
    assert [(e.id, e.time, e.kind) for e in guided.events] == [(e.id, e.time, e.kind) for e in paper.events]
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["id_check_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert not any(c.rules for c in guided.checks)  # the guided level records no rules


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_the_domain_rules(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for domain in ("notarised translation", "two days before", "45 minutes", "registration window", "proof-of-funds"):
        assert domain not in files["USER.md"] and domain not in files["AGENTS.md"], domain
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_an_applicant_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    stats = explicitness(task)
    assert stats["world_share"] >= 0.4 and stats["rules_latent"] == 1
    assert {"register_how", "deadline", "documents", "test_fee", "app_fee", "interview_how", "funds"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    visa = task.seed_sql["visa_and_advisory"][0]
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.text in task.workspace_files[r.source], r
        elif r.source.startswith("visa_and_advisory:"):
            assert r.text in visa, r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_flights_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    assert any("skyway" in m["from_addr"] and m["from_addr"] != "service@skyway-app.example" for m in mails)
    assert len(mailbox(_task("guided", **where))) == 2
    story = task.oracle[0].story
    guided = _task("guided", **where).oracle[0].story
    assert len(story.flights) >= 20 and len(story.flights) == len(guided.flights) + 18
    assert explicitness(task)["catalogue"] >= 20


def _valid(s: ad.AdmissionStory) -> set[str]:
    eve = s.exam_day - timedelta(days=1)
    room = min(s.fare_cap, s.budget - s.fees)
    return {f.flight_no for f in s.flights if f.depart.date() == eve and f.price <= room}


@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_decoy_flights_fail_on_the_search_and_the_valid_set_is_the_guided_one(where):
    guided, paper = _task("guided", **where).oracle[0].story, _task("paper", **where).oracle[0].story
    assert _valid(guided) == _valid(paper) and len(_valid(paper)) >= 2


@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_scam_mail_does_not_name_itself_in_its_message_id(where):
    task = _task("paper", **where)
    (lands,) = [e for e in task.events if e.id == "scam_lands"]
    sql = " ".join(op.sql for op in lands.apply)
    assert "<guarantee@offer-consulting.example>" not in sql and "@mx.mailout.example>" in sql
    (guided,) = [e for e in _task("guided", **where).events if e.id == "scam_lands"]
    assert "<guarantee@offer-consulting.example>" in " ".join(op.sql for op in guided.apply)


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
    assert {"valid_session_proposed", "documents_proposed", "test_registered", "x_each_fee_once"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        confirm = oracle.steps["confirm_seen"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from confirm(agent, text)
            return [s for s in said if "identity check" not in s]

        steps = oracle.steps if raise_it else {**oracle.steps, "confirm_seen": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_id_check_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["id_check_clash_raised"]["passed"]
    assert not silent["id_check_clash_raised"]["passed"]
    assert silent["test_in_calendar"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- a miss costs its own checks only
def _unpaid_application(level: str) -> dict[str, Any]:
    """The oracle, except that the go-ahead sends the application and never pays its fee."""
    env = gym.make(ENV, level=level, split="test", instance=1)
    try:
        oracle = base_env(env).task.oracle[0]
        go = oracle.steps["go_ahead"][0]

        def go_unpaid(agent: Any, text: str):
            gen = go(agent, text)
            out, sent = None, None
            while True:
                try:
                    call = gen.send(sent)
                except StopIteration as stop:
                    out = stop.value
                    break
                if "banking__pay_payee" in str(call) and "pay_admissions" in str(call):
                    sent = {}
                    continue
                sent = yield call
            return out

        steps = {**oracle.steps, "go_ahead": [go_unpaid]}
        result = run_episode(env, type("Unpaid", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks} | {"score": result.score}


def test_an_unpaid_application_costs_its_own_checks_at_paper_and_everything_at_guided():
    paper, guided = _unpaid_application("paper"), _unpaid_application("guided")
    assert not paper["application_sent"]["passed"] and not guided["application_sent"]["passed"]
    for later in ("valid_slot_booked", "flight_valid", "test_in_calendar"):
        assert paper[later]["passed"], later
        assert not guided[later]["passed"], later
    assert paper["score"] > 75 > guided["score"]
