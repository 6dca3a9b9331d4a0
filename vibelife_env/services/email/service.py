"""email: one mailbox with folders, messages, attachments, drafts and a sent log.

Tool surface: the public ``email_mock`` spec (25 tools, upstream ``emails-mcp`` names).
There is no IMAP/SMTP: sending files the message in ``Sent`` and logs it in ``sent_log``;
inbound mail arrives through seeds and timeline mutations. Ids are the integer primary
keys exposed as strings (``email_id``, ``draft_id``); generated Message-IDs come from the
``msg_seq`` counter; times are the world clock in ISO-8601 UTC with ``Z``.

Files (attachment downloads, exports, imports) live in the mailbox's own ``_files``
table, so they are deterministic, snapshot with the world and roll back with a failed call.

Deliberate differences from the public mock, each an improvement an agent can rely on:
folder names may be any printable text (seeds use ``Insurance & HSA``); negative ids
(used by timeline-materialised mail) are readable; search treats ``%``/``_`` literally;
listings sort by the instant a ``date`` denotes, whatever its UTC offset; a failing call
changes nothing.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``VALIDATION_ERROR``).
"""

from __future__ import annotations

import base64
import binascii
import json
import posixpath
from collections.abc import Callable
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.email import _rows as rows
from vibelife_env.services.email import _store
from vibelife_env.services.email._rows import NEWEST_FIRST, OLDEST_FIRST, SYSTEM_FOLDERS

FALLBACK_ACCOUNT = "user@mock.local"
_MESSAGE_SELECT = "SELECT m.*, f.name AS folder_name FROM messages m JOIN folders f ON f.id = m.folder_id"
# the columns of a listed message (rows.message_summary): no bodies, which a page never shows
_SUMMARY_SELECT = (
    "SELECT m.id, m.subject, m.from_addr, m.to_addr_json, m.cc_addr_json, m.bcc_addr_json, m.date, "
    "m.message_id, m.is_read, m.is_important, f.name AS folder_name "
    "FROM messages m JOIN folders f ON f.id = m.folder_id"
)


class EmailService(Service):
    """A single-account mailbox: read, search, send, reply, forward, file, draft, export."""

    name = "email"
    SCHEMA = schema_from(__file__)

    def after_seed(self) -> None:
        """Make sure the system folders exist (seeds may create some of them with fixed ids)."""
        for folder in SYSTEM_FOLDERS:
            self.resolve_folder(folder, create=True)
        self.after_mutation()

    def after_mutation(self) -> None:
        """Recompute every folder's denormalised counters.

        Triggers keep them true on message writes; this also repairs counters a seed or
        mutation wrote by hand.
        """
        self.execute(
            "UPDATE folders SET "
            "message_count = (SELECT COUNT(*) FROM messages m WHERE m.folder_id = folders.id), "
            "unread_count = (SELECT COUNT(*) FROM messages m WHERE m.folder_id = folders.id AND m.is_read = 0)"
        )

    # ------------------------------------------------------------------ reading
    @tool(read_only=True)
    def get_emails(self, folder: str = "INBOX", page: int = 1, page_size: int = 20) -> dict[str, Any]:
        """List the emails of one folder, newest first: metadata and attachment names, no body.

        Call read_email for the body. Pages past the last return the last page.

        Args:
            folder: Folder name, e.g. INBOX, Sent, Drafts, Trash, Spam or a custom folder.
            page: 1-based page number.
            page_size: Emails per page, 1 to 50 (default 20).
        """
        name = rows.folder_name(folder, "folder")
        folder_id = self.resolve_folder(name)
        page, page_size = rows.page_params(page, page_size)
        total = self.aggregate("SELECT COUNT(*) AS n FROM messages WHERE folder_id = ?", (folder_id,))["n"]
        page, total_pages, offset = rows.paginate(total, page, page_size)
        found = self.query(
            f"{_SUMMARY_SELECT} WHERE m.folder_id = ? ORDER BY {NEWEST_FIRST} LIMIT ? OFFSET ?",
            (folder_id, page_size, offset),
        )
        return {
            "folder": name,
            "emails": self._summaries(found),
            "total_results": total,
            "current_page": page,
            "total_pages": total_pages,
            "page_size": page_size,
        }

    @tool
    def read_email(self, email_id: str) -> dict[str, Any]:
        """Read one email in full (body, recipients, attachment list) and mark it as read.

        Args:
            email_id: The email's id as listed by get_emails or search_emails, e.g. "12".
        """
        row = self._message_row(email_id)
        self.execute("UPDATE messages SET is_read = 1 WHERE id = ? AND is_read = 0", (row["id"],))
        out = rows.message_summary(row)
        out["is_read"] = True
        out["body_text"] = row["body_text"]
        out["body_html"] = row["body_html"]
        out["attachments"] = self._attachments([row["id"]])[row["id"]]
        return out

    @tool(read_only=True)
    def search_emails(
        self, query: str, folder: str | None = None, page: int = 1, page_size: int = 20
    ) -> dict[str, Any]:
        """Find emails whose subject, sender or plain-text body contains a text, newest first.

        Matching is a literal substring test, case-insensitive for Latin letters.

        Args:
            query: The text to look for (1 to 512 characters).
            folder: Only search this folder; omitted searches every folder.
            page: 1-based page number.
            page_size: Emails per page, 1 to 50 (default 20).
        """
        text = rows.search_query(query)
        page, page_size = rows.page_params(page, page_size)
        where = ""
        params: list[Any] = []
        if folder:
            where = "m.folder_id = ? AND "
            params.append(self.resolve_folder(rows.folder_name(folder, "folder")))
        pattern = rows.like_pattern(text)
        where += "(m.subject LIKE ? ESCAPE '\\' OR m.body_text LIKE ? ESCAPE '\\' OR m.from_addr LIKE ? ESCAPE '\\')"
        params += [pattern, pattern, pattern]
        total = self.aggregate(
            f"SELECT COUNT(*) AS n FROM messages m JOIN folders f ON f.id = m.folder_id WHERE {where}", params
        )["n"]
        page, total_pages, offset = rows.paginate(total, page, page_size)
        found = self.query(
            f"{_SUMMARY_SELECT} WHERE {where} ORDER BY {NEWEST_FIRST} LIMIT ? OFFSET ?",
            [*params, page_size, offset],
        )
        return {
            "query": text,
            "folder": folder,
            "emails": self._summaries(found),
            "total_results": total,
            "current_page": page,
            "total_pages": total_pages,
            "page_size": page_size,
        }

    # ------------------------------------------------------------------ sending
    @tool
    def send_email(
        self,
        to: str,
        subject: str,
        body: str,
        html_body: str | None = None,
        cc: str | None = None,
        bcc: str | None = None,
    ) -> dict[str, Any]:
        """Send a new email from the account's address; the copy is filed in the Sent folder.

        Args:
            to: Recipients, comma-separated, e.g. "ann@example.com, Bo Li <bo@example.com>".
            subject: Subject line.
            body: Plain-text body.
            html_body: Optional HTML version of the body.
            cc: Optional comma-separated CC recipients.
            bcc: Optional comma-separated BCC recipients.
        """
        to_list = rows.checked_addrs(to, "to", required=True)
        cc_list = rows.checked_addrs(cc, "cc")
        bcc_list = rows.checked_addrs(bcc, "bcc")
        return _store.send(self, to_list, subject, body, html_body, cc_list, bcc_list, to_text=to)

    @tool
    def reply_email(
        self,
        email_id: str,
        body: str,
        html_body: str | None = None,
        cc: str | None = None,
        bcc: str | None = None,
        reply_all: bool = False,
    ) -> dict[str, Any]:
        """Reply to an email: "Re:" subject, the original quoted below your text, threaded by Message-ID.

        The reply goes to the original sender (to the original recipients when replying to
        your own sent mail). With reply_all the original To and CC, minus your own address,
        are added to CC.

        Args:
            email_id: The email to reply to.
            body: Your reply text (the original is quoted after it).
            html_body: Optional HTML version of your reply.
            cc: Optional extra comma-separated CC recipients.
            bcc: Optional comma-separated BCC recipients.
            reply_all: Also copy everyone who received the original.
        """
        row = self._message_row(email_id)
        me = self.account_email().lower()
        sender = (row["from_addr"] or "").strip()
        if not sender:
            raise ToolError("BAD_ARG", f"email {email_id} has no sender to reply to")
        originals = rows.split_addrs(rows.addrs_csv(row["to_addr_json"]))
        to_list = originals if me in sender.lower() and originals else [sender]
        cc_list = rows.checked_addrs(cc, "cc")
        if reply_all:
            everyone = originals + rows.split_addrs(rows.addrs_csv(row["cc_addr_json"]))
            taken = {a.lower() for a in to_list}
            cc_list = [a for a in everyone if me not in a.lower() and a.lower() not in taken] + cc_list
        cc_list = rows.dedupe(cc_list)
        subject = row["subject"] or ""
        quoted = f"From: {row['from_addr']}\nDate: {row['date']}\nSubject: {subject}\n\n{row['body_text'] or ''}"
        full_body = f"{body}\n\n--- Original Message ---\n{quoted}"
        full_html = None
        if html_body:
            original_html = row["body_html"] or row["body_text"] or ""
            full_html = (
                f"{html_body}<br><br><hr><b>Original Message:</b><br>From: {row['from_addr']}<br>"
                f"Date: {row['date']}<br>Subject: {subject}<br><br>{original_html}"
            )
        parent = row["message_id"]
        references = " ".join(r for r in (row["references_header"], parent) if r) or None
        result = _store.send(
            self,
            to_list,
            rows.prefixed(subject, "Re:"),
            full_body,
            full_html,
            cc_list,
            rows.checked_addrs(bcc, "bcc"),
            in_reply_to=parent,
            references=references,
        )
        result["in_reply_to"] = parent
        return result

    @tool
    def forward_email(
        self,
        email_id: str,
        to: str,
        body: str | None = None,
        html_body: str | None = None,
        cc: str | None = None,
        bcc: str | None = None,
    ) -> dict[str, Any]:
        """Forward an email with a "Fwd:" subject; the original is quoted and its attachments carried over.

        Args:
            email_id: The email to forward.
            to: Recipients, comma-separated.
            body: Optional note placed above the forwarded message.
            html_body: Optional HTML version of the note.
            cc: Optional comma-separated CC recipients.
            bcc: Optional comma-separated BCC recipients.
        """
        row = self._message_row(email_id)
        to_list = rows.checked_addrs(to, "to", required=True)
        subject = row["subject"] or ""
        original_to = rows.addrs_csv(row["to_addr_json"])
        full_body = (
            f"{body or ''}\n\n--- Forwarded Message ---\nFrom: {row['from_addr']}\nTo: {original_to}\n"
            f"Date: {row['date']}\nSubject: {subject}\n\n{row['body_text'] or ''}"
        )
        full_html = None
        if html_body or row["body_html"]:
            original_html = row["body_html"] or row["body_text"] or ""
            full_html = (
                f"{html_body or ''}<br><br><hr><b>Forwarded Message:</b><br>From: {row['from_addr']}<br>"
                f"To: {original_to}<br>Date: {row['date']}<br>Subject: {subject}<br><br>{original_html}"
            )
        result = _store.send(
            self,
            to_list,
            rows.prefixed(subject, "Fwd:"),
            full_body,
            full_html,
            rows.checked_addrs(cc, "cc"),
            rows.checked_addrs(bcc, "bcc"),
            to_text=to,
        )
        copied = self.execute(
            "INSERT INTO attachments (message_id, filename, content_type, size, content_b64, content_id) "
            "SELECT ?, filename, content_type, size, content_b64, content_id FROM attachments "
            "WHERE message_id = ? ORDER BY id",
            (int(result["email_id"]), row["id"]),
        ).rowcount
        result["forwarded_attachments"] = copied
        return result

    # ------------------------------------------------------------ filing / flags
    @tool
    def delete_email(self, email_id: str) -> dict[str, Any]:
        """Permanently delete one email and its attachments (there is no undo; use move_email to Trash to keep it).

        Args:
            email_id: The email to delete.
        """
        return {"email_id": self._delete_one(email_id), "deleted": True}

    @tool
    def delete_emails(self, email_ids: list[str]) -> dict[str, Any]:
        """Permanently delete several emails; unknown ids are reported in `failed`, the rest are deleted.

        Args:
            email_ids: The ids of the emails to delete.
        """
        done, failed = self._each(email_ids, self._delete_one)
        return {"deleted": done, "failed": failed, "total": len(email_ids)}

    @tool
    def move_email(self, email_id: str, target_folder: str) -> dict[str, Any]:
        """Move one email to another folder, creating the folder if it does not exist.

        Args:
            email_id: The email to move.
            target_folder: Destination folder name, e.g. Archive or Trash.
        """
        name = rows.folder_name(target_folder, "target_folder")
        return {"email_id": self._move_one(email_id, name), "target_folder": name}

    @tool
    def move_emails(self, email_ids: list[str], target_folder: str) -> dict[str, Any]:
        """Move several emails to one folder (created if missing); unknown ids are reported in `failed`.

        Args:
            email_ids: The ids of the emails to move.
            target_folder: Destination folder name.
        """
        name = rows.folder_name(target_folder, "target_folder")
        done, failed = self._each(email_ids, lambda eid: self._move_one(eid, name))
        return {"moved": done, "failed": failed, "target_folder": name, "total": len(email_ids)}

    @tool
    def mark_emails(self, email_ids: list[str], status: str) -> dict[str, Any]:
        """Set the read or important flag of several emails; unknown ids are reported in `failed`.

        Args:
            email_ids: The ids of the emails to mark.
            status: One of read, unread, important, not_important.
        """
        if status not in rows.MARK_STATUSES:
            raise ToolError("BAD_ARG", f"status must be one of read, unread, important, not_important, got {status!r}")
        column, value = rows.MARK_STATUSES[status]

        def mark(eid: str) -> str:
            pk = self._message_row(eid)["id"]
            self.execute(f"UPDATE messages SET {column} = ? WHERE id = ? AND {column} != ?", (value, pk, value))
            return str(pk)

        done, failed = self._each(email_ids, mark)
        return {"marked": done, "failed": failed, "status": status, "total": len(email_ids)}

    # ------------------------------------------------------------------ folders
    @tool(read_only=True)
    def get_folders(self) -> dict[str, Any]:
        """List every folder, by name, with its total and unread message counts."""
        return {"folders": self._folder_counts()}

    @tool
    def create_folder(self, folder_name: str) -> dict[str, Any]:
        """Create an empty folder; fails with FOLDER_EXISTS if the name is taken.

        Args:
            folder_name: The new folder's name (up to 128 characters).
        """
        name = rows.folder_name(folder_name)
        if self.query_one("SELECT 1 FROM folders WHERE name = ?", (name,)):
            raise ToolError("FOLDER_EXISTS", f"folder already exists: {name}")
        return {"folder_name": name, "folder_id": self.resolve_folder(name, create=True)}

    @tool
    def delete_folder(self, folder_name: str) -> dict[str, Any]:
        """Delete a folder and every email in it. INBOX, Sent, Drafts, Trash and Spam are protected.

        Args:
            folder_name: The folder to delete.
        """
        name = rows.folder_name(folder_name)
        if name in SYSTEM_FOLDERS:
            raise ToolError("FOLDER_PROTECTED", f"cannot delete system folder: {name}")
        self.execute("DELETE FROM folders WHERE id = ?", (self.resolve_folder(name),))
        return {"folder_name": name, "deleted": True}

    @tool(read_only=True)
    def get_mailbox_stats(self, folder_name: str | None = None) -> dict[str, Any]:
        """Total and unread message counts for one folder, or for all folders with a per-folder list.

        Args:
            folder_name: The folder; omitted aggregates over every folder.
        """
        if folder_name:
            name = rows.folder_name(folder_name)
            total, unread = self._counts(self.resolve_folder(name))
            return {"folder_name": name, "total_messages": total, "unread_messages": unread}
        folders = self._folder_counts()
        return {
            "folder_name": None,
            "folders": folders,
            "total_messages": sum(f["total_messages"] for f in folders),
            "unread_messages": sum(f["unread_messages"] for f in folders),
        }

    @tool(read_only=True)
    def get_unread_count(self, folder_name: str | None = None) -> dict[str, Any]:
        """Number of unread emails in one folder, or in all folders together.

        Args:
            folder_name: The folder; omitted counts every folder.
        """
        if folder_name:
            name = rows.folder_name(folder_name)
            return {"folder_name": name, "unread_messages": self._counts(self.resolve_folder(name))[1]}
        return {"folder_name": None, "unread_messages": sum(f["unread_messages"] for f in self._folder_counts())}

    # ------------------------------------------------------------------- drafts
    @tool
    def save_draft(
        self,
        subject: str,
        body: str,
        html_body: str | None = None,
        to: str | None = None,
        cc: str | None = None,
        bcc: str | None = None,
        in_reply_to: str | None = None,
    ) -> dict[str, Any]:
        """Save a new draft (not sent). Recipients may be left empty and filled in later.

        Args:
            subject: Subject line.
            body: Plain-text body.
            html_body: Optional HTML body.
            to: Optional comma-separated recipients.
            cc: Optional comma-separated CC recipients.
            bcc: Optional comma-separated BCC recipients.
            in_reply_to: Optional Message-ID of the email this draft answers.
        """
        now = self.now_utc()
        cur = self.execute(
            "INSERT INTO drafts (subject, from_addr, to_addr_json, cc_addr_json, bcc_addr_json, body_text, "
            "body_html, in_reply_to, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                subject,
                self.account_email(),
                rows.addrs_json(rows.split_addrs(to)),
                rows.addrs_json(rows.split_addrs(cc)),
                rows.addrs_json(rows.split_addrs(bcc)),
                body,
                html_body,
                in_reply_to,
                now,
                now,
            ),
        )
        return {"draft_id": str(cur.lastrowid), "created_at": now, "updated_at": now}

    @tool(read_only=True)
    def get_drafts(self, page: int = 1, page_size: int = 20) -> dict[str, Any]:
        """List saved drafts in full, most recently updated first.

        Args:
            page: 1-based page number.
            page_size: Drafts per page, 1 to 50 (default 20).
        """
        page, page_size = rows.page_params(page, page_size)
        total = self.aggregate("SELECT COUNT(*) AS n FROM drafts")["n"]
        page, total_pages, offset = rows.paginate(total, page, page_size)
        found = self.query(
            "SELECT * FROM drafts ORDER BY COALESCE(julianday(updated_at), 0) DESC, updated_at DESC, id DESC "
            "LIMIT ? OFFSET ?",
            (page_size, offset),
        )
        return {
            "drafts": [rows.draft_dict(r) for r in found],
            "total_drafts": total,
            "current_page": page,
            "total_pages": total_pages,
            "page_size": page_size,
        }

    @tool
    def update_draft(
        self,
        draft_id: str,
        subject: str | None = None,
        body: str | None = None,
        html_body: str | None = None,
        to: str | None = None,
        cc: str | None = None,
        bcc: str | None = None,
        in_reply_to: str | None = None,
    ) -> dict[str, Any]:
        """Change a draft in place; only the fields you pass change (recipient lists are replaced whole).

        Args:
            draft_id: The draft to change, as returned by save_draft or get_drafts.
            subject: New subject line.
            body: New plain-text body.
            html_body: New HTML body.
            to: New comma-separated recipients.
            cc: New comma-separated CC recipients.
            bcc: New comma-separated BCC recipients.
            in_reply_to: New Message-ID this draft answers.
        """
        pk = self._draft_id(draft_id)
        changes: dict[str, Any] = {"updated_at": self.now_utc()}
        for column, value in (("subject", subject), ("body_text", body), ("body_html", html_body)):
            if value is not None:
                changes[column] = value
        for column, value in (("to_addr_json", to), ("cc_addr_json", cc), ("bcc_addr_json", bcc)):
            if value is not None:
                changes[column] = rows.addrs_json(rows.split_addrs(value))
        if in_reply_to is not None:
            changes["in_reply_to"] = in_reply_to
        self.update_rows("drafts", changes, {"id": pk})
        return {"draft_id": str(pk), "updated_at": changes["updated_at"]}

    @tool
    def delete_draft(self, draft_id: str) -> dict[str, Any]:
        """Permanently delete a draft.

        Args:
            draft_id: The draft to delete.
        """
        pk = self._draft_id(draft_id)
        self.execute("DELETE FROM drafts WHERE id = ?", (pk,))
        return {"draft_id": str(pk), "deleted": True}

    # -------------------------------------------------------------- management
    @tool(read_only=True)
    def check_connection(self) -> dict[str, Any]:
        """Health check of the mail backend; also tells which account address mail is sent from."""
        return {"imap_ok": True, "smtp_ok": True, "backend": "sqlite", "account": self.account_email()}

    @tool(read_only=True)
    def get_email_headers(self, email_id: str) -> dict[str, Any]:
        """Technical headers of one email: Message-ID, In-Reply-To, References and the raw header map.

        Args:
            email_id: The email to inspect.
        """
        row = self._message_row(email_id)
        out = rows.message_summary(row)
        out["headers"] = rows.headers_map(row["headers_json"])
        out["in_reply_to"] = row["in_reply_to"]
        out["references"] = row["references_header"]
        return out

    @tool
    def download_attachment(
        self, email_id: str, attachment_filename: str, download_path: str | None = None
    ) -> dict[str, Any]:
        """Save an attachment as a file; an existing file of that name is kept and the new one renamed "name(1).ext".

        Args:
            email_id: The email carrying the attachment.
            attachment_filename: The attachment's file name exactly as read_email lists it.
            download_path: Directory to save into; omitted saves in the mailbox's file area root.
        """
        pk = self._message_row(email_id)["id"]
        if not attachment_filename.strip():
            raise ToolError("BAD_ARG", "attachment_filename is required")
        att = self.require(
            "SELECT * FROM attachments WHERE message_id = ? AND filename = ? ORDER BY id LIMIT 1",
            (pk, attachment_filename),
            "ATTACHMENT_NOT_FOUND",
            f"attachment {attachment_filename!r} not found in email {email_id}",
        )
        try:
            data = base64.b64decode(att["content_b64"] or "", validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ToolError(
                "FILE_ERROR", f"attachment {attachment_filename!r} payload is not valid base64: {exc}"
            ) from None
        saved_to = _store.write_file(self, posixpath.join(download_path or "", att["filename"]), data, rename=True)
        return {
            "email_id": str(pk),
            "filename": att["filename"],
            "content_type": att["content_type"] or rows.DEFAULT_CONTENT_TYPE,
            "size": int(att["size"] or len(data)),
            "saved_to": saved_to,
        }

    @tool
    def export_emails(
        self,
        folder: str | None = None,
        export_path: str = "emails_export.json",
        max_emails: int | None = None,
        export_all_folders: bool = False,
    ) -> dict[str, Any]:
        """Write emails (oldest first, attachments inlined as base64) to a JSON file; overwrites that file.

        Args:
            folder: The folder to export (default INBOX); not together with export_all_folders.
            export_path: Path of the JSON file to write.
            max_emails: Stop after this many emails in total; omitted or 0 exports all.
            export_all_folders: Export every folder, in name order.
        """
        if export_all_folders and folder:
            raise ToolError("BAD_ARG", "cannot specify both `folder` and `export_all_folders=True`")
        if max_emails is not None and max_emails < 0:
            raise ToolError("BAD_ARG", f"max_emails must be 0 or more, got {max_emails}")
        if export_all_folders:
            targets = [(r["id"], r["name"]) for r in self.query("SELECT id, name FROM folders ORDER BY name")]
        else:
            name = rows.folder_name(folder, "folder") if folder else "INBOX"
            targets = [(self.resolve_folder(name), name)]
        limit = max_emails or None
        exported: list[dict[str, Any]] = []
        folder_stats: dict[str, int] = {}
        for folder_id, name in targets:
            remaining = -1 if limit is None else limit - len(exported)
            if remaining == 0:
                break
            found = self.query(
                f"SELECT * FROM messages WHERE folder_id = ? ORDER BY {OLDEST_FIRST} LIMIT ?", (folder_id, remaining)
            )
            exported += [_store.export_dict(self, r, name) for r in found]
            folder_stats[name] = len(found)
        if not exported:
            raise ToolError("BAD_ARG", "no emails to export from the selected folders")
        payload = {
            "export_date": self.now_utc(),
            "total_emails": len(exported),
            "folder_stats": folder_stats,
            "emails": exported,
        }
        path = _store.write_file(self, export_path, json.dumps(payload, ensure_ascii=False, indent=2).encode("utf-8"))
        return {"exported_path": path, "total_emails": len(exported), "folder_stats": folder_stats}

    @tool
    def import_emails(
        self, import_path: str, target_folder: str | None = None, preserve_folders: bool = True
    ) -> dict[str, Any]:
        """Import emails from a JSON file written by export_emails; missing folders are created.

        Emails that cannot be imported are listed in `failed`; the others are imported.

        Args:
            import_path: Path of the JSON file to read.
            target_folder: Folder for emails without one (or for all, when preserve_folders is false); default INBOX.
            preserve_folders: Put each email back in the folder recorded in the file.
        """
        raw = _store.read_file(self, import_path)
        try:
            payload = json.loads(raw.decode("utf-8"))
        except json.JSONDecodeError as exc:
            raise ToolError("FILE_ERROR", f"could not parse {import_path!r}: {exc.msg} at position {exc.pos}") from None
        except (ValueError, RecursionError):  # not UTF-8, a number too long, nesting too deep
            raise ToolError("FILE_ERROR", f"could not parse {import_path!r}: not readable UTF-8 JSON") from None
        emails = payload.get("emails") if isinstance(payload, dict) else None
        if not isinstance(emails, list):
            raise ToolError("FILE_ERROR", f"import file {import_path} has no 'emails' list")
        fallback = rows.folder_name(target_folder, "target_folder") if target_folder else "INBOX"
        imported: list[str] = []
        failed: list[dict[str, Any]] = []
        folder_stats: dict[str, int] = {}
        for item in emails:
            self.execute("SAVEPOINT email_import_one")
            try:
                new_id, name = _store.import_one(self, item, fallback, preserve_folders)
            except (ToolError, TypeError, ValueError, AttributeError) as exc:
                self.execute("ROLLBACK TO email_import_one")
                ref = item.get("email_id") if isinstance(item, dict) else None
                reason = exc.message if isinstance(exc, ToolError) else "malformed email record"
                failed.append({"email": ref, "error": reason})
            else:
                imported.append(str(new_id))
                folder_stats[name] = folder_stats.get(name, 0) + 1
            self.execute("RELEASE email_import_one")
        return {"imported": imported, "failed": failed, "total": len(emails), "folder_stats": folder_stats}

    # ------------------------------------------------------------------ helpers
    def account_email(self) -> str:
        row = self.query_one("SELECT email FROM account_config ORDER BY id LIMIT 1")
        return row["email"] if row else FALLBACK_ACCOUNT

    def resolve_folder(self, name: str, *, create: bool = False) -> int:
        row = self.query_one("SELECT id FROM folders WHERE name = ?", (name,))
        if row is not None:
            return int(row["id"])
        if not create:
            raise ToolError("FOLDER_NOT_FOUND", f"folder not found: {name}")
        return self.insert("INSERT INTO folders (name) VALUES (?)", (name,))

    def _counts(self, folder_id: int) -> tuple[int, int]:
        row = self.aggregate(
            "SELECT COUNT(*) AS n, COALESCE(SUM(is_read = 0), 0) AS u FROM messages WHERE folder_id = ?", (folder_id,)
        )
        return int(row["n"]), int(row["u"])

    def _folder_counts(self) -> list[dict[str, Any]]:
        found = self.query(
            "SELECT f.name, COUNT(m.id) AS n, COALESCE(SUM(m.is_read = 0), 0) AS u FROM folders f "
            "LEFT JOIN messages m ON m.folder_id = f.id GROUP BY f.id ORDER BY f.name"
        )
        return [
            {"name": r["name"], "total_messages": r["n"], "unread_messages": r["u"], "can_select": True} for r in found
        ]

    def _message_row(self, email_id: str) -> dict[str, Any]:
        pk = rows.parse_id(email_id)
        return self.require(
            f"{_MESSAGE_SELECT} WHERE m.id = ?", (pk,), "EMAIL_NOT_FOUND", f"email not found: {email_id}"
        )

    def _draft_id(self, draft_id: str) -> int:
        pk = rows.parse_id(draft_id, "draft_id")
        self.require("SELECT 1 FROM drafts WHERE id = ?", (pk,), "DRAFT_NOT_FOUND", f"draft not found: {draft_id}")
        return pk

    def _attachments(self, message_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {pk: [] for pk in message_ids}
        if message_ids:
            marks = ", ".join("?" for _ in message_ids)
            for att in self.query(
                f"SELECT id, message_id, filename, content_type, size FROM attachments "
                f"WHERE message_id IN ({marks}) ORDER BY id",
                message_ids,
            ):
                out[att["message_id"]].append(rows.attachment_meta(att))
        return out

    def _summaries(self, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        attachments = self._attachments([r["id"] for r in found])
        return [{**rows.message_summary(r), "attachments": attachments[r["id"]]} for r in found]

    def _each(self, email_ids: list[str], action: Callable[[str], str]) -> tuple[list[str], list[dict[str, str]]]:
        """Apply ``action`` to every id; per-id refusals are collected, not raised."""
        done: list[str] = []
        failed: list[dict[str, str]] = []
        for eid in email_ids:
            try:
                done.append(action(eid))
            except ToolError as exc:
                failed.append({"email_id": str(eid), "error": exc.message, "code": exc.code})
        return done, failed

    def _move_one(self, email_id: str, folder: str) -> str:
        row = self._message_row(email_id)
        self.execute(
            "UPDATE messages SET folder_id = ? WHERE id = ?", (self.resolve_folder(folder, create=True), row["id"])
        )
        return str(row["id"])

    def _delete_one(self, email_id: str) -> str:
        pk = self._message_row(email_id)["id"]
        self.execute("DELETE FROM messages WHERE id = ?", (pk,))
        return str(pk)
