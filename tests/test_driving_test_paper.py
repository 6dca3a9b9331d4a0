"""exam_preparation/driving_test at the paper level: the same story as the guided level, with its
domain rules in the test office's, the delivery firm's, the instructor's, the car desk's, the eye
clinic's and the card issuer's own mails, a latent fact (a compulsory briefing over a weekly
appointment at home), a workspace without backend names, a lived-in inbox and a car catalogue
whose decoys fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/exam_preparation/driving_test --level ...``.
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
from vibelife_env.probes import certs as ce
from vibelife_env.probes import exams as ex
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-exam-preparation-driving-test-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {
    "registration_reported",
    "mock_dates_told",
    "car_told",
    "spent_answered",
    "final_cost",
    "results_day_in_calendar",
    "results_day_told",
    "chase_told",
    "t_few_failed_changes",
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
    assert [label(i) for i in latent] == ["briefing_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert not any(c.rules for c in guided.checks)  # the guided level records no rules


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        task = base_env(env).task
        assert task.meta.name.endswith("-paper")
        assert task.meta.max_tool_calls_per_turn == 80 and task.meta.max_tool_calls_per_episode == 2000
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_the_domain_rules(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for domain in ("oa_board", "notification hub", "car_rental", "minutes before check-in", "hours after check-in"):
        assert domain not in text
    assert "three different days" not in text and "last two days" not in text  # the instructor's rule
    assert "on the strength of a mail alone" in files["AGENTS.md"] or "只凭一封邮件" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_learner_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    stats = explicitness(task)
    assert stats["world_share"] >= 0.4 and stats["rules_latent"] == 1 and stats["backend_hints"] == 0
    assert {"register_how", "photo_spec", "one_session", "doors", "results_by", "mocks", "car_class"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.text in task.workspace_files[r.source], r
        elif r.key == "retake":  # the retake mail comes with its probe
            assert r.source == "email:<retake@test-office.example>"
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_cars_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    story = task.oracle[0].story
    school = story.extras["school"].split()[0].lower()
    assert any(school in x and x != story.extras["school_addr"] for x in senders)  # the school's namesake
    assert len(mailbox(_task("guided", **where))) == 2
    guided = _task("guided", **where).oracle[0].story
    assert len(story.trains) >= 20 and len(story.trains) == len(guided.trains) + 15
    assert sum(1 for t in story.trains if t.seats > 0) <= 20  # every car with one left is on the first page


def _valid(s: ex.ExamStory) -> set[str]:
    checkin = s.at(s.exam_day, s.sessions[0].checkin.hour, s.sessions[0].checkin.minute)

    def row(t: ex.Train) -> dict[str, Any]:
        return {
            "pickup_at": t.depart.isoformat(),
            "return_at": s.extras["returns"][t.offer_id].isoformat(),
            "daily_price": t.fare,
            "vclass": t.seat_class,
        }

    return {t.offer_id for t in s.trains if t.seats > 0 and ce.car_ok(s, row(t), checkin)}


@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_decoy_cars_fail_on_the_offer_and_the_valid_set_is_the_guided_one(where):
    guided, paper = _task("guided", **where).oracle[0].story, _task("paper", **where).oracle[0].story
    assert _valid(guided) == _valid(paper) and len(_valid(paper)) >= 2
    checkins = {paper.at(x.day, x.checkin.hour, x.checkin.minute) for x in paper.sessions}
    checkins |= {c - timedelta(minutes=paper.move_minutes) for c in checkins}
    assert not any(t.depart in checkins for t in paper.trains)


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
    assert {"valid_session_nothing_paid", "three_valid_mocks", "valid_car_booked", "x_one_registration"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        assert task.oracle is not None
        oracle: Any = task.oracle[0]
        confirm = oracle.steps["reg_confirm"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from confirm(agent, text)
            return [s for s in said if "briefing" not in s]

        steps = oracle.steps if raise_it else {**oracle.steps, "reg_confirm": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_briefing_clash_raised():
    where = {"split": "test", "instance": 1}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["briefing_clash_raised"]["passed"]
    assert not silent["briefing_clash_raised"]["passed"]
    assert silent["test_in_calendar"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- the gate judges the work, not the pick
def _unpaid_run(level: str) -> tuple[float, set[str]]:
    """The oracle, except that it never pays the board's fee (its transfers become a balance look-up)."""
    env = gym.make(ENV, level=level, split="test", instance=0)
    try:
        oracle = base_env(env).task.oracle[0]

        def call(name: str, /, **arguments: Any) -> dict[str, Any]:
            if name == "banking__pay_payee":
                return oracle.call("banking__get_balance", account_id=arguments["account_id"])
            return oracle.call(name, **arguments)

        result = run_episode(env, type("Unpaid", (oracle,), {"call": staticmethod(call)})(), seed=0, record=False)
    finally:
        env.close()
    return result.score, {label(c["id"]) for c in result.checks if not c["passed"]}


def test_an_unpaid_fee_costs_the_fee_checks_at_paper_not_the_later_work():
    score, failed = _unpaid_run("paper")
    # what fails is what the fee decides: the fee paid once, and the totals that include it
    assert failed == {"fee_paid_once", "x_one_registration", "spent_answered", "final_cost"}, failed
    guided_score, guided_failed = _unpaid_run("guided")
    assert len(guided_failed) > len(failed) + 10
    assert score > guided_score + 25
