"""Run whole episodes: one agent, one env, one seed → an :class:`EpisodeResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from vibelife_env.env import VERSION, VibeLifeEnv, base_env
from vibelife_env.episode import agent_view
from vibelife_env.spaces import chat_messages


@dataclass
class EpisodeResult:
    """Everything a dataset or a report needs from one episode."""

    task_id: str
    agent: str
    seed: int | None
    score: float  # 0-100
    rewards: list[float] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    tool_calls: int = 0
    terminated: bool = False
    truncated: bool = False
    mutation_errors: list[str] = field(default_factory=list)
    check_errors: list[str] = field(default_factory=list)
    env_version: str = VERSION

    def stage_table(self) -> list[dict[str, Any]]:
        """Per tier/stage: checks passed, weight earned and available."""
        rows: dict[tuple[int, str], dict[str, Any]] = {}
        for c in self.checks:
            order = (
                c["stage"]
                if c["tier"] == "stage"
                else 10_000 + ["cross_stage", "final", "tool_quality"].index(c["tier"])
            )
            label = f"stage {c['stage']}" if c["tier"] == "stage" else c["tier"]
            row = rows.setdefault(
                (order, label), {"part": label, "passed": 0, "checks": 0, "earned": 0.0, "weight": 0.0}
            )
            row["checks"] += 1
            row["weight"] += c["weight"]
            if c["passed"]:
                row["passed"] += 1
                row["earned"] += c["weight"]
        return [rows[k] for k in sorted(rows)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (one line of a rollout dataset)."""
        return {
            "task_id": self.task_id,
            "agent": self.agent,
            "seed": self.seed,
            "score": self.score,
            "rewards": self.rewards,
            "checks": self.checks,
            "messages": self.messages,
            "steps": self.steps,
            "tool_calls": self.tool_calls,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "mutation_errors": self.mutation_errors,
            "check_errors": self.check_errors,
            "env_version": self.env_version,
        }


def assistant_message(action: Any, turn_prefix: str) -> dict[str, Any]:
    """The action as an OpenAI assistant message (tool call ids match the env's)."""
    from vibelife_env.actions import parse_action

    parsed = parse_action(action, id_prefix=turn_prefix)
    msg: dict[str, Any] = {
        "role": "assistant",
        "content": parsed.reply if parsed.reply is not None else parsed.narration,
    }
    if parsed.tool_calls:
        msg["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.raw_arguments}}
            for c in parsed.tool_calls
        ]
    return msg


def run_episode(
    env: gym.Env | VibeLifeEnv, agent: Any, seed: int | None = None, max_steps: int = 10_000, record: bool = True
) -> EpisodeResult:
    """Drive ``agent`` through one episode of ``env``.

    Args:
        env: A VibeLife env (wrapped or not).
        agent: Anything with ``reset(info)`` and ``act(obs, info)``; it receives
            :func:`~vibelife_env.episode.agent_view` of each ``info`` (no grading data).
        seed: Passed to ``env.reset``.
        max_steps: Safety bound on steps (the env's budgets normally end runaway agents).
        record: Keep the OpenAI-format transcript in the result.
    """
    base = base_env(env)
    obs, info = env.reset(seed=seed)
    agent.reset(agent_view(info))
    result = EpisodeResult(base.task.id, getattr(agent, "name", type(agent).__name__), seed, 0.0)
    if record:
        result.messages.extend(chat_messages(obs))
    terminated = truncated = False
    while not (terminated or truncated) and result.steps < max_steps:
        action = agent.act(obs, agent_view(info))
        if record:
            result.messages.append(assistant_message(action, base.next_call_prefix()))
        obs, reward, terminated, truncated, info = env.step(action)
        result.rewards.append(float(reward))
        result.steps += 1
        result.mutation_errors += info.get("mutation_errors", [])
        result.check_errors += info.get("check_errors", [])
        if record:
            result.messages.extend(chat_messages(obs))
    result.terminated, result.truncated = terminated, truncated
    result.score = float(info["score"])
    result.tool_calls = int(info["tool_calls"])
    result.checks = [r.to_dict() for r in base.scorer.results.values()]
    known = {c["id"] for c in result.checks}
    result.checks += [
        {"id": c.id, "tier": c.tier, "stage": c.stage, "weight": c.weight, "passed": False, "error": "not evaluated"}
        for c in base.task.checks
        if c.id not in known
    ]
    return result
