"""Seed and mutation statements of the notion service (see :mod:`vibelife_env.services.sql`).

>>> print(workspace("u_ana", "Ana", "ana@mail.example"))
INSERT INTO users (user_id, name, email, type) VALUES ('u_ana', 'Ana', 'ana@mail.example', 'person');
INSERT INTO workspaces (workspace_id, name, owner_user_id) VALUES ('ws_1', 'Ana', 'u_ana');
INSERT INTO pages (page_id, parent_type, parent_id, title, archived, created_time, last_edited_time, properties_json) VALUES ('pg_home', 'workspace', 'ws_1', 'Home', 0, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', '{}');
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.sql import insert


def page(
    page_id: str,
    title: str,
    *,
    parent_id: str = "ws_1",
    parent_type: str = "workspace",
    created: str = "2025-01-01T00:00:00Z",
    edited: str | None = None,
    properties_json: str = "{}",
    archived: bool = False,
    **more: Any,
) -> str:
    """One page under a workspace (default) or another page (``parent_type="page_id"``)."""
    return insert(
        "notion",
        "pages",
        {
            "page_id": page_id,
            "parent_type": parent_type,
            "parent_id": parent_id,
            "title": title,
            "archived": int(archived),
            "created_time": created,
            "last_edited_time": edited or created,
            "properties_json": properties_json,
            **more,
        },
    )


def workspace(
    user_id: str,
    name: str,
    email: str,
    *,
    workspace_id: str = "ws_1",
    workspace_name: str | None = None,
    home: str | None = "Home",
    home_id: str = "pg_home",
    created: str = "2025-01-01T00:00:00Z",
) -> str:
    """The owner, their workspace (named ``workspace_name``, default the owner's name) and a
    top page titled ``home`` (none when ``home`` is ``None``)."""
    parts = [
        insert("notion", "users", {"user_id": user_id, "name": name, "email": email, "type": "person"}),
        insert(
            "notion",
            "workspaces",
            {"workspace_id": workspace_id, "name": workspace_name or name, "owner_user_id": user_id},
        ),
    ]
    if home is not None:
        parts.append(page(home_id, home, parent_id=workspace_id, created=created))
    return "\n".join(parts)
