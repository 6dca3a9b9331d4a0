"""Writes of the email service that create messages or files.

Outgoing mail (``send``), export/import records, and the mailbox's private file area
(the ``_files`` control table) used by download_attachment, export_emails and
import_emails: no real disk I/O, so files are deterministic, snapshot with the world
and roll back with a failed call.
"""

from __future__ import annotations

import json
import posixpath
from typing import TYPE_CHECKING, Any

from vibelife_env.errors import ToolError
from vibelife_env.services.email import _rows as rows

if TYPE_CHECKING:
    from vibelife_env.services.email.service import EmailService


def message_id_header(svc: EmailService) -> str:
    """A fresh RFC-5322 Message-ID from the ``msg_seq`` counter."""
    return f"<emails-mcp-{svc.next_seq('msg_seq'):08d}@mock.local>"


def send(
    svc: EmailService,
    to_list: list[str],
    subject: str,
    body: str,
    html_body: str | None,
    cc_list: list[str],
    bcc_list: list[str],
    *,
    to_text: str | None = None,
    in_reply_to: str | None = None,
    references: str | None = None,
) -> dict[str, Any]:
    """File an outgoing message in Sent and log it; returns the send receipt."""
    sender = svc.account_email()
    now = svc.now_utc()
    msg_id = message_id_header(svc)
    headers = {"From": sender, "To": ", ".join(to_list), "Subject": subject, "Date": now, "Message-ID": msg_id}
    if cc_list:
        headers["Cc"] = ", ".join(cc_list)
    if in_reply_to:
        headers["In-Reply-To"] = in_reply_to
    if references:
        headers["References"] = references
    size = len(body.encode("utf-8")) + len((html_body or "").encode("utf-8"))
    cur = svc.execute(
        "INSERT INTO messages (folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, "
        "bcc_addr_json, date, body_text, body_html, is_read, is_important, in_reply_to, references_header, "
        "headers_json, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 0, ?, ?, ?, ?, ?)",
        (
            svc.resolve_folder("Sent", create=True),
            msg_id,
            subject,
            sender,
            rows.addrs_json(to_list),
            rows.addrs_json(cc_list),
            rows.addrs_json(bcc_list),
            now,
            body,
            html_body,
            in_reply_to,
            references,
            json.dumps(headers, ensure_ascii=False),
            size,
            now,
        ),
    )
    svc.execute("INSERT INTO sent_log (message_id, sent_at) VALUES (?, ?)", (cur.lastrowid, now))
    return {
        "email_id": str(cur.lastrowid),
        "message_id": msg_id,
        "folder": "Sent",
        "to": to_text if to_text is not None else ", ".join(to_list),
        "subject": subject,
        "date": now,
    }


def export_dict(svc: EmailService, row: dict[str, Any], folder: str) -> dict[str, Any]:
    out = rows.message_summary({**row, "folder_name": folder})
    out["body_text"] = row["body_text"]
    out["body_html"] = row["body_html"]
    out["attachments"] = [
        {
            "filename": a["filename"],
            "content_type": a["content_type"],
            "size": int(a["size"] or 0),
            "content_b64": a["content_b64"] or "",
        }
        for a in svc.query("SELECT * FROM attachments WHERE message_id = ? ORDER BY id", (row["id"],))
    ]
    return out


def import_one(svc: EmailService, item: Any, fallback: str, preserve_folders: bool) -> tuple[int, str]:
    if not isinstance(item, dict):
        raise ToolError("BAD_ARG", f"email entry must be an object, got {type(item).__name__}")
    recorded = item.get("folder") if preserve_folders else None
    name = rows.folder_name(recorded or fallback, "folder")
    now = svc.now_utc()
    msg_id = item.get("message_id") or message_id_header(svc)
    body, html = item.get("body_text"), item.get("body_html")
    rowid = svc.insert(
        "INSERT INTO messages (folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, "
        "bcc_addr_json, date, body_text, body_html, is_read, is_important, headers_json, size, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?)",
        (
            svc.resolve_folder(name, create=True),
            msg_id,
            item.get("subject") or "",
            item.get("from_addr") or "",
            rows.addrs_json(rows.split_addrs(item.get("to_addr"))),
            rows.addrs_json(rows.split_addrs(item.get("cc_addr"))),
            rows.addrs_json(rows.split_addrs(item.get("bcc_addr"))),
            item.get("date") or now,
            body,
            html,
            int(bool(item.get("is_read"))),
            int(bool(item.get("is_important"))),
            len((body or "").encode("utf-8")) + len((html or "").encode("utf-8")),
            now,
        ),
    )
    for att in item.get("attachments") or []:
        svc.execute(
            "INSERT INTO attachments (message_id, filename, content_type, size, content_b64) VALUES (?, ?, ?, ?, ?)",
            (
                rowid,
                att.get("filename") or "attachment",
                att.get("content_type") or rows.DEFAULT_CONTENT_TYPE,
                int(att.get("size") or 0),
                att.get("content_b64") or "",
            ),
        )
    return rowid, name


# -------------------------------------------------------------- file area
def write_file(svc: EmailService, path: str, data: bytes, *, rename: bool = False) -> str:
    """Store ``data`` at ``path`` in the file area; returns the path used.

    With ``rename`` an existing file is kept and ``name(1).ext``, ``name(2).ext`` ... is used.
    """
    target = _normalise_path(path)
    if rename:
        stem, ext = posixpath.splitext(target)
        n = 0
        while svc.query_one("SELECT 1 FROM _files WHERE path = ?", (target,)):
            n += 1
            target = f"{stem}({n}){ext}"
    svc.execute(
        "INSERT INTO _files (path, content, written_at) VALUES (?, ?, ?) "
        "ON CONFLICT(path) DO UPDATE SET content = excluded.content, written_at = excluded.written_at",
        (target, data, svc.now_utc()),
    )
    return target


def read_file(svc: EmailService, path: str) -> bytes:
    row = svc.query_one("SELECT content FROM _files WHERE path = ?", (_normalise_path(path),))
    if row is None:
        raise ToolError("FILE_ERROR", f"import file not found: {path}")
    return bytes(row["content"])


def _normalise_path(path: str) -> str:
    cleaned = posixpath.normpath(path.strip().replace("\\", "/"))
    if not path.strip() or cleaned in (".", "/") or cleaned.endswith("/"):
        raise ToolError("FILE_ERROR", f"{path!r} is not a file path")
    return cleaned
