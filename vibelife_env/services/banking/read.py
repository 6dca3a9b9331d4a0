"""Readers of the banking service (see :mod:`vibelife_env.services.read`).

Amounts are in minor units (fen) as stored: a ledger line's ``amount_minor`` is signed (money
out is negative), a scheduled payment's is positive.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from vibelife_env.services.read import Reader, select, where


def _digits(text: str | None) -> str:
    return re.sub(r"\D", "", text or "")


def balance(db: Reader, account_id: str) -> int | None:
    """The balance of the account ``account_id`` (``None``: no such account)."""
    rows = db.sql("banking", "SELECT balance_minor FROM accounts WHERE account_id = ?", (account_id,))
    return int(rows[0]["balance_minor"]) if rows else None


def account(db: Reader, account_id: str) -> dict[str, Any] | None:
    """The account ``account_id`` (its ``accounts`` row: ``balance_minor``, ``frozen``,
    ``currency``...), or ``None``."""
    rows = db.sql("banking", "SELECT * FROM accounts WHERE account_id = ?", (account_id,))
    return rows[0] if rows else None


def transaction(db: Reader, tx_id: str) -> dict[str, Any] | None:
    """The posted ledger line ``tx_id`` (its ``transactions`` row), or ``None``."""
    rows = db.sql("banking", "SELECT * FROM transactions WHERE tx_id = ?", (tx_id,))
    return rows[0] if rows else None


def transactions(
    db: Reader,
    *,
    account: str | None = None,
    kind: str | Sequence[str] | None = None,
    counterparty: str | None = None,
    out: bool | None = None,
    since: str | None = None,
) -> list[dict[str, Any]]:
    """Posted ledger lines (``transactions`` rows), oldest first (``posted_at``, then ``tx_id``).

    Args:
        account: Only lines on this account.
        kind: Only lines of this kind (or of one of these kinds): ``payment``, ``transfer_out``,
            ``transfer_in``, ``deposit``, ``withdrawal``, ``fee``, ``interest``.
        counterparty: Only lines with exactly this counterparty.
        out: ``True``: only money out (negative amounts); ``False``: only money in (positive).
        since: Only lines posted at or after this stored timestamp (compared as text).
    """
    conds, params = where(account_id=account, kind=kind, counterparty=counterparty)
    if out is not None:
        conds.append("amount_minor < 0" if out else "amount_minor > 0")
    if since is not None:
        conds.append("posted_at >= ?")
        params.append(since)
    return db.sql("banking", select("transactions", conds, "posted_at, tx_id"), tuple(params))


def debits(db: Reader) -> list[dict[str, Any]]:
    """Money out of the user's accounts by transfer, payment or withdrawal, oldest first: each
    ``transactions`` row with its account's currency as ``acct_currency``."""
    return db.sql(
        "banking",
        "SELECT t.*, a.currency AS acct_currency FROM transactions t JOIN accounts a ON a.account_id = t.account_id "
        "WHERE t.amount_minor < 0 AND t.kind IN ('transfer_out', 'payment', 'withdrawal') ORDER BY t.posted_at, t.tx_id",
    )


def payees(db: Reader, *, user: str | None = None) -> list[dict[str, Any]]:
    """The saved payees (``payees`` rows; of the user ``user``), in the order they were stored."""
    if user is None:
        return db.sql("banking", "SELECT * FROM payees ORDER BY rowid")
    return db.sql("banking", "SELECT * FROM payees WHERE user_id = ? ORDER BY rowid", (user,))


def payees_to(db: Reader, account: str) -> list[dict[str, Any]]:
    """The saved payees whose account number is ``account`` (compared on the digits, however
    spaced), in the order they were stored."""
    key = _digits(account)
    return [p for p in payees(db) if _digits(p["account_no"]) == key]


def scheduled(
    db: Reader,
    *,
    payee_id: str | None = None,
    account: str | None = None,
    status: str | Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Future-dated payments (``pending_payments`` rows) in the order they were stored.

    Args:
        payee_id: Only payments to this saved payee.
        account: Only payments from this account.
        status: Only payments in this status (or one of these): ``pending`` (still to run),
            ``posted`` (ran), ``cancelled``.
    """
    conds, params = where(payee_id=payee_id, account_id=account, status=status)
    return db.sql("banking", select("pending_payments", conds, "rowid"), tuple(params))


def standing_orders(db: Reader, *, account: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
    """Recurring payments (``recurring_payments`` rows: ``payee_id``, ``amount_minor``, ``freq``,
    ``next_run_date``...; from the account ``account``, in the status ``status``: ``active``,
    ``paused``, ``cancelled``, ``ended``), in the order they were set up."""
    conds, params = where(account_id=account, status=status)
    return db.sql("banking", select("recurring_payments", conds, "rowid"), tuple(params))


def payments(db: Reader, payee: str | None = None, *, account: str | None = None) -> list[dict[str, Any]]:
    """Every payment to the saved payee called ``payee`` (or to any payee whose account number is
    ``account``, however spaced): posted ones, then pending scheduled ones, each ``{ref, at,
    amount}`` with the amount in minor units."""
    if account is not None:
        digits = _digits(account)
        rows = db.sql("banking", "SELECT name, account_no FROM payees ORDER BY payee_id")
        names = sorted({r["name"] for r in rows if _digits(r["account_no"]) == digits})
        return [p for name in names for p in payments(db, name)]
    posted = db.sql(
        "banking",
        "SELECT tx_id AS ref, posted_at AS at, -amount_minor AS amount FROM transactions "
        "WHERE kind IN ('payment', 'transfer_out') AND counterparty = ? ORDER BY posted_at, tx_id",
        (payee,),
    )
    pending = db.sql(
        "banking",
        "SELECT p.pending_id AS ref, p.scheduled_for AS at, p.amount_minor AS amount FROM pending_payments p "
        "JOIN payees y ON y.payee_id = p.payee_id WHERE y.name = ? AND p.status = 'pending' ORDER BY p.pending_id",
        (payee,),
    )
    return [*posted, *pending]
