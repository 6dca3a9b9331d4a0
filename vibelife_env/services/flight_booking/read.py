"""Readers of the flight-booking service (see :mod:`vibelife_env.services.read`).

A flight number may fly on several days: ``flights`` holds one row per departure.
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def flights(db: Reader) -> list[dict[str, Any]]:
    """Every scheduled departure (``flights`` rows), in the order they were stored."""
    return db.sql("flight_booking", "SELECT * FROM flights ORDER BY rowid")


def flight(db: Reader, flight_no: str) -> dict[str, Any] | None:
    """The first scheduled departure of the flight ``flight_no`` (its ``flights`` row:
    ``depart_dt``, ``arrive_dt``...), or ``None``."""
    rows = db.sql("flight_booking", "SELECT * FROM flights WHERE flight_no = ? ORDER BY depart_dt", (flight_no,))
    return rows[0] if rows else None


def status(db: Reader, flight_no: str, date: str | None = None) -> dict[str, Any] | None:
    """The airline's live status of the flight ``flight_no`` (its ``flight_status`` row: ``status``,
    ``delay_min``, ``gate``, ``actual_depart``...) on the day ``date`` (ISO; ``None``: its first
    day with a status), or ``None``."""
    if date is None:
        rows = db.sql("flight_booking", "SELECT * FROM flight_status WHERE flight_no = ? ORDER BY date", (flight_no,))
    else:
        rows = db.sql(
            "flight_booking", "SELECT * FROM flight_status WHERE flight_no = ? AND date = ?", (flight_no, date)
        )
    return rows[0] if rows else None


def bookings(db: Reader) -> list[dict[str, Any]]:
    """Every booking (``bookings`` rows: holds, tickets, cancelled ones), oldest first
    (``created_at``, then ``pnr``)."""
    return db.sql("flight_booking", "SELECT * FROM bookings ORDER BY created_at, pnr")


def seats(db: Reader, pnr: str, segment_idx: int) -> list[dict[str, Any]]:
    """The seats of a booking's segment (``seat_assignments`` rows: ``pax_idx``, ``seat``,
    ``checked_in``...), by passenger."""
    return db.sql(
        "flight_booking",
        "SELECT * FROM seat_assignments WHERE pnr = ? AND segment_idx = ? ORDER BY pax_idx",
        (pnr, segment_idx),
    )
