"""Tool-call budgets are stated and soft: a careful agent is never ambushed by a limit it was not told.

A call over the turn budget is refused (``TURN_BUDGET``) with the world unchanged and the
turn open for the reply; over the episode budget calls are refused (``EPISODE_BUDGET``)
and the rest of the timeline plays out and is scored. The return always equals the score.
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.env import base_env
from vibelife_env.multiagent import parallel_env

FLAGSHIP = "VibeLife-travel-japan-v0"
READS = [
    {"name": "workspace__read_file", "arguments": {"path": "USER.md"}},
    {"name": "email__get_emails", "arguments": {"folder": "INBOX"}},
    {"name": "calendar__list_calendars", "arguments": {}},
]


def _results(obs):
    return [json.loads(m["content"]) for m in obs["messages"] if m["role"] == "tool"]


def test_45_reads_before_the_first_reply_keep_the_flagship_playing():
    env = gym.make(FLAGSHIP)
    obs, info = env.reset(seed=0)
    budget = info["max_tool_calls_per_turn"]
    assert info["system_prompt"] == obs["messages"][0]["content"]
    assert budget == 40 and f"at most {budget} tool calls per turn" in info["system_prompt"]
    base = base_env(env)
    before = base.world.digest()
    reads = [READS[i % len(READS)] for i in range(45)]
    obs, reward, terminated, truncated, info = env.step({"tool_calls": reads})
    results = _results(obs)
    assert len(results) == 45
    assert all(r.get("code") != "TURN_BUDGET" for r in results[:40])
    assert [r["code"] for r in results[40:]] == ["TURN_BUDGET"] * 5
    assert "calls_left" in info and info["calls_left"]["turn"] == 0
    episode = base.max_calls_episode
    assert "tool_calls_left" not in results[33]  # 6 left: no note yet
    assert [r["tool_calls_left"] for r in results[34:40]] == [
        f"{40 - i} in this turn, {episode - i} in the episode" for i in range(35, 41)
    ]
    assert base.world.digest() == before  # reads and refusals change nothing
    assert not (terminated or truncated) and base.in_turn
    # the turn closes with the reply; later turns run normally and the episode ends scored
    total = reward
    obs, reward, terminated, truncated, info = env.step({"reply": "Read everything; nothing to report yet."})
    total += reward
    assert base.turn == 1
    obs, reward, terminated, truncated, info = env.step({"tool_calls": READS[:1]})
    assert _results(obs)[0].get("code") is None
    total += reward
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step({"reply": ""})
        total += reward
    assert terminated and not truncated
    assert len(info["checks"]) == len(base.task.checks)
    assert total == pytest.approx(info["score"] / 100)


@pytest.mark.parametrize("env_id", [FLAGSHIP, "VibeLife-demo-errands-v0", "VibeLife-finance-tax-season-v0"])
def test_an_agent_capped_at_5_calls_gets_a_scored_episode(env_id):
    env = gym.make(env_id, max_tool_calls_per_episode=5)
    obs, info = env.reset(seed=0)
    assert "5 over the whole episode" in info["system_prompt"]
    total, terminated, truncated, refused = 0.0, False, False, 0
    steps = 0
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step({"tool_calls": READS, "reply": "Noted."})
        total += reward
        refused += sum(r.get("code") == "EPISODE_BUDGET" for r in _results(obs))
        steps += 1
    assert refused > 0 and terminated and truncated and info["truncated_reason"] == "episode_tool_budget"
    assert info["tool_calls"] == 5
    checks = info["checks"]
    assert {c["id"] for c in checks} == {c.id for c in base_env(env).task.checks}  # every check has a result
    assert all(c["passed"] or c["reason"] for c in checks)
    assert total == pytest.approx(info["score"] / 100)


def test_an_episode_budget_refusal_says_only_replies_remain():
    env = gym.make("VibeLife-demo-errands-v0", max_tool_calls_per_episode=1)
    env.reset(seed=0)
    obs, *_ = env.step({"tool_calls": READS[:2]})
    first, second = _results(obs)
    assert first["tool_calls_left"] == "29 in this turn, 0 in the episode"
    assert second["code"] == "EPISODE_BUDGET" and "no tool call will run for the rest of the episode" in second["error"]


def test_refused_calls_alone_count_as_idle_steps():
    env = gym.make("VibeLife-demo-errands-v0", max_tool_calls_per_turn=1)
    env.reset(seed=0)
    env.step({"tool_calls": READS[:1]})
    base = base_env(env)
    info = {}
    for _ in range(base.max_idle_steps):
        _, _, _, _, info = env.step({"tool_calls": READS[:1]})  # only refusals: no progress
    assert info.get("idle_turn_closed") and base.turn == 1


def test_pettingzoo_budgets_are_soft_and_stated():
    par = parallel_env("VibeLife-family-grandma-birthday-v0", max_tool_calls_per_turn=1)
    obs, infos = par.reset(seed=0)
    agents = list(par.agents)
    assert all("at most 1 tool calls per turn" in infos[a]["system_prompt"] for a in agents)
    read = {"name": "workspace__list_files", "arguments": {}}
    live = [a for a in agents if not infos[a].get("waiting")]
    obs, rewards, terms, truncs, infos = par.step({a: {"tool_calls": [read, read]} for a in live})
    for a in live:
        codes = [json.loads(m["content"]).get("code") for m in obs[a]["messages"] if m["role"] == "tool"]
        assert codes[-1] == "TURN_BUDGET" and not terms[a] and not truncs[a]
    while par.agents:
        obs, rewards, terms, truncs, infos = par.step({a: {"reply": ""} for a in par.agents})
    assert all(terms.values()) and not any(truncs.values())


def test_session_call_over_budget_returns_the_error_and_the_episode_goes_on():
    from vibelife_env.integrations.session import EpisodeSession

    session = EpisodeSession("VibeLife-demo-errands-v0", max_tool_calls_per_turn=1)
    session.start(0)
    assert session.call("workspace__list_files").get("code") is None
    refused = session.call("workspace__list_files")
    assert refused["code"] == "TURN_BUDGET" and not session.done
    outcome = session.end_turn("ok")
    assert not outcome.done and session.call("workspace__list_files").get("code") is None


def test_every_own_task_states_its_budgets():
    for env_id in vibelife_env.registered_ids():
        base = base_env(gym.make(env_id))
        prompt = base.system_prompt
        assert f"at most {base.max_calls_turn} tool calls per turn" in prompt, env_id
        assert f"{base.max_calls_episode} over the whole episode" in prompt, env_id
        assert f"at most {base.max_wakeups} wake-ups" in prompt, env_id
