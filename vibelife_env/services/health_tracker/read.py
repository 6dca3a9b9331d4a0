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
