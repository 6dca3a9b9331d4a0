"""Readers of the review platform (local merchants, their reviews and reservations; see
:mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader, select, where


def merchant(db: Reader, merchant_id: str) -> dict[str, Any] | None:
    """The merchant ``merchant_id`` (its ``merchants`` row: ``name``, ``category``, ``city``,
    ``area``, ``rating_tenths``, ``tags``...), or ``None``."""
    rows = db.sql("review_platform", "SELECT * FROM merchants WHERE merchant_id = ?", (merchant_id,))
    return rows[0] if rows else None


def merchants(
    db: Reader, *, category: str | None = None, city: str | None = None, area: str | None = None
) -> list[dict[str, Any]]:
    """The merchants (``merchants`` rows; of the category ``category``, in the city ``city``, in
    the area ``area``), in the order they were stored."""
    conds, params = where(category=category, city=city, area=area)
    return db.sql("review_platform", select("merchants", conds, "rowid"), tuple(params))


def reservations(
    db: Reader, *, user: str | None = None, merchant: str | None = None, status: str | None = None
) -> list[dict[str, Any]]:
    """Reservations (``reservations`` rows; of the user ``user``, at the merchant ``merchant``, in
    the status ``status``: ``confirmed``, ``cancelled``...), by reserved time (``datetime``), then
    in the order they were made."""
    conds, params = where(user_id=user, merchant_id=merchant, status=status)
    return db.sql("review_platform", select("reservations", conds, "datetime, rowid"), tuple(params))


def reviews(db: Reader, *, user: str | None = None, merchant: str | None = None) -> list[dict[str, Any]]:
    """Reviews (``reviews`` rows: ``merchant_id``, ``rating``, ``body``, ``created_at``...; by the
    user ``user``, of the merchant ``merchant``), oldest first (``created_at``, then the order they
    were posted)."""
    conds, params = where(user_id=user, merchant_id=merchant)
    return db.sql("review_platform", select("reviews", conds, "created_at, rowid"), tuple(params))


def questions(db: Reader, merchant_id: str) -> list[dict[str, Any]]:
    """The Q&A of the merchant ``merchant_id`` (``merchant_qa`` rows: ``question``, ``answer``...),
    oldest first (``created_at``, then the order they were asked)."""
    return db.sql(
        "review_platform", "SELECT * FROM merchant_qa WHERE merchant_id = ? ORDER BY created_at, rowid", (merchant_id,)
    )
