"""Readers of the hotel-booking service (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader, select, where


def hotel(db: Reader, hotel_id: str) -> dict[str, Any] | None:
    """The hotel ``hotel_id`` (its ``hotels`` row: ``name``, ``city``, ``amenities_json``,
    ``geo_lat``/``geo_lng``...), or ``None``."""
    rows = db.sql("hotel_booking", "SELECT * FROM hotels WHERE hotel_id = ?", (hotel_id,))
    return rows[0] if rows else None


def hotels(db: Reader, city: str | None = None) -> list[dict[str, Any]]:
    """Every hotel (``hotels`` rows; in the city ``city``), in the order they were stored."""
    if city is None:
        return db.sql("hotel_booking", "SELECT * FROM hotels ORDER BY rowid")
    return db.sql("hotel_booking", "SELECT * FROM hotels WHERE city = ? ORDER BY rowid", (city,))


def max_occupancy(db: Reader, hotel_id: str, *, date: str | None = None, room_type: str | None = None) -> int:
    """The most guests one of the hotel's rate plans sleeps (on the night ``date``, ISO; of the
    room type ``room_type``); 0 when it has no such plan."""
    conds, params = where(hotel_id=hotel_id, date=date, room_type=room_type)
    rows = db.sql(
        "hotel_booking", "SELECT MAX(max_occupancy) AS cap FROM rate_plans WHERE " + " AND ".join(conds), tuple(params)
    )
    return int(rows[0]["cap"] or 0) if rows else 0


def reservations(db: Reader, user: str | None = None) -> list[dict[str, Any]]:
    """Every reservation (``reservations`` rows, any status: ``confirmed``, ``modified``,
    ``cancelled``...; of the user ``user``), oldest first (``created_at``, then ``reservation_id``)."""
    if user is None:
        return db.sql("hotel_booking", "SELECT * FROM reservations ORDER BY created_at, reservation_id")
    return db.sql(
        "hotel_booking", "SELECT * FROM reservations WHERE user_id = ? ORDER BY created_at, reservation_id", (user,)
    )


def rate_plans(db: Reader, hotel_id: str, *, date: str | None = None) -> list[dict[str, Any]]:
    """The hotel's rate plans (``rate_plans`` rows: ``room_type``, ``flavor``, ``nightly_price``,
    ``max_occupancy``...; for the night ``date``, ISO), by night, then in the order they were stored."""
    conds, params = where(hotel_id=hotel_id, date=date)
    return db.sql("hotel_booking", select("rate_plans", conds, "date, rowid"), tuple(params))


def requests(db: Reader, reservation_id: str | None = None) -> list[dict[str, Any]]:
    """Special requests (``special_requests`` rows: ``reservation_id``, ``text``, ``created_at``...;
    on the reservation ``reservation_id``), in the order they were made."""
    if reservation_id is None:
        return db.sql("hotel_booking", "SELECT * FROM special_requests ORDER BY rowid")
    return db.sql(
        "hotel_booking", "SELECT * FROM special_requests WHERE reservation_id = ? ORDER BY rowid", (reservation_id,)
    )


def listed_email(hotel_id: str) -> str:
    """The reservations address a hotel's details list (``get_hotel_details``'s ``contact``): a
    mail there reaches the hotel, as one to the hotel's own domain does."""
    return f"reservations@mock-{hotel_id}.example"
