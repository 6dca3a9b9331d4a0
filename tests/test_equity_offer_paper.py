"""career/equity_offer at the paper level (issue #27): the same story as the guided level, with its
domain rules in the job board's terms, the offer letters, the employer's equity plan terms, the
broker's welcome mail, Compliance's trading policy, HR's sign-on bonus agreement, the former
colleague's and the financial planner's mails; a latent fact (a fitting offer's meet-the-team
afternoon over a weekly appointment); a workspace without backend names; a lived-in inbox and a
job board whose other postings read like the offers'.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/career/equity_offer --level ...``.
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

ENV = "VibeLife-career-equity-offer-v0"
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
    assert [label(i) for i in latent] == ["team_visit_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    g, p = guided.oracle[0].story, paper.oracle[0].story
    assert [(o.job_id, o.base, o.grant, o.remote_days, o.deadline) for o in g.offers] == [
        (o.job_id, o.base, o.grant, o.remote_days, o.deadline) for o in p.offers
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
    for trigger in ("ACCEPT", "DECLINE", "get_quote", "sell-to-cover", "blackout", "pro rata", "24 months", "%"):
        assert trigger not in text
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_an_employee_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"remote_posting", "answer_format", "lapse", "account_value", "team_visit_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {"nothing_answered_yet", "t_few_failed_changes"}, unruled


def test_every_offer_letter_says_how_to_answer_it():
    task = _task("paper", split="test", instance=1)
    story = task.oracle[0].story
    by_id = {m["message_id"]: m for m in mailbox(task)}
    rules = rules_of(task)
    for o in story.offers:
        body = by_id[o.mid]["body_text"]
        assert rules["answer_format"].text in body and rules["lapse"].text in body


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_board_is_long(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any(x.endswith("@talentharbor-supplies.example") for x in senders)  # a namesake of the board
    assert len(mailbox(_task("guided", **where))) == 6
    story = task.oracle[0].story
    decoys = story.extras["decoys"]
    assert len(story.offers) + len(decoys) >= 20
    kinds = ("engineer", "lead")  # every title reads like an offer's: no title labels a posting
    assert all(o.title.endswith(kinds) for o in story.offers) and all(j.title.endswith(kinds) for j in decoys)
    for o in story.offers:  # every offering company posts another role, under another title
        (other,) = [j for j in decoys if j.company.company_id == o.company.company_id]
        assert other.title != o.title
        if o.kind == "remote_miss":  # read the wrong posting and the remote rule seems met
            assert other.remote_days >= story.remote_min


def test_the_offers_postings_are_found_through_the_applications():
    where = {"split": "test", "instance": 1}
    env = gym.make(ENV, level="paper", **where)
    try:
        env.reset(seed=0)
        core = base_env(env)
        story = core.task.oracle[0].story
        rows = core.world.call("job_board__search_jobs", {"category": "backend", "limit": 100})
        apps = core.world.call("job_board__list_applications", {"user_id": story.user_key})
    finally:
        env.close()
    assert len(rows) >= 20
    assert sorted(a["job_id"] for a in apps) == sorted(o.job_id for o in story.offers)


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
    assert {"fails_remote_named", "accepted_best", "wrap_account_value"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        steps = oracle.steps
        if not raise_it:
            steps = {**steps, "kickoff": [f for f in steps["kickoff"] if f.__name__ != "visit_step"]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_visit_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["team_visit_clash_raised"]["passed"]
    assert not silent["team_visit_clash_raised"]["passed"]
    assert silent["comparison_noted"]["passed"]  # the rest of the kick-off still counts


# ---------------------------------------------------------------- any path the tools allow
class _Trace:
    def __init__(self, calls: list[dict[str, Any]]) -> None:
        self.calls = calls

    def trace(self, stage: int) -> list[dict[str, Any]]:
        return self.calls


def test_the_postings_may_be_read_by_a_search_as_well_as_one_by_one():
    from vibelife_env.tasks.career.equity_offer import paper  # the family's own module, for its check reading

    story = _task("paper", split="test", instance=0).oracle[0].story
    quote = {"ok": True, "name": "brokerage__get_quote", "server": "brokerage", "result": {"last_minor": 1}}
    rows = [{"job_id": o.job_id, "tags": "[]"} for o in story.offers]
    search = {"ok": True, "name": "job_board__search_jobs", "server": "job_board", "result": rows}
    one = [
        {"ok": True, "name": "job_board__get_job", "server": "job_board", "result": {"job_id": o.job_id, "jd": "..."}}
        for o in story.offers
    ]
    apps = {"ok": True, "name": "job_board__list_applications", "server": "job_board", "result": rows[:1]}
    assert paper.prices_and_postings_read(_Trace([quote, search]), story, 0)
    assert paper.prices_and_postings_read(_Trace([quote, *one]), story, 0)
    assert not paper.prices_and_postings_read(_Trace([search]), story, 0)  # no price read
    apps["result"] = [{"job_id": o.job_id, "job_title": o.title} for o in story.offers]
    assert not paper.prices_and_postings_read(_Trace([quote, apps]), story, 0)  # the applications alone
