"""Seed and mutation statements of the banking service (see :mod:`vibelife_env.services.sql`).

>>> print(account("acc_1", "u_ana", "Everyday", 120_000, opened_at="2020-01-01T00:00:00Z"))
INSERT INTO accounts (account_id, user_id, type, name, balance_minor, currency, opened_at) VALUES ('acc_1', 'u_ana', 'checking', 'Everyday', 120000, 'CNY', '2020-01-01T00:00:00Z');
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.sql import insert


def account_row(
    account_id: str,
    user_id: str,
    name: str,
    balance_minor: int,
    *,
    opened_at: str,
    type: str = "checking",
    currency: str = "CNY",
    **more: Any,
) -> dict[str, Any]:
    """One ``accounts`` row (``more``: ``frozen``)."""
    return {
        "account_id": account_id,
        "user_id": user_id,
        "type": type,
        "name": name,
        "balance_minor": int(balance_minor),
        "currency": currency,
        "opened_at": opened_at,
        **more,
    }


def account(account_id: str, user_id: str, name: str, balance_minor: int, **fields: Any) -> str:
    """One account (see :func:`account_row`)."""
    return insert("banking", "accounts", account_row(account_id, user_id, name, balance_minor, **fields))


def payee(
    payee_id: str, user_id: str, name: str, account_no: str, bank_name: str, *, added_at: str, masked: str | None = None
) -> str:
    """A saved payee (``masked`` defaults to ``****`` and the last four digits)."""
    return insert(
        "banking",
        "payees",
        {
            "payee_id": payee_id,
            "user_id": user_id,
            "name": name,
            "account_no": account_no,
            "account_no_masked": masked if masked is not None else "****" + account_no[-4:],
            "bank_name": bank_name,
            "added_at": added_at,
        },
    )


def transaction_row(
    tx_id: str,
    account_id: str,
    posted_at: str,
    amount_minor: int,
    kind: str,
    balance_after_minor: int,
    *,
    counterparty: str | None = None,
    memo: str | None = None,
) -> dict[str, Any]:
    """One ``transactions`` row (a posted line; the balance after it is the caller's sum)."""
    return {
        "tx_id": tx_id,
        "account_id": account_id,
        "posted_at": posted_at,
        "amount_minor": int(amount_minor),
        "kind": kind,
        "counterparty": counterparty,
        "memo": memo,
        "balance_after_minor": int(balance_after_minor),
    }


def transactions(*rows: dict[str, Any]) -> str:
    """One INSERT of :func:`transaction_row` rows."""
    return insert("banking", "transactions", *rows)
