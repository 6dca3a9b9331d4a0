"""Observation wrappers: change what the agent sees."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from ._chat import ChatMessages, assistant_message, env_messages


class ChatHistoryObservation(gym.Wrapper):
    """The observation becomes the whole OpenAI-format conversation so far.

    After ``reset`` it is the system prompt and the first event; after each ``step`` the
    action (as an assistant message whose ``tool_calls`` ids match the env's), its tool
    results and, when the turn closed, the next event are appended. The list can be sent
    as ``messages`` to any chat-completions endpoint. Time and stage stay in ``info``.

    Args:
        env: A VibeLife env (wrapped or not).
        include_system: Keep the system prompt as the first message.

    Raises:
        TypeError: ``include_system`` is not a bool.

    Example:
        >>> import gymnasium as gym
        >>> import vibelife_env
        >>> from vibelife_env.wrappers import ChatHistoryObservation
        >>> env = ChatHistoryObservation(gym.make("VibeLife-demo-errands-v0"))
        >>> obs, info = env.reset(seed=0)
        >>> [m["role"] for m in obs]
        ['system', 'user']
        >>> obs, *_ = env.step({"tool_calls": [{"name": "workspace__list_files", "arguments": {}}]})
        >>> [m["role"] for m in obs]
        ['system', 'user', 'assistant', 'tool']
        >>> obs[-1]["tool_call_id"] == obs[-2]["tool_calls"][0]["id"]
        True
        >>> obs, *_ = env.step({"tool_calls": [], "reply": ""})  # close the turn silently
        >>> [m["role"] for m in obs][-2:]
        ['assistant', 'user']
    """

    def __init__(self, env: gym.Env, include_system: bool = True) -> None:
        if not isinstance(include_system, bool):
            raise TypeError(f"include_system must be a bool, got {type(include_system).__name__}")
        super().__init__(env)
        self.include_system = include_system
        self.observation_space = ChatMessages()
        self.history: list[dict[str, Any]] = []

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[list, dict]:
        """Start the conversation with the system prompt and the first event."""
        obs, info = self.env.reset(seed=seed, options=options)
        self.history = [m for m in env_messages(obs) if self.include_system or m["role"] != "system"]
        return self._copy(), info

    def step(self, action: Any) -> tuple[list, float, bool, bool, dict]:
        """Append the action, its results and any new event; return the whole list."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.history.append(assistant_message(action, obs))
        self.history.extend(env_messages(obs))
        return self._copy(), float(reward), terminated, truncated, info

    def _copy(self) -> list[dict[str, Any]]:
        return [dict(m) for m in self.history]
