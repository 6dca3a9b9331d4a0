"""Readers of the rail-booking service (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader, select, where


def offer(db: Reader, offer_id: str) -> dict[str, Any] | None:
    """The train offer ``offer_id`` (its ``train_offers`` row: ``train_no``, ``date``,
    ``depart_at``, ``arrive_at``...), or ``None``."""
    rows = db.sql("rail_booking", "SELECT * FROM train_offers WHERE offer_id = ?", (offer_id,))
    return rows[0] if rows else None


def offers(
    db: Reader,
    *,
    train_no: str | None = None,
    date: str | None = None,
    origin: str | None = None,
    dest: str | None = None,
) -> list[dict[str, Any]]:
    """The timetable's offers (``train_offers`` rows; of the train ``train_no``, on the day
    ``date`` (ISO), from the city ``origin``, to the city ``dest``), in the order they were stored."""
    conds, params = where(train_no=train_no, date=date, origin_city=origin, dest_city=dest)
    return db.sql("rail_booking", select("train_offers", conds, "rowid"), tuple(params))


def bookings(db: Reader) -> list[dict[str, Any]]:
    """Every rail booking (``train_bookings`` rows, any status), oldest first (``created_at``,
    then ``booking_ref``)."""
    return db.sql("rail_booking", "SELECT * FROM train_bookings ORDER BY created_at, booking_ref")
