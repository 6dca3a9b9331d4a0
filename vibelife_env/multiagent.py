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

An episode ends for all agents together: *terminated* when the timeline ran out, *truncated*
when any agent exhausted a tool-call budget (checks not yet evaluated earn nothing).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from vibelife_env.actions import parse_action
from vibelife_env.checks.base import Check, CheckResult
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.checks.scoring import evaluate
from vibelife_env.env import VERSION, default_system_prompt, render_event
from vibelife_env.errors import MutationError, TaskLoadError
from vibelife_env.services.tooling import NAME_SEP
from vibelife_env.spaces import action_space, empty_message, observation_space
from vibelife_env.task.loader import load_task_cached
from vibelife_env.task.models import Event
from vibelife_env.task.mutations import apply_mutation
from vibelife_env.world import World


def persona_prompt(base: str, persona: str, personas: list[str]) -> str:
    """The single-agent system prompt, plus who this assistant serves and who else is there."""
    others = ", ".join(p for p in personas if p != persona) or "nobody"
    return (
        f"{base}\nYou are the assistant of {persona}. Other assistants serve {others} in the same world "
        f"(same services, files and clock). You receive only events addressed to {persona} or to everyone, "
        "and only your own tool results: coordinate through the shared state, do not redo others' work."
    )


class VibeLifeParallelEnv(ParallelEnv):
    """A multi-persona VibeLife task as a PettingZoo ``ParallelEnv``; see the module docstring.

    Args:
        task_dir: The task bundle directory.
        personas: Override the task's ``personas`` (agent ids).
        render_mode: ``"ansi"`` or ``None``.
        max_tool_calls_per_turn: Per agent and turn (default: the task's).
        max_tool_calls_per_episode: Per agent over the episode (default: the task's).
        strict_mutations: Raise when a mutation fails instead of reporting it.

    Raises:
        TaskLoadError: no personas, or an event addressed to an unknown persona.
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
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.task = load_task_cached(task_dir)
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
        self._num_stages = max(s.index for s in self.task.stages) + 1
        base = default_system_prompt(self.task)
        self.system_prompts = {p: persona_prompt(base, p, self.possible_agents) for p in self.possible_agents}
        self._items: list[tuple[str, int, Event | None]] = []
        for s in self.task.stages:
            self._items.extend(("event", s.index, e) for e in s.events)
            self._items.append(("close", s.index, None))
        checks = list(self.task.checks)
        self._applies = {p: [c for c in checks if not c.agents or p in c.agents] for p in self.possible_agents}
        self._total = {p: sum(c.weight for c in cs) for p, cs in self._applies.items()}
        self.world: World | None = None
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
        """Fresh world (same world seed derivation as the single-agent env) and the first round."""
        if seed is not None or not hasattr(self, "_np_random"):
            self._np_random, _ = seeding.np_random(seed)
        world_seed = int(self._np_random.integers(0, 2**31 - 1))
        self.world = World(
            self.task.images, self.task.workspace_files, self.task.start_time, self.task.meta.timezone, world_seed
        )
        self.agents = list(self.possible_agents)
        self.record = EpisodeRecord()
        self.own_records = {p: EpisodeRecord() for p in self.possible_agents}
        self.results: dict[str, CheckResult] = {}
        self._cursor, self._stage, self._done = 0, self.task.stages[0].index, False
        self._open: dict[str, Event] = {}
        self._turns = dict.fromkeys(self.possible_agents, 0)
        self._calls_turn = dict.fromkeys(self.possible_agents, 0)
        self._calls_total = dict.fromkeys(self.possible_agents, 0)
        self._transcript: list[str] = []
        self._mutation_errors: list[str] = []
        # checks frozen before the first round (mutation-only stages) pay out with the first step
        self._carry = self._advance()
        obs, infos = {}, {}
        for p in self.agents:
            messages = [empty_message("system", self.system_prompts[p])]
            if p in self._open:
                messages.append(self._event_message(self._open[p]))
            obs[p] = self._obs(messages)
            infos[p] = self._info(p, [])
            infos[p].update(
                tools=self.tool_schemas(),
                read_only_tools=self.read_only_tools(),
                system_prompt=self.system_prompts[p],
                max_tool_calls_per_turn=self.max_calls_turn,
            )
        return obs, infos

    def step(self, actions: dict[str, Any]):
        """One action per live agent; see the module docstring for rounds and waiting agents.

        Raises:
            RuntimeError: called before ``reset`` or after the episode ended.
            ValueError: an action for an agent that is not live.
            ActionError: an action of no accepted shape (the world is untouched).
        """
        if self.world is None or not self.agents:
            raise RuntimeError("no live agents: call reset()")
        self._mutation_errors = []
        unknown = set(actions) - set(self.agents)
        if unknown:
            raise ValueError(f"actions for agents that are not live: {sorted(unknown)}; live: {self.agents}")
        parsed = {
            p: parse_action(a, id_prefix=f"call_{p}_{self._turns[p]}_{self._calls_turn[p]}")
            for p, a in actions.items()
            if p in self._open
        }
        messages: dict[str, list[dict[str, str]]] = {p: [] for p in self.agents}
        truncated = False
        for p in self.agents:  # fixed persona order: deterministic interleaving of shared writes
            if p not in parsed:
                continue
            action = parsed[p]
            if action.narration:
                self._log(p, "assistant", action.narration)
            for call in action.tool_calls:
                if self._calls_turn[p] >= self.max_calls_turn or self._calls_total[p] >= self.max_calls_episode:
                    truncated = True
                    break
                messages[p].append(self._run_call(p, call))
            if truncated:
                break
            if action.reply is not None:
                self.record.add_reply(self._stage, action.reply)
                self.own_records[p].add_reply(self._stage, action.reply)
                self._log(p, "assistant", action.reply or "(silent)")
                self._turns[p] += 1
                self._calls_turn[p] = 0
                del self._open[p]
        results: list[CheckResult] = []
        if truncated:
            self._done = True
            self._log("system", "system", "tool-call budget exhausted: episode truncated")
        elif not self._open:
            results = self._advance()
            for p, event in self._open.items():
                messages[p].append(self._event_message(event))
        obs = {p: self._obs(messages[p]) for p in self.agents}
        results, self._carry = self._carry + results, []
        rewards = {p: self._reward(p, results) for p in self.agents}
        terms = {p: self._done and not truncated for p in self.agents}
        truncs = {p: truncated for p in self.agents}
        infos = {p: self._info(p, results) for p in self.agents}
        for p in self.agents:
            infos[p]["waiting"] = p not in parsed
            if truncated:
                infos[p]["truncated_reason"] = "tool_call_budget"
        if self._done:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        """The shared transcript so far (``render_mode="ansi"``)."""
        return "\n".join(getattr(self, "_transcript", [])) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release (in-process world)."""

    def state(self) -> np.ndarray:
        """Global state is text and tables; use :meth:`scores` or the world itself."""
        raise NotImplementedError("VibeLifeParallelEnv has no array state; read env.world instead")

    # ------------------------------------------------------------------ helpers
    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every tool of the task, OpenAI function format (the same for every agent)."""
        if self._tool_schemas is None:
            world = self.world or World(self.task.images, {}, self.task.start_time, self.task.meta.timezone)
            self._tool_schemas = world.tool_schemas()
        return self._tool_schemas

    def read_only_tools(self) -> list[str]:
        """Agent-facing names of the tools that never change state."""
        world = self.world or World(self.task.images, {}, self.task.start_time, self.task.meta.timezone)
        out = []
        for name in world.provider_names():
            provider = world.provider(name)
            assert provider is not None
            out.extend(f"{name}{NAME_SEP}{t}" for t, spec in provider.tools.items() if spec.read_only)
        return out

    def scores(self) -> dict[str, float]:
        """Each persona's score so far, 0-100."""
        return {p: self._score(p) for p in self.possible_agents}

    @property
    def team_score(self) -> float:
        """The task's overall score so far (all checks), 0-100."""
        total = sum(c.weight for c in self.task.checks)
        return round(100.0 * sum(r.earned for r in self.results.values()) / total, 6) if total else 0.0

    def _run_call(self, persona: str, call: Any) -> dict[str, str]:
        assert self.world is not None
        self._calls_turn[persona] += 1
        self._calls_total[persona] += 1
        if call.args is None:
            result: Any = {"error": f"{call.name}: {call.parse_error}", "code": "BAD_ARG"}
        else:
            result = self.world.call(call.name, call.args)
        ok = not (isinstance(result, dict) and "error" in result and "code" in result)
        server, _, tool = call.name.partition(NAME_SEP)
        entry = {"id": call.id, "name": call.name, "server": server, "tool": tool, "args": call.args}
        entry.update(ok=ok, result=result, agent=persona)
        self.record.add_call(self._stage, entry)
        self.own_records[persona].add_call(self._stage, entry)
        content = json.dumps(result, ensure_ascii=False, default=str)
        self._log(persona, "tool_call", f"{call.name}({call.raw_arguments})")
        return empty_message("tool", content, call.name, call.id)

    def _addressees(self, event: Event) -> list[str]:
        return [event.to] if event.to is not None else list(self.possible_agents)

    def _advance(self) -> list[CheckResult]:
        """Through the timeline to the next round (or the end); returns newly frozen results."""
        assert self.world is not None
        results: list[CheckResult] = []
        self._open = {}
        while self._cursor < len(self._items):
            kind, stage, event = self._items[self._cursor]
            self._stage = stage
            if kind == "close":
                if self._open:
                    return results
                self._cursor += 1
                results += self._evaluate([c for c in self.task.checks.for_stage(stage)], stage)
                continue
            assert event is not None
            if event.opens_turn:
                who = self._addressees(event)
                first = self._open and next(iter(self._open.values()))
                if first and (event.time != first.time or set(who) & set(self._open)):
                    return results  # the round is complete; this event opens the next one
                self._cursor += 1
                self.world.clock.advance_to(event.time)
                for p in who:
                    self._open[p] = event
                    self._log(p, "event", render_event(event))
                continue
            if self._open:
                return results
            self._cursor += 1
            self.world.clock.advance_to(event.time)
            outcome = apply_mutation(self.world, event, self.task.root)
            if outcome.status == "failed":
                if self.strict_mutations:
                    raise MutationError(f"mutation {event.id} failed: {outcome.error}")
                self._mutation_errors.append(f"{outcome.event_id}: {outcome.error}")
        if self._open:
            return results
        end = [c for t in ("cross_stage", "final", "tool_quality") for c in self.task.checks.for_tier(t)]
        results += self._evaluate(end, None)
        self._done = True
        return results

    def _evaluate(self, checks: list[Check], stage: int | None) -> list[CheckResult]:
        assert self.world is not None
        contexts: dict[str | None, CheckContext] = {}
        out = []
        for check in checks:
            if check.id in self.results:
                continue
            key = next(iter(check.agents)) if len(check.agents) == 1 else None
            if key not in contexts:
                record = self.own_records.get(key, self.record)
                contexts[key] = CheckContext(self.world.fork(), record.copy(), stage)
            result = evaluate(check, contexts[key])
            self.results[check.id] = result
            out.append(result)
        return out

    def _counts(self, persona: str, check_id: str) -> bool:
        return any(c.id == check_id for c in self._applies[persona])

    def _reward(self, persona: str, results: list[CheckResult]) -> float:
        total = self._total[persona]
        earned = sum(r.earned for r in results if self._counts(persona, r.id))
        return earned / total if total else 0.0

    def _score(self, persona: str) -> float:
        total = self._total[persona]
        earned = sum(r.earned for r in self.results.values() if self._counts(persona, r.id))
        return round(100.0 * earned / total, 6) if total else 0.0

    def _event_message(self, event: Event) -> dict[str, str]:
        return empty_message("user", render_event(event), name=event.kind)

    def _obs(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        assert self.world is not None
        return {"messages": tuple(messages), "time": self.world.clock.iso(), "stage": int(self._stage)}

    def _info(self, persona: str, results: list[CheckResult]) -> dict[str, Any]:
        assert self.world is not None
        event = self._open.get(persona)
        mine = [r for r in results if self._counts(persona, r.id)]
        info: dict[str, Any] = {
            "task_id": self.task.id,
            "persona": persona,
            "stage": int(self._stage),
            "time": self.world.clock.iso(),
            "turn": self._turns[persona],
            "event_id": event.id if event else None,
            "event_kind": event.kind if event else None,
            "check_results": [r.to_dict() for r in mine],
            "check_errors": [f"{r.id}: {r.error}" for r in mine if r.error],
            "score": self._score(persona),
            "team_score": self.team_score,
            "tool_calls": self._calls_total[persona],
            "mutation_errors": list(self._mutation_errors),
            "env_version": VERSION,
        }
        if self._done:
            info["final_score"] = info["score"]
            info["checks"] = [r.to_dict() for r in self.results.values() if self._counts(persona, r.id)]
        return info

    def _log(self, persona: str, role: str, text: str) -> None:
        clock = self.world.clock.iso() if self.world else ""
        self._transcript.append(f"[{clock}] {persona}/{role}: {text}")


def parallel_env(task_dir: str | Path, **kwargs: Any) -> VibeLifeParallelEnv:
    """PettingZoo-style constructor: ``parallel_env(task_dir, personas=..., ...)``."""
    return VibeLifeParallelEnv(task_dir, **kwargs)


def env(task_dir: str | Path, **kwargs: Any):
    """The AEC form, through ``pettingzoo.utils.conversions.parallel_to_aec``."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(VibeLifeParallelEnv(task_dir, **kwargs))
