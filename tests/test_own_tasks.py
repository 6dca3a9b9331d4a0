"""Every own task under tasks/: loads, passes the reward gates (``vibelife validate``), reports stats.

New bundles are picked up automatically.
"""

from __future__ import annotations

import pytest

from vibelife_env.cli import main as cli_main
from vibelife_env.commands.validate import own_task_ids
from vibelife_env.validation import validate_env

OWN = own_task_ids()


def test_own_tasks_are_registered():
    assert "VibeLife-demo-errands-v0" in OWN


@pytest.mark.parametrize("env_id", OWN)
def test_every_reward_gate_passes(env_id):
    v = validate_env(env_id)
    assert v.ok, v.problems
    assert v.scores["oracle"] == 100.0
    roles = {r.role for r in v.runs}
    assert roles == {"oracle", "variant", "adversary", "ablation"}


def test_a_gate_fails_when_an_adversary_is_paid(monkeypatch):
    """The gate is real: with the adversary bound below zero, even the null agent fails it."""
    from vibelife_env import validation

    monkeypatch.setattr(validation, "ADVERSARY_MAX", -1.0)
    v = validate_env("VibeLife-demo-errands-v0", only={"null"})
    assert not v.ok and any("null (adversary)" in p for p in v.problems)


def test_validate_cli_exit_codes(capsys):
    assert cli_main(["validate", "VibeLife-demo-errands-v0"]) == 0
    assert "ok" in capsys.readouterr().out
    assert cli_main(["validate", "VibeLife-demo-nope-v0"]) == 2
    assert "unknown env id" in capsys.readouterr().err


def test_stats_json(capsys):
    assert cli_main(["stats", "VibeLife-demo-errands-v0", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"stages": 3' in out and '"user_messages": 2' in out and '"mutation_share": 0.333' in out
