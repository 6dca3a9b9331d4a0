"""Helpers of the email service: argument checks, address lists, paging, row-to-dict.

Addresses cross the tool boundary as comma-separated strings (``"a@x.com, Bo <b@y.com>"``)
and are stored as JSON arrays in the ``*_addr_json`` columns.
"""

from __future__ import annotations

import json
from typing import Any

from vibelife_env.errors import ToolError

SYSTEM_FOLDERS = ("INBOX", "Sent", "Drafts", "Trash", "Spam")
MARK_STATUSES = {
    "read": ("is_read", 1),
    "unread": ("is_read", 0),
    "important": ("is_important", 1),
    "not_important": ("is_important", 0),
}
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 50
MAX_FOLDER_NAME = 128
MAX_QUERY = 512
DEFAULT_CONTENT_TYPE = "application/octet-stream"

#: Newest first by the instant the ``date`` denotes (dates mix ``Z``, ``+08:00`` and
#: date-only forms), then by the raw text and id so the order is total.
NEWEST_FIRST = "COALESCE(julianday(m.date), 0) DESC, m.date DESC, m.id DESC"
OLDEST_FIRST = "COALESCE(julianday(date), 0) ASC, date ASC, id ASC"


# ------------------------------------------------------------------ arguments
def parse_id(value: str, what: str = "email_id") -> int:
    """An email or draft id: agents see strings, the tables hold non-zero integers."""
    try:
        pk = int(str(value).strip())
    except ValueError:
        raise ToolError("BAD_ARG", f"{what} must be a numeric id, got {value!r}") from None
    if pk == 0:
        raise ToolError("BAD_ARG", f"{what} must be a non-zero id, got {value!r}")
    return pk


def folder_name(value: str | None, arg: str = "folder_name") -> str:
    """A trimmed folder name: 1 to 128 printable characters."""
    name = (value or "").strip()
    if not name:
        raise ToolError("BAD_ARG", f"{arg} is required")
    if len(name) > MAX_FOLDER_NAME:
        raise ToolError("BAD_ARG", f"{arg} {name[:20]!r}... is longer than {MAX_FOLDER_NAME} characters")
    if not name.isprintable():
        raise ToolError("BAD_ARG", f"{arg} {name!r} contains control characters")
    return name


def search_query(value: str) -> str:
    query = value.strip()
    if not query:
        raise ToolError("BAD_ARG", "query must not be empty")
    if len(query) > MAX_QUERY:
        raise ToolError("BAD_ARG", f"query is longer than {MAX_QUERY} characters")
    return query


def like_pattern(text: str) -> str:
    """A ``LIKE ... ESCAPE '\\'`` pattern matching ``text`` as a literal substring."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def page_params(page: int, page_size: int) -> tuple[int, int]:
    """Clamp paging: page at least 1; page_size in 1..50 (below 1 means the default 20)."""
    if page_size < 1:
        page_size = DEFAULT_PAGE_SIZE
    return max(page, 1), min(page_size, MAX_PAGE_SIZE)


def paginate(total: int, page: int, page_size: int) -> tuple[int, int, int]:
    """``(page, total_pages, offset)``; a page past the end shows the last page."""
    total_pages = max(1, -(-total // page_size))
    page = min(page, total_pages)
    return page, total_pages, (page - 1) * page_size


# ------------------------------------------------------------------ addresses
def split_addrs(value: str | None) -> list[str]:
    """``"a@x, b@y"`` -> ``["a@x", "b@y"]``; ``None`` or blank -> ``[]``."""
    if not value:
        return []
    return [a.strip() for a in value.split(",") if a.strip()]


def checked_addrs(value: str | None, arg: str, *, required: bool = False) -> list[str]:
    """Split an address list and refuse entries that are not email addresses."""
    addrs = split_addrs(value)
    if required and not addrs:
        raise ToolError("BAD_ARG", f"`{arg}` is required: give at least one recipient address")
    for addr in addrs:
        if "@" not in addr:
            raise ToolError("BAD_ARG", f"{arg} entry {addr!r} is not an email address")
    return addrs


def addrs_json(addrs: list[str]) -> str:
    return json.dumps(addrs, ensure_ascii=False)


def addrs_csv(raw: Any) -> str:
    """A stored address column (JSON array, or a plain string in hand-written seeds) as CSV."""
    if raw is None or raw == "" or raw == "[]":
        return ""
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return raw
    if isinstance(value, list):
        return ", ".join(str(v) for v in value if v)
    return str(value)


# ------------------------------------------------------------------ rows
def attachment_meta(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "attachment_id": f"att_{int(row['id']):08d}",
        "filename": row["filename"],
        "content_type": row["content_type"] or DEFAULT_CONTENT_TYPE,
        "size": int(row["size"] or 0),
    }


def message_summary(row: dict[str, Any]) -> dict[str, Any]:
    """Message metadata as listed by get_emails/search_emails (``row`` has ``folder_name``)."""
    return {
        "email_id": str(row["id"]),
        "folder": row["folder_name"],
        "subject": row["subject"] or "",
        "from_addr": row["from_addr"] or "",
        "to_addr": addrs_csv(row["to_addr_json"]),
        "cc_addr": addrs_csv(row["cc_addr_json"]),
        "bcc_addr": addrs_csv(row["bcc_addr_json"]),
        "date": row["date"],
        "message_id": row["message_id"],
        "is_read": bool(row["is_read"]),
        "is_important": bool(row["is_important"]),
    }


def headers_map(raw: Any) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except (TypeError, json.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def draft_dict(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "draft_id": str(row["id"]),
        "subject": row["subject"] or "",
        "from_addr": row["from_addr"] or "",
        "to_addr": addrs_csv(row["to_addr_json"]),
        "cc_addr": addrs_csv(row["cc_addr_json"]),
        "bcc_addr": addrs_csv(row["bcc_addr_json"]),
        "body_text": row["body_text"] or "",
        "body_html": row["body_html"],
        "in_reply_to": row["in_reply_to"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


def prefixed(subject: str, prefix: str) -> str:
    """``Re: x`` / ``Fwd: x`` without stacking the same prefix twice."""
    return subject if subject[: len(prefix)].lower() == prefix.lower() else f"{prefix} {subject}"


def dedupe(addrs: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for addr in addrs:
        if addr.lower() not in seen:
            seen.add(addr.lower())
            out.append(addr)
    return out
