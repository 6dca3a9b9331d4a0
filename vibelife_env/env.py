"""``VibeLifeEnv``: one task = one Gymnasium episode over a world with a clock.

Data flow (see ARCHITECTURE.md)::

    reset(seed)  -> world from cached seeded images; clock at the first event;
                    obs = system prompt + first turn-opening event
    step(action) -> tool calls run in order (results go to the trace and the obs);
                    no reply: the turn continues at the same clock time;
                    reply (""=silence): the turn closes, the clock advances event by event,
                    mutations apply silently, closing stages are scored and frozen,
                    the next turn-opening event becomes the observation
    reward       =  weight newly earned by frozen checks / total weight

The sum of rewards over an episode equals the task score in [0, 1];
``info["score"]`` reports it on 0-100.

*terminated* means the timeline ran out and every tier has been scored. *truncated*
means a tool-call budget (per turn or per episode) was exhausted first; checks not yet
evaluated then earn nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym

from vibelife_env.actions import Action, parse_action
from vibelife_env.checks.base import CheckResult
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.checks.scoring import Scorer
from vibelife_env.errors import MutationError
from vibelife_env.services.registry import service_class
from vibelife_env.services.tooling import NAME_SEP, ToolProvider
from vibelife_env.spaces import action_space, empty_message, observation_space
from vibelife_env.task.loader import Task, load_task_cached
from vibelife_env.task.models import Event
from vibelife_env.task.mutations import MutationOutcome, apply_mutation
from vibelife_env.workspace import Workspace
from vibelife_env.world import World, WorldSnapshot

VERSION = "0.1.0"

_TAGS = {
    "user_message": lambda e: f"[message from {e.sender or 'user'} @ {e.time.isoformat()}]",
    "notification": lambda e: f"[notification @ {e.time.isoformat()}; source={e.channel or e.source or 'system'}]",
    "world": lambda e: f"[world event @ {e.time.isoformat()}; source={e.source or 'system'}]",
}


def render_event(event: Event) -> str:
    """An event as the agent reads it: a tag with kind, time and source, then the body.

    A public-release bundle's events carry the text its own runner renders (language,
    tags and source labels differ per task), made at load time by :mod:`vibelife_env.release`.
    """
    if event.rendered is not None:
        return event.rendered
    tag = _TAGS.get(event.kind, lambda e: f"[{e.kind} @ {e.time.isoformat()}]")(event)
    return f"{tag}\n{event.body.rstrip()}"


def default_system_prompt(task: Task) -> str:
    """The opening prompt: who the agent is, where its workspace is, how turns work."""
    files = ", ".join(sorted(task.workspace_files)) or "(empty)"
    user = task.meta.user_name or "the user"
    lines = [
        f"You are {user}'s long-term personal assistant, working over a multi-week period.",
        f"Task: {task.meta.title or task.meta.name}.",
        f"Your workspace (persistent files you can read and write with the workspace__* tools): {files}.",
        "Read the workspace first: it says whom you serve, their preferences, what you may do on your own "
        "and what needs their authorization.",
        "Tools are named <service>__<tool>. The world changes between turns, sometimes without any "
        "notification: re-check what matters. Checks read only the real state you leave behind "
        "(bookings, mail, notes, files), never your narration.",
        "Each turn opens with a message, notification or observation. Call tools as needed, then end "
        "the turn with a reply to the user; an empty reply means you chose to stay silent.",
    ]
    if task.meta.system_prompt:
        lines.append(task.meta.system_prompt.strip())
    if task.release is not None and task.release.prompt:  # the release bundle's task brief
        lines.append(task.release.prompt)
    return "\n".join(lines)


@dataclass(frozen=True)
class EnvSnapshot:
    """A whole episode state (world + timeline cursor + record + frozen results); picklable."""

    world: WorldSnapshot
    cursor: int
    stage: int
    record: EpisodeRecord
    results: dict[str, CheckResult]
    transcript: tuple[str, ...]
    turn: int
    calls_in_turn: int
    calls_total: int
    done: bool
    current_event_id: str | None
    carry: float = 0.0


class VibeLifeEnv(gym.Env[dict, dict]):
    """A VibeLifeBench task as a Gymnasium environment.

    Args:
        task_dir: The task bundle directory.
        render_mode: ``"ansi"`` for a text transcript, or ``None``.
        max_tool_calls_per_turn: Budget of tool calls within one turn (default: the task's).
        max_tool_calls_per_episode: Budget over the whole episode (default: the task's).
        strict_mutations: Raise when a mutation fails (authoring, validation); otherwise the
            failure is rolled back and listed in ``info["mutation_errors"]``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        task_dir: str | Path,
        render_mode: str | None = None,
        max_tool_calls_per_turn: int | None = None,
        max_tool_calls_per_episode: int | None = None,
        strict_mutations: bool = False,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.task = load_task_cached(task_dir)
        self.render_mode = render_mode
        self.max_calls_turn = max_tool_calls_per_turn or self.task.meta.max_tool_calls_per_turn
        self.max_calls_episode = max_tool_calls_per_episode or self.task.meta.max_tool_calls_per_episode
        self.strict_mutations = strict_mutations
        self._stage_indices = [s.index for s in self.task.stages]
        self.observation_space = observation_space(max(self._stage_indices) + 1)
        self.action_space = action_space()
        self.system_prompt = default_system_prompt(self.task)
        # timeline items: ("event", stage, Event) and ("close", stage, None) after each stage
        self._items: list[tuple[str, int, Event | None]] = []
        for s in self.task.stages:
            self._items.extend(("event", s.index, e) for e in s.events)
            self._items.append(("close", s.index, None))
        self.world: World | None = None
        self._tool_schemas: list[dict[str, Any]] | None = None

    # ------------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start the episode; ``options={"snapshot": EnvSnapshot}`` resumes from a snapshot."""
        super().reset(seed=seed)
        options = options or {}
        if "snapshot" in options:
            self.restore(options["snapshot"])
            return self._observation([empty_message("system", self.system_prompt)]), self._info([])
        world_seed = int(self.np_random.integers(0, 2**31 - 1))
        if self.world is None or not self.world.rewind(world_seed):
            self.world = World(
                self.task.images, self.task.workspace_files, self.task.start_time, self.task.meta.timezone, world_seed
            )
            self.world.mark_start()
        self.record = EpisodeRecord()
        self.scorer = Scorer(self.task.checks)
        self._cursor = 0
        self._stage = self._stage_indices[0]
        self._transcript: list[str] = []
        self._turn = 0
        self._calls_in_turn = 0
        self._calls_total = 0
        self._done = False
        self._current: Event | None = None
        self._mutations: list[MutationOutcome] = []
        self._log("system", self.system_prompt)
        results = self._advance()
        # stages that close before the first turn (mutations only) pay out with the first step
        self._carry = self.scorer.reward(results)
        messages = [empty_message("system", self.system_prompt)]
        if self._current is not None:
            messages.append(self._event_message(self._current))
        obs = self._observation(messages)
        info = self._info(results)
        info["tools"] = self.tool_schemas()
        info["read_only_tools"] = self.read_only_tools()
        info["system_prompt"] = self.system_prompt
        info["max_tool_calls_per_turn"] = self.max_calls_turn
        info["max_tool_calls_per_episode"] = self.max_calls_episode
        return obs, info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        """Run one assistant message. See the module docstring for the turn semantics.

        Raises:
            ActionError: the action has no accepted shape (the world is untouched).
            RuntimeError: the episode is over (call ``reset``).
        """
        if self.world is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        parsed: Action = parse_action(action, id_prefix=f"call_{self._turn}_{self._calls_in_turn}")
        messages: list[dict[str, str]] = []
        truncated = False
        if parsed.narration:
            self._log("assistant", parsed.narration)
        for call in parsed.tool_calls:
            if self._calls_in_turn >= self.max_calls_turn or self._calls_total >= self.max_calls_episode:
                truncated = True
                break
            messages.append(self._run_call(call))
        results: list[CheckResult] = []
        if truncated:
            self._done = True
            self._log("system", "tool-call budget exhausted: episode truncated")
        elif parsed.reply is not None:
            self.record.add_reply(self._stage, parsed.reply)
            self._log("assistant", parsed.reply or "(silent)")
            self._turn += 1
            self._calls_in_turn = 0
            results = self._advance()
            if self._current is not None and not self._done:
                messages.append(self._event_message(self._current))
        reward = self.scorer.reward(results) + self._carry
        self._carry = 0.0
        terminated = self._done and not truncated
        info = self._info(results)
        if truncated:
            info["truncated_reason"] = "tool_call_budget"
        return self._observation(messages), reward, terminated, truncated, info

    def render(self) -> str | None:
        """The transcript so far as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        return "\n".join(getattr(self, "_transcript", []))

    # ------------------------------------------------------------ public helpers
    def _providers(self) -> list[type[ToolProvider]]:
        return [*(service_class(n) for n in self.task.services), Workspace]

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every tool available in this task, OpenAI function format (no reset needed)."""
        if self._tool_schemas is None:
            self._tool_schemas = [s for p in self._providers() for s in p.openai_tools()]
        return self._tool_schemas

    def read_only_tools(self) -> list[str]:
        """Agent-facing names of the tools that never change state (no reset needed)."""
        return [f"{p.name}{NAME_SEP}{t}" for p in self._providers() for t, spec in p.tools.items() if spec.read_only]

    @property
    def score(self) -> float:
        """Score so far in [0, 1]."""
        return self.scorer.score

    @property
    def current_stage(self) -> int:
        """Index of the stage in progress."""
        return self._stage

    def snapshot(self) -> EnvSnapshot:
        """The whole episode state; restore it here or in another process."""
        if self.world is None:
            raise RuntimeError("call reset() before snapshot()")
        return EnvSnapshot(
            self.world.snapshot(),
            self._cursor,
            self._stage,
            self.record.copy(),
            dict(self.scorer.results),
            tuple(self._transcript),
            self._turn,
            self._calls_in_turn,
            self._calls_total,
            self._done,
            self._current.id if self._current else None,
            self._carry,
        )

    def restore(self, snap: EnvSnapshot) -> None:
        """Return to a snapshot taken from an env of the same task."""
        if self.world is None or set(self.world.services) != set(snap.world.images):
            self.world = World.from_snapshot(snap.world)
        else:
            self.world.restore(snap.world)
        self.record = snap.record.copy()
        self.scorer = Scorer(self.task.checks)
        self.scorer.results = dict(snap.results)
        self._cursor, self._stage = snap.cursor, snap.stage
        self._transcript = list(snap.transcript)
        self._turn, self._calls_in_turn, self._calls_total = snap.turn, snap.calls_in_turn, snap.calls_total
        self._done = snap.done
        self._carry = snap.carry
        self._mutations = []
        events = {e.id: e for e in self.task.events}
        self._current = events.get(snap.current_event_id) if snap.current_event_id else None

    def fork(self) -> VibeLifeEnv:
        """A new env of the same task in exactly this state."""
        other = VibeLifeEnv(
            self.task.root, self.render_mode, self.max_calls_turn, self.max_calls_episode, self.strict_mutations
        )
        other.reset()
        other.restore(self.snapshot())
        return other

    def current_observation(self) -> dict:
        """The open turn's event as an observation (e.g. after ``restore``)."""
        messages = [self._event_message(self._current)] if self._current is not None else []
        return self._observation(messages)

    # ----------------------------------------------------------------- internals
    def _run_call(self, call: Any) -> dict[str, str]:
        assert self.world is not None
        self._calls_in_turn += 1
        self._calls_total += 1
        if call.args is None:
            result: Any = {"error": f"{call.name}: {call.parse_error}", "code": "BAD_ARG"}
        else:
            result = self.world.call(call.name, call.args)
        ok = not (isinstance(result, dict) and "error" in result and "code" in result)
        server, _, tool = call.name.partition(NAME_SEP)
        content = json.dumps(result, ensure_ascii=False, default=str)
        self.record.add_call(
            self._stage,
            {
                "id": call.id,
                "name": call.name,
                "server": server,
                "tool": tool,
                "args": call.args,
                "ok": ok,
                "result": result,
            },
        )
        self._log("tool_call", f"{call.name}({call.raw_arguments})")
        self._log("tool", content[:2000])
        return empty_message("tool", content, call.name, call.id)

    def _advance(self) -> list[CheckResult]:
        """Move through the timeline to the next turn-opening event (or the end)."""
        assert self.world is not None
        results: list[CheckResult] = []
        self._current = None
        while self._cursor < len(self._items):
            kind, stage, event = self._items[self._cursor]
            self._cursor += 1
            self._stage = stage
            if kind == "close":
                results += self.scorer.close_stage(stage, self._context_factory(stage))
                continue
            assert event is not None
            self.world.clock.advance_to(event.time)
            if event.opens_turn:
                self._current = event
                self._log("event", render_event(event))
                return results
            outcome = apply_mutation(self.world, event, self.task.root)
            self._mutations.append(outcome)
            if outcome.status == "failed" and self.strict_mutations:
                raise MutationError(f"mutation {event.id} failed: {outcome.error}")
        results += self.scorer.finish(self._context_factory(None))
        self._done = True
        return results

    def _context_factory(self, stage: int | None) -> Any:
        def make() -> CheckContext:
            assert self.world is not None
            sandbox = self.world.sandbox()
            return CheckContext(sandbox.world, self.record.copy(), stage, on_close=sandbox.close)

        return make

    def _event_message(self, event: Event) -> dict[str, str]:
        return empty_message("user", render_event(event), name=event.kind)

    def _observation(self, messages: list[dict[str, str]]) -> dict:
        assert self.world is not None
        return {"messages": tuple(messages), "time": self.world.clock.iso(), "stage": int(self._stage)}

    def _info(self, results: list[CheckResult]) -> dict[str, Any]:
        assert self.world is not None
        failed = [m for m in self._mutations if m.status == "failed"]
        info: dict[str, Any] = {
            "task_id": self.task.id,
            "stage": int(self._stage),
            "time": self.world.clock.iso(),
            "turn": self._turn,
            "event_id": self._current.id if self._current else None,
            "event_kind": self._current.kind if self._current else None,
            "check_results": [r.to_dict() for r in results],
            "check_errors": [f"{r.id}: {r.error}" for r in results if r.error],
            "score": round(100.0 * self.scorer.score, 6),
            "earned_weight": self.scorer.earned,
            "total_weight": self.scorer.total_weight,
            "tool_calls": self._calls_total,
            "mutations_applied": [m.event_id for m in self._mutations if m.status != "failed"],
            "mutation_errors": [f"{m.event_id}: {m.error}" for m in failed],
            "env_version": VERSION,
        }
        self._mutations = []
        if self._done:
            info["final_score"] = info["score"]
            info["checks"] = [r.to_dict() for r in self.scorer.results.values()]
        return info

    def _log(self, role: str, text: str) -> None:
        clock = self.world.clock.iso() if self.world else ""
        self._transcript.append(f"[{clock}] {role}: {text}")
