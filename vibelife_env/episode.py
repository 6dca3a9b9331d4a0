"""The episode engine: one timeline, turns, tool calls, mutations, wake-ups and scoring.

:class:`~vibelife_env.env.VibeLifeEnv` (Gymnasium) and
:class:`~vibelife_env.multiagent.VibeLifeParallelEnv` (PettingZoo) are thin adapters over
one :class:`Episode`; everything that decides what happens in a run lives here.

Seats
    An episode serves one or more *seats* (assistants). The single-agent env has one seat,
    :data:`SOLO`, that receives every event; the multi-agent env has one seat per persona,
    and an event with ``to: <persona>`` reaches only that seat.

Rounds
    The next turn-opening event opens a round for its addressees; further turn-opening
    events at the same time whose addressees are not yet in the round join it. Each seat
    with an open turn acts (tool calls, then a reply that closes its turn). When every
    open turn has closed, the clock advances event by event: mutations apply silently,
    closing stages are scored and frozen, and the next round opens. With one seat a round
    is simply one turn.

Wake-ups
    A seat may schedule its own future turn (``assistant__schedule_wakeup``, see
    :mod:`vibelife_env.scheduler`). A wake-up due at or before the next timeline event
    opens a turn for that seat first, at its own time, in the stage in progress.

Scoring
    Stage checks run when their stage closes, the other tiers when the timeline ends, on a
    sandboxed view of the world (rolled back afterwards) and a copy of the record. A check
    tagged ``agent:<persona>`` sees that seat's own replies and calls; the others see all.
    Results are frozen: a check is evaluated once.

Budgets
    Per seat, per turn and per episode, and stated in the system prompt; they are soft. A
    call over the turn budget is not run: it returns a ``TURN_BUDGET`` error result, the
    world is unchanged and the turn stays open for the reply. A call over the episode
    budget is refused the same way (``EPISODE_BUDGET``); from then on the seat can only
    reply, and the rest of the timeline plays out and is scored as usual. While a turn or
    the episode has :data:`LOW_BUDGET` or fewer calls left, each result says how many
    remain (``tool_calls_left``, in the observation only: the recorded result that checks
    and the public rubrics read is the tool's own). Refused calls are not recorded in the
    trace, and a step whose calls were all refused counts as idle.

Idle steps
    A step in which no open turn makes a tool call or a reply changes nothing. On the
    ``max_idle_steps``-th such step of a turn (default :data:`DEFAULT_MAX_IDLE_STEPS`,
    counted per turn, not only in a row) every open turn closes as a silent reply (``""``),
    exactly as if the assistant had sent one, and the timeline moves on; the seat's next
    observation starts with a system note saying so. An agent that never replies therefore
    still reaches the end of the timeline: a single-agent episode takes at most
    ``max_calls_episode + 1 + max_idle_steps x turns`` steps (turns: turn-opening events
    plus wake-ups).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from vibelife_env.actions import BUDGET_NOTE, Action, ToolCall
from vibelife_env.checks.base import END_TIERS, Check, CheckResult
from vibelife_env.checks.context import CheckContext, EpisodeRecord, Opened, script_context
from vibelife_env.checks.scoring import Scorer
from vibelife_env.checks.text.phrase_sets import asks
from vibelife_env.errors import MutationError
from vibelife_env.release.world import provider_class, world_images
from vibelife_env.scheduler import DEFAULT_MAX_WAKEUPS, Scheduler, Wakeup
from vibelife_env.services.tooling import NAME_SEP, ToolProvider
from vibelife_env.spaces import empty_message
from vibelife_env.task.loader import Task
from vibelife_env.task.models import Event
from vibelife_env.task.mutations import MutationOutcome, apply_mutation
from vibelife_env.workspace import Workspace
from vibelife_env.world import World, WorldSnapshot

#: The one seat of a single-agent episode.
SOLO = "assistant"

#: Steps without a tool call or a reply after which a turn closes in silence.
DEFAULT_MAX_IDLE_STEPS = 3

#: Event ids of the turns the assistant's own wake-ups open start with this.
WAKEUP_PREFIX = "wakeup_"

#: Calls left (in the turn or the episode) from which each result says how many remain.
LOW_BUDGET = 5


#: Error codes of calls refused by a budget (the call is not run).
TURN_BUDGET = "TURN_BUDGET"
EPISODE_BUDGET = "EPISODE_BUDGET"

#: ``info`` keys an agent may see. Everything else (check results, scores, mutations that
#: landed, errors of the world's own scripts) is grading or hidden world data: it goes to
#: logs and evaluation, never to the policy.
AGENT_INFO_KEYS = frozenset(
    {
        "task_id",
        "persona",
        "stage",
        "time",
        "turn",
        "event_id",
        "event_kind",
        "tool_calls",
        "calls_left",
        "calls_refused",
        "tools",
        "read_only_tools",
        "system_prompt",
        "max_tool_calls_per_turn",
        "max_tool_calls_per_episode",
        "max_wakeups",
        "max_idle_steps",
        "idle_turn_closed",
        "waiting",
        "truncated_reason",
        "job",
        "history",
        "env_version",
    }
)


def agent_view(info: Mapping[str, Any]) -> dict[str, Any]:
    """The part of an env ``info`` that may be handed to a policy (see :data:`AGENT_INFO_KEYS`)."""
    return {k: v for k, v in info.items() if k in AGENT_INFO_KEYS}


_TAGS: dict[str, Callable[[Event], str]] = {
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


def wakeup_event(wakeup: Wakeup, stage: int, addressed: bool) -> Event:
    """The turn-opening event of a wake-up the assistant scheduled."""
    body = f"Wake-up you scheduled on {wakeup.created.isoformat()}: {wakeup.note}"
    return Event(
        id=f"{WAKEUP_PREFIX}{wakeup.id}",
        time=wakeup.at,
        kind="cron_fire",
        stage=stage,
        body=body,
        source="assistant",
        to=wakeup.seat if addressed else None,
        rendered=f"[wake-up @ {wakeup.at.isoformat()}; scheduled by you, id={wakeup.id}]\n{body}",
    )


def is_wakeup(event: Event) -> bool:
    """True for the turn-opening event of a wake-up the assistant scheduled (see :func:`wakeup_event`)."""
    return event.source == "assistant" and event.id.startswith(WAKEUP_PREFIX)


def idle_note(limit: int) -> str:
    """The system note that starts a seat's observation after its turn closed for idleness."""
    return (
        f"Your turn was closed as a silent reply: {limit} steps without a tool call or a reply. "
        "To reply, send a message with a reply (an empty reply means silence)."
    )


def providers(task: Task) -> list[type[ToolProvider]]:
    """The tool providers of a task: its services (a public bundle's under their release
    profile, :mod:`vibelife_env.release.world`), the workspace and the wake-up scheduler."""
    return [*(provider_class(task, n) for n in task.services), Workspace, Scheduler]


@dataclass
class Seat:
    """One assistant's turn state and its own record of replies and calls."""

    name: str
    record: EpisodeRecord
    turns: int = 0
    calls_turn: int = 0
    calls_total: int = 0
    open: Event | None = None
    idle: int = 0
    budget_cut: bool = False

    def copy(self, record: EpisodeRecord | None = None) -> Seat:
        """An independent copy (sharing ``record`` when given)."""
        return replace(self, record=record if record is not None else self.record.copy())


@dataclass(frozen=True)
class EpisodeSnapshot:
    """The whole state of an episode (world, timeline position, records, frozen results); picklable."""

    world: WorldSnapshot
    cursor: int
    stage: int
    record: EpisodeRecord
    seats: tuple[Seat, ...]
    results: dict[str, CheckResult]
    transcript: tuple[str, ...]
    done: bool
    carry: tuple[CheckResult, ...] = ()
    #: The task it was taken on (``Task.id``); a restore into another task is refused.
    task_id: str | None = None
    #: The scenario-family instance it was taken on (set by ``FamilyEnv``), which a resume serves.
    instance: int | None = None

    @property
    def turn(self) -> int:
        """Turns closed so far by the first seat (the single-agent turn counter)."""
        return self.seats[0].turns

    @property
    def current_event_id(self) -> str | None:
        """The open turn's event id of the first seat."""
        event = self.seats[0].open
        return event.id if event is not None else None


@dataclass
class StepOutcome:
    """What one step produced: per-seat new messages, newly frozen results, refusals.

    ``idle_closed`` names the seats whose turn closed in silence after idle steps;
    ``refused`` counts, per seat, the calls a budget refused in this step.
    """

    messages: dict[str, list[dict[str, str]]]
    results: list[CheckResult]
    acted: set[str] = field(default_factory=set)
    idle_closed: set[str] = field(default_factory=set)
    refused: dict[str, int] = field(default_factory=dict)


class Episode:
    """One run of a task; see the module docstring.

    Args:
        task: The loaded bundle.
        seats: Seat names; ``(SOLO,)`` for a single assistant, persona names otherwise.
        max_calls_turn: Tool-call budget of one seat's turn.
        max_calls_episode: Tool-call budget of one seat over the episode.
        strict_mutations: Raise :class:`MutationError` when a mutation fails instead of
            rolling it back and reporting it.
        max_wakeups: Wake-ups the assistants may schedule per episode.
        max_idle_steps: Steps of a turn without a tool call or a reply after which the
            turn closes in silence (see the module docstring).
        explain_failures: Give every failed check a reason found by re-running it
            instrumented (:mod:`vibelife_env.checks.explain`); off only for throughput.

    Raises:
        ValueError: seats repeat or are missing, or ``max_idle_steps`` is not a positive int.
    """

    def __init__(
        self,
        task: Task,
        seats: Sequence[str] = (SOLO,),
        *,
        max_calls_turn: int,
        max_calls_episode: int,
        strict_mutations: bool = False,
        max_wakeups: int = DEFAULT_MAX_WAKEUPS,
        max_idle_steps: int = DEFAULT_MAX_IDLE_STEPS,
        explain_failures: bool = True,
    ) -> None:
        self.explain_failures = explain_failures
        if not seats or len(set(seats)) != len(seats):
            raise ValueError(f"seats must be distinct and non-empty, got {list(seats)}")
        if isinstance(max_idle_steps, bool) or not isinstance(max_idle_steps, int) or max_idle_steps < 1:
            raise ValueError(f"max_idle_steps must be a positive int, got {max_idle_steps!r}")
        self.max_idle_steps = max_idle_steps
        self.task = task
        self.seat_names = list(seats)
        self.solo = self.seat_names == [SOLO]
        self.max_calls_turn = max_calls_turn
        self.max_calls_episode = max_calls_episode
        self.strict_mutations = strict_mutations
        self.max_wakeups = max_wakeups
        # timeline items: ("event", stage, Event) and ("close", stage, None) after each stage
        self.items: list[tuple[str, int, Event | None]] = []
        for s in task.stages:
            self.items.extend(("event", s.index, e) for e in s.events)
            self.items.append(("close", s.index, None))
        events = task.events
        self.horizon = max(e.time for e in events) if events else None
        self._applies = {
            s: [c for c in task.checks if self.solo or not c.agents or s in c.agents] for s in self.seat_names
        }
        self._totals = {s: sum(c.weight for c in cs) for s, cs in self._applies.items()}
        self._applies_ids = {s: {c.id for c in cs} for s, cs in self._applies.items()}
        self.world: World | None = None
        self.outcomes: list[MutationOutcome] = []
        self.started = False

    # ---------------------------------------------------------------- lifecycle
    def start(self, world_seed: int, intro: str | None = None) -> list[CheckResult]:
        """Fresh world at the task's start; runs the timeline to the first round.

        Args:
            world_seed: Seed of the world's generator.
            intro: Logged as the transcript's first line (the system prompt).

        Returns:
            Results frozen before the first turn (stages made of mutations only).
        """
        initial = WorldSnapshot(
            images=world_images(self.task),
            files=self.task.workspace_files,
            now=self.task.start_time,
            tz_name=self.task.meta.timezone,
            rng_state=_rng_state(world_seed),
        )
        if self.world is None or set(self.world.services) != set(initial.images):
            self.world = World.from_snapshot(initial)
        else:
            self.world.restore(initial)
        self.world.scheduler.configure(self.horizon, self.max_wakeups)
        self.record = EpisodeRecord()
        self.seats = {s: Seat(s, self.record if self.solo else EpisodeRecord()) for s in self.seat_names}
        self.scorer = Scorer(self.task.checks, self.explain_failures)
        self.cursor = 0
        self.stage = self.task.stages[0].index
        self.transcript: list[str] = []
        self.done = False
        self.outcomes = []
        self.started = True
        if intro is not None:
            self.log(None, "system", intro)
        return self.advance()

    @property
    def open_seats(self) -> dict[str, Event]:
        """Seats with an open turn, in seat order, and the event that opened it."""
        return {s: seat.open for s, seat in self.seats.items() if seat.open is not None}

    def call_prefix(self, seat: str) -> str:
        """Prefix of the tool-call ids of ``seat``'s next action."""
        st = self.seats[seat]
        return f"call_{st.turns}_{st.calls_turn}" if self.solo else f"call_{seat}_{st.turns}_{st.calls_turn}"

    # --------------------------------------------------------------------- step
    def step(self, actions: Mapping[str, Action]) -> StepOutcome:
        """Run one parsed action per seat with an open turn (others are ignored).

        Seats act in seat order, so shared writes interleave deterministically.

        Raises:
            RuntimeError: the episode is over or not started.
        """
        if not self.started or self.world is None:
            raise RuntimeError("call reset() before step()")
        if self.done:
            raise RuntimeError("the episode is over; call reset()")
        out = StepOutcome({s: [] for s in self.seat_names}, [])
        progressed = False
        for name in self.seat_names:
            seat, action = self.seats[name], actions.get(name)
            if seat.open is None or action is None:
                continue
            out.acted.add(name)
            if action.narration:
                self.log(name, "assistant", action.narration)
            for call in action.tool_calls:
                refusal = self.refusal(name)
                if refusal is not None:
                    out.messages[name].append(self.refuse_call(name, call, refusal))
                    out.refused[name] = out.refused.get(name, 0) + 1
                    continue
                out.messages[name].append(self.run_call(name, call))
                progressed = True
            if action.reply is not None:
                self.close_turn(name, action.reply)
                progressed = True
        if not progressed:
            self._idle_step(out)
        if not self.open_seats:
            out.results = self.advance()
            if not self.done:
                for name, event in self.open_seats.items():
                    out.messages[name].append(self.event_message(event))
        return out

    def close_turn(self, seat_name: str, reply: str, note: str = "") -> None:
        """Record ``reply`` (``""``: silence) and close the seat's open turn."""
        seat = self.seats[seat_name]
        event = seat.open
        opened = (
            Opened(
                event.id,
                event.kind,
                event.time.isoformat(),
                wakeup=is_wakeup(event),
                asks=event.kind == "user_message" and asks(event.body),
            )
            if event is not None
            else None
        )
        self.record.add_reply(self.stage, reply, opened)
        if not self.solo:
            seat.record.add_reply(self.stage, reply, opened)
        self.log(seat_name, "assistant", reply or f"(silent{note})")
        seat.turns += 1
        seat.calls_turn = 0
        seat.idle = 0
        seat.open = None

    def _idle_step(self, out: StepOutcome) -> None:
        """Count a step without calls or replies; close the turns that reached the limit."""
        limit = self.max_idle_steps
        for name, seat in self.seats.items():
            if seat.open is None:
                continue
            seat.idle += 1
            if seat.idle >= limit:
                self.close_turn(name, "", f": {limit} steps without a tool call or a reply")
                out.idle_closed.add(name)
                out.messages[name].append(empty_message("system", idle_note(limit)))

    def calls_left(self, seat_name: str) -> tuple[int, int]:
        """Tool calls ``seat_name`` may still make in its open turn and in the episode."""
        seat = self.seats[seat_name]
        return (
            max(self.max_calls_turn - seat.calls_turn, 0),
            max(self.max_calls_episode - seat.calls_total, 0),
        )

    def refusal(self, seat_name: str) -> dict[str, str] | None:
        """The error result a call by ``seat_name`` would get from a budget now (``None``: it may run)."""
        turn_left, episode_left = self.calls_left(seat_name)
        if episode_left == 0:
            return {
                "error": f"the episode's tool-call budget ({self.max_calls_episode} calls) is used up: this call "
                "was not run, and no tool call will run for the rest of the episode. Reply to the user to end "
                "this turn; the remaining turns take replies only.",
                "code": EPISODE_BUDGET,
            }
        if turn_left == 0:
            return {
                "error": f"this turn's tool-call budget ({self.max_calls_turn} calls) is used up: this call was "
                f"not run. Reply to the user to end this turn; the next turn has a fresh budget of "
                f"{self.max_calls_turn} calls.",
                "code": TURN_BUDGET,
            }
        return None

    def refuse_call(self, seat_name: str, call: ToolCall, refusal: dict[str, str]) -> dict[str, str]:
        """Answer a call a budget refused: the world and the record are untouched."""
        if refusal["code"] == EPISODE_BUDGET:
            self.seats[seat_name].budget_cut = True
        content = json.dumps(refusal, ensure_ascii=False)
        self.log(seat_name, "tool_call", f"{call.name}({call.raw_arguments}) [refused: {refusal['code']}]")
        self.log(seat_name, "tool", content)
        return empty_message("tool", content, call.name, call.id)

    def budget_note(self, seat_name: str) -> str | None:
        """``"3 in this turn, 120 in the episode"`` when either is at most :data:`LOW_BUDGET`."""
        turn_left, episode_left = self.calls_left(seat_name)
        if min(turn_left, episode_left) > LOW_BUDGET:
            return None
        return f"{turn_left} in this turn, {episode_left} in the episode"

    def run_call(self, seat_name: str, call: ToolCall) -> dict[str, str]:
        """Run one tool call for a seat; record it; the tool message for the observation.

        The message carries the result, and ``tool_calls_left`` while the budget is low
        (see the module docstring); the record keeps the result as the tool returned it.
        """
        assert self.world is not None
        seat = self.seats[seat_name]
        seat.calls_turn += 1
        seat.calls_total += 1
        if call.args is None:
            result: Any = {"error": f"{call.name[:80]}: {call.parse_error}", "code": "BAD_ARG"}
        else:
            result = self.world.call(call.name, call.args, caller=seat_name)
        ok = not (isinstance(result, dict) and "error" in result and "code" in result)
        server, _, tool = call.name.partition(NAME_SEP)
        entry: dict[str, Any] = {
            "id": call.id,
            "name": call.name,
            "server": server,
            "tool": tool,
            "args": call.args,
            "ok": ok,
            "result": result,
        }
        if not self.solo:
            entry["agent"] = seat_name
            seat.record.add_call(self.stage, entry)
        self.record.add_call(self.stage, entry)
        content = json.dumps(result, ensure_ascii=False, default=str)
        self.log(seat_name, "tool_call", f"{call.name}({call.raw_arguments})")
        self.log(seat_name, "tool", content[:2000])
        note = self.budget_note(seat_name)
        if note is not None:
            shown = {**result} if isinstance(result, dict) else {"result": result}
            shown[BUDGET_NOTE] = note
            content = json.dumps(shown, ensure_ascii=False, default=str)
        return empty_message("tool", content, call.name, call.id)

    # ----------------------------------------------------------------- timeline
    def _addressees(self, event: Event) -> list[str]:
        if self.solo:
            return [SOLO]
        return [event.to] if event.to is not None else list(self.seat_names)

    def _joins_round(self, event: Event, who: list[str]) -> bool:
        """True when ``event`` may open turns in the round being assembled."""
        opened = self.open_seats
        if not opened:
            return True
        first = next(iter(opened.values()))
        return event.time == first.time and not set(who) & set(opened)

    def _open(self, event: Event, who: list[str]) -> None:
        assert self.world is not None
        self.world.clock.advance_to(event.time)
        if event.facts is not None:
            event = self._render_facts(event)
        for name in who:
            self.seats[name].open = event
            self.log(name, "event", render_event(event))

    def _render_facts(self, event: Event) -> Event:
        """The event with its body rendered from what the world holds now (see ``Event.facts``)."""
        assert self.world is not None and event.facts is not None
        with self.world.sandbox():
            facts = self.task.resolve(event.facts)(script_context(self.world))
        try:
            body = event.body.format_map(dict(facts))
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            raise MutationError(f"event {event.id}: cannot render its body from {event.facts}: {exc!r}") from None
        return event.model_copy(update={"body": body})

    def advance(self) -> list[CheckResult]:
        """Move through the timeline to the next round (or the end); newly frozen results."""
        assert self.world is not None
        results: list[CheckResult] = []
        while self.cursor < len(self.items):
            kind, stage, event = self.items[self.cursor]
            self.stage = stage
            if kind == "close":
                if self.open_seats:
                    return results
                self.cursor += 1
                results += self._score(self.task.checks.for_stage(stage), stage)
                continue
            assert event is not None
            due = self.world.scheduler.next_due(event.time)
            if due is not None:
                wake = wakeup_event(due, stage, addressed=not self.solo)
                who = self._addressees(wake)
                if not self._joins_round(wake, who):
                    return results
                self.world.scheduler.mark_fired(due.id)
                self._open(wake, who)
                continue
            if event.opens_turn:
                who = self._addressees(event)
                if not self._joins_round(event, who):
                    return results
                self.cursor += 1
                self._open(event, who)
                continue
            if self.open_seats:
                return results
            self.cursor += 1
            self.world.clock.advance_to(event.time)
            outcome = apply_mutation(self.world, event, self.task.root, self.task.resolve, script_context)
            self.outcomes.append(outcome)
            if outcome.status == "failed" and self.strict_mutations:
                raise MutationError(f"mutation {event.id} failed: {outcome.error}")
        if self.open_seats:
            return results
        results += self._score([c for t in END_TIERS for c in self.task.checks.for_tier(t)], None)
        self.done = True
        return results

    # ------------------------------------------------------------------ scoring
    def _score(self, checks: list[Check], stage: int | None) -> list[CheckResult]:
        """Evaluate and freeze ``checks`` on one sandboxed view of the world."""
        world = self.world
        assert world is not None
        pending = [c for c in checks if c.id not in self.scorer.results]
        if not pending:
            return []
        contexts: dict[str | None, CheckContext] = {}

        def context_for(check: Check) -> CheckContext:
            key = next(iter(check.agents)) if not self.solo and len(check.agents) == 1 else None
            if key not in contexts:
                record = self.seats[key].record if key in self.seats else self.record
                contexts[key] = CheckContext(world, record.copy(), stage, initial=self.task.images)
            return contexts[key]

        with world.sandbox():
            try:
                return self.scorer.evaluate(pending, context_for)
            finally:
                for ctx in contexts.values():
                    ctx.close()

    @contextmanager
    def check_context(self, stage: int | None, seat: str | None = None) -> Iterator[CheckContext]:
        """A check context as scoring would build it now (for tests and authoring tools).

        Args:
            stage: The stage being scored (``None``: the end tiers).
            seat: Give the context that seat's own record instead of everyone's.
        """
        assert self.world is not None
        record = self.seats[seat].record if seat is not None else self.record
        with self.world.sandbox():
            ctx = CheckContext(self.world, record.copy(), stage, initial=self.task.images)
            try:
                yield ctx
            finally:
                ctx.close()

    def counts(self, seat: str, check_id: str) -> bool:
        """True when ``check_id`` counts toward ``seat``'s reward."""
        return check_id in self._applies_ids[seat]

    def reward(self, seat: str, results: Sequence[CheckResult]) -> float:
        """Weight newly earned by ``results`` for ``seat`` over the weight that counts for it."""
        total = self._totals[seat]
        return sum(r.earned for r in results if self.counts(seat, r.id)) / total if total else 0.0

    def score(self, seat: str | None = None) -> float:
        """Score so far in [0, 1]: a seat's own, or (``None``) the task's over all checks."""
        if seat is None:
            return self.scorer.score
        total = self._totals[seat]
        earned = sum(r.earned for r in self.scorer.results.values() if self.counts(seat, r.id))
        return earned / total if total else 0.0

    def drain_outcomes(self) -> list[MutationOutcome]:
        """Mutation outcomes since the last call (for ``info``)."""
        out, self.outcomes = self.outcomes, []
        return out

    # ---------------------------------------------------------------- snapshots
    def snapshot(self, carry: Sequence[CheckResult] = ()) -> EpisodeSnapshot:
        """The whole episode state; restore it here or in another process.

        Raises:
            RuntimeError: the episode was never started.
        """
        if self.world is None or not self.started:
            raise RuntimeError("call reset() before snapshot()")
        record = self.record.copy()
        seats = tuple(st.copy(record if self.solo else None) for st in self.seats.values())
        return EpisodeSnapshot(
            self.world.snapshot(),
            self.cursor,
            self.stage,
            record,
            seats,
            dict(self.scorer.results),
            tuple(self.transcript),
            self.done,
            tuple(carry),
            self.task.id,
        )

    def restore(self, snap: EpisodeSnapshot) -> None:
        """Return to a snapshot taken from an episode of the same task and seats.

        Raises:
            ValueError: the snapshot was taken on another task, or its seats differ from
                this episode's.
        """
        if snap.task_id is not None and snap.task_id != self.task.id:
            raise ValueError(f"the snapshot was taken on task {snap.task_id!r}; this episode plays {self.task.id!r}")
        names = [s.name for s in snap.seats]
        if names != self.seat_names:
            raise ValueError(f"snapshot seats {names} differ from this episode's {self.seat_names}")
        if self.world is None or set(self.world.services) != set(snap.world.images):
            self.world = World.from_snapshot(snap.world)
        else:
            self.world.restore(snap.world)
        self.record = snap.record.copy()
        self.seats = {s.name: s.copy(self.record if self.solo else None) for s in snap.seats}
        self.scorer = Scorer(self.task.checks, self.explain_failures)
        self.scorer.results = dict(snap.results)
        self.cursor, self.stage, self.done = snap.cursor, snap.stage, snap.done
        self.transcript = list(snap.transcript)
        self.outcomes = []
        self.started = True

    # ------------------------------------------------------------------ helpers
    def event_message(self, event: Event) -> dict[str, str]:
        """An event as an observation message."""
        return empty_message("user", render_event(event), name=event.kind)

    def log(self, seat: str | None, role: str, text: str) -> None:
        """Append a transcript line (``[time] role: text``, or ``seat/role`` with several seats)."""
        clock = self.world.clock.iso() if self.world else ""
        who = role if self.solo else f"{seat or 'system'}/{role}"
        self.transcript.append(f"[{clock}] {who}: {text}")


def _rng_state(seed: int) -> Mapping[str, Any]:
    import numpy as np

    return np.random.default_rng(seed).bit_generator.state
