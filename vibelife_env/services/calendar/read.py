"""Readers of the calendar service (see :mod:`vibelife_env.services.read`).

Times are stored text (``start_dt``/``end_dt``), as the service wrote them.
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def events(db: Reader, *, cancelled: bool = False) -> list[dict[str, Any]]:
    """The live calendar events (``events`` rows whose status is not ``cancelled``; with
    ``cancelled``, every event), by stored start, then id."""
    if cancelled:
        return db.sql("calendar", "SELECT * FROM events ORDER BY start_dt, event_id")
    return db.sql("calendar", "SELECT * FROM events WHERE status != 'cancelled' ORDER BY start_dt, event_id")


def event(db: Reader, event_id: str) -> dict[str, Any] | None:
    """The event ``event_id`` in any status (its ``events`` row), or ``None``."""
    rows = db.sql("calendar", "SELECT * FROM events WHERE event_id = ?", (event_id,))
    return rows[0] if rows else None
