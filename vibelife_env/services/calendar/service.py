"""calendar: a Google-Calendar-style backend (calendars, events, attendees, reminders).

Tool surface: the public ``calendar_mock`` spec. Events are stored with their ISO-8601
``start_dt``/``end_dt`` verbatim; time windows and ordering compare the *instants* those
strings denote (a naive value is read in its calendar's time zone, a naive query bound in
the task's zone), so events seeded in ``Z`` and queried with ``+08:00`` still match.
``recurrence_rule`` is stored verbatim and never expanded. Event ids come from
``_counters`` (``evt_%08d``); audit times are ISO-8601 UTC with ``Z``.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``BAD_DATE``,
``BAD_TIME_RANGE``).
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Any

from vibelife_env.clock import get_zone, parse_time
from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import check_year, contains_pattern

EVENT_STATUSES = ("confirmed", "tentative", "cancelled")
RESPONSE_STATUSES = ("needsAction", "accepted", "declined", "tentative")
REMINDER_METHODS = ("popup", "email")
ORDER_BY = ("startTime", "updated")
MAX_RESULTS_CAP = 500
#: Latest reminder, in minutes before the event (four weeks, as in Google Calendar).
MAX_REMINDER_MINUTES = 40_320


class CalendarService(Service):
    """Calendars and their events, with attendees and reminders."""

    name = "calendar"
    SCHEMA = schema_from(__file__)

    # ---------------------------------------------------------------- calendars
    @tool(read_only=True)
    def list_calendars(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's calendars (e.g. Personal, Work), primary first, then oldest first.

        Each calendar has its id, name, color, IANA time zone and whether it is the primary.

        Args:
            user_id: The owner whose calendars to list.
        """
        if not user_id.strip():
            raise ToolError("BAD_ARG", "user_id is required")
        rows = self.query(
            "SELECT * FROM calendars WHERE user_id = ? ORDER BY is_primary DESC, created_at, calendar_id",
            (user_id,),
        )
        return [_calendar(r) for r in rows]

    # ------------------------------------------------------------------- events
    @tool(read_only=True)
    def list_events(
        self,
        time_min: str | None = None,
        time_max: str | None = None,
        calendar_id: str | None = None,
        max_results: int = 20,
        order_by: str = "startTime",
    ) -> list[dict[str, Any]]:
        """List events overlapping the window [time_min, time_max), across all calendars by default.

        An event overlaps when it ends after ``time_min`` and starts before ``time_max``; an
        omitted bound is open. Each event has the same shape as ``get_event``.

        Args:
            time_min: Window start, ISO 8601 datetime (e.g. ``2026-05-01T00:00:00+08:00``).
            time_max: Window end (exclusive), ISO 8601 datetime.
            calendar_id: Only events of this calendar.
            max_results: Maximum events returned (default 20, capped at 500).
            order_by: ``startTime`` (earliest start first) or ``updated`` (most recently updated first).
        """
        if order_by not in ORDER_BY:
            raise ToolError("BAD_ARG", f"order_by must be one of {', '.join(ORDER_BY)}, got {order_by!r}")
        if max_results < 1:
            raise ToolError("BAD_ARG", f"max_results must be >= 1, got {max_results}")
        lo, hi = self._window(time_min, time_max)
        if calendar_id:
            self._calendar_row(calendar_id)
            rows = self._event_rows("WHERE e.calendar_id = ?", (calendar_id,))
        else:
            rows = self._event_rows("", ())
        rows = [r for r in rows if _overlaps(r, lo, hi)]
        if order_by == "updated":
            rows.sort(key=lambda r: (r["updated_at"], r["event_id"]), reverse=True)
        else:
            rows.sort(key=lambda r: (r["_start"], r["start_dt"], r["event_id"]))
        return [self._event(r) for r in rows[: min(max_results, MAX_RESULTS_CAP)]]

    @tool(read_only=True)
    def get_event(self, event_id: str, calendar_id: str | None = None) -> dict[str, Any]:
        """Return one event in full: times, status, recurrence, attendees and reminders.

        Args:
            event_id: The event id, e.g. ``evt_00000001``.
            calendar_id: If given, the event must belong to this calendar (else EVENT_NOT_FOUND).
        """
        return self._event(self._event_row(event_id, calendar_id))

    @tool(read_only=True)
    def search_events(
        self,
        query: str,
        time_min: str | None = None,
        time_max: str | None = None,
        max_results: int = 50,
    ) -> list[dict[str, Any]]:
        """Case-insensitive substring search over summary, description, location and attendee name/email.

        Results are ordered by start time, earliest first; each has the ``get_event`` shape.

        Args:
            query: Text to look for.
            time_min: Only events ending after this ISO 8601 datetime.
            time_max: Only events starting before this ISO 8601 datetime.
            max_results: Maximum events returned (default 50, capped at 500).
        """
        if not query:
            raise ToolError("BAD_ARG", "query is required")
        lo, hi = self._window(time_min, time_max)
        like = contains_pattern("query", query.lower())
        rows = self._event_rows(
            "WHERE lower(coalesce(e.summary, '')) LIKE ?1 ESCAPE '\\' OR lower(coalesce(e.description, '')) LIKE ?1 "
            "ESCAPE '\\' OR lower(coalesce(e.location, '')) LIKE ?1 ESCAPE '\\' OR EXISTS (SELECT 1 FROM attendees a "
            "WHERE a.event_id = e.event_id AND (lower(a.email) LIKE ?1 ESCAPE '\\' "
            "OR lower(coalesce(a.name, '')) LIKE ?1 ESCAPE '\\'))",
            (like,),
        )
        rows = [r for r in rows if _overlaps(r, lo, hi)]
        rows.sort(key=lambda r: (r["_start"], r["start_dt"], r["event_id"]))
        return [self._event(r) for r in rows[: min(max(max_results, 1), MAX_RESULTS_CAP)]]

    @tool
    def create_event(
        self,
        summary: str,
        start: str,
        end: str,
        description: str | None = None,
        location: str | None = None,
        calendar_id: str | None = None,
        attendees: list[dict[str, Any]] | None = None,
        reminders: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Create a confirmed event; returns it in the ``get_event`` shape.

        Args:
            summary: The event title.
            start: Start, ISO 8601 datetime (e.g. ``2026-05-10T09:00:00+08:00``).
            end: End, ISO 8601 datetime strictly after ``start``.
            description: Free-text notes.
            location: Where it happens.
            calendar_id: Target calendar; omitted means the primary calendar (or the oldest one).
            attendees: List of ``{email, name?, response_status?}``; response_status is needsAction (default), accepted, declined or tentative.
            reminders: List of ``{minutes_before, method?}``; minutes_before is a non-negative integer, method is popup (default) or email.
        """
        if not summary.strip():
            raise ToolError("BAD_ARG", "summary is required")
        _check_range(start, end, self.now().tzinfo)
        cal_id = self._resolve_calendar(calendar_id)
        people = _attendees(attendees or [])
        alerts = _reminders(reminders or [])
        event_id = f"evt_{self.next_seq('event_seq'):08d}"
        now = self.now_utc()
        self.execute(
            "INSERT INTO events (event_id, calendar_id, summary, description, location, start_dt, end_dt, "
            "all_day, status, created_at, updated_at, recurrence_rule, parent_event_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 0, 'confirmed', ?, ?, NULL, NULL)",
            (event_id, cal_id, summary, description, location, start, end, now, now),
        )
        for email, name, status in people:
            self.execute(
                "INSERT INTO attendees (event_id, email, name, response_status) VALUES (?, ?, ?, ?)",
                (event_id, email, name, status),
            )
        for method, minutes in alerts:
            self.execute(
                "INSERT INTO reminders (event_id, method, minutes_before) VALUES (?, ?, ?)",
                (event_id, method, minutes),
            )
        return self.get_event(event_id)

    @tool
    def update_event(
        self,
        event_id: str,
        summary: str | None = None,
        start: str | None = None,
        end: str | None = None,
        description: str | None = None,
        location: str | None = None,
        calendar_id: str | None = None,
        status: str | None = None,
    ) -> dict[str, Any]:
        """Patch an event: only the supplied fields change; returns the updated event.

        A new ``start`` or ``end`` is validated against the other (new or existing) bound.
        Pass an empty string to clear ``description`` or ``location``.

        Args:
            event_id: The event to change.
            summary: New title.
            start: New start, ISO 8601 datetime.
            end: New end, ISO 8601 datetime.
            description: New notes ("" clears them).
            location: New location ("" clears it).
            calendar_id: Move the event to this calendar.
            status: confirmed, tentative or cancelled.
        """
        row = self._event_row(event_id)
        changes: dict[str, Any] = {}
        if start is not None or end is not None:
            new_start = start if start is not None else row["start_dt"]
            new_end = end if end is not None else row["end_dt"]
            _check_range(new_start, new_end, self.now().tzinfo)
            changes["start_dt"], changes["end_dt"] = new_start, new_end
        if status is not None:
            if status not in EVENT_STATUSES:
                raise ToolError("BAD_ARG", f"status must be one of {', '.join(EVENT_STATUSES)}, got {status!r}")
            changes["status"] = status
        if calendar_id is not None:
            changes["calendar_id"] = self._resolve_calendar(calendar_id)
        if summary is not None:
            changes["summary"] = summary
        if description is not None:
            changes["description"] = description
        if location is not None:
            changes["location"] = location
        changes["updated_at"] = self.now_utc()
        self.update_rows("events", changes, {"event_id": event_id})
        return self.get_event(event_id)

    @tool
    def delete_event(self, event_id: str, calendar_id: str | None = None) -> dict[str, Any]:
        """Delete an event permanently, with its attendees and reminders.

        Args:
            event_id: The event to delete.
            calendar_id: If given, the event must belong to this calendar (else EVENT_NOT_FOUND).
        """
        self._event_row(event_id, calendar_id)
        self.execute("DELETE FROM events WHERE event_id = ?", (event_id,))
        return {"event_id": event_id, "deleted": True}

    # ------------------------------------------------------------------ helpers
    def _calendar_row(self, calendar_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM calendars WHERE calendar_id = ?",
            (calendar_id,),
            "CALENDAR_NOT_FOUND",
            f"calendar not found: {calendar_id!r}",
        )

    def _event_row(self, event_id: str, calendar_id: str | None = None) -> dict[str, Any]:
        row = self.query_one("SELECT * FROM events WHERE event_id = ?", (event_id,))
        if row is None or (calendar_id and row["calendar_id"] != calendar_id):
            where = f" in calendar {calendar_id!r}" if calendar_id and row is not None else ""
            raise ToolError("EVENT_NOT_FOUND", f"event not found: {event_id!r}{where}")
        return row

    def _event_rows(self, where: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        """Event rows plus ``_start``/``_end`` UTC sort keys (naive times read in the calendar's zone)."""
        rows = self.query(
            f"SELECT e.*, c.timezone AS _tz FROM events e LEFT JOIN calendars c ON c.calendar_id = e.calendar_id {where}",
            params,
        )
        zones: dict[str | None, tzinfo] = {}
        for r in rows:
            tz_name = r.pop("_tz")
            if tz_name not in zones:
                zones[tz_name] = _zone(tz_name, self.now().tzinfo)
            r["_start"] = _instant_key(r["start_dt"], zones[tz_name])
            r["_end"] = _instant_key(r["end_dt"], zones[tz_name])
        return rows

    def _window(self, time_min: str | None, time_max: str | None) -> tuple[str | None, str | None]:
        tz = self.now().tzinfo
        return (
            _utc_key(_parse("time_min", time_min, tz), tz) if time_min else None,
            _utc_key(_parse("time_max", time_max, tz), tz) if time_max else None,
        )

    def _resolve_calendar(self, calendar_id: str | None) -> str:
        if calendar_id:
            return self._calendar_row(calendar_id)["calendar_id"]
        row = self.query_one(
            "SELECT calendar_id FROM calendars ORDER BY is_primary DESC, created_at, calendar_id LIMIT 1"
        )
        if row is None:
            raise ToolError("BAD_ARG", "no calendars exist; pass calendar_id of an existing calendar")
        return row["calendar_id"]

    def _event(self, row: dict[str, Any]) -> dict[str, Any]:
        event_id = row["event_id"]
        attendees = self.query(
            "SELECT email, name, response_status FROM attendees WHERE event_id = ? ORDER BY id", (event_id,)
        )
        reminders = self.query(
            "SELECT method, minutes_before FROM reminders WHERE event_id = ? ORDER BY minutes_before DESC, id",
            (event_id,),
        )
        return {
            "event_id": event_id,
            "calendar_id": row["calendar_id"],
            "summary": row["summary"],
            "description": row["description"],
            "location": row["location"],
            "start": {"dateTime": row["start_dt"]},
            "end": {"dateTime": row["end_dt"]},
            "all_day": bool(row["all_day"]),
            "status": row["status"],
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "recurrence_rule": row["recurrence_rule"],
            "parent_event_id": row["parent_event_id"],
            "attendees": attendees,
            "reminders": [{"method": r["method"], "minutes_before": int(r["minutes_before"])} for r in reminders],
        }


def _parse(arg: str, value: str, naive_tz: tzinfo | None) -> datetime:
    """Parse an ISO 8601 argument; naive values are read in ``naive_tz``."""
    try:
        parsed = parse_time(value, naive_tz)
    except (TypeError, ValueError):
        raise ToolError("BAD_ARG", f"{arg} is not an ISO 8601 datetime: {value!r}") from None
    check_year(arg, parsed)
    return parsed


def _check_range(start: str, end: str, naive_tz: tzinfo | None) -> None:
    s, e = _parse("start", start, naive_tz), _parse("end", end, naive_tz)
    if e <= s:
        raise ToolError("BAD_ARG", f"end ({end}) must be strictly after start ({start})")


def _zone(name: str | None, default: tzinfo | None) -> tzinfo:
    try:
        return get_zone(name) if name else (default or UTC)
    except ValueError:
        return default or UTC


def _utc_key(dt: datetime, naive_tz: tzinfo | None) -> str:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=naive_tz or UTC)
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")


def _instant_key(text: str, tz: tzinfo) -> str:
    """Comparable UTC key of a stored datetime; unparsable text compares as itself."""
    raw = text.strip()
    try:
        dt = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith("Z") else raw)
    except ValueError:
        return raw
    return _utc_key(dt, tz)


def _overlaps(row: dict[str, Any], lo: str | None, hi: str | None) -> bool:
    return (lo is None or row["_end"] > lo) and (hi is None or row["_start"] < hi)


def _attendees(items: list[dict[str, Any]]) -> list[tuple[str, str | None, str]]:
    out = []
    for i, att in enumerate(items):
        email = att.get("email")
        if not isinstance(email, str) or not email.strip():
            raise ToolError("BAD_ARG", f"attendees[{i}] must be {{email, name?, response_status?}} with an email")
        status = att.get("response_status") or "needsAction"
        if status not in RESPONSE_STATUSES:
            raise ToolError(
                "BAD_ARG",
                f"attendees[{i}].response_status must be one of {', '.join(RESPONSE_STATUSES)}, got {status!r}",
            )
        name = att.get("name")
        out.append((email, None if name is None else str(name), status))
    return out


def _reminders(items: list[dict[str, Any]]) -> list[tuple[str, int]]:
    out = []
    for i, rem in enumerate(items):
        if "minutes_before" not in rem:
            raise ToolError("BAD_ARG", f"reminders[{i}] must be {{minutes_before, method?}}")
        method = rem.get("method") or "popup"
        if method not in REMINDER_METHODS:
            raise ToolError(
                "BAD_ARG", f"reminders[{i}].method must be one of {', '.join(REMINDER_METHODS)}, got {method!r}"
            )
        try:
            minutes = int(rem["minutes_before"])
        except (TypeError, ValueError, OverflowError):
            minutes = -1
        if not 0 <= minutes <= MAX_REMINDER_MINUTES or isinstance(rem["minutes_before"], bool):
            raise ToolError(
                "BAD_ARG",
                f"reminders[{i}].minutes_before must be an integer from 0 to {MAX_REMINDER_MINUTES}, "
                f"got {rem['minutes_before']!r}",
            )
        out.append((method, minutes))
    return out


def _calendar(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "is_primary": bool(row["is_primary"])}
