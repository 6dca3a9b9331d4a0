"""PettingZoo ``ParallelEnv``: several assistants, one per persona, share one world and clock.

A task names its personas in ``task.toml`` (``[vibelife] personas = ["lina", "hao"]``);
each persona is one PettingZoo agent. The timeline is the single-agent one, with rounds:

- the next turn-opening event opens a **round** for its addressees: ``to: <persona>`` reaches
  that persona's assistant only, an event without ``to`` reaches every assistant; further
  turn-opening events at the same time whose addressees are not yet in the round join it
  (so two people writing at 09:00 are served in parallel);
- each step, every live agent sends one action. An agent with an open turn runs its tool
  calls (its observation holds only its own tool results) and closes its turn with a reply;
  an agent without an open turn is *waiting*: its action is ignored (``info["waiting"]``);
- when every open turn of the round has closed, the clock advances as in
  :class:`~vibelife_env.env.VibeLifeEnv`: silent mutations apply, closing stages are scored
  and frozen, and the next round opens.

Rewards: checks tagged ``agent:<persona>`` count for that persona only; checks with no
agent tag are team checks that count for every persona. An agent's reward is the weight it
newly earned over the total weight of the checks that count for it, so its returns sum to
its own score in [0, 1] (``info["score"]`` on 0-100; ``info["team_score"]`` is the task's
overall score). Checks tagged for one persona see that persona's replies and tool trace;
the others see everyone's.

An episode ends for all agents together, *terminated* when the timeline ran out and every
tier is scored; an agent whose calls the episode budget cut short is also *truncated* on
that last step. Budgets are per agent, stated in each system prompt and soft, as in the
single-agent env: calls over budget return ``TURN_BUDGET``/``EPISODE_BUDGET`` errors and
are not run, and the timeline plays on.

Idle steps: a step in which no agent with an open turn makes a tool call or a reply
changes nothing; on the ``max_idle_steps``-th such step of a turn (default 3) every open
turn closes as a silent reply (``info["idle_turn_closed"]``), so agents that never reply
cannot stall the round forever. An agent may wait while another works: only steps in which
nobody acts count.

Like a PettingZoo environment module, this module offers :func:`parallel_env`,
:func:`env` (the AEC form, through PettingZoo's standard conversion) and :func:`raw_env`
(the same without the order-enforcing wrapper); each takes a registered env id or a
bundle directory::

    from vibelife_env.multiagent import parallel_env

    env = parallel_env("VibeLife-family-grandma-birthday-v0")
    observations, infos = env.reset(seed=0)

The engine is :class:`vibelife_env.episode.Episode` (one seat per persona), the same one
the single-agent env adapts; this class only shapes its results for PettingZoo.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from vibelife_env.actions import parse_action
from vibelife_env.bundle import load_task_cached
from vibelife_env.checks.base import CheckResult
from vibelife_env.env import VERSION, default_system_prompt
from vibelife_env.episode import DEFAULT_MAX_IDLE_STEPS, Episode, EpisodeSnapshot, providers
from vibelife_env.errors import TaskLoadError
from vibelife_env.scheduler import DEFAULT_MAX_WAKEUPS
from vibelife_env.services.tooling import NAME_SEP
from vibelife_env.spaces import action_space, empty_message, observation_space
from vibelife_env.world import World


def persona_prompt(base: str, persona: str, personas: list[str]) -> str:
    """The single-agent system prompt, plus who this assistant serves and who else is there."""
    others = ", ".join(p for p in personas if p != persona) or "nobody"
    return (
        f"{base}\nYou are the assistant of {persona}. Other assistants serve {others} in the same world "
        f"(same services, files and clock). You receive only events addressed to {persona} or to everyone, "
        "and only your own tool results: coordinate through the shared state, do not redo others' work."
    )


def resolve_task_dir(task: str | Path) -> Path:
    """The bundle directory of a registered env id (``VibeLife-family-grandma-birthday-v0``) or a path.

    Raises:
        ValueError: ``task`` is a scenario family's id (families are single-agent).
        FileNotFoundError: ``task`` is neither a registered id nor an existing directory.
    """
    if isinstance(task, str) and task in gym.registry:
        kwargs = gym.registry[task].kwargs
        if "task_dir" in kwargs:
            return Path(kwargs["task_dir"])
        if "family_dir" in kwargs:
            raise ValueError(f"{task} is a scenario family, which has no multi-persona form; give a task with personas")
        raise ValueError(f"{task} is not a VibeLife task (its spec has no task_dir)")
    path = Path(task).expanduser()
    if not path.exists():
        raise FileNotFoundError(
            f"{str(task)!r} is neither a registered env id (see `vibelife list`) nor a task bundle directory"
        )
    return path


class VibeLifeParallelEnv(ParallelEnv):
    """A multi-persona VibeLife task as a PettingZoo ``ParallelEnv``; see the module docstring.

    Args:
        task_dir: A registered env id or the task bundle directory.
        personas: Override the task's ``personas`` (agent ids).
        render_mode: ``"ansi"`` or ``None``.
        max_tool_calls_per_turn: Per agent and turn (default: the task's).
        max_tool_calls_per_episode: Per agent over the episode (default: the task's).
        strict_mutations: Raise when a mutation fails instead of reporting it.
        max_wakeups: Wake-ups the assistants may schedule per episode (all together).
        max_idle_steps: Steps of a turn in which nobody acts after which every open turn
            closes as a silent reply.

    Raises:
        TaskLoadError: no personas, or an event addressed to an unknown persona.
        FileNotFoundError: neither a registered id nor a bundle directory.
        ValueError: a bad ``render_mode``, repeated personas, or a family's id.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "vibelife_parallel_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": True,
    }

    def __init__(
        self,
        task_dir: str | Path,
        personas: list[str] | None = None,
        render_mode: str | None = None,
        max_tool_calls_per_turn: int | None = None,
        max_tool_calls_per_episode: int | None = None,
        strict_mutations: bool = False,
        max_wakeups: int = DEFAULT_MAX_WAKEUPS,
        max_idle_steps: int = DEFAULT_MAX_IDLE_STEPS,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.task = load_task_cached(resolve_task_dir(task_dir))
        self.possible_agents = list(personas or self.task.meta.personas)
        if not self.possible_agents:
            raise TaskLoadError(self.task.root / "task.toml", "vibelife.personas", "the task declares no personas")
        if len(set(self.possible_agents)) != len(self.possible_agents):
            raise ValueError(f"personas must be distinct, got {self.possible_agents}")
        for event in self.task.events:
            if event.to is not None and event.to not in self.possible_agents:
                raise TaskLoadError(
                    self.task.root / self.task.meta.events_file,
                    f"{event.id}.to",
                    f"addressed to {event.to!r}, not one of the personas {self.possible_agents}",
                )
        self.agents: list[str] = []
        self.render_mode = render_mode
        self.max_calls_turn = max_tool_calls_per_turn or self.task.meta.max_tool_calls_per_turn
        self.max_calls_episode = max_tool_calls_per_episode or self.task.meta.max_tool_calls_per_episode
        self.strict_mutations = strict_mutations
        self.max_wakeups = max_wakeups
        self.max_idle_steps = max_idle_steps
        self._num_stages = max(s.index for s in self.task.stages) + 1
        base = default_system_prompt(
            self.task,
            max_calls_turn=self.max_calls_turn,
            max_calls_episode=self.max_calls_episode,
            max_wakeups=max_wakeups,
        )
        self.system_prompts = {p: persona_prompt(base, p, self.possible_agents) for p in self.possible_agents}
        self.episode = Episode(
            self.task,
            self.possible_agents,
            max_calls_turn=self.max_calls_turn,
            max_calls_episode=self.max_calls_episode,
            strict_mutations=strict_mutations,
            max_wakeups=max_wakeups,
            max_idle_steps=max_idle_steps,
        )
        self._carry: list[CheckResult] = []
        self._tool_schemas: list[dict[str, Any]] | None = None

    # ------------------------------------------------------------------ spaces
    @cache  # noqa: B019 - PettingZoo requires the same object per agent
    def observation_space(self, agent: str):
        """The single-agent observation space (chat messages, time, stage)."""
        return observation_space(self._num_stages)

    @cache  # noqa: B019
    def action_space(self, agent: str):
        """The single-agent action space (tool calls and a reply)."""
        return action_space()

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Fresh world (same world seed derivation as the single-agent env) and the first round.

        ``options={"snapshot": EpisodeSnapshot}`` resumes from :meth:`snapshot` instead.
        """
        if seed is not None or not hasattr(self, "_np_random"):
            self._np_random, _ = seeding.np_random(seed)
        options = options or {}
        if "snapshot" in options:
            self.restore(options["snapshot"])
            results: list[CheckResult] = []
        else:
            world_seed = int(self._np_random.integers(0, 2**31 - 1))
            # checks frozen before the first round (mutation-only stages) pay out with the first step
            results = self.episode.start(world_seed)
            self._carry = list(results)
        self.agents = [] if self.episode.done else list(self.possible_agents)
        opened = self.episode.open_seats
        obs, infos = {}, {}
        for p in self.agents:
            messages = [empty_message("system", self.system_prompts[p])]
            if p in opened:
                messages.append(self.episode.event_message(opened[p]))
            obs[p] = self._obs(messages)
            infos[p] = self._info(p, [])
            infos[p].update(
                tools=self.tool_schemas(),
                read_only_tools=self.read_only_tools(),
                system_prompt=self.system_prompts[p],
                max_tool_calls_per_turn=self.max_calls_turn,
                max_tool_calls_per_episode=self.max_calls_episode,
                max_wakeups=self.max_wakeups,
                max_idle_steps=self.max_idle_steps,
            )
        self.episode.drain_outcomes()
        return obs, infos

    def step(self, actions: dict[str, Any]):
        """One action per live agent; see the module docstring for rounds and waiting agents.

        Raises:
            RuntimeError: called before ``reset`` or after the episode ended.
            ValueError: an action for an agent that is not live.
            ActionError: an action of no accepted shape (the world is untouched).
        """
        if not self.episode.started or not self.agents:
            raise RuntimeError("no live agents: call reset()")
        unknown = set(actions) - set(self.agents)
        if unknown:
            raise ValueError(f"actions for agents that are not live: {sorted(unknown)}; live: {self.agents}")
        opened = self.episode.open_seats
        parsed = {p: parse_action(a, id_prefix=self.episode.call_prefix(p)) for p, a in actions.items() if p in opened}
        out = self.episode.step(parsed)
        results, self._carry = [*self._carry, *out.results], []
        obs = {p: self._obs(out.messages[p]) for p in self.agents}
        rewards = {p: self.episode.reward(p, results) for p in self.agents}
        terms = {p: self.episode.done for p in self.agents}
        truncs = {p: self.episode.done and self.episode.seats[p].budget_cut for p in self.agents}
        infos = {p: self._info(p, results) for p in self.agents}
        for p in self.agents:
            infos[p]["waiting"] = p not in parsed
            if truncs[p]:
                infos[p]["truncated_reason"] = "episode_tool_budget"
            if out.refused.get(p):
                infos[p]["calls_refused"] = out.refused[p]
            if p in out.idle_closed:
                infos[p]["idle_turn_closed"] = True
        self.episode.drain_outcomes()
        if self.episode.done:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        """The shared transcript so far (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        return "\n".join(self.episode.transcript) if self.episode.started else ""

    def close(self) -> None:
        """Nothing to release (in-process world)."""

    def state(self) -> np.ndarray:
        """Global state is text and tables; use :meth:`scores` or the world itself."""
        raise NotImplementedError("VibeLifeParallelEnv has no array state; read env.world instead")

    # ------------------------------------------------------------------ helpers
    @property
    def world(self) -> World | None:
        """The shared world (``None`` before the first reset)."""
        return self.episode.world

    def snapshot(self) -> EpisodeSnapshot:
        """The whole episode state (all seats), picklable; resume with ``reset(options={"snapshot": s})``."""
        return self.episode.snapshot(self._carry)

    def restore(self, snap: EpisodeSnapshot) -> None:
        """Return to a snapshot of this task with the same personas."""
        self.episode.restore(snap)
        self._carry = list(snap.carry)
        self.agents = [] if self.episode.done else list(self.possible_agents)

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every tool of the task, OpenAI function format (the same for every agent)."""
        if self._tool_schemas is None:
            self._tool_schemas = [s for p in providers(self.task) for s in p.openai_tools()]
        return self._tool_schemas

    def read_only_tools(self) -> list[str]:
        """Agent-facing names of the tools that never change state."""
        return [f"{p.name}{NAME_SEP}{t}" for p in providers(self.task) for t, spec in p.tools.items() if spec.read_only]

    def scores(self) -> dict[str, float]:
        """Each persona's score so far, 0-100."""
        return {p: round(100.0 * self.episode.score(p), 6) for p in self.possible_agents}

    @property
    def team_score(self) -> float:
        """The task's overall score so far (all checks), 0-100."""
        return round(100.0 * self.episode.score(), 6)

    def _obs(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        world = self.episode.world
        assert world is not None
        return {"messages": tuple(messages), "time": world.clock.iso(), "stage": int(self.episode.stage)}

    def _info(self, persona: str, results: list[CheckResult]) -> dict[str, Any]:
        ep = self.episode
        world = ep.world
        assert world is not None
        seat = ep.seats[persona]
        event = seat.open
        mine = [r for r in results if ep.counts(persona, r.id)]
        info: dict[str, Any] = {
            "task_id": self.task.id,
            "persona": persona,
            "stage": int(ep.stage),
            "time": world.clock.iso(),
            "turn": seat.turns,
            "event_id": event.id if event else None,
            "event_kind": event.kind if event else None,
            "check_results": [r.to_dict() for r in mine],
            "check_errors": [f"{r.id}: {r.error}" for r in mine if r.error],
            "score": round(100.0 * ep.score(persona), 6),
            "team_score": self.team_score,
            "tool_calls": seat.calls_total,
            "calls_left": dict(zip(("turn", "episode"), ep.calls_left(persona), strict=True)),
            "mutation_errors": [f"{m.event_id}: {m.error}" for m in ep.outcomes if m.status == "failed"],
            "env_version": VERSION,
        }
        if ep.done:
            info["final_score"] = info["score"]
            info["checks"] = [r.to_dict() for r in ep.scorer.results.values() if ep.counts(persona, r.id)]
        return info


def parallel_env(task_dir: str | Path, **kwargs: Any) -> VibeLifeParallelEnv:
    """PettingZoo-style constructor: ``parallel_env("VibeLife-family-grandma-birthday-v0", personas=...)``.

    Args:
        task_dir: A registered env id or a task bundle directory.
        **kwargs: :class:`VibeLifeParallelEnv` options.
    """
    return VibeLifeParallelEnv(task_dir, **kwargs)


def env(task_dir: str | Path, **kwargs: Any) -> Any:
    """The AEC form, through ``pettingzoo.utils.conversions.parallel_to_aec``; arguments as :func:`parallel_env`."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(VibeLifeParallelEnv(task_dir, **kwargs))


def raw_env(task_dir: str | Path, **kwargs: Any) -> Any:
    """The AEC form without PettingZoo's order-enforcing wrapper; arguments as :func:`parallel_env`."""
    from pettingzoo.utils.conversions import parallel_to_aec_wrapper

    return parallel_to_aec_wrapper(VibeLifeParallelEnv(task_dir, **kwargs))
