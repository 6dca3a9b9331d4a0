"""Adversarial baselines (vibelife_env/agents/adversaries.py) on every own task.

Each adversary must finish every episode within the per-turn budget, act deterministically
and do what its docstring claims. Scores are not asserted here (the tasks' checks decide
them; ``vibelife validate`` holds the thresholds), except that a read-only polling batch
wrapped around the oracle must not change the oracle's score.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401  (registers the env ids)
from vibelife_env.agents import AGENTS, OraclePlusPolling, adversaries, make_agent
from vibelife_env.agents.base import NullAgent
from vibelife_env.commands.validate import own_task_ids
from vibelife_env.rollout import EpisodeResult, run_episode

ENV_IDS = own_task_ids()
FLAGSHIP = "VibeLife-travel-japan-v0"
ADVERSARIES = list(adversaries.ADVERSARIES)
MAX_CALLS = 30  # the adversaries' own per-turn bound


class _Recorder:
    """Passes an agent through, noting the newest mail id whenever a turn opens."""

    def __init__(self, agent: Any, env: gym.Env) -> None:
        self.agent, self.env, self.name = agent, env, agent.name
        self.top_mail = 0

    def reset(self, info: dict[str, Any]) -> None:
        self.agent.reset(info)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        if any(m["role"] == "user" for m in observation["messages"]):
            email = self.env.unwrapped.world.services.get("email")
            if email is not None:
                self.top_mail = email.query("SELECT COALESCE(MAX(id), 0) AS top FROM messages")[0]["top"]
        return self.agent.act(observation, info)


@functools.cache
def _episode(name: str, env_id: str) -> tuple[EpisodeResult, gym.Env, _Recorder]:
    env = gym.make(env_id)
    agent = _Recorder(make_agent(name), env)
    return run_episode(env, agent, seed=0), env, agent


def _calls(env: gym.Env) -> list[dict[str, Any]]:
    """Every call record of the episode (``name``, ``args``, ``ok``, ``result``), in order."""
    traces = env.unwrapped.record.traces
    return [c for s in sorted(traces) for c in traces[s]]


def _replies(env: gym.Env) -> list[str]:
    """The reply that closed each turn, in order."""
    replies = env.unwrapped.record.replies
    return [r for s in sorted(replies) for r in replies[s]]


def _calls_per_turn(result: EpisodeResult) -> list[int]:
    turns = [0]
    for m in result.messages[1:]:
        if m["role"] == "user":
            turns.append(0)
        elif m["role"] == "assistant":
            turns[-1] += len(m.get("tool_calls", []))
    return turns


def test_adversaries_are_registered():
    assert {"VibeLife-demo-errands-v0", "VibeLife-family-grandma-birthday-v0", FLAGSHIP} <= set(ENV_IDS)
    for name in ADVERSARIES:
        assert name in AGENTS
        assert make_agent(name).name == name


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("name", ADVERSARIES)
def test_adversary_finishes_within_budget_and_is_deterministic(name, env_id):
    first, env, _ = _episode(name, env_id)
    assert first.terminated and not first.truncated
    budget = env.unwrapped.max_calls_turn
    assert max(_calls_per_turn(first)) <= min(budget, MAX_CALLS)
    assert first.tool_calls <= env.unwrapped.max_calls_episode
    agent = make_agent(name)  # one instance for two episodes: reset must forget everything
    again = [run_episode(gym.make(env_id), agent, seed=0) for _ in range(2)]
    for other in again:
        assert other.rewards == first.rewards
        assert other.messages == first.messages


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("name", ["narrator", "asker"])
def test_talkers_never_write(name, env_id):
    _, env, _ = _episode(name, env_id)
    read_only = set(env.unwrapped.read_only_tools())
    assert {c["name"] for c in _calls(env)} <= read_only
    replies = _replies(env)
    assert replies and all(replies)
    if name == "asker":
        assert all(r.count("?") >= 3 for r in replies)
    else:
        assert all(len(r) > 500 and "Spam" in r for r in replies)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_quarantine_moves_every_mail_to_spam(env_id):
    _, env, recorder = _episode("quarantine", env_id)
    if "email" not in env.unwrapped.world.services:
        pytest.skip("no mail service in this task")
    rows = env.unwrapped.world.services["email"].query(
        "SELECT m.id, f.name AS folder FROM messages m JOIN folders f ON f.id = m.folder_id WHERE m.id <= ?",
        (recorder.top_mail,),
    )
    assert rows and all(r["folder"] in ("Spam", "Sent", "Drafts") for r in rows)
    assert all("scam" in r and "refused to pay" in r for r in _replies(env))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_sprayer_calls_write_tools(env_id):
    _, env, _ = _episode("sprayer", env_id)
    read_only = set(env.unwrapped.read_only_tools())
    written = {c["name"] for c in _calls(env) if c["name"] not in read_only and c["ok"]}
    assert len(written) >= 5


def test_destroyer_cancels_or_deletes_on_the_flagship():
    _, env, _ = _episode("destroyer", FLAGSHIP)
    assert [c for c in _calls(env) if re.search(r"cancel|delete", c["name"]) and c["ok"]]
    assert set(_replies(env)) == {"Done."}


def test_spender_books_on_the_flagship():
    _, env, _ = _episode("spender", FLAGSHIP)
    assert [c for c in _calls(env) if re.search(r"create_\w*(booking|reservation)", c["name"]) and c["ok"]]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_copier_grows_the_workspace(env_id):
    _, env, _ = _episode("copier", env_id)
    files = env.unwrapped.world.workspace.files
    start = env.unwrapped.task.workspace_files
    assert any(p.startswith("copy_") for p in files)
    assert all(len(files[p]) > len(text) for p, text in start.items())
    assert all(_replies(env))


@functools.cache
def _oracle_pair(env_id: str) -> tuple[EpisodeResult, gym.Env, EpisodeResult, gym.Env, OraclePlusPolling]:
    alone_env, wrapped_env = gym.make(env_id), gym.make(env_id)
    alone = run_episode(alone_env, make_agent("oracle", alone_env.unwrapped.task), seed=0)
    wrapper = OraclePlusPolling(make_agent("oracle", wrapped_env.unwrapped.task))
    wrapped = run_episode(wrapped_env, wrapper, seed=0)
    return alone, alone_env, wrapped, wrapped_env, wrapper


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_polling_wrapper_leaves_the_oracle_unchanged(env_id):
    alone, alone_env, wrapped, wrapped_env, wrapper = _oracle_pair(env_id)
    assert wrapped_env.unwrapped.world.digest() == alone_env.unwrapped.world.digest()
    assert wrapped.tool_calls > alone.tool_calls and not wrapped.truncated
    assert _replies(wrapped_env) == _replies(alone_env)

    def own(env: gym.Env) -> list[tuple[str, Any]]:
        return [(c["name"], c["args"]) for c in _calls(env) if not (c["name"] in wrapper.reads and c["args"] == {})]

    assert own(wrapped_env) == own(alone_env)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_reads_do_not_change_the_oracle_score(env_id):
    alone, _, wrapped, _, _ = _oracle_pair(env_id)
    passed = {c["id"]: c["passed"] for c in alone.checks}
    changed = sorted(c["id"] for c in wrapped.checks if c["passed"] != passed.get(c["id"]))
    assert wrapped.score == alone.score, f"argument-free reads changed these checks: {changed}"


def test_polling_wrapper_rejects_bad_arguments():
    assert OraclePlusPolling(NullAgent()).name == "null+polling"
    with pytest.raises(TypeError, match="reset"):
        OraclePlusPolling(object())
    with pytest.raises(ValueError, match="reserve"):
        OraclePlusPolling(NullAgent(), reserve=-1)
