"""No endless episodes: idle turns close in silence; registered ids carry a backstop ``max_episode_steps``."""

from __future__ import annotations

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.env import base_env
from vibelife_env.episode import DEFAULT_MAX_IDLE_STEPS, agent_view
from vibelife_env.multiagent import parallel_env
from vibelife_env.registration import MAX_EPISODE_STEPS

DEMO = "VibeLife-demo-errands-v0"
FAMILY = "VibeLife-family-grandma-birthday-v0"
READ = {"tool_calls": [{"name": "workspace__read_file", "arguments": {"path": "USER.md"}}]}
IDLE_FORMS = [{}, {"tool_calls": []}, {"tool_calls": [], "reply": None}, {"tool_calls": None}]


def idle_episode(env: gym.Env, action=None) -> tuple[int, list[int], bool, bool, dict]:
    """Send idle actions until the episode ends: steps, the steps that closed a turn, last flags and info."""
    env.reset(seed=0)
    closed, steps = [], 0
    while True:
        obs, reward, terminated, truncated, info = env.step({} if action is None else action)
        steps += 1
        if info.get("idle_turn_closed"):
            closed.append(steps)
            assert obs["messages"][0]["role"] == "system" and "silent reply" in obs["messages"][0]["content"]
        if terminated or truncated:
            return steps, closed, terminated, truncated, info
        assert steps < 1000, "an idle agent never ended the episode"


@pytest.mark.parametrize("action", IDLE_FORMS)
def test_an_agent_that_never_replies_ends_like_a_silent_one(action):
    env = gym.make(DEMO)
    steps, closed, terminated, truncated, info = idle_episode(env, action)
    silent = gym.make(DEMO)
    silent.reset(seed=0)
    while not (out := silent.step({"reply": ""}))[2]:
        pass
    assert terminated and not truncated
    turns = base_env(env).turn
    assert turns == base_env(silent).turn
    assert closed == [DEFAULT_MAX_IDLE_STEPS * (k + 1) for k in range(turns)] and steps == closed[-1]
    assert info["checks"] == out[4]["checks"] and info["score"] == out[4]["score"]
    assert base_env(env).record.copy() == base_env(silent).record.copy()
    transcript = base_env(env).episode.transcript
    assert sum("(silent: 3 steps without a tool call or a reply)" in line for line in transcript) == turns


def test_idle_steps_count_per_turn_and_tool_calls_do_not_reset_them():
    env = gym.make(DEMO)
    _, info = env.reset(seed=0)
    assert info["max_idle_steps"] == DEFAULT_MAX_IDLE_STEPS and "max_idle_steps" in agent_view(info)
    for action in ({}, READ, {}):
        *_, info = env.step(action)
        assert "idle_turn_closed" not in info and base_env(env).in_turn
    obs, _, _, _, info = env.step({})  # the third idle step of this turn
    assert info["idle_turn_closed"] is True and agent_view(info)["idle_turn_closed"] is True
    assert base_env(env).turn == 1
    assert [m["role"] for m in obs["messages"]] == ["system", "user"]  # the note, then the next event
    for _ in range(2):  # the count starts over in the new turn
        *_, info = env.step({})
        assert "idle_turn_closed" not in info
    *_, info = env.step({"reply": "ok"})
    assert "idle_turn_closed" not in info and base_env(env).turn == 2


def test_max_idle_steps_is_an_option():
    env = gym.make(DEMO, max_idle_steps=1)
    steps, closed, terminated, _, _ = idle_episode(env)
    assert terminated and closed == list(range(1, steps + 1))
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="max_idle_steps"):
            gym.make(DEMO, max_idle_steps=bad)


def test_snapshots_and_forks_keep_the_idle_count():
    env = base_env(gym.make(DEMO))
    env.reset(seed=0)
    env.step({})
    env.step({})
    snap = env.snapshot()
    fork = env.fork()
    results = []
    for e in (env, fork):
        results.append(e.step({}))
    assert results[0][4]["idle_turn_closed"] and results[1][4]["idle_turn_closed"]
    assert results[0][0] == results[1][0]
    env.reset(options={"snapshot": snap})
    *_, info = env.step({})
    assert info["idle_turn_closed"]


def test_parallel_env_idle_rounds_close_but_waiting_for_a_working_agent_does_not_count():
    env = parallel_env(FAMILY)
    _, infos = env.reset(seed=0)
    assert infos["lina"]["max_idle_steps"] == DEFAULT_MAX_IDLE_STEPS
    # lina works for more steps than the idle limit while hao waits: nobody is closed
    for _ in range(DEFAULT_MAX_IDLE_STEPS + 1):
        _, _, _, _, infos = env.step({"lina": READ, "hao": {}})
        assert not any(i.get("idle_turn_closed") for i in infos.values())
    steps = 0
    while env.agents:  # then nobody acts
        _, _, terms, truncs, infos = env.step({agent: {} for agent in env.agents})
        steps += 1
        assert steps < 1000, "idle agents never ended the episode"
    assert all(terms.values()) and not any(truncs.values())


def test_every_registered_id_has_a_backstop_above_the_engines_own_bound():
    for env_id in vibelife_env.registered_ids():
        assert gym.registry[env_id].max_episode_steps == MAX_EPISODE_STEPS, env_id
        env = base_env(gym.make(env_id))
        opening = sum(1 for e in env.task.events if e.opens_turn)
        bound = env.max_calls_episode + 1 + env.max_idle_steps * (opening + env.max_wakeups)
        assert bound < MAX_EPISODE_STEPS, (env_id, bound)


def test_time_limit_and_the_engines_truncation_stay_apart():
    env = gym.make(DEMO)
    assert env.spec.max_episode_steps == MAX_EPISODE_STEPS
    short = gym.make(DEMO, max_episode_steps=2)  # the TimeLimit fires; the engine is not done
    short.reset(seed=0)
    assert short.step(READ)[3] is False
    _, _, terminated, truncated, info = short.step(READ)
    assert truncated and not terminated and "truncated_reason" not in info
    assert not base_env(short).episode.done
    short.reset(seed=0)  # and a new episode starts cleanly
    budget = gym.make(DEMO, max_tool_calls_per_episode=2)  # the episode budget refuses calls, the timeline plays on
    budget.reset(seed=0)
    _, _, terminated, truncated, info = budget.step({"tool_calls": READ["tool_calls"] * 3})
    assert not (terminated or truncated) and info["calls_refused"] == 1
    while not (terminated or truncated):
        _, _, terminated, truncated, info = budget.step({"reply": ""})
    assert terminated and truncated and info["truncated_reason"] == "episode_tool_budget"
