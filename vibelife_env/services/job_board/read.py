"""Readers of the job board (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def jobs(db: Reader) -> list[dict[str, Any]]:
    """Every posting (``jobs`` rows: ``city``, ``category``, ``status``, ``salary_max_minor``...),
    in the order they were stored."""
    return db.sql("job_board", "SELECT * FROM jobs ORDER BY rowid")


def applications(db: Reader) -> list[dict[str, Any]]:
    """Every application (``applications`` rows: ``job_id``, ``status``, ``applied_at``...), in the
    order they were made."""
    return db.sql("job_board", "SELECT * FROM applications ORDER BY rowid")


def saved_jobs(db: Reader) -> set[str]:
    """The ids of the bookmarked postings."""
    return {r["job_id"] for r in db.sql("job_board", "SELECT job_id FROM saved_jobs")}


def user_chat(db: Reader) -> list[str]:
    """The bodies of the messages the user sent in recruiter chats, in the order they were sent."""
    rows = db.sql(
        "job_board",
        "SELECT m.body FROM chat_messages m JOIN chats c ON c.chat_id = m.chat_id WHERE m.sender = 'user' "
        "ORDER BY m.rowid",
    )
    return [r["body"] for r in rows]
