"""Readers of the health tracker (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def metrics(db: Reader, user: str, type: str) -> list[dict[str, Any]]:
    """The user's readings of one type (``metrics`` rows: ``value``, ``value_text``,
    ``recorded_at``...; ``type`` as ``blood_pressure``, ``weight``...), oldest first
    (``recorded_at``, then the order they were logged)."""
    return db.sql(
        "health_tracker",
        "SELECT * FROM metrics WHERE user_id = ? AND type = ? ORDER BY recorded_at, rowid",
        (user, type),
    )


#: A unit a reading may be logged in -> its factor to the type's default unit
#: (:data:`~vibelife_env.services.health_tracker._rows.DEFAULT_UNITS`: weight in grams).
TO_DEFAULT: dict[str, dict[str, float]] = {
    "weight": {
        "g": 1.0,
        "gram": 1.0,
        "grams": 1.0,
        "克": 1.0,
        "kg": 1000.0,
        "kgs": 1000.0,
        "kilogram": 1000.0,
        "kilograms": 1000.0,
        "公斤": 1000.0,
        "千克": 1000.0,
        "斤": 500.0,
        "jin": 500.0,
        "lb": 453.59237,
        "lbs": 453.59237,
        "pound": 453.59237,
        "pounds": 453.59237,
    },
}


def value_in(row: dict[str, Any], unit: str) -> float | None:
    """A reading's value in ``unit``, from the unit it was logged in (a weight logged as 88600
    with the default grams reads 88.6 in ``kg``); ``None`` when either unit is not known for its
    type. A type with no conversions reads as logged."""
    factors = TO_DEFAULT.get(str(row["type"]))
    if factors is None:
        return float(row["value"])
    logged = factors.get(str(row.get("unit") or "").strip().lower())
    wanted = factors.get(unit.strip().lower())
    if logged is None or wanted is None:
        return None
    return float(row["value"]) * logged / wanted
