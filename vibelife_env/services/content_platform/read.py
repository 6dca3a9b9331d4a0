"""Readers of the content platform (notes and comments; see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def notes(db: Reader, author: str) -> list[dict[str, Any]]:
    """The notes the user ``author`` published (``notes`` rows: ``note_id``, ``title``, ``body``,
    ``tags``, ``published_at``...), in the order they were stored."""
    return db.sql("content_platform", "SELECT * FROM notes WHERE author_id = ? ORDER BY rowid", (author,))


def comments(db: Reader, user: str) -> list[dict[str, Any]]:
    """The comments the user ``user`` wrote (``comments`` rows: ``note_id``, ``body``...), in the
    order they were stored."""
    return db.sql("content_platform", "SELECT * FROM comments WHERE user_id = ? ORDER BY rowid", (user,))


def comment(db: Reader, comment_id: str) -> dict[str, Any] | None:
    """The comment ``comment_id`` (its ``comments`` row), or ``None``."""
    rows = db.sql("content_platform", "SELECT * FROM comments WHERE comment_id = ?", (comment_id,))
    return rows[0] if rows else None
