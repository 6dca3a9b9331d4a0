"""Readers of the email service (see :mod:`vibelife_env.services.read`).

``message_id`` is the RFC Message-ID header (``<...@host>``), ``id`` the store's row id; rows
come in ``id`` order (the order the mailbox received or stored them).
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def messages(db: Reader, folder: str | None = None) -> list[dict[str, Any]]:
    """Every stored message (or those of the folder named ``folder``, any case), in id order: each
    ``messages`` row with its folder's name as ``folder``."""
    sql = "SELECT m.*, f.name AS folder FROM messages m JOIN folders f ON f.id = m.folder_id"
    if folder is None:
        return db.sql("email", sql + " ORDER BY m.id")
    return db.sql("email", sql + " WHERE lower(f.name) = lower(?) ORDER BY m.id", (folder,))


def message(db: Reader, message_id: str) -> dict[str, Any] | None:
    """The first stored message with this Message-ID (its ``messages`` row), or ``None``."""
    rows = db.sql("email", "SELECT * FROM messages WHERE message_id = ? ORDER BY id LIMIT 1", (message_id,))
    return rows[0] if rows else None


def message_ids(db: Reader) -> list[str]:
    """The Message-IDs of every stored message, in id order."""
    return [r["message_id"] for r in db.sql("email", "SELECT message_id FROM messages ORDER BY id")]


def folder_of(db: Reader, message_id: str) -> str | None:
    """The name of the folder that holds the (first) message with this Message-ID; ``None`` when no
    message has it (deleted, or never delivered)."""
    rows = db.sql(
        "email",
        "SELECT f.name FROM messages m JOIN folders f ON f.id = m.folder_id WHERE m.message_id = ? ORDER BY m.id",
        (message_id,),
    )
    return rows[0]["name"] if rows else None
