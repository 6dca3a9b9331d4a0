"""Reward wrappers: change what the agent is paid.

- :class:`ToolCallCostReward`: each executed tool call costs a little (reads and writes
  priced separately), so brute-force polling is not free.
- :class:`SparseReward`: the whole return arrives at the end of the episode.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym

from vibelife_env.env import base_env

from ._chat import tool_results


def _cost(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


class ToolCallCostReward(gym.Wrapper):
    """Subtract a per-call cost from the reward.

    Every tool call the env executed in a step (one tool-result message each) costs
    ``read_cost`` if the tool is read-only (``info["read_only_tools"]`` of ``reset``) and
    ``write_cost`` otherwise, including unknown tool names. ``info["tool_cost"]`` is the
    step's cost and ``info["tool_cost_total"]`` the episode's so far. With the env's reward
    summing to a score in ``[0, 1]``, a cost of 0.001 makes 100 needless reads cost a tenth
    of the score.

    Args:
        env: A VibeLife env (its observation must still carry the tool results).
        read_cost: Cost of one read-only call.
        write_cost: Cost of one other call.

    Raises:
        TypeError: a cost is not a number.
        ValueError: a cost is negative or not finite.

    Example:
        >>> import gymnasium as gym
        >>> import vibelife_env
        >>> from vibelife_env.wrappers import ToolCallCostReward
        >>> env = ToolCallCostReward(gym.make("VibeLife-demo-errands-v0"), read_cost=0.01, write_cost=0.05)
        >>> _ = env.reset(seed=0)
        >>> reads = [{"name": "workspace__list_files", "arguments": {}}] * 3
        >>> obs, reward, *_, info = env.step({"tool_calls": reads})
        >>> round(reward, 6), round(info["tool_cost"], 6)
        (-0.03, 0.03)
    """

    def __init__(self, env: gym.Env, read_cost: float = 0.001, write_cost: float = 0.001) -> None:
        super().__init__(env)
        self.read_cost = _cost(read_cost, "read_cost")
        self.write_cost = _cost(write_cost, "write_cost")
        self.read_only: frozenset[str] = frozenset()
        self.total = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Learn which tools are read-only; zero the episode's cost."""
        obs, info = self.env.reset(seed=seed, options=options)
        self.read_only = frozenset(info.get("read_only_tools") or base_env(self.env).read_only_tools())
        self.total = 0.0
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Step, then charge the calls that ran."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        cost = sum(self.read_cost if m["name"] in self.read_only else self.write_cost for m in tool_results(obs))
        self.total += cost
        info = {**info, "tool_cost": cost, "tool_cost_total": self.total}
        return obs, float(reward) - cost, terminated, truncated, info


class SparseReward(gym.Wrapper):
    """Hold every reward back and pay the sum on the episode's last step.

    Intermediate steps return 0; the step that terminates or truncates returns the sum of
    the rewards so far (so the return is unchanged). ``info["dense_reward"]`` keeps each
    step's original reward.

    Example:
        >>> import gymnasium as gym
        >>> import vibelife_env
        >>> from vibelife_env.agents import make_agent
        >>> from vibelife_env.wrappers import SparseReward
        >>> env = SparseReward(gym.make("VibeLife-demo-errands-v0"))
        >>> oracle = make_agent("oracle", env.unwrapped.task)
        >>> obs, info = env.reset(seed=0)
        >>> oracle.reset(info)
        >>> rewards, done = [], False
        >>> while not done:
        ...     obs, r, terminated, truncated, info = env.step(oracle.act(obs, info))
        ...     rewards.append(r)
        ...     done = terminated or truncated
        >>> all(r == 0 for r in rewards[:-1]), round(rewards[-1], 6)
        (True, 1.0)
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.pending = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Forget the held reward."""
        self.pending = 0.0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Step; pay out only when the episode ends."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.pending += float(reward)
        info = {**info, "dense_reward": float(reward)}
        if terminated or truncated:
            paid, self.pending = self.pending, 0.0
            return obs, paid, terminated, truncated, info
        return obs, 0.0, terminated, truncated, info
