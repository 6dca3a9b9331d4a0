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

*terminated* means the timeline ran out and every tier has been scored: every episode
ends that way. *truncated* comes with it on that last step when the agent's tool calls
were cut short by the episode budget. Tool-call budgets are stated in the system prompt
and soft: a call over the turn budget is refused with a ``TURN_BUDGET`` error result (the
world unchanged, the turn open for the reply); a call over the episode budget is refused
with ``EPISODE_BUDGET``, after which the agent can only reply while the rest of the
timeline plays out and is scored. So the return always equals the score. Registered ids
also carry Gymnasium's ``max_episode_steps``
(:data:`vibelife_env.registration.MAX_EPISODE_STEPS`), a backstop set above what the
engine's own limits allow for every bundled task.

*Idle steps* never loop forever: a step with neither a tool call nor a reply leaves the
turn open, but the ``max_idle_steps``-th such step of a turn (default 3) closes it as a
silent reply (``""``), exactly as if the agent had sent one; the episode goes on (it is
not truncated), ``info["idle_turn_closed"]`` is true and the next observation starts with
a system note saying so. An agent that never replies thus plays the timeline through in
silence and is *terminated* at its end, like one that always replies ``""``.

The timeline, turns, calls, mutations, wake-ups and scoring live in
:class:`vibelife_env.episode.Episode`; this class adapts it to Gymnasium.

``info`` carries grading and world data (check results, score, mutations that landed)
for logging and evaluation. Hand a policy only :func:`vibelife_env.episode.agent_view`
of it: the runners, ``vibelife run`` and ``vibelife rollout`` do.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import gymnasium as gym

from vibelife_env.actions import Action, parse_action
from vibelife_env.bundle import load_task_cached
from vibelife_env.checks.base import CheckResult
from vibelife_env.checks.context import EpisodeRecord
from vibelife_env.checks.kinds import QUIET_RULE
from vibelife_env.checks.scoring import Scorer
from vibelife_env.episode import (
    DEFAULT_MAX_IDLE_STEPS,
    SOLO,
    Episode,
    EpisodeSnapshot,
    agent_view,
    providers,
    render_event,
)
from vibelife_env.scheduler import DEFAULT_MAX_WAKEUPS
from vibelife_env.services.tooling import NAME_SEP
from vibelife_env.spaces import action_space, empty_message, observation_space
from vibelife_env.task.loader import Task
from vibelife_env.world import World

__all__ = ["VERSION", "EnvSnapshot", "VibeLifeEnv", "agent_view", "base_env", "default_system_prompt", "render_event"]

VERSION = "0.2.0"

#: The episode state an env snapshot holds (see :class:`vibelife_env.episode.EpisodeSnapshot`).
EnvSnapshot = EpisodeSnapshot


def budget_lines(
    max_calls_turn: int, max_calls_episode: int, max_wakeups: int, horizon: datetime | None = None
) -> list[str]:
    """The system prompt's statement of the limits the agent is held to (``horizon``: the end of the
    timeline, after which a wake-up is refused)."""
    until = f", none later than the end of the timeline ({horizon.isoformat()})" if horizon is not None else ""
    return [
        f"Limits: at most {max_calls_turn} tool calls per turn and {max_calls_episode} over the whole episode, "
        f"and at most {max_wakeups} wake-ups{until}. A call over the turn limit is not run (it returns a TURN_BUDGET "
        "error) and the turn waits for your reply; the next turn starts afresh. Once the episode limit is used "
        "up, tool calls are refused (EPISODE_BUDGET) and you can only reply. When 5 or fewer calls are left, "
        "results say how many (tool_calls_left).",
    ]


def default_system_prompt(
    task: Task,
    *,
    max_calls_turn: int | None = None,
    max_calls_episode: int | None = None,
    max_wakeups: int = DEFAULT_MAX_WAKEUPS,
) -> str:
    """The opening prompt: who the assistant is, where its workspace is, how turns work, its limits.

    Args:
        task: The task.
        max_calls_turn: The per-turn tool-call budget (default: the task's).
        max_calls_episode: The per-episode tool-call budget (default: the task's).
        max_wakeups: Wake-ups the assistant may schedule.
    """
    files = ", ".join(sorted(task.workspace_files)) or "(empty)"
    user = task.meta.user_name or "the user"
    lines = [
        f"You are {user}'s long-term personal assistant, working over a multi-week period.",
        f"Task: {task.meta.title or task.meta.name}.",
        f"Your workspace (persistent files you can read and write with the workspace__* tools): {files}.",
        "Read the workspace first: it says whom you serve, their preferences, what you may do on your own "
        "and what needs their authorization.",
        "Tools are named <service>__<tool>. The world changes between turns, sometimes without any "
        "notification: re-check what matters.",
        "Each turn opens with a message, notification or observation. Call tools as needed, then end "
        "the turn with a reply to the user; an empty reply means you chose to stay silent, which is right "
        "when nothing needs their attention.",
        f"When a turn needs nothing from {user} (a routine review where nothing changed), {QUIET_RULE.text}; "
        f"a question {user} asks always deserves its answer."
        if task.release is None
        else "",
        f"What {user} expects is the work itself, done in the world (bookings, payments, mail, calendar, "
        "notes and files kept correct and up to date), and replies that tell them, truthfully, what they "
        "need to know or decide. Saying that something was done does not do it.",
        "To follow something up later without waiting to be asked, schedule a turn of your own with "
        "assistant__schedule_wakeup.",
        *budget_lines(
            max_calls_turn or task.meta.max_tool_calls_per_turn,
            max_calls_episode or task.meta.max_tool_calls_per_episode,
            max_wakeups,
            max((e.time for e in task.events), default=None),
        ),
    ]
    lines = [line for line in lines if line]
    if task.meta.system_prompt:
        lines.append(task.meta.system_prompt.strip())
    if task.release is not None and task.release.prompt:  # the release bundle's task brief
        lines.append(task.release.prompt)
    return "\n".join(lines)


class VibeLifeEnv(gym.Env[dict, dict]):
    """A VibeLifeBench task as a Gymnasium environment.

    Args:
        task_dir: The task bundle directory.
        render_mode: ``"ansi"`` for a text transcript, or ``None``.
        max_tool_calls_per_turn: Budget of tool calls within one turn (default: the task's).
        max_tool_calls_per_episode: Budget over the whole episode (default: the task's).
        strict_mutations: Raise when a mutation fails (authoring, validation); otherwise the
            failure is rolled back and listed in ``info["mutation_errors"]``.
        max_wakeups: Wake-ups the assistant may schedule per episode.
        task: A loaded or generated task, instead of ``task_dir``.
        max_stages: Bound of the observation's ``stage`` space (default: the task's stages).
        max_idle_steps: Steps of a turn with neither a tool call nor a reply after which
            the turn closes as a silent reply (see the module docstring).
        explain_failures: Give every failed check a reason in ``info`` (default); ``False``
            skips the instrumented re-run that finds it, for throughput (rewards are the same).

    Raises:
        ValueError: a bad ``render_mode``, both or neither of ``task_dir`` and ``task``,
            or ``max_idle_steps`` is not a positive int.
    """

    # gymnasium declares ``metadata`` as a plain (instance) attribute and reads it off the class
    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        task_dir: str | Path | None = None,
        render_mode: str | None = None,
        max_tool_calls_per_turn: int | None = None,
        max_tool_calls_per_episode: int | None = None,
        strict_mutations: bool = False,
        max_wakeups: int = DEFAULT_MAX_WAKEUPS,
        *,
        task: Task | None = None,
        max_stages: int | None = None,
        max_idle_steps: int = DEFAULT_MAX_IDLE_STEPS,
        explain_failures: bool = True,
    ) -> None:
        self.explain_failures = explain_failures
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if task is None and task_dir is not None:
            task = load_task_cached(task_dir)
        elif task is None or task_dir is not None:
            raise ValueError("give exactly one of task_dir (a bundle folder) or task (a loaded or generated Task)")
        self.render_mode = render_mode
        self.strict_mutations = strict_mutations
        self.max_wakeups = max_wakeups
        self.max_idle_steps = max_idle_steps
        self._limits = (max_tool_calls_per_turn, max_tool_calls_per_episode)
        self.use_task(task)
        self._max_stages = max_stages or max(s.index for s in self.task.stages) + 1
        self.observation_space = observation_space(self._max_stages)
        self.action_space = action_space()

    def use_task(self, task: Task) -> None:
        """Serve ``task`` from the next ``reset`` on (scenario families switch instances here)."""
        self.task = task
        self.max_calls_turn = self._limits[0] or task.meta.max_tool_calls_per_turn
        self.max_calls_episode = self._limits[1] or task.meta.max_tool_calls_per_episode
        self.system_prompt = self._prompt()
        self.episode = Episode(
            task,
            (SOLO,),
            max_calls_turn=self.max_calls_turn,
            max_calls_episode=self.max_calls_episode,
            strict_mutations=self.strict_mutations,
            max_wakeups=self.max_wakeups,
            max_idle_steps=self.max_idle_steps,
            explain_failures=self.explain_failures,
        )
        self._carry: list[CheckResult] = []
        self._tool_schemas: list[dict[str, Any]] | None = None

    def set_budgets(self, per_turn: int, per_episode: int) -> None:
        """Use these tool-call budgets from the next ``reset`` on (the system prompt states them).

        Raises:
            ValueError: a budget below 1.
        """
        if per_turn < 1 or per_episode < 1:
            raise ValueError(f"budgets must be >= 1, got per_turn={per_turn}, per_episode={per_episode}")
        self._limits = (per_turn, per_episode)
        self.max_calls_turn, self.max_calls_episode = per_turn, per_episode
        self.episode.max_calls_turn, self.episode.max_calls_episode = per_turn, per_episode
        self.system_prompt = self._prompt()

    def _prompt(self) -> str:
        return default_system_prompt(
            self.task,
            max_calls_turn=self.max_calls_turn,
            max_calls_episode=self.max_calls_episode,
            max_wakeups=self.max_wakeups,
        )

    # ------------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start the episode; ``options={"snapshot": EnvSnapshot}`` resumes from a snapshot.

        Resuming returns the system prompt and the open turn's event as the observation.
        """
        super().reset(seed=seed)
        options = options or {}
        if "snapshot" in options:
            self.restore(options["snapshot"])
            messages = [empty_message("system", self.system_prompt)]
            if self._seat.open is not None:
                messages.append(self.episode.event_message(self._seat.open))
            return self._observation(messages), self._reset_info([])
        world_seed = int(self.np_random.integers(0, 2**31 - 1))
        results = self.episode.start(world_seed, intro=self.system_prompt)
        # stages that close before the first turn (mutations only) pay out with the first step
        self._carry = list(results)
        messages = [empty_message("system", self.system_prompt)]
        if self._seat.open is not None:
            messages.append(self.episode.event_message(self._seat.open))
        return self._observation(messages), self._reset_info(results)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        """Run one assistant message. See the module docstring for the turn semantics.

        Raises:
            ActionError: the action has no accepted shape (the world is untouched).
            RuntimeError: the episode is over, or was never reset.
        """
        if not self.episode.started:
            raise RuntimeError("call reset() before step()")
        if self.episode.done:
            raise RuntimeError("the episode is over; call reset()")
        parsed: Action = parse_action(action, id_prefix=self.episode.call_prefix(SOLO))
        out = self.episode.step({SOLO: parsed})
        results = [*self._carry, *out.results]
        self._carry = []
        reward = self.episode.reward(SOLO, results)
        terminated = self.episode.done
        truncated = terminated and self._seat.budget_cut
        info = self._info(out.results)
        if truncated:
            info["truncated_reason"] = "episode_tool_budget"
        if out.refused:
            info["calls_refused"] = out.refused[SOLO]
        if out.idle_closed:
            info["idle_turn_closed"] = True
        return self._observation(out.messages[SOLO]), reward, terminated, truncated, info

    def render(self) -> str | None:
        """The transcript so far as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        return "\n".join(self.episode.transcript) if self.episode.started else ""

    # ------------------------------------------------------------ public helpers
    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every tool available in this task, OpenAI function format (no reset needed)."""
        if self._tool_schemas is None:
            self._tool_schemas = [s for p in providers(self.task) for s in p.openai_tools()]
        return self._tool_schemas

    def read_only_tools(self) -> list[str]:
        """Agent-facing names of the tools that never change state (no reset needed)."""
        return [f"{p.name}{NAME_SEP}{t}" for p in providers(self.task) for t, spec in p.tools.items() if spec.read_only]

    @property
    def world(self) -> World | None:
        """The episode's world (``None`` before the first reset)."""
        return self.episode.world

    @property
    def record(self) -> EpisodeRecord:
        """What the agent said and did so far, per stage."""
        return self.episode.record

    @property
    def scorer(self) -> Scorer:
        """The frozen check results so far."""
        return self.episode.scorer

    @property
    def score(self) -> float:
        """Score so far in [0, 1]."""
        return self.episode.score()

    @property
    def current_stage(self) -> int:
        """Index of the stage in progress."""
        return self.episode.stage

    @property
    def turn(self) -> int:
        """Turns closed so far."""
        return self._seat.turns

    @property
    def in_turn(self) -> bool:
        """True while a turn is open (the next step continues it)."""
        return self._seat.open is not None

    def next_call_prefix(self) -> str:
        """Prefix of the tool-call ids the next step will assign (``call_<turn>_<n>``)."""
        return self.episode.call_prefix(SOLO)

    def snapshot(self) -> EnvSnapshot:
        """The whole episode state, at any step; restore it here or in another process.

        Raises:
            RuntimeError: before the first reset.
        """
        return self.episode.snapshot(self._carry)

    def restore(self, snap: EnvSnapshot) -> None:
        """Return to a snapshot taken from an env of the same task."""
        self.episode.restore(snap)
        self._carry = list(snap.carry)

    def fork(self) -> VibeLifeEnv:
        """A new env of the same task in exactly this state."""
        other = VibeLifeEnv(
            None,
            self.render_mode,
            self.max_calls_turn,
            self.max_calls_episode,
            self.strict_mutations,
            self.max_wakeups,
            task=self.task,
            max_stages=self._max_stages,
            max_idle_steps=self.max_idle_steps,
            explain_failures=self.explain_failures,
        )
        other.restore(self.snapshot())
        return other

    def current_observation(self) -> dict:
        """The open turn's event as an observation (e.g. after ``restore``)."""
        event = self._seat.open
        return self._observation([self.episode.event_message(event)] if event is not None else [])

    # ----------------------------------------------------------------- internals
    @property
    def _seat(self) -> Any:
        return self.episode.seats[SOLO]

    def _observation(self, messages: list[dict[str, str]]) -> dict:
        world = self.episode.world
        assert world is not None
        return {"messages": tuple(messages), "time": world.clock.iso(), "stage": int(self.episode.stage)}

    def _reset_info(self, results: list[CheckResult]) -> dict[str, Any]:
        info = self._info(results)
        info["tools"] = self.tool_schemas()
        info["read_only_tools"] = self.read_only_tools()
        info["system_prompt"] = self.system_prompt
        info["max_tool_calls_per_turn"] = self.max_calls_turn
        info["max_tool_calls_per_episode"] = self.max_calls_episode
        info["max_wakeups"] = self.max_wakeups
        info["max_idle_steps"] = self.max_idle_steps
        return info

    def _info(self, results: list[CheckResult]) -> dict[str, Any]:
        ep = self.episode
        world = ep.world
        assert world is not None
        outcomes = ep.drain_outcomes()
        event = self._seat.open
        info: dict[str, Any] = {
            "task_id": self.task.id,
            "stage": int(ep.stage),
            "time": world.clock.iso(),
            "turn": self._seat.turns,
            "event_id": event.id if event else None,
            "event_kind": event.kind if event else None,
            "check_results": [r.to_dict() for r in results],
            "check_errors": [f"{r.id}: {r.error}" for r in results if r.error],
            "score": round(100.0 * ep.score(), 6),
            "earned_weight": ep.scorer.earned,
            "total_weight": ep.scorer.total_weight,
            "tool_calls": self._seat.calls_total,
            "calls_left": dict(zip(("turn", "episode"), ep.calls_left(SOLO), strict=True)),
            "mutations_applied": [m.event_id for m in outcomes if m.status != "failed"],
            "mutation_errors": [f"{m.event_id}: {m.error}" for m in outcomes if m.status == "failed"],
            "env_version": VERSION,
        }
        if ep.done:
            info["final_score"] = info["score"]
            info["checks"] = [r.to_dict() for r in ep.scorer.results.values()]
        return info


def base_env(env: gym.Env) -> VibeLifeEnv:
    """The :class:`VibeLifeEnv` under any wrappers (``env.unwrapped``, typed).

    Raises:
        TypeError: ``env`` is not a VibeLife env, wrapped or not.
    """
    base = env.unwrapped
    if not isinstance(base, VibeLifeEnv):
        raise TypeError(f"expected a VibeLife env (wrapped or not), got {type(base).__name__}")
    return base
