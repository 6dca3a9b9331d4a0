"""The read-only view a check sees: :class:`CheckContext`, over an :class:`EpisodeRecord`.

A check is a function ``check(ctx) -> bool``. Its context wraps a sandboxed view of the
world (:meth:`World.sandbox`: every service inside a savepoint that is rolled back, and
the workspace, clock and generator put back, when the checks are done) or a fork, so no
check can change the episode's world, whatever tools it calls. Terms:

- *stage*: the timeline stage being scored (``None`` for the cross-stage, final and
  tool-quality tiers, which run after the last stage);
- *reply*: the text with which the assistant closed a turn; a stage's reply is all of its
  turns' replies;
- *trace*: the tool calls of a stage, in order, each a *call record*
  ``{id, name, server, tool, args, ok, result}`` (``name`` is ``<server>__<tool>``; ``ok``
  is false when the result is an error object ``{"error", "code"}``).

What a check may use:

- services: read-only tool calls ``ctx.call("email", "get_emails", folder="Sent")`` and
  read-only SQL ``ctx.sql("flight_booking", "SELECT ...")``; ``ctx.has(service)``;
- workspace files: ``ctx.file(path)``, ``ctx.files``, ``ctx.file_exists(path)``;
- the agent's conduct: ``ctx.reply(stage)``, ``ctx.replies_until(stage)``,
  ``ctx.trace(stage)``, ``ctx.calls(name, ok)``, ``ctx.first_call_stage(name)``; by turn:
  ``ctx.turns(stage)`` (what opened each turn, its reply and calls), ``ctx.reply_to(event_id)``
  (the reply of the turn an event opened, so a wake-up the agent scheduled in the same stage
  neither hides nor pollutes it), ``ctx.event_replies(stage)``, ``ctx.replies_between(start, end)``;
- sent mail: ``ctx.sent_mail()``; the world time: ``ctx.now``.

The public release's rubric modules expect another object (the runner's ``env``); the
release layer builds it over this context (:mod:`vibelife_env.release.rubric_env`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from vibelife_env.services.registry import canonical_name
from vibelife_env.world import World

#: The email service quotes the original below this line in replies and forwards.
QUOTE_MARKER = "--- Original Message ---"

#: One tool call as recorded: ``{id, name, server, tool, args, ok, result}`` (+ ``agent``).
CallRecord = dict[str, Any]


@dataclass(frozen=True)
class Opened:
    """What opened a turn: the event's id, kind and time, whether it was a wake-up the
    assistant scheduled for itself (``kind`` is then ``cron_fire``), and whether it is a
    message that asks the assistant a question (a ``?`` or ``？`` in a user message)."""

    event_id: str
    kind: str
    time: str  # ISO 8601, the virtual clock
    wakeup: bool = False
    asks: bool = False


@dataclass(frozen=True)
class Turn:
    """One closed turn: what opened it, the reply that closed it and its calls.

    Attributes:
        stage: The stage it belongs to.
        index: Its position among the stage's turns.
        opened: What opened it (``None`` for records built without it, e.g. in tests).
        reply: The reply (``""``: silence).
        calls: Its call records, in order.
    """

    stage: int
    index: int
    opened: Opened | None
    reply: str
    calls: tuple[CallRecord, ...]

    @property
    def wakeup(self) -> bool:
        """True when the assistant's own wake-up opened it."""
        return self.opened is not None and self.opened.wakeup

    @property
    def time(self) -> datetime | None:
        """When it opened (``None`` when unknown)."""
        return datetime.fromisoformat(self.opened.time) if self.opened is not None else None


@dataclass
class EpisodeRecord:
    """What the agent said and did, per stage (owned by the engine, copied for checks).

    Attributes:
        replies: Per stage, the reply of each closed turn, in order.
        traces: Per stage, the call records of the stage, in order.
        marks: Per stage, the number of trace rows when each reply closed its turn (so
            ``traces[s][marks[s][i-1]:marks[s][i]]`` are the calls of turn ``i``).
        opened: Per stage, what opened each closed turn (parallel to ``replies``).
    """

    replies: dict[int, list[str]] = field(default_factory=dict)
    traces: dict[int, list[CallRecord]] = field(default_factory=dict)
    marks: dict[int, list[int]] = field(default_factory=dict)
    opened: dict[int, list[Opened | None]] = field(default_factory=dict)

    def add_reply(self, stage: int, text: str, opened: Opened | None = None) -> None:
        """Close a turn of ``stage`` with ``text`` (``opened``: what opened the turn)."""
        self.replies.setdefault(stage, []).append(text)
        self.marks.setdefault(stage, []).append(len(self.traces.get(stage, [])))
        self.opened.setdefault(stage, []).append(opened)

    def turns(self, stage: int | None = None) -> list[Turn]:
        """The closed turns of one stage, or of every stage in order."""
        stages = sorted(self.replies) if stage is None else [stage]
        out = []
        for s in stages:
            marks = self.marks.get(s, [])
            opened = self.opened.get(s, [])
            trace = self.traces.get(s, [])
            for i, reply in enumerate(self.replies.get(s, [])):
                lo = marks[i - 1] if i else 0
                out.append(Turn(s, i, opened[i] if i < len(opened) else None, reply, tuple(trace[lo : marks[i]])))
        return out

    def add_call(self, stage: int, entry: CallRecord) -> None:
        """Append a call record to the trace of ``stage``."""
        self.traces.setdefault(stage, []).append(entry)

    def copy(self) -> EpisodeRecord:
        """A copy whose lists are independent (call records are shared, never mutated)."""
        return EpisodeRecord(
            {k: list(v) for k, v in self.replies.items()},
            {k: list(v) for k, v in self.traces.items()},
            {k: list(v) for k, v in self.marks.items()},
            {k: list(v) for k, v in self.opened.items()},
        )


class CheckContext:
    """Read-only view for checks; see the module docstring.

    Args:
        world: A sandboxed world or a fork (the context may call any tool on it).
        record: The agent's replies and traces; frozen for the life of the context.
        stage: The stage being scored (``None`` for the end tiers).
        on_close: Called once by :meth:`close` (e.g. ``WorldSandbox.close``).
        initial: The services' images as the episode began (the task's seeded images), for
            :meth:`initial_sql`: what a check diffs against ("text the agent added to a seeded
            page", as workspace files are diffed against their seeded text).

    Attributes:
        world: The world the checks read.
        record: The frozen episode record.
        stage: The stage being scored, or ``None``.
        memo: Scratch space for views that adapters build over this context (the release
            rubric ``env``, rendered files), valid for one scoring pass; keyed by the
            adapter's own key so adapters never collide.
    """

    world: World
    record: EpisodeRecord
    stage: int | None
    memo: dict[Hashable, Any]

    def __init__(
        self,
        world: World,
        record: EpisodeRecord,
        stage: int | None = None,
        on_close: Callable[[], None] | None = None,
        initial: Mapping[str, bytes] | None = None,
    ) -> None:
        self.world = world
        self.record = record
        self.stage = stage
        self.memo = {}
        self._on_close = on_close
        self._initial = initial
        self._initial_dbs: dict[str, sqlite3.Connection] = {}
        self._all_calls: list[CallRecord] | None = None

    def close(self) -> None:
        """Release the world view (undoes anything the checks did to it); idempotent."""
        if self._on_close is not None:
            on_close, self._on_close = self._on_close, None
            on_close()
        for conn in self._initial_dbs.values():
            conn.close()
        self._initial_dbs.clear()
        self.memo.clear()

    # ----------------------------------------------------------------- services
    @property
    def now(self) -> datetime:
        """World time when the checks run."""
        return self.world.clock.now()

    def has(self, service: str) -> bool:
        """True when the task enables ``service`` (any spelling: ``email``, ``email_mock``)."""
        return canonical_name(service) in self.world.services

    def call(self, service: str, tool: str, **args: Any) -> Any:
        """Call a service tool on the view; returns its result or error object.

        Whatever the tool does is undone when the context closes.

        Raises:
            KeyError: the task does not enable ``service``.
        """
        provider = self.world.provider(service)
        if provider is None:
            raise KeyError(f"service {service!r} is not enabled in this task")
        return provider.call(tool, args)

    def sql(self, service: str, query: str, params: tuple[Any, ...] | list[Any] = ()) -> list[dict[str, Any]]:
        """Run a read-only SQL query against a service's tables; rows as dicts.

        Raises:
            KeyError: the task does not enable ``service``.
            sqlite3.OperationalError: the statement writes (``attempt to write a readonly database``)
                or is invalid.
        """
        svc = self.world.services[canonical_name(service)]
        svc.conn.execute("PRAGMA query_only = ON")
        try:
            return svc.query(query, params)
        finally:
            svc.conn.execute("PRAGMA query_only = OFF")

    @property
    def has_initial(self) -> bool:
        """True when the context knows the world as the episode began (see :meth:`initial_sql`)."""
        return self._initial is not None

    def initial_sql(self, service: str, query: str, params: tuple[Any, ...] | list[Any] = ()) -> list[dict[str, Any]]:
        """Read-only SQL against a service's tables as the episode began (its seeded image).

        Raises:
            LookupError: the context was built without the initial images (:attr:`has_initial`).
            KeyError: the task does not enable ``service``.
        """
        if self._initial is None:
            raise LookupError("this check context was built without the episode's initial images")
        name = canonical_name(service)
        conn = self._initial_dbs.get(name)
        if conn is None:
            conn = sqlite3.connect(":memory:")
            conn.row_factory = sqlite3.Row
            conn.deserialize(self._initial[name])
            conn.execute("PRAGMA query_only = ON")
            self._initial_dbs[name] = conn
        return [dict(r) for r in conn.execute(query, tuple(params))]

    # ---------------------------------------------------------------- workspace
    @property
    def files(self) -> Mapping[str, str]:
        """Workspace files, canonical path → text (read-only mapping)."""
        return MappingProxyType(self.world.workspace.files)

    def file(self, path: str) -> str:
        """A workspace file's text (any accepted spelling of the path); ``""`` when absent."""
        return self.world.workspace.read(path) or ""

    def file_exists(self, path: str) -> bool:
        """True when the workspace has ``path`` (``False`` for invalid paths)."""
        return self.world.workspace.read(path) is not None

    # ---------------------------------------------------------------- conduct
    def reply(self, stage: int) -> str:
        """All reply text of one stage, turns joined by blank lines."""
        return "\n\n".join(self.record.replies.get(stage, []))

    def turns(self, stage: int | None = None) -> list[Turn]:
        """The closed turns of one stage (or all), each with what opened it, its reply and its calls."""
        return self.record.turns(stage)

    def reply_to(self, event_id: str) -> str:
        """The reply of the turn that ``event_id`` opened (``""``: no such turn, or silence).

        With several seats the event opens one turn per addressee; their replies are joined.
        """
        return "\n\n".join(t.reply for t in self.record.turns() if t.opened and t.opened.event_id == event_id)

    def event_replies(self, stage: int) -> list[str]:
        """The replies of ``stage``'s turns that timeline events opened (not the assistant's own wake-ups)."""
        return [t.reply for t in self.record.turns(stage) if not t.wakeup]

    def replies_since(self, start: datetime) -> str:
        """The replies of turns opened at or after ``start`` (up to now), any stage: what the user
        was told within a window a rule states ("once check-in opens")."""
        return "\n\n".join(t.reply for t in self.record.turns() if (w := t.time) is not None and w >= start)

    def replies_between(self, start: datetime, end: datetime) -> str:
        """The replies of turns opened at ``start <= time < end``, any stage, joined by blank lines."""
        return "\n\n".join(t.reply for t in self.record.turns() if (w := t.time) is not None and start <= w < end)

    def replies_until(self, stage: int) -> str:
        """All reply text of stages ``<= stage``."""
        return "\n\n".join(self.reply(s) for s in sorted(self.record.replies) if s <= stage)

    def trace(self, stage: int) -> list[CallRecord]:
        """The call records of one stage (a new list)."""
        return list(self.record.traces.get(stage, []))

    def calls(self, name: str | None = None, ok: bool | None = None) -> list[CallRecord]:
        """All call records of the episode so far, optionally filtered by full name and success."""
        if self._all_calls is None:
            self._all_calls = [c for s in sorted(self.record.traces) for c in self.record.traces[s]]
        out = self._all_calls
        if name is not None:
            out = [c for c in out if c["name"] == name]
        if ok is not None:
            out = [c for c in out if c["ok"] is ok]
        return list(out)

    def first_call_stage(self, name: str, ok: bool = True) -> int | None:
        """The first stage in which the agent called ``name`` with that success (``None``: never)."""
        for s in sorted(self.record.traces):
            if any(c["name"] == name and c["ok"] is ok for c in self.record.traces[s]):
                return s
        return None

    def sent_mail(self) -> list[dict[str, Any]]:
        """Messages in the email service's Sent folder, oldest first (``[]`` without email).

        Each is ``{id, to, cc, bcc, subject, body, own_body, date}``: addresses lower-cased;
        ``body`` is the text and HTML parts; ``own_body`` is the text the agent wrote,
        without the quoted original of a reply or forward.
        """
        if not self.has("email"):
            return []
        rows = self.sql(
            "email",
            "SELECT m.* FROM messages m JOIN folders f ON f.id = m.folder_id WHERE f.name = 'Sent' ORDER BY m.id",
        )
        return [
            {
                "id": r["id"],
                "to": _addr_list(r.get("to_addr_json")),
                "cc": _addr_list(r.get("cc_addr_json")),
                "bcc": _addr_list(r.get("bcc_addr_json")),
                "subject": r.get("subject") or "",
                "body": (r.get("body_text") or "") + "\n" + (r.get("body_html") or ""),
                "own_body": (r.get("body_text") or "").split(QUOTE_MARKER, 1)[0],
                "date": r.get("date"),
            }
            for r in rows
        ]


def _addr_list(raw: Any) -> list[str]:
    if not raw:
        return []
    try:
        value = json.loads(raw)
    except (TypeError, json.JSONDecodeError):
        return [a.strip().lower() for a in str(raw).split(",") if a.strip()]
    return [str(a).strip().lower() for a in value] if isinstance(value, list) else [str(value).lower()]


def script_context(world: World) -> CheckContext:
    """What a bundle's world script or facts function receives: a check context over ``world``
    (pass it to :func:`vibelife_env.task.mutations.apply_mutation` as ``context``)."""
    return CheckContext(world, EpisodeRecord(), None)
