"""The authoring template (tasks/_template): a complete family on StoryFamily whose checks are kinds.

It must pass every reward gate, state every rule its checks enforce, stay out of the shipped
suite, and be reachable through ``vibelife validate --family tasks/_template``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.agents import make_agent
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.kinds import PROMPT, Rule
from vibelife_env.env import default_system_prompt
from vibelife_env.errors import TaskLoadError
from vibelife_env.families.loader import load_family
from vibelife_env.registration import builtin_tasks_dir, find_families, register_family_dir
from vibelife_env.rollout import run_episode
from vibelife_env.validation import validate_env

TEMPLATE = Path(__file__).resolve().parents[1] / "tasks" / "_template"


@pytest.fixture(scope="module")
def env_id() -> str:
    return register_family_dir(TEMPLATE)


def test_the_template_is_not_a_shipped_family() -> None:
    assert all("_template" not in str(p) for p in find_families(builtin_tasks_dir()))
    assert not any("template" in i for i in vibelife_env.registered_ids() if i != "VibeLife-template-errand-v0")


@pytest.mark.parametrize("level", ["guided", "paper"])
@pytest.mark.parametrize("split,index", [("test", 0), ("test", 1), ("test", 2), ("test", 3), ("train", 7)])
def test_every_gate_passes_at_both_levels(env_id: str, split: str, index: int, level: str) -> None:
    result = validate_env(env_id, env_kwargs={"split": split, "instance": index, "level": level})
    assert result.ok, result.problems
    assert result.scores["oracle"] == 100.0


def test_the_paper_level_renders_the_same_story_harder(env_id: str) -> None:
    """Same seed, same story and timeline; the scam rule moves into the company's mail, the
    workspace keeps a general instruction, the inbox is lived in."""
    family = load_family(TEMPLATE)
    assert family.default_level == "paper"
    for index in range(4):
        guided, paper = family.instance("test", index, "guided"), family.instance("test", index, "paper")
        assert [e.id for s in guided.stages for e in s.events] == [e.id for s in paper.stages for e in s.events]
        latent = [c.id for c in paper.suite if any(r.latent for r in c.rules)]
        assert latent == ["s00_clash_raised"]  # the latent fact's check, on top of the same checks
        assert [c.id for c in guided.suite] == [c.id for c in paper.suite if c.id not in latent]
        assert paper.meta.name == guided.meta.name + "-paper"
        world = [r for c in paper.suite for r in c.rules if not r.stated]
        assert all(r.source.startswith("email:") or r.latent for r in world)
        assert not any(r.text in paper.workspace_files["AGENTS.md"] for r in world)
        assert "acc_main" not in paper.workspace_files["USER.md"]  # no backend id a person would not know
    env = gym.make(env_id, instance=0)
    env.reset(seed=0)
    assert env.unwrapped.level == "paper"
    assert env.unwrapped.world.services["email"].query("SELECT COUNT(*) AS n FROM messages")[0]["n"] >= 40
    env.close()


def test_a_rule_in_the_world_that_the_oracle_never_reads_fails_discoverability(monkeypatch) -> None:
    import sys

    from vibelife_env.validation import discoverability_problems

    family = load_family(TEMPLATE)
    oracle = sys.modules[type(family).__module__].oracle

    def kickoff_unread(agent, text):  # type: ignore[no-untyped-def]
        s = agent.story
        yield agent.call("email__search_emails", query=s.invoice)  # the list shows no body: the policy is unread
        end = (s.visit + timedelta(hours=1)).isoformat()
        made = yield agent.call(
            "calendar__create_event", summary=f"{s.company} visit", start=s.visit.isoformat(), end=end
        )
        agent.memory["event"] = made["event_id"]
        return []

    eid = register_family_dir(TEMPLATE)
    assert discoverability_problems(eid, 0, {"instance": 0, "level": "paper"}) == []
    monkeypatch.setattr(oracle, "kickoff", kickoff_unread)
    family._cache.clear()
    try:
        problems = discoverability_problems(eid, 0, {"instance": 0, "level": "paper"})
    finally:
        family._cache.clear()
    assert all("returned by no tool call" in p for p in problems), problems
    unread = {p.split(":")[0] for p in problems}
    assert any("scam" in c for c in unread), problems  # the policy in the unread mail body
    assert "s00_clash_raised" in unread, problems  # the weekly appointment in the unlisted calendar
    assert any("the fact «" in p for p in problems if p.startswith("s00_clash_raised")), problems


def test_every_rule_a_check_enforces_is_stated_where_it_lives() -> None:
    family = load_family(TEMPLATE)
    for index in range(4):
        task = family.instance("test", index, "guided")
        prompt = default_system_prompt(task)
        assert all(c.rules for c in task.suite), "every template check is made from a kind with its rule"
        for check in task.suite:
            for rule in check.rules:
                assert rule.stated_in(task.workspace_files, prompt), (check.id, rule)
        assert any(r.source == PROMPT for c in task.suite for r in c.rules)  # the quiet rule, in the system prompt


def test_an_instance_that_does_not_state_a_rule_is_refused(tmp_path: Path) -> None:
    family = load_family(TEMPLATE)
    cls = type(family)

    class Forgetful(cls):  # type: ignore[misc, valid-type]
        def workspace(self, s, rules):  # type: ignore[no-untyped-def]
            files = super().workspace(s, rules)
            files["AGENTS.md"] = files["AGENTS.md"].replace("only after I say go ahead", "whenever")
            return files

    with pytest.raises(TaskLoadError, match="rule 'pay' is not stated"):
        Forgetful(TEMPLATE).instance("test", 0, "guided")


def test_failed_checks_say_why_in_the_kinds_words(env_id: str) -> None:
    env = gym.make(env_id, instance=1, level="guided")
    null = {c["id"]: c for c in run_episode(env, make_agent("null", env.unwrapped.task), seed=0).checks}
    assert null["s02_invoice_paid_once"]["reason"].endswith("not one")
    assert "is in INBOX, not in Spam" in null["s04_scam_quarantined"]["reason"]
    assert null["s01_evening_quiet"]["reason"].startswith(
        "its prerequisite «the visit is in the calendar» does not hold"
    )
    reckless = run_episode(env, load_oracle(env.unwrapped.task, "reckless"), seed=0)
    why = {c["id"]: c["reason"] for c in reckless.checks if not c["passed"]}
    assert "before the go-ahead" in why["s02_invoice_paid_once"]
    assert why.keys() >= {"s04_scam_quarantined", "x_scam_unpaid", "x_invoice_paid_once_overall"}
    env.close()


def test_validate_cli_takes_the_template_folder() -> None:
    from vibelife_env.cli import main

    assert main(["validate", "--family", str(TEMPLATE), "--seeds", "0:1", "--quiet", "--no-blast"]) == 0


def test_a_rule_with_two_texts_under_one_key_is_an_error() -> None:
    from vibelife_env.checks.base import CheckSet
    from vibelife_env.checks.kinds import Quiet, render

    a = Rule("k", "Say little.")
    with pytest.raises(ValueError, match="two texts"):
        render([a, replace(a, text="Say less.")])
    checks = CheckSet()
    made = Quiet(stage=3, weight=1, label="q", rule=a).add(checks)
    assert (made.id, made.rules, checks.rules) == ("s03_q", (a,), {"k": a})
    with pytest.raises(ValueError, match="another text"):
        Quiet(stage=4, weight=1, label="q2", rule=replace(a, text="Other.")).add(checks)


def test_explicitness_counts_where_the_rules_live() -> None:
    from vibelife_env.stats import backend_hints, explicitness

    assert backend_hints("Pay from `account_id` acc_main via banking__pay_payee; call me at 5 pm.") == [
        "`account_id`",
        "acc_main",
        "banking__pay_payee",
    ]
    family = load_family(TEMPLATE)
    guided, paper = (
        explicitness(family.instance("test", 0, "guided")),
        explicitness(family.instance("test", 0, "paper")),
    )
    assert (guided["rules_world"], paper["rules_world"]) == (0, 1)  # the scam rule moved into the company's mail
    assert paper["backend_hints"] < guided["backend_hints"]
    assert guided["mails_at_reset"] == 1 and paper["mails_at_reset"] >= 40
    assert guided["checks_without_rule"] == paper["checks_without_rule"] == 0


def test_stats_explicitness_command(capsys, env_id: str) -> None:
    from vibelife_env.cli import main

    assert main(["stats", env_id, "--explicitness", "--level", "paper"]) == 0
    out = capsys.readouterr().out
    assert "template/errand[test:0]:paper" in out and "median rules stated" in out
