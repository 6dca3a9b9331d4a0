"""One live episode, driven one tool call at a time: what tool-calling harnesses need.

Trainers and agent harnesses (TRL, verifiers, OpenEnv, MCP clients) do not send a whole
assistant message per step: they call one tool, read its result, call another, and
finally answer. :class:`EpisodeSession` maps that onto the env's turn semantics:

- :meth:`~EpisodeSession.call` runs one tool call in the open turn (the turn stays open,
  the clock does not move) and returns the tool's JSON result;
- :meth:`~EpisodeSession.end_turn` closes the turn with a reply (``""`` = deliberate
  silence); the world then runs to the next turn-opening event, which becomes
  :attr:`~EpisodeSession.event`, and the reward of the closing step is returned;
- :attr:`~EpisodeSession.score` is the task score so far (0-100); at the end it is final.

Only :func:`~vibelife_env.episode.agent_view` data ever leaves through :attr:`agent_info`;
check results stay in :attr:`last_info` for logging and rewards.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vibelife_env.env import EnvSnapshot, VibeLifeEnv
from vibelife_env.episode import agent_view
from vibelife_env.vector import resolve_env_kwargs

#: The control tool every adapter adds next to the task's own tools.
END_TURN = "end_turn"

END_TURN_DOC = (
    "End the current turn with your reply to the user. An empty reply means you chose to stay silent, which is "
    "right when nothing needs their attention. The world then moves on to the next event."
)


def make_env(env_id: str | None = None, **env_kwargs: Any) -> VibeLifeEnv:
    """A bare :class:`VibeLifeEnv` from a registered id and/or ``task_dir=`` kwargs.

    Raises:
        ValueError: unknown id, or neither an id nor ``task_dir`` (see
            :func:`vibelife_env.vector.resolve_env_kwargs`).
    """
    import vibelife_env  # noqa: F401  (registers the bundled ids)

    build: Callable[..., VibeLifeEnv]
    try:  # families (family_dir=) build through vector.make_env where it exists
        from vibelife_env.vector import make_env as build
    except ImportError:  # pragma: no cover - older trees
        build = VibeLifeEnv
    return build(**resolve_env_kwargs(env_id, env_kwargs))


def event_text(observation: dict[str, Any]) -> str:
    """The text of the turn-opening event(s) in an observation (no system prompt)."""
    return "\n\n".join(m["content"] for m in observation.get("messages", ()) if m["role"] == "user")


@dataclass
class TurnOutcome:
    """What closing a turn produced.

    Attributes:
        reward: Check weight newly earned by the closing step, over the task's total weight.
        done: The episode is over (the timeline ran out; see :attr:`EpisodeSession.truncated`).
        event: The next turn's opening text (``None`` when the episode is over).
        checks: Check results frozen by the closing step (grading data: never show a policy).
    """

    reward: float
    done: bool
    event: str | None
    checks: list[dict[str, Any]] = field(default_factory=list)


class EpisodeSession:
    """A live episode of one task (see the module docstring).

    Args:
        env_id: Registered VibeLife id (or ``None`` with ``task_dir=...`` in ``env_kwargs``).
        **env_kwargs: Extra :class:`VibeLifeEnv` arguments.

    Raises:
        ValueError: see :func:`make_env`.
    """

    def __init__(self, env_id: str | None = None, **env_kwargs: Any) -> None:
        self.env_id = env_id
        self.env = make_env(env_id, **env_kwargs)
        self.last_info: dict[str, Any] = {}
        self.last_observation: dict[str, Any] = {}
        self.event: str | None = None
        self.rewards: list[float] = []
        self.terminated = False
        self.truncated = False
        self.started = False

    # ------------------------------------------------------------------ lifecycle
    def start(self, seed: int | None = 0, snapshot: EnvSnapshot | None = None, instance: int | None = None) -> str:
        """Reset (or resume ``snapshot``); returns the open turn's event text.

        ``instance`` serves that instance of a scenario family (a test instance 0-3, or a
        train seed on the train split) instead of the one ``seed`` picks.

        Raises:
            ValueError: ``instance`` for a single task, or out of the family's range.
        """
        if snapshot is not None:
            obs, info = self.env.reset(options={"snapshot": snapshot})
        elif instance is not None:
            if not self.is_family:
                raise ValueError(
                    f"{self.env_id or self.env.task.id} is a single task: instance is for scenario families"
                )
            obs, info = self.env.reset(seed=seed, options={"instance": int(instance)})
        else:
            obs, info = self.env.reset(seed=seed)
        self.last_info = info
        self.last_observation = obs
        self.rewards = []
        self.terminated = self.truncated = False
        self.started = True
        self.event = event_text(obs) or None
        return self.event or ""

    @property
    def is_family(self) -> bool:
        """True when the env is a scenario family (it serves instances; see :meth:`start`)."""
        from vibelife_env.family_env import FamilyEnv

        return isinstance(self.env, FamilyEnv)

    @property
    def done(self) -> bool:
        """True once the episode terminated or was truncated."""
        return self.terminated or self.truncated

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The task's tools, OpenAI function schemas (no reset needed)."""
        return self.env.tool_schemas()

    @property
    def system_prompt(self) -> str:
        """The env's system prompt."""
        return self.env.system_prompt

    @property
    def score(self) -> float:
        """Task score so far, 0-100."""
        return round(100.0 * self.env.score, 6)

    @property
    def agent_info(self) -> dict[str, Any]:
        """The policy-safe part of the last ``info``."""
        return agent_view(self.last_info)

    @property
    def turn(self) -> int:
        """Turns closed so far."""
        return self.env.turn

    # ---------------------------------------------------------------------- acting
    def _require_open(self) -> None:
        if not self.started:
            raise RuntimeError("the episode has not started: call start() first")
        if self.done:
            raise RuntimeError(f"the episode is over (score {self.score:.2f}/100); start a new one")

    def call(self, name: str, arguments: dict[str, Any] | str | None = None) -> Any:
        """Run one tool call in the open turn; its result (parsed JSON, else the raw text).

        A failed call (unknown tool, bad arguments, refused action) returns the service's
        ``{"error": ..., "code": ...}`` object and leaves the world unchanged; so does a call
        over a tool-call budget (``TURN_BUDGET``, ``EPISODE_BUDGET``): the turn stays open
        for :meth:`end_turn`. While few calls are left the result says how many
        (``tool_calls_left``).

        Raises:
            RuntimeError: no episode is running, or it is over.
            ActionError: ``name`` or ``arguments`` have no accepted shape.
        """
        self._require_open()
        obs, reward, terminated, truncated, info = self.env.step(
            {"tool_calls": [{"name": name, "arguments": arguments if arguments is not None else {}}], "reply": None}
        )
        self._after_step(obs, reward, terminated, truncated, info)
        tool_msgs = [m for m in obs["messages"] if m["role"] == "tool"]
        content = tool_msgs[-1]["content"] if tool_msgs else ""
        try:
            return json.loads(content)
        except json.JSONDecodeError:
            return content

    def end_turn(self, reply: str = "") -> TurnOutcome:
        """Close the open turn with ``reply``; the world runs to the next turn.

        Raises:
            RuntimeError: no episode is running, or it is over.
            TypeError: ``reply`` is not a string.
        """
        self._require_open()
        if not isinstance(reply, str):
            raise TypeError(f"reply must be a string, got {type(reply).__name__}")
        obs, reward, terminated, truncated, info = self.env.step({"tool_calls": [], "reply": reply})
        self._after_step(obs, reward, terminated, truncated, info)
        self.event = None if self.done else (event_text(obs) or None)
        return TurnOutcome(float(reward), self.done, self.event, list(info.get("check_results", [])))

    def step(self, action: Any) -> TurnOutcome:
        """Run one whole assistant message (any shape ``env.step`` accepts)."""
        self._require_open()
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._after_step(obs, reward, terminated, truncated, info)
        self.event = None if self.done else (event_text(obs) or self.event)
        return TurnOutcome(float(reward), self.done, self.event, list(info.get("check_results", [])))

    def _after_step(self, obs: Any, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]) -> None:
        self.last_observation = obs
        self.rewards.append(float(reward))
        self.terminated, self.truncated = bool(terminated), bool(truncated)
        self.last_info = info
