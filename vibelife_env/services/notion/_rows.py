"""Row-to-object converters and text helpers for the notion service.

Objects follow the Notion API shapes (``object`` discriminator, ``parent`` object,
``properties`` map, list envelopes). Stored JSON columns are returned verbatim.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from vibelife_env.services.common import loads

_ANNOTATIONS = {
    "bold": False,
    "italic": False,
    "strikethrough": False,
    "underline": False,
    "code": False,
    "color": "default",
}


# ------------------------------------------------------------------ ids


def normalize_id(value: str) -> str:
    """Canonical dashed lowercase form of a 32-hex id; other ids unchanged."""
    text = value.strip()
    bare = text.replace("-", "").lower()
    if len(bare) == 32:
        try:
            return str(uuid.UUID(bare))
        except ValueError:
            return text
    return text


def instant_key(text: Any) -> str:
    """Comparable UTC key of an ISO timestamp (naive = UTC); unparsable text sorts as itself."""
    raw = str(text or "").strip()
    try:
        dt = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith("Z") else raw)
    except ValueError:
        return raw
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")


# ------------------------------------------------------------------ rich text
def rich_text(content: str) -> list[dict[str, Any]]:
    """A one-run Notion rich-text array for plain ``content``."""
    if not content:
        return []
    return [
        {
            "type": "text",
            "text": {"content": content, "link": None},
            "annotations": dict(_ANNOTATIONS),
            "plain_text": content,
            "href": None,
        }
    ]


def plain_text(runs: Any) -> str:
    """Concatenated text of a rich-text array (``plain_text`` or ``text.content``)."""
    if isinstance(runs, str):
        return runs
    if not isinstance(runs, list):
        return ""
    parts = []
    for run in runs:
        if isinstance(run, str):
            parts.append(run)
        elif isinstance(run, dict):
            text = run.get("plain_text")
            if text is None and isinstance(run.get("text"), dict):
                text = run["text"].get("content")
            parts.append(str(text or ""))
    return "".join(parts)


def as_rich_text(value: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accept a plain string or a rich-text array."""
    return rich_text(value) if isinstance(value, str) else list(value)


def extract_title(properties: dict[str, Any]) -> str:
    """Plain title of a property map: the ``title`` property, else any title-typed one."""
    candidates: list[Any] = []
    if "title" in properties:
        candidates.append(properties["title"])
    for value in properties.values():
        if isinstance(value, dict) and (value.get("type") == "title" or isinstance(value.get("title"), list)):
            candidates.append(value)
    for cand in candidates:
        if isinstance(cand, str) and cand.strip():
            return cand.strip()
        if isinstance(cand, list):
            text = plain_text(cand).strip()
        elif isinstance(cand, dict):
            text = plain_text(cand.get("title") or cand.get("rich_text") or []).strip()
        else:
            text = ""
        if text:
            return text
    return ""


def value_text(value: Any) -> str:
    """Best plain-text reading of a property value (Notion-shaped or a bare scalar)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    if isinstance(value, list):
        if all(isinstance(v, dict) and ("plain_text" in v or "text" in v) for v in value) and value:
            return plain_text(value)
        return ", ".join(value_text(v) for v in value)
    if isinstance(value, dict):
        for key in ("title", "rich_text"):
            if isinstance(value.get(key), list):
                return plain_text(value[key])
        vtype = value.get("type")
        if isinstance(vtype, str) and vtype in value and vtype != "type":
            return value_text(value[vtype])
        for key in ("select", "status"):
            if isinstance(value.get(key), dict):
                return str(value[key].get("name") or "")
        if "multi_select" in value:
            return value_text(value["multi_select"])
        if isinstance(value.get("date"), dict):
            return str(value["date"].get("start") or "")
        for key in ("number", "url", "email", "phone_number", "checkbox", "name", "content", "start"):
            if key in value:
                return value_text(value[key])
    return ""


# ------------------------------------------------------------------ objects
def _parent(parent_type: str, parent_id: str) -> dict[str, Any]:
    if parent_type == "workspace":
        return {"type": "workspace", "workspace": True}
    return {"type": parent_type, parent_type: parent_id}


def _url(object_id: str) -> str:
    return f"https://www.notion.so/{object_id.replace('-', '')}"


def page_object(row: dict[str, Any]) -> dict[str, Any]:
    props = loads(row["properties_json"], {})
    if not isinstance(props, dict):
        props = {"value": props}
    if "title" not in props and row["title"]:
        props = {**props, "title": {"id": "title", "type": "title", "title": rich_text(row["title"])}}
    return {
        "object": "page",
        "id": row["page_id"],
        "created_time": row["created_time"],
        "last_edited_time": row["last_edited_time"],
        "archived": bool(row["archived"]),
        "in_trash": bool(row["archived"]),
        "icon": loads(row["icon"], None),
        "cover": loads(row["cover"], None),
        "parent": _parent(row["parent_type"], row["parent_id"]),
        "properties": props,
        "url": _url(row["page_id"]),
    }


def row_page_object(row: dict[str, Any]) -> dict[str, Any]:
    """A database row rendered as the page it is (parent = its database)."""
    props = loads(row["properties_json"], {})
    return {
        "object": "page",
        "id": row["row_id"],
        "created_time": row["created_time"],
        "last_edited_time": row["last_edited_time"],
        "archived": bool(row["archived"]),
        "in_trash": bool(row["archived"]),
        "icon": None,
        "cover": None,
        "parent": {"type": "database_id", "database_id": row["database_id"]},
        "properties": props if isinstance(props, dict) else {"value": props},
        "url": _url(row["row_id"]),
    }


def database_object(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": "database",
        "id": row["database_id"],
        "created_time": row["created_time"],
        "last_edited_time": row["last_edited_time"],
        "title": rich_text(row["title"]),
        "description": [],
        "properties": loads(row["schema_json"], {}),
        "parent": _parent(row["parent_type"], row["parent_id"]),
        "archived": bool(row["archived"]),
        "in_trash": bool(row["archived"]),
        "is_inline": False,
        "url": _url(row["database_id"]),
    }


def block_object(row: dict[str, Any]) -> dict[str, Any]:
    if row["parent_block_id"]:
        parent = {"type": "block_id", "block_id": row["parent_block_id"]}
    elif row["parent_page_id"]:
        parent = {"type": "page_id", "page_id": row["parent_page_id"]}
    else:
        parent = {"type": "workspace", "workspace": True}
    return {
        "object": "block",
        "id": row["block_id"],
        "parent": parent,
        "created_time": row["created_time"],
        "last_edited_time": row["last_edited_time"],
        "has_children": bool(row["has_children"]),
        "archived": bool(row["archived"]),
        "in_trash": bool(row["archived"]),
        "type": row["type"],
        row["type"]: loads(row["content_json"], {}),
    }


def user_object(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": "user",
        "id": row["user_id"],
        "name": row["name"],
        "avatar_url": row["avatar_url"],
        "type": row["type"],
        "person": {"email": row["email"]} if row["type"] == "person" and row["email"] else {},
    }


def comment_object(row: dict[str, Any]) -> dict[str, Any]:
    content = loads(row["content_json"], {})
    if isinstance(content, dict) and isinstance(content.get("rich_text"), list):
        runs = content["rich_text"]
    else:
        runs = rich_text(value_text(content.get("text") if isinstance(content, dict) else content))
    return {
        "object": "comment",
        "id": row["comment_id"],
        "parent": {"type": "page_id", "page_id": row["parent_page_id"]},
        "discussion_id": row["discussion_id"],
        "created_time": row["created_time"],
        "last_edited_time": row["created_time"],
        "created_by": {"object": "user", "id": row["created_by"]},
        "rich_text": runs,
    }


def list_envelope(results: list[dict[str, Any]], kind: str, next_cursor: str | None) -> dict[str, Any]:
    """Notion's list envelope: ``{object: list, results, has_more, next_cursor, type, <type>: {}}``."""
    return {
        "object": "list",
        "results": results,
        "has_more": next_cursor is not None,
        "next_cursor": next_cursor,
        "type": kind,
        kind: {},
    }
