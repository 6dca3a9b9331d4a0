"""TRL: per-task environment classes, turn-indexed rows and rewards, and a real GRPOTrainer run."""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os

import gymnasium as gym
import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")
torch = pytest.importorskip("torch")

from transformers.utils import get_json_schema  # noqa: E402

from vibelife_env.agents import make_agent  # noqa: E402
from vibelife_env.episode import agent_view  # noqa: E402
from vibelife_env.integrations.trl import build_dataset, environment_class, environment_factory  # noqa: E402
from vibelife_env.integrations.turns import clear_cache, recorded_actions, turn_starts  # noqa: E402

DEMO = "VibeLife-demo-errands-v0"


def oracle_turns(env_id: str, seed: int) -> list[list[dict]]:
    """The oracle's actions, grouped by turn."""
    env = gym.make(env_id).unwrapped
    oracle = make_agent("oracle", env.task)
    obs, info = env.reset(seed=seed)
    oracle.reset(agent_view(info))
    turns: list[list[dict]] = [[]]
    done = False
    while not done:
        action = oracle.act(obs, agent_view(info))
        turns[-1].append(action)
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        if action.get("reply") is not None and not done:
            turns.append([])
    return turns


def play(env, actions: list[dict]) -> None:
    for action in actions:
        for call in action.get("tool_calls") or []:
            args = call["arguments"] if isinstance(call["arguments"], dict) else json.loads(call["arguments"])
            json.loads(getattr(env, call["name"])(**args))  # tool results are JSON text
        if action.get("reply") is not None:
            env.end_turn(action["reply"])


def test_tool_methods_carry_the_schemas() -> None:
    cls = environment_class(DEMO)
    schemas = {s["function"]["name"]: s["function"]["parameters"] for s in gym.make(DEMO).unwrapped.tool_schemas()}
    public = {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}
    assert public == set(schemas) | {"end_turn", "reset", "get_reward"}
    env = cls()
    for name, params in schemas.items():
        got = get_json_schema(getattr(env, name))["function"]["parameters"]
        assert set(got["properties"]) == set(params["properties"]), name
        assert set(got.get("required", [])) == set(params.get("required", [])), name
    assert "reply" in get_json_schema(env.end_turn)["function"]["parameters"]["required"]
    small = environment_class(DEMO, tools=["workspace__read_file"])
    assert {n for n, _ in inspect.getmembers(small, inspect.isfunction) if "__" in n and not n.startswith("_")} == {
        "workspace__read_file"
    }
    for bad in ({"tools": ["nope__tool"]}, {"horizon": "forever"}, {"scale": "x"}, {"continuation": "oracle"}):
        with pytest.raises(ValueError):
            environment_class(DEMO, **bad)
    assert isinstance(environment_factory([DEMO, "VibeLife-family-grandma-birthday-v0"]), dict)


def test_turn_rows_replay_to_full_reward_and_silence_earns_less() -> None:
    rows = build_dataset(DEMO, seeds=[0])
    assert [r["turn"] for r in rows] == list(range(len(rows))) and rows[0]["prompt"][0]["role"] == "system"
    turns = oracle_turns(DEMO, 0)
    assert len(turns) == len(rows)
    env = environment_class(DEMO)()
    for row, actions in zip(rows, turns, strict=True):
        text = env.reset(**row)
        assert text.strip() and ("Turn" in text) == (row["turn"] > 0)
        play(env, actions)
        assert env.get_reward() == 1.0 and env.get_reward() == 1.0  # idempotent
        assert env.checks and all(c["passed"] for c in env.checks)
    env.reset(**rows[0])
    assert env.get_reward() < 1.0  # the silent turn: nothing booked, nothing said
    with pytest.raises(ValueError, match="turn is over"):
        env.workspace__list_files()
    turn_env = environment_class(DEMO, horizon="turn", scale="task")()
    turn_env.reset(**rows[0])
    play(turn_env, turns[0])
    assert 0 < turn_env.get_reward() < 1.0  # a share of the task's total weight


def test_recorded_rollout_prefix_reproduces_the_oracle_states(tmp_path) -> None:
    from vibelife_env.commands import rollout

    out = tmp_path / "oracle.jsonl"
    args = argparse.Namespace(
        env=[DEMO], agent="oracle", episodes=1, workers=0, out=str(out), seed=0, ray_address=None, bundles=None,
        no_progress=True,
    )  # fmt: skip
    assert rollout.main(args) == 0
    clear_cache()
    recorded = turn_starts(DEMO, 0, f"rollout:{out}#0")
    oracle = turn_starts(DEMO, 0, "oracle")
    assert [(s.turn, s.stage, s.time, s.event) for s in recorded] == [
        (s.turn, s.stage, s.time, s.event) for s in oracle
    ]
    assert recorded[-1].snapshot.world == oracle[-1].snapshot.world
    row = json.loads(out.read_text())
    assert sum("end_turn" in a for a in recorded_actions(row["messages"])) <= len(oracle)
    with pytest.raises(ValueError, match="seed"):
        turn_starts(DEMO, 5, f"rollout:{out}#0")
    with pytest.raises(ValueError, match="line"):
        turn_starts(DEMO, 0, f"rollout:{out}#7")


@pytest.mark.slow
def test_grpo_trainer_two_steps_logs_the_env_reward(tmp_path) -> None:
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer

    from vibelife_env.integrations.tiny import imprint, tiny_model, tiny_tokenizer

    tools = ["workspace__read_file"]
    env_cls = environment_class(DEMO, tools=tools)
    rows = build_dataset(DEMO, seeds=[0], turns=[0, 3])
    tokenizer = tiny_tokenizer([DEMO])
    model = tiny_model(tokenizer, hidden=32)
    args = GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=2, num_generations=2, max_completion_length=48,
        max_steps=2, learning_rate=1e-4, logging_steps=1, report_to="none", use_cpu=True, save_strategy="no", seed=0,
    )  # fmt: skip
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, args=args, train_dataset=rows, environment_factory=env_cls
    )
    # teach the random model the tool-call format (its samples still vary), on the prompts TRL renders
    env = env_cls()
    schemas = [get_json_schema(getattr(env, n)) for n in [*tools, "end_turn"]]
    call = '<tool_call>\n{"name": "end_turn", "arguments": {"reply": "All set."}}\n</tool_call><|im_end|>'
    examples = [([row["prompt"][0], {"role": "user", "content": env.reset(**row)}], schemas, call) for row in rows]
    assert imprint(model, tokenizer, examples, steps=60, lr=1e-2) < 0.1
    trainer.train()
    logs = [h for h in trainer.state.log_history if "rewards/VibeLifeDemoErrandsV0/mean" in h]
    assert len(logs) == 2
    for h in logs:
        assert 0.0 <= h["rewards/VibeLifeDemoErrandsV0/mean"] <= 1.0 and not math.isnan(h["reward"])
    assert sum(h["tools/call_frequency"] for h in logs) > 0  # the model's tool calls reached the env
