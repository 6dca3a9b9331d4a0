"""Common wrappers: limits on the episode."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from vibelife_env.actions import parse_action

from ._chat import tool_results


def _limit(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value


class ToolCallBudget(gym.Wrapper):
    """Truncate the episode when a tool-call budget runs out.

    Tighter than the env's own budgets and settable on a registered env. An action whose
    calls would exceed what is left runs only the calls that fit, keeps the turn open (its
    reply is dropped: the turn was not finished) and truncates the episode with
    ``info["truncated_reason"] = "tool_call_budget"``. ``info["tool_calls_left"]`` reports
    the episode's remaining budget.

    Args:
        env: A VibeLife env.
        max_calls: Calls allowed over the episode (``None``: no episode limit).
        max_calls_per_turn: Calls allowed within one turn (``None``: no turn limit).

    Raises:
        TypeError: a limit is not an int or None.
        ValueError: a limit is below 1, or both are None.

    Example:
        >>> import gymnasium as gym
        >>> import vibelife_env
        >>> from vibelife_env.wrappers import ToolCallBudget
        >>> env = ToolCallBudget(gym.make("VibeLife-demo-errands-v0"), max_calls=2)
        >>> _ = env.reset(seed=0)
        >>> reads = [{"name": "workspace__list_files", "arguments": {}}] * 3
        >>> obs, reward, terminated, truncated, info = env.step({"tool_calls": reads, "reply": "done"})
        >>> len(obs["messages"]), truncated, info["truncated_reason"], info["tool_calls_left"]
        (2, True, 'tool_call_budget', 0)
    """

    def __init__(self, env: gym.Env, max_calls: int | None = None, max_calls_per_turn: int | None = None) -> None:
        self.max_calls = _limit(max_calls, "max_calls")
        self.max_calls_per_turn = _limit(max_calls_per_turn, "max_calls_per_turn")
        if self.max_calls is None and self.max_calls_per_turn is None:
            raise ValueError("give max_calls, max_calls_per_turn or both")
        super().__init__(env)
        self.used = 0
        self.used_in_turn = 0
        self._turn: Any = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Refill the budget."""
        obs, info = self.env.reset(seed=seed, options=options)
        self.used = self.used_in_turn = 0
        self._turn = info.get("turn")
        return obs, self._report(info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Run what fits in the budget; truncate when something did not."""
        parsed = parse_action(action)
        room = [len(parsed.tool_calls)]
        if self.max_calls is not None:
            room.append(self.max_calls - self.used)
        if self.max_calls_per_turn is not None:
            room.append(self.max_calls_per_turn - self.used_in_turn)
        fits = max(min(room), 0)
        over = fits < len(parsed.tool_calls)
        if over:
            action = {"tool_calls": list(action["tool_calls"])[:fits], "reply": None}
        obs, reward, terminated, truncated, info = self.env.step(action)
        ran = len(tool_results(obs))
        self.used += ran
        self.used_in_turn += ran
        if info.get("turn") != self._turn:
            self._turn, self.used_in_turn = info.get("turn"), 0
        info = self._report(info)
        if over and not (terminated or truncated):
            truncated = True
            info["truncated_reason"] = "tool_call_budget"
        return obs, float(reward), terminated, truncated, info

    def _report(self, info: dict) -> dict:
        left = None if self.max_calls is None else self.max_calls - self.used
        return {**info, "tool_calls_left": left}
