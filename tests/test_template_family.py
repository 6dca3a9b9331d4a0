"""The authoring template (tasks/_template): a complete family on StoryFamily whose checks are kinds.

It must pass every reward gate, state every rule its checks enforce, stay out of the shipped
suite, and be reachable through ``vibelife validate --family tasks/_template``.
"""

from __future__ import annotations

from dataclasses import replace
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


@pytest.mark.parametrize("split,index", [("test", 0), ("test", 1), ("test", 2), ("test", 3), ("train", 7)])
def test_every_gate_passes(env_id: str, split: str, index: int) -> None:
    result = validate_env(env_id, env_kwargs={"split": split, "instance": index})
    assert result.ok, result.problems
    assert result.scores["oracle"] == 100.0


def test_every_rule_a_check_enforces_is_stated_where_it_lives() -> None:
    family = load_family(TEMPLATE)
    for index in range(4):
        task = family.instance("test", index)
        prompt = default_system_prompt(task)
        ruled = [c for c in task.suite if c.rule is not None]
        assert len(ruled) == len(task.suite), "every template check is made from a kind with its rule"
        for check in ruled:
            assert check.rule.stated_in(task.workspace_files, prompt), (check.id, check.rule)
        assert any(c.rule.source == PROMPT for c in ruled)  # the quiet rule, stated by the system prompt


def test_an_instance_that_does_not_state_a_rule_is_refused(tmp_path: Path) -> None:
    family = load_family(TEMPLATE)
    cls = type(family)

    class Forgetful(cls):  # type: ignore[misc, valid-type]
        def workspace(self, s, rules):  # type: ignore[no-untyped-def]
            files = super().workspace(s, rules)
            files["AGENTS.md"] = files["AGENTS.md"].replace("only after I say go ahead", "whenever")
            return files

    with pytest.raises(TaskLoadError, match="rule 'pay' is not stated"):
        Forgetful(TEMPLATE).instance("test", 0)


def test_failed_checks_say_why_in_the_kinds_words(env_id: str) -> None:
    env = gym.make(env_id, instance=1)
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
    assert (made.id, made.rule, checks.rules) == ("s03_q", a, {"k": a})
    with pytest.raises(ValueError, match="another text"):
        Quiet(stage=4, weight=1, label="q2", rule=replace(a, text="Other.")).add(checks)
