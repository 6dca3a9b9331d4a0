"""Readers of the banking service (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

import re
from typing import Any

from vibelife_env.services.read import Reader


def payments(db: Reader, payee: str | None = None, *, account: str | None = None) -> list[dict[str, Any]]:
    """Every payment to the saved payee called ``payee`` (or to any payee whose account number is
    ``account``, however spaced): posted ones, then pending scheduled ones, each ``{ref, at,
    amount}`` with the amount in minor units."""
    if account is not None:
        digits = re.sub(r"\D", "", account)
        rows = db.sql("banking", "SELECT name, account_no FROM payees ORDER BY payee_id")
        names = sorted({r["name"] for r in rows if re.sub(r"\D", "", r["account_no"] or "") == digits})
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
