"""Readers of the notification hub (subscriptions and official-account feeds; see
:mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader, select, where


def post(db: Reader, post_id: str) -> dict[str, Any] | None:
    """The official-account post ``post_id`` (its ``official_account_posts`` row: ``title``,
    ``summary``...), or ``None``."""
    rows = db.sql("notification_hub", "SELECT * FROM official_account_posts WHERE post_id = ?", (post_id,))
    return rows[0] if rows else None


def follows(db: Reader, user: str, account_id: str) -> bool:
    """The user follows the official account ``account_id``."""
    return bool(
        db.sql(
            "notification_hub",
            "SELECT 1 FROM official_account_subscriptions WHERE user_id = ? AND account_id = ?",
            (user, account_id),
        )
    )


def subscriptions(db: Reader, *, status: str | None = None, type: str | None = None) -> list[dict[str, Any]]:
    """Subscriptions (``subscriptions`` rows: ``type``, ``target``, ``status``...; in the status
    ``status``, of the type ``type``), in the order they were made."""
    conds, params = where(status=status, type=type)
    return db.sql("notification_hub", select("subscriptions", conds, "rowid"), tuple(params))
