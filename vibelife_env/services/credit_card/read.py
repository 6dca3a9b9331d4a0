"""Readers of the credit-card service (see :mod:`vibelife_env.services.read`).

Amounts are in minor units (fen) as stored: a purchase is positive, a refund or credit negative.
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader, select, where


def card(db: Reader, card_id: str) -> dict[str, Any] | None:
    """The card ``card_id`` (its ``cards`` row: ``status`` is ``active``, ``frozen``...), or ``None``."""
    rows = db.sql("credit_card", "SELECT * FROM cards WHERE card_id = ?", (card_id,))
    return rows[0] if rows else None


def unbilled(db: Reader, *, kind: str | None = None, merchant: str | None = None) -> list[dict[str, Any]]:
    """Card lines not yet on a statement (``unbilled_transactions`` rows), oldest first
    (``posted_at``, then ``tx_id``); with ``kind`` (``purchase``, ``refund``...) or ``merchant``
    (the exact ``merchant_name``), only those."""
    conds, params = where(kind=kind, merchant_name=merchant)
    return db.sql("credit_card", select("unbilled_transactions", conds, "posted_at, tx_id"), tuple(params))


def charge(db: Reader, tx_id: str) -> dict[str, Any] | None:
    """The unbilled card line ``tx_id`` (its ``unbilled_transactions`` row), or ``None``."""
    rows = db.sql("credit_card", "SELECT * FROM unbilled_transactions WHERE tx_id = ?", (tx_id,))
    return rows[0] if rows else None


def disputes(db: Reader) -> list[dict[str, Any]]:
    """Every dispute opened (``disputes`` rows, any status), oldest first (``opened_at``, then
    ``dispute_id``)."""
    return db.sql("credit_card", "SELECT * FROM disputes ORDER BY opened_at, dispute_id")


def disputed(db: Reader) -> set[str]:
    """The ids of the card lines under a dispute that was not withdrawn (open or settled)."""
    return {d["tx_id"] for d in disputes(db) if d["status"] != "withdrawn"}


def repayments(db: Reader, card_id: str) -> list[dict[str, Any]]:
    """Payments made to the card ``card_id`` (``payments`` rows), oldest first (``posted_at``,
    then ``payment_id``)."""
    return db.sql("credit_card", "SELECT * FROM payments WHERE card_id = ? ORDER BY posted_at, payment_id", (card_id,))


def points(db: Reader, card_id: str) -> int | None:
    """The card's rewards points balance (``None``: the card has no rewards account)."""
    rows = db.sql("credit_card", "SELECT points_balance FROM rewards_balances WHERE card_id = ?", (card_id,))
    return int(rows[0]["points_balance"]) if rows else None


def rewards(db: Reader, card_id: str) -> list[dict[str, Any]]:
    """The card's rewards ledger (``rewards_ledger`` rows: ``kind`` (``earn``, ``redeem``...),
    ``delta``, ``note``...), oldest first (``posted_at``, then the order they were written)."""
    return db.sql("credit_card", "SELECT * FROM rewards_ledger WHERE card_id = ? ORDER BY posted_at, rowid", (card_id,))
