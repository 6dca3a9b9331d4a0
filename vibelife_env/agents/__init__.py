"""Baseline agents, scripted oracles and the agent registry used by the CLI."""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vibelife_env.agents.adversaries import ADVERSARIES, OraclePlusPolling
from vibelife_env.agents.base import Agent, KeywordStuffer, NullAgent, PollingAgent
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.agents.scripted import ScriptedAgent

__all__ = [
    "AGENTS",
    "GATED_BASELINES",
    "Agent",
    "AgentForTask",
    "AgentSpec",
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
    "builtin_names",
    "load_factory",
    "load_oracle",
    "make_agent",
]

#: Built-in agents by name; ``oracle`` and its ablations need the task.
AGENTS: dict[str, Callable[..., Any]] = {
    "null": NullAgent,
    "polling": PollingAgent,
    "stuffer": KeywordStuffer,
    **ADVERSARIES,
}
#: The baselines every reward gate holds near zero: the do-nothing policies and the adversaries.
GATED_BASELINES: tuple[str, ...] = ("null", "polling", "stuffer", *ADVERSARIES)


def __getattr__(name: str) -> Any:
    """Import :class:`OpenAIChatAgent` (and so ``openai``) only when it is asked for."""
    if name == "OpenAIChatAgent":
        from vibelife_env.agents.openai_agent import OpenAIChatAgent

        return OpenAIChatAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def builtin_names(task: Any = None) -> list[str]:
    """Every built-in agent name ``make_agent`` accepts (with ``task``: its bundle's variants too)."""
    names = [*AGENTS, "oracle", "stale", "reckless", "openai"]
    if task is not None and task.has_oracle:
        from vibelife_env.agents.oracle import oracle_classes

        names += [n for n in oracle_classes(task) if n not in names]
    return names


def load_factory(spec: str, cwd: str | None = None) -> Callable[..., Any]:
    """The callable named by ``spec`` = ``"module:attr"`` (``attr`` may be dotted).

    The module is looked up as ``python -m`` would: in ``cwd`` (default: the current
    directory) first, then on ``sys.path``, so ``my_agents.py`` next to the command works.

    Raises:
        ValueError: a malformed spec, a module that is not found or fails to import, a
            missing attribute, or one that is not callable.
    """
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"agent {spec!r}: expected 'module:factory', e.g. 'my_agents:make_agent'")
    folder = os.path.abspath(cwd or os.getcwd())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise ValueError(f"agent {spec!r}: no module named {exc.name!r} in {folder} or on sys.path") from None
        raise ValueError(f"agent {spec!r}: importing {module_name!r} failed: {exc}") from exc
    except Exception as exc:
        raise ValueError(f"agent {spec!r}: importing {module_name!r} failed: {type(exc).__name__}: {exc}") from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"agent {spec!r}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"agent {spec!r}: {attr!r} is a {type(obj).__name__}, not a callable")
    return obj


def _takes_no_arguments(fn: Callable[..., Any]) -> bool:
    try:
        return not inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def make_agent(name: str, task: Any = None, *, cwd: str | None = None) -> Any:
    """Build an agent by name: a built-in, or ``module:factory``.

    Built-ins: ``null``, ``polling``, ``stuffer``, the adversaries of
    :mod:`vibelife_env.agents.adversaries`, ``oracle`` and the ablations and variants its
    bundle defines (``stale``, ``reckless``, ...), and ``openai``; the oracle family needs the
    task, ``openai`` reads its endpoint and model from the environment (see
    :mod:`vibelife_env.agents.openai_agent`). ``module:factory`` names a callable taking the
    task (or nothing) and returning an agent (``reset(info)`` / ``act(obs, info)``), found
    by :func:`load_factory` (the current directory, or ``cwd``, comes first).

    Raises:
        ValueError: unknown name, an unloadable factory, an oracle-based agent for a task
            without ``oracle.py``, or ``openai`` without ``VIBELIFE_MODEL``.
    """
    if ":" in name:
        factory = load_factory(name, cwd)
        return factory() if _takes_no_arguments(factory) else factory(task)
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
        f"unknown agent {name!r}; built-in: {', '.join(builtin_names(task))}, or module:factory for your own"
    )


@dataclass(frozen=True)
class AgentSpec:
    """An agent named as on the command line, built inside whichever process runs it.

    Calling it with a task builds the agent (:func:`make_agent`); ``cwd`` is where a
    ``module:factory`` is looked up, so Ray workers find the same module as the driver.
    """

    name: str
    cwd: str | None = None

    def __call__(self, task: Any = None) -> Any:
        return make_agent(self.name, task, cwd=self.cwd)


class AgentForTask:
    """The agent ``spec`` builds for the task ``env`` holds at each reset.

    A scenario family serves a new task instance per seed, and an oracle written for one
    instance cannot play another; this rebuilds the agent whenever the task changes and
    otherwise keeps it (and whatever it carries across episodes).

    Args:
        spec: An :class:`AgentSpec` or agent name.
        env: The env the episodes run in (wrapped or not).
    """

    def __init__(self, spec: AgentSpec | str, env: Any) -> None:
        self.spec = spec if isinstance(spec, AgentSpec) else AgentSpec(spec)
        self.env = env
        self._task: Any = None
        self._agent: Any = None

    @property
    def name(self) -> str:
        """The built agent's name (the spec before the first reset)."""
        return getattr(self._agent, "name", type(self._agent).__name__) if self._agent is not None else self.spec.name

    def reset(self, info: dict[str, Any]) -> None:
        task = self.env.unwrapped.task
        if self._agent is None or task is not self._task:
            self._agent, self._task = self.spec(task), task
        self._agent.reset(info)

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        if self._agent is None:
            raise RuntimeError("AgentForTask.act before reset")
        return self._agent.act(observation, info)
