"""Seed and mutation statements of the calendar service (see :mod:`vibelife_env.services.sql`).

>>> print(calendar("u_ana", "Ana", "Asia/Tokyo"))
INSERT INTO calendars (calendar_id, user_id, name, timezone, is_primary, created_at) VALUES ('primary', 'u_ana', 'Ana', 'Asia/Tokyo', 1, '2024-01-01T00:00:00Z');
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from vibelife_env.services.sql import insert


def _iso(value: datetime | str) -> str:
    return value.isoformat() if isinstance(value, datetime) else value


def calendar(
    user_id: str,
    name: str,
    timezone: str,
    *,
    calendar_id: str = "primary",
    primary: bool = True,
    created_at: str = "2024-01-01T00:00:00Z",
) -> str:
    """The user's calendar (the primary one unless ``primary=False``)."""
    return insert(
        "calendar",
        "calendars",
        {
            "calendar_id": calendar_id,
            "user_id": user_id,
            "name": name,
            "timezone": timezone,
            "is_primary": int(primary),
            "created_at": created_at,
        },
    )


def event_row(
    event_id: str,
    summary: str,
    start: datetime | str,
    end: datetime | str,
    *,
    location: str | None = None,
    calendar_id: str = "primary",
    status: str = "confirmed",
    created_at: str = "2026-01-01T00:00:00Z",
    updated_at: str | None = None,
    **more: Any,
) -> dict[str, Any]:
    """One ``events`` row (``more``: other columns such as ``description`` or ``all_day``)."""
    return {
        "event_id": event_id,
        "calendar_id": calendar_id,
        "summary": summary,
        "location": location,
        "start_dt": _iso(start),
        "end_dt": _iso(end),
        "status": status,
        "created_at": created_at,
        "updated_at": updated_at or created_at,
        **more,
    }


def events(*rows: dict[str, Any]) -> str:
    """One INSERT of :func:`event_row` rows."""
    return insert("calendar", "events", *rows)


def event(event_id: str, summary: str, start: datetime | str, end: datetime | str, **fields: Any) -> str:
    """One event (see :func:`event_row` for the fields)."""
    return events(event_row(event_id, summary, start, end, **fields))
