"""Readers of the notion service (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.notion import _rows
from vibelife_env.services.read import Reader


def pages(db: Reader) -> list[dict[str, Any]]:
    """Every page (``pages`` rows, archived ones too), oldest first (``created_time``, then
    ``page_id``)."""
    return db.sql("notion", "SELECT * FROM pages ORDER BY created_time, page_id")


def blocks(db: Reader, page_id: str, *, archived: bool = False) -> list[dict[str, Any]]:
    """The blocks whose page is ``page_id`` (``blocks`` rows: ``block_id``, ``type``,
    ``content_json``, ``last_edited_time``...), in page order (``position``, then the order they
    were stored); archived (deleted) blocks only with ``archived``."""
    if archived:
        return db.sql("notion", "SELECT * FROM blocks WHERE parent_page_id = ? ORDER BY position, rowid", (page_id,))
    return db.sql(
        "notion", "SELECT * FROM blocks WHERE parent_page_id = ? AND archived = 0 ORDER BY position, rowid", (page_id,)
    )


def database_rows(db: Reader) -> list[dict[str, Any]]:
    """Every database row (a row is also a page: its ``row_id`` addresses its blocks), archived
    ones too, with its database's ``database_title``; oldest first (``created_time``, then
    ``row_id``)."""
    return db.sql(
        "notion",
        "SELECT r.*, d.title AS database_title FROM database_rows r JOIN databases d ON d.database_id = r.database_id "
        "ORDER BY r.created_time, r.row_id",
    )


def title_of(properties: dict[str, Any]) -> str:
    """The plain title of a page's or a row's property map (its title-typed property)."""
    return _rows.extract_title(properties)
