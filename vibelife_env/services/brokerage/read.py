"""Readers of the brokerage service (see :mod:`vibelife_env.services.read`).

Money is in minor units (fen) and quantities in thousandths of a share or unit (``qty_milli``).
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def cash(db: Reader, account_id: str) -> int | None:
    """The cash held in the account ``account_id`` (``None``: no such account)."""
    rows = db.sql("brokerage", "SELECT cash_minor FROM accounts WHERE account_id = ?", (account_id,))
    return int(rows[0]["cash_minor"]) if rows else None


def position(db: Reader, account_id: str, symbol: str) -> dict[str, Any] | None:
    """The account's holding of ``symbol`` (its ``positions`` row: ``qty_milli``,
    ``avg_cost_minor``, ``kind``...), or ``None``."""
    rows = db.sql("brokerage", "SELECT * FROM positions WHERE account_id = ? AND symbol = ?", (account_id, symbol))
    return rows[0] if rows else None


def positions(db: Reader, account_id: str) -> list[dict[str, Any]]:
    """The account's holdings (``positions`` rows, empty ones too), in the order they were opened."""
    return db.sql("brokerage", "SELECT * FROM positions WHERE account_id = ? ORDER BY rowid", (account_id,))


def orders(db: Reader, account_id: str | None = None) -> list[dict[str, Any]]:
    """Orders (``orders`` rows, any status; of the account ``account_id``), oldest first
    (``placed_at``, then ``order_id``)."""
    if account_id is None:
        return db.sql("brokerage", "SELECT * FROM orders ORDER BY placed_at, order_id")
    return db.sql("brokerage", "SELECT * FROM orders WHERE account_id = ? ORDER BY placed_at, order_id", (account_id,))


def funds(db: Reader) -> list[dict[str, Any]]:
    """The fund catalogue (``funds`` rows: ``fund_code``, ``category``...), in the order it was stored."""
    return db.sql("brokerage", "SELECT * FROM funds ORDER BY rowid")
