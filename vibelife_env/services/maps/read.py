"""Readers of the maps service (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vibelife_env.services.read import Reader, select, where


def places(
    db: Reader, *, ids: Sequence[str] | None = None, category: str | Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """The map's places (``places`` rows: ``place_id``, ``name``, ``category``, ``lat``, ``lng``,
    ``city``...; those with one of the ids ``ids``, of the category or categories ``category``), in
    the order they were stored."""
    conds, params = where(place_id=None if ids is None else list(ids), category=category)
    return db.sql("maps", select("places", conds, "rowid"), tuple(params))


def place(db: Reader, place_id: str) -> dict[str, Any] | None:
    """The place ``place_id`` (its ``places`` row), or ``None``."""
    rows = db.sql("maps", "SELECT * FROM places WHERE place_id = ?", (place_id,))
    return rows[0] if rows else None
