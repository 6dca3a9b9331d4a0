"""The wrappers in ``vibelife_env.wrappers``, on the demo task."""

from __future__ import annotations

import doctest
import importlib
import json
import shutil
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import vibelife_env
from vibelife_env.agents import PollingAgent, make_agent
from vibelife_env.env import VibeLifeEnv
from vibelife_env.rollout import run_episode
from vibelife_env.wrappers import (
    ChatHistoryObservation,
    SparseReward,
    TensorBoardLogger,
    TextToolCallAction,
    ToolCallBudget,
    ToolCallCostReward,
    ToolMenuAction,
    TrajectoryRecorder,
    hermes_tools_prompt,
    parse_tool_call_text,
)
from vibelife_env.wrappers._chat import ChatMessages

DEMO = "VibeLife-demo-errands-v0"
MODULES = ["_chat", "observation", "action", "reward", "common", "monitoring"]


def demo() -> gym.Env:
    return gym.make(DEMO)


def oracle_for(env: gym.Env) -> Any:
    return make_agent("oracle", env.unwrapped.task)


def play(env: gym.Env, agent: Any, seed: int = 0, convert: Any = None) -> tuple[list, list[float], dict]:
    """Run one episode; returns observations, rewards and the last info."""
    obs, info = env.reset(seed=seed)
    agent.reset(info)
    observations, rewards, done = [obs], [], False
    while not done:
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(convert(action) if convert else action)
        observations.append(obs)
        rewards.append(reward)
        done = terminated or truncated
    return observations, rewards, info


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"vibelife_env.wrappers.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0 or name == "_chat"


# ----------------------------------------------------------------- observation
def oracle_actions(seed: int = 0) -> list[Any]:
    """The oracle's actions on the plain env (replayed through wrappers that change obs)."""
    env, actions = demo(), []
    oracle = oracle_for(env)

    class Recording:
        def reset(self, info: dict) -> None:
            oracle.reset(info)

        def act(self, obs: Any, info: dict) -> Any:
            actions.append(oracle.act(obs, info))
            return actions[-1]

    play(env, Recording(), seed)
    return actions


def test_chat_history_observation_over_an_oracle_episode() -> None:
    env = ChatHistoryObservation(demo())
    history, info = env.reset(seed=0)
    assert [m["role"] for m in history] == ["system", "user"]
    for action in oracle_actions():
        history, *_, info = env.step(action)
    assert info["score"] == 100.0 and env.observation_space.contains(history)
    for i, m in enumerate(history):
        if m.get("tool_calls"):
            ids = [c["id"] for c in m["tool_calls"]]
            assert [x["tool_call_id"] for x in history[i + 1 : i + 1 + len(ids)]] == ids
    reference = run_episode(demo(), oracle_for(demo()), seed=0)
    assert [m["role"] for m in history] == [m["role"] for m in reference.messages]
    assert [m.get("tool_calls") for m in history] == [m.get("tool_calls") for m in reference.messages]
    with pytest.raises(TypeError, match="include_system"):
        ChatHistoryObservation(demo(), include_system="yes")
    no_system, _ = ChatHistoryObservation(demo(), include_system=False).reset(seed=0)
    assert [m["role"] for m in no_system] == ["user"]


def test_chat_messages_space() -> None:
    space = ChatMessages(seed=0)
    assert space.contains(space.sample())
    assert not space.contains([{"role": "robot", "content": "x"}])
    assert not space.contains([{"role": "tool", "content": "x"}])  # no tool_call_id
    assert not space.contains("hello")


# ----------------------------------------------------------------- text tool calls
def as_hermes_text(action: dict) -> str:
    calls = action.get("tool_calls") or []
    if not calls:
        return action.get("reply") or ""
    blocks = [json.dumps({"name": c["name"], "arguments": c["arguments"]}) for c in calls]
    return "".join(f"<tool_call>\n{b}\n</tool_call>\n" for b in blocks)


def test_text_tool_calls_drive_a_full_oracle_episode() -> None:
    env = TextToolCallAction(demo())
    _, _, info = play(env, oracle_for(env), convert=as_hermes_text)
    assert info["score"] == 100.0


def test_text_tool_call_parsing_variants() -> None:
    calls, errors, rest = parse_tool_call_text(
        'a<tool_call>{"name": "x__y", "arguments": "{\\"k\\": 1}"}</tool_call>b'
        '<tool_call>{"name": "x__z", "parameters": {"q": "日本"}}</tool_call>'
        "<tool_call>{not json</tool_call>"
        '<tool_call>{"arguments": {}}</tool_call>'
        '<tool_call>{"name": "x__w"}'  # unclosed at the end of the text
    )
    assert [c["name"] for c in calls] == ["x__y", "x__z", "invalid_tool_call", "invalid_tool_call", "x__w"]
    assert calls[0]["arguments"] == '{"k": 1}' and json.loads(calls[1]["arguments"]) == {"q": "日本"}
    assert calls[4]["arguments"] == "{}"
    assert errors[0] == errors[1] == errors[4] == ""
    assert "not valid JSON" in errors[2] and "no string 'name'" in errors[3]
    assert rest == "ab"
    assert parse_tool_call_text("just a reply") == ([], [], "just a reply")


def test_malformed_tool_calls_become_error_results_not_exceptions() -> None:
    env = TextToolCallAction(demo())
    env.reset(seed=0)
    text = (
        "<tool_call>{broken</tool_call>"
        '<tool_call>{"name": "workspace__read_file", "arguments": {"path": "USER.md"}}</tool_call>'
        '<tool_call>{"name": "workspace__read_file", "arguments": [1]}</tool_call>'
    )
    obs, reward, terminated, truncated, info = env.step(text)
    results = [json.loads(m["content"]) for m in obs["messages"]]
    assert results[0]["code"] == "BAD_TOOL_CALL" and "not valid JSON" in results[0]["error"]
    assert "error" not in results[1]
    assert results[2]["code"] == "BAD_ARG" and not (terminated or truncated)
    assert info["tool_calls"] == 3
    # text without blocks closes the turn; a structured action passes through unchanged
    obs, *_ = env.step("All set.")
    assert obs["messages"][-1]["role"] == "user"
    obs, *_ = env.step({"tool_calls": [{"name": "workspace__list_files", "arguments": {}}]})
    assert obs["messages"][0]["name"] == "workspace__list_files"
    with pytest.raises(TypeError, match="end_turn_with_calls"):
        TextToolCallAction(demo(), end_turn_with_calls=1)


def test_text_calls_can_close_the_turn_and_prompt_lists_tools() -> None:
    env = TextToolCallAction(demo(), end_turn_with_calls=True)
    obs, info = env.reset(seed=0)
    obs, *_ = env.step('Done.<tool_call>{"name": "workspace__list_files", "arguments": {}}</tool_call>')
    assert [m["role"] for m in obs["messages"]] == ["tool", "user"]
    prompt = hermes_tools_prompt(info["tools"])
    assert "<tool_call>" in prompt and "email__send_email" in prompt


# ----------------------------------------------------------------- rewards
def test_tool_call_cost_reward_prices_reads_and_writes() -> None:
    env = ToolCallCostReward(demo(), read_cost=0.001, write_cost=0.01)
    _, rewards, info = play(env, oracle_for(env))
    assert info["score"] == 100.0
    assert sum(rewards) == pytest.approx(1.0 - info["tool_cost_total"])
    assert 13 * 0.001 < info["tool_cost_total"] < 13 * 0.01
    polling = ToolCallCostReward(demo(), read_cost=0.002)
    _, poll_rewards, poll_info = play(polling, PollingAgent())
    assert poll_info["tool_cost_total"] == pytest.approx(0.002 * poll_info["tool_calls"])
    assert sum(poll_rewards) < 0  # polling earns nothing and pays for every read
    with pytest.raises(TypeError, match="read_cost"):
        ToolCallCostReward(demo(), read_cost="free")
    with pytest.raises(ValueError, match="write_cost"):
        ToolCallCostReward(demo(), write_cost=-1)
    with pytest.raises(ValueError, match="read_cost"):
        ToolCallCostReward(demo(), read_cost=float("nan"))


def test_sparse_reward_pays_the_same_return_at_the_end() -> None:
    _, dense, _ = play(demo(), oracle_for(demo()))
    env = SparseReward(demo())
    _, sparse, info = play(env, oracle_for(env))
    assert all(r == 0.0 for r in sparse[:-1]) and sparse[-1] == pytest.approx(sum(dense))
    assert info["dense_reward"] == dense[-1]


# ----------------------------------------------------------------- budget
def test_tool_call_budget() -> None:
    _, _, info = play(ToolCallBudget(demo(), max_calls=100), oracle_for(demo()))
    assert info["score"] == 100.0 and info["tool_calls_left"] == 100 - info["tool_calls"]
    env = ToolCallBudget(demo(), max_calls_per_turn=2)
    obs, _ = env.reset(seed=0)
    assert "at most 2 tool calls per turn" in obs["messages"][0]["content"]  # the tighter budget is stated
    read = {"name": "workspace__list_files", "arguments": {}}
    obs, _, _, truncated, _ = env.step({"tool_calls": [read]})
    assert len(obs["messages"]) == 1 and not truncated
    obs, _, _, truncated, info = env.step({"role": "assistant", "content": "x", "tool_calls": [read, read]})
    codes = [json.loads(m["content"]).get("code") for m in obs["messages"]]
    assert codes == [None, "TURN_BUDGET"] and not truncated and info["calls_refused"] == 1
    for bad, err in (({"max_calls": 0}, ValueError), ({"max_calls": "5"}, TypeError), ({}, ValueError)):
        with pytest.raises(err):
            ToolCallBudget(demo(), **bad)


# ----------------------------------------------------------------- monitoring
def test_trajectory_recorder_is_deterministic(tmp_path: Path) -> None:
    texts = []
    for k in range(2):
        path = tmp_path / f"run{k}.jsonl"
        env = TrajectoryRecorder(demo(), path, per="episode")
        play(env, oracle_for(env))
        play(env, oracle_for(env), seed=1)
        env.close()
        texts.append(path.read_text())
    assert texts[0] == texts[1]
    lines = [json.loads(x) for x in texts[0].splitlines()]
    assert [x["episode"] for x in lines] == [0, 1] and lines[0]["score"] == 100.0
    assert lines[0]["messages"][0]["role"] == "system" and sum(lines[0]["rewards"]) == pytest.approx(1.0)
    assert all(c["passed"] for c in lines[0]["checks"])

    step_path = tmp_path / "steps.jsonl"
    env = TrajectoryRecorder(demo(), step_path, per="step")
    observations, _, _ = play(env, oracle_for(env))
    env.close()
    steps = [json.loads(x) for x in step_path.read_text().splitlines()]
    assert len(steps) == len(observations) and steps[0]["action"] is None
    assert "email__send_email" in steps[0]["info"]["tools"]
    with pytest.raises(ValueError, match="per"):
        TrajectoryRecorder(demo(), tmp_path / "x.jsonl", per="turn")


def test_tensorboard_logger_writes_readable_events(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    env = TensorBoardLogger(demo(), tmp_path, prefix="demo")
    play(env, oracle_for(env))
    play(env, make_agent("null"))
    env.close()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    tiers = {f"demo/pass_rate/{t}" for t in ("stage", "cross_stage", "final", "tool_quality")}
    assert {"demo/score", "demo/return", "demo/tool_calls", "demo/turns", "demo/steps"} | tiers <= tags
    assert acc.Scalars("demo/score")[0].value == 100.0
    assert [e.step for e in acc.Scalars("demo/score")] == [0, 1]
    assert acc.Scalars("demo/pass_rate/stage")[0].value == 1.0
    assert acc.Scalars("demo/pass_rate/tool_quality")[1].value == 0.0  # the null agent sends nothing
    with pytest.raises(TypeError, match="prefix"):
        TensorBoardLogger(demo(), tmp_path, prefix="")
    with pytest.raises(ValueError, match="backend"):
        TensorBoardLogger(demo(), tmp_path, backend="wandb")


# ----------------------------------------------------------------- tool menu
def test_tool_menu_is_deterministic_and_runs_an_episode() -> None:
    a, b = ToolMenuAction(demo()), ToolMenuAction(demo())
    assert a.labels == b.labels and a.labels[0] == "reply_silently"
    reads = a.labels[1:]
    assert reads == sorted(reads) and "call:workspace__list_files" in reads
    assert all(label.startswith("call:") for label in reads)
    rng = np.random.default_rng(0)
    env = ToolMenuAction(demo())
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        done, steps = terminated or truncated, steps + 1
    assert steps > 4 and info["score"] == 0.0  # reading alone earns nothing
    for bad in (-1, env.action_space.n, 1.5, True, "0"):
        with pytest.raises(ValueError, match="action must be an int"):
            env.step(bad)


def test_tool_menu_custom_and_task_macros(tmp_path: Path) -> None:
    bundle = tmp_path / "errands"
    shutil.copytree(Path(demo().unwrapped.task.root), bundle)
    (bundle / "macros.yaml").write_text(
        "- label: read_user\n  action: {tool_calls: [{name: workspace__read_file, arguments: {path: USER.md}}]}\n"
    )
    silent = {"tool_calls": [], "reply": "On it."}
    env = ToolMenuAction(VibeLifeEnv(bundle), macros=[("say_on_it", silent), silent], include_defaults=False)
    assert env.labels == ["read_user", "say_on_it", "macro_1"]
    env.reset(seed=0)
    obs, *_ = env.step(np.int64(0))
    assert obs["messages"][0]["name"] == "workspace__read_file"
    with pytest.raises(ValueError, match="not a valid action"):
        ToolMenuAction(demo(), macros=[{"bogus": 1}])
    with pytest.raises(ValueError, match="unique"):
        ToolMenuAction(demo(), macros=[("reply_silently", silent)])
    with pytest.raises(ValueError, match="empty"):
        ToolMenuAction(demo(), include_defaults=False)
    with pytest.raises(TypeError, match="macros"):
        ToolMenuAction(demo(), macros=silent)
    (bundle / "macros.yaml").write_text("label: x\n")
    with pytest.raises(ValueError, match=r"macros\.yaml"):
        ToolMenuAction(VibeLifeEnv(bundle))


def test_wrappers_compose() -> None:
    env = TextToolCallAction(ToolCallCostReward(SparseReward(demo()), read_cost=0.0, write_cost=0.0))
    _, rewards, info = play(env, oracle_for(env), convert=as_hermes_text)
    assert info["score"] == 100.0 and sum(rewards) == pytest.approx(1.0)
    assert vibelife_env.registered_ids()
