"""Baseline agents, scripted oracles and the agent registry used by the CLI."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vibelife_env.agents.adversaries import (
    Asker,
    Copier,
    Destroyer,
    Narrator,
    OraclePlusPolling,
    Quarantine,
    Spender,
    Sprayer,
)
from vibelife_env.agents.base import Agent, KeywordStuffer, NullAgent, PollingAgent
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.agents.scripted import ScriptedAgent

__all__ = [
    "AGENTS",
    "Agent",
    "Asker",
    "Copier",
    "Destroyer",
    "KeywordStuffer",
    "Narrator",
    "NullAgent",
    "OpenAIChatAgent",
    "OraclePlusPolling",
    "PollingAgent",
    "Quarantine",
    "ScriptedAgent",
    "Spender",
    "Sprayer",
    "load_oracle",
    "make_agent",
]

#: Built-in agents by name; ``oracle`` and its ablations need the task.
AGENTS: dict[str, Callable[..., Any]] = {
    "null": NullAgent,
    "polling": PollingAgent,
    "stuffer": KeywordStuffer,
    "narrator": Narrator,
    "sprayer": Sprayer,
    "destroyer": Destroyer,
    "quarantine": Quarantine,
    "copier": Copier,
    "asker": Asker,
    "spender": Spender,
}


def __getattr__(name: str) -> Any:
    """Import :class:`OpenAIChatAgent` (and so ``openai``) only when it is asked for."""
    if name == "OpenAIChatAgent":
        from vibelife_env.agents.openai_agent import OpenAIChatAgent

        return OpenAIChatAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_agent(name: str, task: Any = None) -> Any:
    """Build a built-in agent by name (``null``, ``polling``, ``stuffer``, the adversaries of
    :mod:`vibelife_env.agents.adversaries`, ``oracle`` and the ablations and variants its
    bundle defines (``stale``, ``reckless``, ...), ``openai``); the oracle family needs the task, ``openai`` reads its endpoint and
    model from the environment (see :mod:`vibelife_env.agents.openai_agent`).

    Raises:
        ValueError: unknown name, or an oracle-based agent for a task without ``oracle.py``.
    """
    if name in AGENTS:
        return AGENTS[name]()
    if task is not None and task.has_oracle:
        from vibelife_env.agents.oracle import oracle_classes

        if name in oracle_classes(task):
            return load_oracle(task, variant=name)
    if name in ("oracle", "stale", "reckless"):
        if task is None:
            raise ValueError(f"agent {name!r} needs a task")
        return load_oracle(task, variant=name)
    if name == "openai":
        from vibelife_env.agents.openai_agent import OpenAIChatAgent

        return OpenAIChatAgent()
    raise ValueError(
        f"unknown agent {name!r}; built-in: {', '.join([*AGENTS, 'oracle', 'stale', 'reckless', 'openai'])}"
    )
