"""Turn-indexed start states: train a long timeline turn by turn.

A flagship episode runs for weeks of virtual time and dozens of turns; a trainer that
samples whole episodes spends most of its compute on the early turns. Instead, a row of
a training set names ``(env id, seed, turn index, prefix)``: the world is put in the
exact state it has when that turn opens, after the *prefix* played every earlier turn,
and the policy plays only that turn.

A prefix is one of

- a built-in agent name (``"oracle"``, ``"null"``, ...; see :func:`vibelife_env.agents.make_agent`);
- ``"rollout:<path>#<line>"``: the assistant messages of line ``<line>`` (0-based) of a
  JSONL dataset written by ``vibelife rollout`` (or any line with ``env_id``, ``seed``
  and OpenAI ``messages``), replayed action by action. The env is deterministic, so the
  replay reproduces the recorded world exactly.

:func:`turn_starts` plays the prefix once and keeps a snapshot at every turn opening;
results are cached per process (:func:`start_state` is what adapters call on reset).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from vibelife_env.env import EnvSnapshot, VibeLifeEnv
from vibelife_env.episode import agent_view
from vibelife_env.integrations.session import event_text, make_env

#: Snapshot lists kept per process (each is one episode's worth of turn starts).
CACHE_SIZE = 64

_CACHE: OrderedDict[tuple[str, int, str], list[TurnStart]] = OrderedDict()


@dataclass(frozen=True)
class TurnStart:
    """The world as a turn opens.

    Attributes:
        turn: Turns closed before this one (0 = the first turn).
        stage: The stage in progress.
        time: Virtual time, ISO 8601.
        event: The turn's opening text, as the agent reads it.
        system: The system prompt of the episode (a scenario family's: the instance's).
        snapshot: The exact episode state; ``env.reset(options={"snapshot": ...})`` resumes it.
        actions: What the prefix did in this turn, in order (the messages it stepped).
    """

    turn: int
    stage: int
    time: str
    event: str
    system: str
    snapshot: EnvSnapshot
    actions: tuple[Any, ...] = ()


def recorded_actions(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The actions behind a recorded OpenAI transcript, in order.

    An assistant message closes its turn when the next message that is not a tool result
    is not another assistant message (the next event, or the end); such a message gets
    ``end_turn: true`` so tool calls and the reply in one message replay as they ran.
    """
    actions: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        if m.get("role") != "assistant":
            continue
        nxt = next((x for x in messages[i + 1 :] if x.get("role") != "tool"), None)
        action: dict[str, Any] = {"role": "assistant", "content": m.get("content")}
        if m.get("tool_calls"):
            action["tool_calls"] = m["tool_calls"]
            if nxt is None or nxt.get("role") != "assistant":
                action["end_turn"] = True
                action["content"] = m.get("content") or ""
        actions.append(action)
    return actions


def _rollout_line(spec: str) -> dict[str, Any]:
    body = spec.removeprefix("rollout:")
    path, sep, line = body.rpartition("#")
    if not sep or not line.isdigit():
        raise ValueError(f"prefix {spec!r}: expected 'rollout:<path>#<line>' with a 0-based line number")
    with Path(path).open(encoding="utf-8") as fh:
        for i, text in enumerate(fh):
            if i == int(line):
                return json.loads(text)
    raise ValueError(f"prefix {spec!r}: {path} has no line {line}")


def play_prefix(env: VibeLifeEnv, seed: int, prefix: str = "oracle") -> list[TurnStart]:
    """Play ``prefix`` through one episode of ``env``; a :class:`TurnStart` per turn opening.

    Raises:
        ValueError: an unknown prefix, or a recorded rollout of another task or seed.
    """
    scripted = None
    if prefix.startswith("rollout:"):
        row = _rollout_line(prefix)
        if row.get("seed") != seed:
            raise ValueError(f"prefix {prefix!r} was recorded with seed {row.get('seed')}, not {seed}")
        scripted = iter(recorded_actions(row.get("messages", [])))
    obs, info = env.reset(seed=seed)
    if scripted is not None and row.get("task_id") not in (None, env.task.id):  # after the reset: a family's instance
        raise ValueError(f"prefix {prefix!r} is a rollout of task {row.get('task_id')!r}, not {env.task.id!r}")
    agent = None
    if scripted is None:
        from vibelife_env.agents import make_agent

        agent = make_agent(prefix, env.task)  # after the reset: a family's instance is the seed's
        agent.reset(agent_view(info))
    starts: list[TurnStart] = []
    acted: dict[int, list[Any]] = {}
    opened = -1
    done = False
    while not done:
        if env.in_turn and env.turn != opened:
            opened = env.turn
            starts.append(
                TurnStart(env.turn, env.current_stage, info["time"], event_text(obs), env.system_prompt, env.snapshot())
            )
        if agent is not None:
            action = agent.act(obs, agent_view(info))
        else:
            action = next(scripted, None)  # type: ignore[arg-type]
            if action is None:  # the recording ends here (truncated, or cut short)
                break
        acted.setdefault(env.turn, []).append(action)
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    return [replace(s, actions=tuple(acted.get(s.turn, ()))) for s in starts]


def turn_starts(env_id: str, seed: int, prefix: str = "oracle", **env_kwargs: Any) -> list[TurnStart]:
    """Every turn start of ``env_id`` at ``seed`` under ``prefix``, cached per process."""
    key = (env_id, int(seed), prefix if not env_kwargs else f"{prefix}|{sorted(env_kwargs.items())!r}")
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    starts = play_prefix(make_env(env_id, **env_kwargs), int(seed), prefix)
    _CACHE[key] = starts
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return starts


def start_state(env_id: str, seed: int, turn: int, prefix: str = "oracle", **env_kwargs: Any) -> TurnStart:
    """The state as turn ``turn`` opens (see :func:`turn_starts`).

    Raises:
        ValueError: the prefix's episode has no such turn.
    """
    starts = turn_starts(env_id, seed, prefix, **env_kwargs)
    if not 0 <= turn < len(starts):
        raise ValueError(
            f"{env_id} seed {seed} under prefix {prefix!r} has turns 0..{len(starts) - 1}; turn {turn} does not exist"
        )
    return starts[turn]


def clear_cache() -> None:
    """Forget every cached turn start."""
    _CACHE.clear()
