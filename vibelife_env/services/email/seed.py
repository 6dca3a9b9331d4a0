"""Seed and mutation statements of the email service (see :mod:`vibelife_env.services.sql`).

>>> print(mailbox("ana@mail.example", "Ana"))
INSERT INTO account_config (id, email, name, created_at) VALUES (1, 'ana@mail.example', 'Ana', '2024-01-01T00:00:00Z');
INSERT INTO folders (name) VALUES ('INBOX'), ('Sent'), ('Drafts'), ('Trash'), ('Spam');
"""

from __future__ import annotations

import json
from datetime import datetime

from vibelife_env.services.email._rows import SYSTEM_FOLDERS
from vibelife_env.services.sql import Raw, insert


def folder_ref(name: str = "INBOX") -> Raw:
    """The id of the folder called ``name``, as a sub-select (for ``messages.folder_id``)."""
    return Raw(f"(SELECT id FROM folders WHERE name = '{name}')")


def mailbox(email: str, name: str, created_at: str = "2024-01-01T00:00:00Z", folders: tuple[str, ...] = ()) -> str:
    """The account (``email``, ``name``) and its system folders, then ``folders`` (user folders)."""
    return (
        insert("email", "account_config", {"id": 1, "email": email, "name": name, "created_at": created_at})
        + "\n"
        + insert("email", "folders", *({"name": f} for f in (*SYSTEM_FOLDERS, *folders)))
    )


def message(
    message_id: str,
    subject: str,
    sender: str,
    to: str | list[str],
    at: datetime | str,
    body: str,
    *,
    read: bool = False,
    important: bool = False,
    folder: str = "INBOX",
    uid: int | None = None,
    or_ignore: bool = False,
) -> str:
    """One message delivered to ``folder`` (``to``: one address or a list), ``at`` its date."""
    when = at.isoformat() if isinstance(at, datetime) else at
    return insert(
        "email",
        "messages",
        {
            "folder_id": folder_ref(folder),
            "message_id": message_id,
            "subject": subject,
            "from_addr": sender,
            "to_addr_json": json.dumps([to] if isinstance(to, str) else list(to)),
            "date": when,
            "body_text": body,
            "is_read": read,
            "is_important": important,
            "headers_json": "{}",
            "uid": uid,
            "size": len(body),
            "created_at": when,
        },
        or_ignore=or_ignore,
    )
