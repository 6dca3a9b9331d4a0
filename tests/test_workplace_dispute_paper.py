"""career/workplace_dispute at the paper level (issue #27): the same dispute as the guided level,
with its rules in the rep's advice mail, payroll's notice, HR's grievance procedure and the job
board's welcome mail, a latent fact (a weekly appointment over the grievance meeting), a workspace
without backend names, a lived-in inbox, decoy postings that fail on looked-up facts, a fake
payroll mail that does not name itself, and checks gated on the work begun rather than on its
first figures being right.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/career/workplace_dispute --level ...``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.probes import workplace as W
from vibelife_env.release.world import world_images
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-career-workplace-dispute-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {"errand_reminder_done", "errand_rep_update_done", "rep_briefed", "t_few_failed_changes"}


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _jobs(task: Any) -> list[dict[str, Any]]:
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(world_images(task)["job_board"])
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM jobs")]
    finally:
        db.close()


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
    assert [label(i) for i in latent] == ["meeting_clash_raised"]
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
def test_the_paper_workspace_has_no_backend_hints_nor_trigger_lists(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for trigger in ("Spam", "reimbursement", "repealed", "delete", "PIN", "Article"):
        assert trigger not in text, trigger
    assert "go in no mail" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_an_employee_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"scam", "reimburse", "evidence", "only_us", "colleague", "fit_law", "letter", "meeting_clash"} <= set(rules)
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
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_board_is_long(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    story = task.oracle[0].story
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    word = story.employer[0].split()[0].lower()
    assert any(m["from_addr"].endswith(f"@{word}-supplies.example") for m in mails)  # a namesake of the employer
    assert len(mailbox(_task("guided", **where))) < 10
    assert explicitness(task)["catalogue"] >= 20


@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_no_posting_at_reset_fits_and_each_decoy_fails_on_a_fact_its_posting_shows(where):
    task = _task("paper", **where)
    s = task.oracle[0].story
    guided = {j["job_id"] for j in _jobs(_task("guided", **where))}
    decoys = [j for j in _jobs(task) if j["job_id"] not in guided]
    assert len(decoys) >= 18
    fails = set()
    for j in decoys:
        why = {
            "city": j["city"] != s.city[0],
            "field": j["category"] != s.category[0],
            "low": j["salary_max_minor"] < s.min_salary,
            "closed": j["status"] != "open",
        }
        assert sum(why.values()) == 1, j
        fails |= {k for k, v in why.items() if v}
        if j["category"] == s.category[0]:  # no title labels a decoy: a wrong field is titled as that field
            assert s.category[1] in j["title"]
        else:
            assert s.category[1] not in j["title"]
    assert fails == {"city", "field", "low", "closed"}


def test_the_fake_payroll_mail_does_not_name_itself_in_its_message_id():
    task = _task("paper", split="test", instance=0)
    sql = " ".join(str(getattr(a, "sql", "") or "") for e in task.events for a in (e.apply or []))
    assert "mx.mailout.example" in sql and "<verify@" not in sql
    guided = _task("guided", split="test", instance=0)
    assert "<verify@" in " ".join(str(getattr(a, "sql", "") or "") for e in guided.events for a in (e.apply or []))


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
    assert {"x_evidence_intact", "x_mail_only_to_hr_and_rep", "first_pay_reconciled"} <= failing


# ---------------------------------------------------------------- the latent fact
def _run(where: dict[str, Any], drop: str = "") -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        oracle = base_env(env).task.oracle[0]
        steps = {k: [f for f in fns if f.__name__ != drop] for k, fns in oracle.steps.items()}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_meeting_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _run(where), _run(where, "clash_step")
    assert raised["meeting_clash_raised"]["passed"]
    assert not silent["meeting_clash_raised"]["passed"]
    assert silent["shortfall_told"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- a gate on the work
def test_a_wrong_first_figure_loses_the_reconciliation_and_not_the_work_after_it(monkeypatch):
    def off_by_one(self: W.WorkAgent) -> Any:  # every claim sheet the oracle writes has the first due 1 CNY high
        rows = [
            f"| {p.day.isoformat()} | {(p.due + (100 if p.index == 0 else 0)) / 100:.2f} | {p.paid / 100:.2f} | "
            f"{(p.shortfall + (100 if p.index == 0 else 0)) / 100:.2f} |"
            for p in self.known()
        ]
        body = (
            "| Pay date | Due | Paid | Short |\n|---|---|---|---|\n" + "\n".join(rows) + "\n\nTotal shortfall: 0 CNY\n"
        )
        yield self.call("workspace__write_file", path="claim.md", content=body)

    monkeypatch.setattr(W.WorkAgent, "write_claim", off_by_one)
    where = {"split": "test", "instance": 0}
    seen = {}
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            result = run_episode(env, load_oracle(base_env(env).task), seed=0, record=False)
        finally:
            env.close()
        seen[level] = {label(c["id"]): c["passed"] for c in result.checks}
    guided, paper = seen["guided"], seen["paper"]
    assert not paper["first_pay_reconciled"] and not paper["f_claim_sheet_final"]
    for later in ("evidence_log_started", "originals_untouched", "x_evidence_intact", "payroll_phish_quarantined"):
        assert paper[later] and not guided[later], later


def test_the_headhunters_posting_of_another_field_is_titled_as_that_field():
    where = {"split": "test", "instance": 1}
    env = gym.make(ENV, level="paper", **where)
    try:
        result = run_episode(env, load_oracle(base_env(env).task), seed=0, record=False)
        story = base_env(env).task.oracle[0].story
        rows = base_env(env).world.call("job_board__get_job", {"job_id": "job_hh_5"})
    finally:
        env.close()
    assert result.score == pytest.approx(100.0)
    assert rows["category"] != story.category[0] and story.category[1] not in rows["title"]
