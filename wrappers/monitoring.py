"""Monitoring wrappers: record and log episodes without changing them.

- :class:`TrajectoryRecorder`: JSONL, one line per step or per episode.
- :class:`TensorBoardLogger`: episode score, per-tier pass rates, tool calls and turns.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from vibelife_env.checks.base import TIERS
from vibelife_env.env import base_env
from vibelife_env.errors import ActionError

from ._chat import assistant_message, env_messages


def jsonable(value: Any) -> Any:
    """``value`` with tuples as lists and numpy scalars/arrays as Python values."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    return value


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(jsonable(record), ensure_ascii=False, sort_keys=True, default=str)


class TrajectoryRecorder(gym.Wrapper):
    """Write the episodes that pass through to a JSONL file.

    The content is deterministic (same task, seed and actions give the same bytes): no
    wall-clock times, keys sorted. ``info["tools"]`` (the schemas) is replaced by the tool
    names. Place it directly on the env to record chat actions and observations as
    OpenAI-format ``messages``.

    ``per="step"``: a line at ``reset`` (``step`` 0, ``action`` null) and one per step,
    with ``episode``, ``step``, ``action``, ``observation``, ``reward``, ``terminated``,
    ``truncated`` and ``info``.
    ``per="episode"``: one line when an episode ends, with ``episode``, ``seed``,
    ``task_id``, ``steps``, ``return``, ``rewards``, ``score``, ``terminated``,
    ``truncated``, ``messages`` (OpenAI format, when every action was a chat action;
    else ``actions``) and ``checks``.

    Args:
        env: A VibeLife env.
        path: The JSONL file (parent folders are created).
        per: ``"step"`` or ``"episode"``.
        append: Add to an existing file instead of replacing it.

    Raises:
        ValueError: ``per`` is neither ``"step"`` nor ``"episode"``.

    Example:
        >>> import gymnasium as gym, json, tempfile, pathlib
        >>> import vibelife_env
        >>> from vibelife_env.wrappers import TrajectoryRecorder
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "steps.jsonl"
        >>> env = TrajectoryRecorder(gym.make("VibeLife-demo-errands-v0"), path, per="step")
        >>> _ = env.reset(seed=0)
        >>> _ = env.step({"tool_calls": [], "reply": ""})
        >>> env.close()
        >>> [json.loads(line)["step"] for line in path.read_text().splitlines()]
        [0, 1]
    """

    def __init__(self, env: gym.Env, path: str | Path, per: str = "episode", append: bool = False) -> None:
        if per not in ("step", "episode"):
            raise ValueError(f"per must be 'step' or 'episode', got {per!r}")
        if not isinstance(path, (str, Path)):
            raise TypeError(f"path must be a str or Path, got {type(path).__name__}")
        super().__init__(env)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.per = per
        self._file = self.path.open("a" if append else "w", encoding="utf-8")
        self.episode = -1
        self._reset_episode(None)

    def _reset_episode(self, seed: int | None) -> None:
        self.seed = seed
        self.steps = 0
        self.rewards: list[float] = []
        self.actions: list[Any] = []
        self.messages: list[dict[str, Any]] | None = []

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Start a new episode record."""
        obs, info = self.env.reset(seed=seed, options=options)
        self.episode += 1
        self._reset_episode(seed)
        if isinstance(obs, Mapping) and "messages" in obs:
            self.messages = env_messages(obs)
        else:
            self.messages = None
        if self.per == "step":
            self._write(
                {
                    "episode": self.episode,
                    "step": 0,
                    "seed": seed,
                    "action": None,
                    "observation": obs,
                    "info": _info(info),
                }
            )
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Step and record."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.steps += 1
        self.rewards.append(float(reward))
        self.actions.append(jsonable(action))
        self._add_messages(action, obs)
        if self.per == "step":
            self._write(
                {
                    "episode": self.episode,
                    "step": self.steps,
                    "action": action,
                    "observation": obs,
                    "reward": float(reward),
                    "terminated": terminated,
                    "truncated": truncated,
                    "info": _info(info),
                }
            )
        elif terminated or truncated:
            self._write(self._episode_record(info, terminated, truncated))
        return obs, float(reward), terminated, truncated, info

    def close(self) -> None:
        """Flush and close the file, then the env."""
        if not self._file.closed:
            self._file.close()
        super().close()

    def _add_messages(self, action: Any, obs: Any) -> None:
        if self.messages is None or not (isinstance(obs, Mapping) and "messages" in obs):
            self.messages = None
            return
        try:
            self.messages.append(assistant_message(action, obs))
        except ActionError:  # not a chat action (e.g. a menu index): keep the raw actions instead
            self.messages = None
            return
        self.messages.extend(env_messages(obs))

    def _episode_record(self, info: Mapping[str, Any], terminated: bool, truncated: bool) -> dict[str, Any]:
        base = base_env(self.env)
        record: dict[str, Any] = {
            "episode": self.episode,
            "seed": self.seed,
            "task_id": base.task.id,
            "steps": self.steps,
            "return": sum(self.rewards),
            "rewards": self.rewards,
            "score": info.get("score"),
            "terminated": terminated,
            "truncated": truncated,
            "checks": [r.to_dict() for r in base.scorer.results.values()],
        }
        if self.messages is not None:
            record["messages"] = self.messages
        else:
            record["actions"] = self.actions
        return record

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(_dumps(record) + "\n")
        self._file.flush()


def _info(info: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(info)
    if "tools" in out:
        out["tools"] = [t["function"]["name"] for t in out["tools"]]
    return out


# ---------------------------------------------------------------- tensorboard
class _EventFileWriter:
    """A scalar writer on tensorboard's own event-file writer (no torch needed)."""

    def __init__(self, log_dir: str) -> None:
        from tensorboard.summary.writer.event_file_writer import EventFileWriter

        self._writer = EventFileWriter(log_dir)

    def add_scalar(self, tag: str, value: float, global_step: int) -> None:
        from tensorboard.compat.proto.event_pb2 import Event
        from tensorboard.compat.proto.summary_pb2 import Summary

        summary = Summary(value=[Summary.Value(tag=tag, simple_value=float(value))])
        self._writer.add_event(Event(wall_time=time.time(), step=int(global_step), summary=summary))

    def flush(self) -> None:
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()


def make_summary_writer(log_dir: str | Path, backend: str = "auto") -> Any:
    """A writer with ``add_scalar``/``flush``/``close``.

    Args:
        log_dir: Where event files go.
        backend: ``"tensorboardX"``, ``"tensorboard"`` (its own event-file writer),
            ``"torch"`` (``torch.utils.tensorboard``), or ``"auto"``: the first of these
            that is installed.

    Raises:
        ValueError: unknown backend.
        ImportError: the backend (or, for ``"auto"``, every backend) is not installed.
    """
    order = {"auto": ("tensorboardX", "tensorboard", "torch")}.get(backend, (backend,))
    missing = []
    for name in order:
        try:
            if name == "tensorboardX":
                from tensorboardX import SummaryWriter

                return SummaryWriter(str(log_dir))
            if name == "tensorboard":
                return _EventFileWriter(str(log_dir))
            if name == "torch":
                from torch.utils.tensorboard import SummaryWriter as TorchWriter

                return TorchWriter(str(log_dir))
        except ImportError as exc:
            missing.append(f"{name}: {exc}")
            continue
        raise ValueError(f"backend must be auto, tensorboardX, tensorboard or torch, got {backend!r}")
    raise ImportError("no TensorBoard writer is installed (pip install tensorboard); " + "; ".join(missing))


class TensorBoardLogger(gym.Wrapper):
    """Log each finished episode to TensorBoard.

    Scalars, with the episode number as step: ``<prefix>/score`` (0-100), ``return``,
    ``steps``, ``turns``, ``tool_calls`` and ``pass_rate/<tier>`` (checks passed / checks
    of that tier in the task, for each tier the task has; unevaluated checks count as
    failed).

    Args:
        env: A VibeLife env.
        log_dir: Event-file directory (ignored when ``writer`` is given).
        prefix: Tag prefix.
        backend: See :func:`make_summary_writer`.
        writer: A ready writer with ``add_scalar(tag, value, step)``.

    Raises:
        TypeError: ``prefix`` is not a non-empty str.

    Example:
        >>> import gymnasium as gym, tempfile
        >>> import vibelife_env
        >>> from vibelife_env.wrappers import TensorBoardLogger
        >>> from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
        >>> log_dir = tempfile.mkdtemp()
        >>> env = TensorBoardLogger(gym.make("VibeLife-demo-errands-v0"), log_dir)
        >>> _ = env.reset(seed=0)
        >>> done = False
        >>> while not done:
        ...     *_, terminated, truncated, info = env.step({"tool_calls": [], "reply": ""})
        ...     done = terminated or truncated
        >>> env.close()
        >>> acc = EventAccumulator(log_dir)
        >>> _ = acc.Reload()
        >>> [e.value for e in acc.Scalars("vibelife/turns")]
        [4.0]
    """

    def __init__(
        self,
        env: gym.Env,
        log_dir: str | Path = "runs",
        prefix: str = "vibelife",
        backend: str = "auto",
        writer: Any = None,
    ) -> None:
        if not isinstance(prefix, str) or not prefix:
            raise TypeError(f"prefix must be a non-empty str, got {prefix!r}")
        super().__init__(env)
        self.writer = writer if writer is not None else make_summary_writer(log_dir, backend)
        self.prefix = prefix
        self.episodes = 0
        self._return = 0.0
        self._steps = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Start counting a new episode."""
        self._return, self._steps = 0.0, 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Step; log the episode when it ends."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._return += float(reward)
        self._steps += 1
        if terminated or truncated:
            self._log(info)
        return obs, float(reward), terminated, truncated, info

    def episode_scalars(self, info: Mapping[str, Any]) -> dict[str, float]:
        """The scalars of the episode that just ended."""
        base = base_env(self.env)
        passed = {r.id for r in base.scorer.results.values() if r.passed}
        totals: dict[str, list[int]] = {}
        for check in base.task.checks:
            row = totals.setdefault(check.tier, [0, 0])
            row[0] += check.id in passed
            row[1] += 1
        out = {
            "score": float(info.get("score", 0.0)),
            "return": self._return,
            "steps": float(self._steps),
            "turns": float(info.get("turn", 0)),
            "tool_calls": float(info.get("tool_calls", 0)),
        }
        for tier in TIERS:
            if tier in totals:
                out[f"pass_rate/{tier}"] = totals[tier][0] / totals[tier][1]
        return out

    def _log(self, info: Mapping[str, Any]) -> None:
        for tag, value in self.episode_scalars(info).items():
            self.writer.add_scalar(f"{self.prefix}/{tag}", value, self.episodes)
        self.writer.flush()
        self.episodes += 1

    def close(self) -> None:
        """Close the writer, then the env."""
        self.writer.close()
        super().close()
