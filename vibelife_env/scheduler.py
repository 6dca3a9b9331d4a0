"""Agent-scheduled wake-ups: the assistant books its own future turn.

A proactive assistant does not wait to be asked. With ``assistant__schedule_wakeup`` it
asks to be woken at a virtual time ("5 May 07:00, re-check the typhoon forecast"); the
episode engine inserts that wake-up into the timeline as a turn-opening event at that
time, so the assistant gets a turn of its own even when nobody writes to it.

Rules (stated in the tool descriptions, so the agent can see them):

- the time must be strictly after now and no later than the end of the task's timeline;
- at most ``max_wakeups`` wake-ups per episode (cancelled ones count too: the budget is
  for scheduling, not for pending entries);
- a wake-up due at the same time as a timeline event fires before it; a wake-up due after
  the last event of a stage fires after that stage has been scored, in the next stage.

The schedule is part of the world (snapshots, forks and the digest cover it), so checks
can read it through :attr:`World.scheduler`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from vibelife_env.clock import VirtualClock, parse_time
from vibelife_env.errors import ToolError
from vibelife_env.services.tooling import ToolProvider, tool

#: Default number of wake-ups an assistant may schedule in one episode.
DEFAULT_MAX_WAKEUPS = 20
MAX_NOTE_CHARS = 500


@dataclass(frozen=True)
class Wakeup:
    """One scheduled wake-up.

    Attributes:
        id: ``wk_<n>``, in scheduling order.
        at: When it fires (the task's zone).
        note: What the assistant wanted to do then (shown back in the wake-up turn).
        seat: Who scheduled it (the assistant's seat; a persona in multi-agent tasks).
        created: When it was scheduled.
        status: ``pending``, ``fired`` or ``cancelled``.
    """

    id: str
    at: datetime
    note: str
    seat: str
    created: datetime
    status: str = "pending"

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape the tools return."""
        return {
            "wakeup_id": self.id,
            "at": self.at.isoformat(),
            "note": self.note,
            "status": self.status,
            "scheduled_at": self.created.isoformat(),
        }


@dataclass(frozen=True)
class SchedulerState:
    """The scheduler's whole state (plain, picklable data)."""

    entries: tuple[Wakeup, ...] = ()
    horizon: datetime | None = None
    max_wakeups: int = DEFAULT_MAX_WAKEUPS


class Scheduler(ToolProvider):
    """The ``assistant__*`` tools: schedule, list and cancel the assistant's own wake-ups.

    Args:
        clock: The world's clock ("now" for validation).
        state: Initial state (an empty schedule by default).
    """

    name = "assistant"

    def __init__(self, clock: VirtualClock, state: SchedulerState | None = None) -> None:
        self.clock = clock
        self.state = state or SchedulerState()
        #: the seat whose tool call is running (set by the episode engine around each call)
        self.caller = "assistant"

    # ------------------------------------------------------------- atomicity
    def checkpoint(self) -> SchedulerState:
        """The schedule before a call (it is immutable data: keeping the reference is enough)."""
        return self.state

    def rollback(self, saved: SchedulerState) -> None:
        """Put the schedule back after a failed call."""
        self.state = saved

    # ---------------------------------------------------------------- engine side
    def configure(self, horizon: datetime | None, max_wakeups: int) -> None:
        """Set the latest allowed time and the per-episode budget (at episode start)."""
        self.state = replace(self.state, horizon=horizon, max_wakeups=max_wakeups)

    def next_due(self, until: datetime) -> Wakeup | None:
        """The earliest pending wake-up at or before ``until`` (ties: scheduling order)."""
        due = [w for w in self.state.entries if w.status == "pending" and w.at <= until]
        return min(due, key=lambda w: (w.at, int(w.id[3:]))) if due else None

    def mark_fired(self, wakeup_id: str) -> None:
        """Record that a wake-up opened its turn."""
        self._set_status(wakeup_id, "fired")

    def pending(self) -> list[Wakeup]:
        """Wake-ups that have not fired or been cancelled, in time order."""
        return sorted((w for w in self.state.entries if w.status == "pending"), key=lambda w: w.at)

    def digest_text(self) -> str:
        """A stable text of the whole state, for :meth:`World.digest`."""
        return repr(self.state)

    def _set_status(self, wakeup_id: str, status: str) -> None:
        entries = tuple(replace(w, status=status) if w.id == wakeup_id else w for w in self.state.entries)
        self.state = replace(self.state, entries=entries)

    # ----------------------------------------------------------------- tools
    @tool
    def schedule_wakeup(self, at: str, note: str) -> dict[str, Any]:
        """Schedule a turn of your own at a future time, to follow something up without being asked.

        At that time you receive a wake-up turn showing your note, like any other event. The
        time must be after now and no later than the end of the task's timeline; a limited
        number of wake-ups can be scheduled per episode (the error says how many).

        Args:
            at: When to wake you, ISO 8601 (e.g. 2026-05-05T07:00:00+09:00; without an offset, the task's time zone).
            note: What you mean to do then (up to 500 characters).
        """
        try:
            when = parse_time(at, self.clock.tz).astimezone(self.clock.tz)
        except (TypeError, ValueError):
            raise ToolError("BAD_ARG", f"argument 'at': expected an ISO 8601 date-time, got {at[:60]!r}") from None
        now = self.clock.now()
        if when <= now:
            raise ToolError("BAD_ARG", f"argument 'at': {when.isoformat()} is not after now ({now.isoformat()})")
        horizon = self.state.horizon
        if horizon is not None and when > horizon:
            raise ToolError(
                "BAD_ARG", f"argument 'at': {when.isoformat()} is after the end of the timeline ({horizon.isoformat()})"
            )
        if not note.strip():
            raise ToolError("BAD_ARG", "argument 'note': must not be empty")
        if len(note) > MAX_NOTE_CHARS:
            raise ToolError("BAD_ARG", f"argument 'note': at most {MAX_NOTE_CHARS} characters, got {len(note)}")
        if len(self.state.entries) >= self.state.max_wakeups:
            raise ToolError("LIMIT_REACHED", f"at most {self.state.max_wakeups} wake-ups can be scheduled per episode")
        entry = Wakeup(f"wk_{len(self.state.entries) + 1}", when, note.strip(), self.caller, now)
        self.state = replace(self.state, entries=(*self.state.entries, entry))
        return {
            "success": True,
            "wakeup": entry.to_dict(),
            "remaining": self.state.max_wakeups - len(self.state.entries),
        }

    @tool(read_only=True)
    def list_wakeups(self, include_done: bool = False) -> dict[str, Any]:
        """List the wake-ups you scheduled.

        Args:
            include_done: Also list wake-ups that already fired or were cancelled.
        """
        mine = [w for w in self.state.entries if w.seat == self.caller]
        shown = mine if include_done else [w for w in mine if w.status == "pending"]
        return {"wakeups": [w.to_dict() for w in sorted(shown, key=lambda w: w.at)], "now": self.clock.iso()}

    @tool
    def cancel_wakeup(self, wakeup_id: str) -> dict[str, Any]:
        """Cancel a pending wake-up.

        Args:
            wakeup_id: The id schedule_wakeup returned (e.g. wk_1).
        """
        entry = next((w for w in self.state.entries if w.id == wakeup_id and w.seat == self.caller), None)
        if entry is None:
            raise ToolError("NOT_FOUND", f"argument 'wakeup_id': no wake-up {wakeup_id[:40]!r} of yours")
        if entry.status != "pending":
            raise ToolError("BAD_STATE", f"wake-up {wakeup_id} already {entry.status}")
        self._set_status(wakeup_id, "cancelled")
        return {"success": True, "wakeup_id": wakeup_id, "status": "cancelled"}
