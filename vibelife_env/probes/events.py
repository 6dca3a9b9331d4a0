"""Small builders the probes and families share: SQL literals and timeline event fields.

- :func:`q`: a value as an SQL literal for seed and mutation statements;
- :func:`rows_sql`: one INSERT of several rows given as dicts;
- :func:`mutation`: a silent world change (no turn);
- :func:`turn`: an event that opens a turn (a user message, a notification, a world
  observation, a scheduled wake-up);
- :func:`inbox_sql` / :func:`deliver`: one message into the email service's INBOX, as a
  seed or mutation statement or from a world script.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any


def q(value: Any) -> str:
    """A SQL literal: ``NULL``, a number (a bool as 0/1), or a quoted string.

    >>> import numpy as np
    >>> q("it's"), q(None), q(True), q(2.5), q(np.float64(2.5))
    ("'it''s'", 'NULL', '1', '2.5', '2.5')
    """
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):  # numpy floats too (their repr names the type)
        return repr(float(value))
    if isinstance(value, int):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def rows_sql(table: str, rows: list[dict[str, Any]]) -> str:
    """One INSERT of ``rows`` (dicts with the same keys, values quoted with :func:`q`) into ``table``.

    >>> rows_sql("folders", [{"name": "INBOX"}, {"name": "Spam"}])
    "INSERT INTO folders (name) VALUES ('INBOX'), ('Spam');"
    """
    cols = list(rows[0])
    values = ", ".join("(" + ", ".join(q(r[c]) for c in cols) + ")" for r in rows)
    return f"INSERT INTO {table} ({', '.join(cols)}) VALUES {values};"


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
    """An INSERT of one INBOX message, for seeds and SQL mutations of the email service."""
    return (
        "INSERT INTO messages (folder_id, message_id, subject, from_addr, to_addr_json, date, body_text, is_read, "
        "is_important, headers_json, uid, size, created_at) VALUES ((SELECT id FROM folders WHERE name = 'INBOX'), "
        f"{q(message_id)}, {q(subject)}, {q(sender)}, {q(json.dumps([to]))}, {q(at.isoformat())}, "
        f"{q(body)}, {q(read)}, {q(important)}, '{{}}', NULL, {len(body)}, {q(at.isoformat())});"
    )


def deliver(ctx: Any, message_id: str, subject: str, sender: str, to: str, at: datetime, body: str) -> None:
    """A world script's way of delivering one message to the INBOX (see :func:`inbox_sql`)."""
    ctx.world.services["email"].execute(inbox_sql(message_id, subject, sender, to, at, body))
