"""The classic-RL example (tabular control over a macro tool menu) beats doing nothing."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "classic_rl_tool_menu.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("classic_rl_tool_menu", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_short_training_beats_the_null_agent(example):
    baseline = example.null_score()
    scores, q = example.q_learning(episodes=80, seed=0)
    greedy, plan = example.greedy_plan(q)
    assert baseline == 0.0
    assert greedy > baseline and max(scores) > baseline
    assert sum(scores[-20:]) / 20 > baseline
    assert all(name in example.MACROS for _, name in plan)


def test_menu_validates_actions_and_main_writes_curve(example, tmp_path):
    import gymnasium as gym

    env = example.MacroMenu(gym.make(example.ENV_ID), example.MACROS)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="MacroMenu action"):
        env.step(len(example.MACROS))
    assert example.main(["--episodes", "10", "--out", str(tmp_path)]) == 0
    curve = json.loads((tmp_path / "learning_curve.json").read_text())
    assert len(curve["scores"]) == len(curve["moving_average"]) == 10
    assert (tmp_path / "learning_curve.csv").read_text().startswith("episode,score,moving_average,null_score")
