"""Readers of the listing platform (rentals and sales; see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader, select, where


def listings(
    db: Reader, *, category: str | None = None, city: str | None = None, status: str | None = None
) -> list[dict[str, Any]]:
    """Listings (``listings`` rows; of the category ``category`` (``rent``, ``sale``), in the city
    ``city``, in the status ``status``), cheapest first (``price_minor``, then the order they were
    stored)."""
    conds, params = where(category=category, city=city, status=status)
    return db.sql("listing_platform", select("listings", conds, "price_minor, rowid"), tuple(params))


def listing(db: Reader, listing_id: str) -> dict[str, Any] | None:
    """The listing ``listing_id`` (its ``listings`` row), or ``None``."""
    rows = db.sql("listing_platform", "SELECT * FROM listings WHERE listing_id = ?", (listing_id,))
    return rows[0] if rows else None


def saved(db: Reader, user: str) -> set[str]:
    """The ids of the listings the user saved."""
    return {
        r["listing_id"]
        for r in db.sql("listing_platform", "SELECT listing_id FROM saved_listings WHERE user_id = ?", (user,))
    }


def viewings(db: Reader, user: str, *, status: str | None = None) -> list[dict[str, Any]]:
    """The user's viewings (``viewings`` rows: ``listing_id``, ``scheduled_at``...; in the status
    ``status``: ``scheduled``, ``cancelled``...), in the order they were booked."""
    conds, params = where(user_id=user, status=status)
    return db.sql("listing_platform", select("viewings", conds, "rowid"), tuple(params))


def last_contacted(db: Reader, user: str) -> dict[str, Any] | None:
    """The listing (its ``listings`` row) whose agent the user contacted last, or ``None``."""
    rows = db.sql(
        "listing_platform",
        "SELECT l.* FROM contacts c JOIN listings l ON l.listing_id = c.listing_id WHERE c.user_id = ? "
        "ORDER BY c.created_at DESC, c.contact_id DESC LIMIT 1",
        (user,),
    )
    return rows[0] if rows else None
