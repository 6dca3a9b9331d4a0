"""Small builders the probes and families share: SQL literals and timeline event fields.

- :func:`q`: a value as an SQL literal for seed and mutation statements;
- :func:`mutation`: a silent world change (no turn);
- :func:`turn`: an event that opens a turn (a user message, a notification, a world
  observation, a scheduled wake-up);
- :func:`inbox_sql` / :func:`deliver`: one message into the email service's INBOX, as a
  seed or mutation statement or from a world script.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from vibelife_env.services import sql
from vibelife_env.services.email import seed as mail_seed


def q(value: Any) -> str:
    """A SQL literal (see :func:`vibelife_env.services.sql.q`).

    >>> q("it's"), q(None), q(True), q(2.5)
    ("'it''s'", 'NULL', '1', '2.5')
    """
    return sql.q(value)


def mutation(eid: str, at: datetime, body: str, apply: list[dict[str, Any]]) -> dict[str, Any]:
    """A silent world change (``apply``: the operations), idempotent under its id."""
    return {
        "id": eid,
        "time": at,
        "kind": "mutation",
        "silent": True,
        "body": body,
        "apply": apply,
        "idempotency_key": eid,
    }


def turn(eid: str, at: datetime, kind: str, body: str, **more: Any) -> dict[str, Any]:
    """A turn-opening event of ``kind`` (``source``/``from``/``facts`` in ``more``)."""
    return {"id": eid, "time": at, "kind": kind, "body": body, **more}


def inbox_sql(
    message_id: str,
    subject: str,
    sender: str,
    to: str,
    at: datetime,
    body: str,
    *,
    read: bool = False,
    important: bool = False,
) -> str:
    """An INSERT of one INBOX message (see :func:`vibelife_env.services.email.seed.message`)."""
    return mail_seed.message(message_id, subject, sender, to, at, body, read=read, important=important)


def deliver(ctx: Any, message_id: str, subject: str, sender: str, to: str, at: datetime, body: str) -> None:
    """A world script's way of delivering one message to the INBOX (see :func:`inbox_sql`)."""
    ctx.world.services["email"].execute(inbox_sql(message_id, subject, sender, to, at, body))
