"""``vibelife_env.multiagent`` works like a PettingZoo environment module, by env id or by path."""

from __future__ import annotations

import pytest
from pettingzoo.test import api_test, parallel_api_test

from vibelife_env import multiagent
from vibelife_env.registration import builtin_tasks_dir

FAMILY_ID = "VibeLife-family-grandma-birthday-v0"
FAMILY_DIR = builtin_tasks_dir() / "family" / "grandma_birthday"


@pytest.mark.parametrize("task", [FAMILY_ID, FAMILY_DIR, str(FAMILY_DIR)], ids=["id", "path", "str-path"])
def test_parallel_env_by_id_or_path_passes_the_parallel_api_test(task):
    env = multiagent.parallel_env(task)
    assert env.possible_agents == ["lina", "hao"] and env.task.root == FAMILY_DIR.resolve()
    parallel_api_test(env, num_cycles=60)


def test_id_and_path_give_the_same_episode():
    by_id, by_path = multiagent.parallel_env(FAMILY_ID), multiagent.parallel_env(FAMILY_DIR)
    assert by_id.reset(seed=3) == by_path.reset(seed=3)
    actions = {"lina": "On it.", "hao": {"tool_calls": [], "reply": ""}}
    assert by_id.step(actions) == by_path.step(actions)


@pytest.mark.filterwarnings("ignore::UserWarning:pettingzoo.test.api_test")  # advice for array envs
@pytest.mark.parametrize("make", [multiagent.env, multiagent.raw_env], ids=["env", "raw_env"])
def test_aec_env_by_id_passes_the_api_test(make):
    env = make(FAMILY_ID)
    api_test(env, num_cycles=60)
    env.reset(seed=0)
    assert sorted(env.possible_agents) == ["hao", "lina"]


def test_options_pass_through():
    env = multiagent.parallel_env(FAMILY_ID, personas=["lina", "hao"], render_mode="ansi", max_idle_steps=2)
    env.reset(seed=0)
    assert env.max_idle_steps == 2 and env.render().startswith("[")


def test_bad_names_are_clear_errors():
    with pytest.raises(FileNotFoundError, match="neither a registered env id"):
        multiagent.parallel_env("VibeLife-family-nope-v0")
    with pytest.raises(ValueError, match="scenario family"):
        multiagent.parallel_env("VibeLife-travel-city-break-v0")
