"""Common wrappers: limits on the episode."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from vibelife_env.env import base_env


def _limit(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value


class ToolCallBudget(gym.Wrapper):
    """Tighten the env's tool-call budgets (per episode, per turn) on a registered env.

    The budgets stay what the env's own are: stated in the system prompt, and soft. A call
    over the turn budget returns a ``TURN_BUDGET`` error result without running, and the
    turn waits for the reply; a call over the episode budget returns ``EPISODE_BUDGET``,
    after which the agent can only reply while the timeline plays out and is scored; the
    last step then comes with ``truncated=True`` and ``info["truncated_reason"] ==
    "episode_tool_budget"``. ``info["tool_calls_left"]`` reports the episode's remaining
    budget. The wrapped env keeps the tighter budgets.

    Args:
        env: A VibeLife env.
        max_calls: Calls allowed over the episode (``None``: the env's own budget).
        max_calls_per_turn: Calls allowed within one turn (``None``: the env's own budget).

    Raises:
        TypeError: a limit is not an int or None.
        ValueError: a limit is below 1, or both are None.

    Example:
        >>> import gymnasium as gym
        >>> import vibelife_env
        >>> from vibelife_env.wrappers import ToolCallBudget
        >>> env = ToolCallBudget(gym.make("VibeLife-demo-errands-v0"), max_calls=2)
        >>> obs, info = env.reset(seed=0)
        >>> "2 over the whole episode" in info["system_prompt"]
        True
        >>> reads = [{"name": "workspace__list_files", "arguments": {}}] * 3
        >>> obs, reward, terminated, truncated, info = env.step({"tool_calls": reads})
        >>> [m["content"].count("EPISODE_BUDGET") for m in obs["messages"]], truncated, info["tool_calls_left"]
        ([0, 0, 1], False, 0)
    """

    def __init__(self, env: gym.Env, max_calls: int | None = None, max_calls_per_turn: int | None = None) -> None:
        self.max_calls = _limit(max_calls, "max_calls")
        self.max_calls_per_turn = _limit(max_calls_per_turn, "max_calls_per_turn")
        if self.max_calls is None and self.max_calls_per_turn is None:
            raise ValueError("give max_calls, max_calls_per_turn or both")
        super().__init__(env)
        base = base_env(env)
        base.set_budgets(
            min(base.max_calls_turn, self.max_calls_per_turn or base.max_calls_turn),
            min(base.max_calls_episode, self.max_calls or base.max_calls_episode),
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Start the episode with the budgets full."""
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._report(info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Step the env; report the episode's remaining calls."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, float(reward), terminated, truncated, self._report(info)

    def _report(self, info: dict) -> dict:
        return {**info, "tool_calls_left": info["calls_left"]["episode"]}
