"""Readers of the weather service (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def daily(db: Reader, geo_key: str) -> list[dict[str, Any]]:
    """The daily forecasts of the place ``geo_key`` (``daily_weather`` rows: ``date``, ``tmax``,
    ``precip_prob``, ``condition``...), by date."""
    return db.sql("weather", "SELECT * FROM daily_weather WHERE geo_key = ? ORDER BY date", (geo_key,))


def day(db: Reader, geo_key: str, date: str) -> dict[str, Any] | None:
    """The forecast of the place ``geo_key`` for the day ``date`` (ISO): its ``daily_weather`` row,
    or ``None``."""
    rows = db.sql("weather", "SELECT * FROM daily_weather WHERE geo_key = ? AND date = ?", (geo_key, date))
    return rows[0] if rows else None
