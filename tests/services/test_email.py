"""email through its tools: reading, sending, filing, folders, drafts, files, errors."""

from __future__ import annotations

import base64

import pytest

from tests.conftest import table_dump

NOW = "2026-04-17T01:00:00Z"  # the fixture clock, 09:00 Asia/Shanghai
PDF = base64.b64encode(b"%PDF-1.4 lease").decode()

COLS = (
    "id, folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, date, body_text, "
    "is_read, is_important, headers_json, created_at"
)
SEED = f"""
BEGIN;
INSERT INTO account_config (id, email, name, created_at) VALUES (1, 'me@home.test', 'Me', '2026-01-01T00:00:00Z');
INSERT INTO folders (id, name) VALUES (1, 'INBOX'), (2, 'Sent'), (7, 'Bills & Tax');
INSERT INTO messages ({COLS}) VALUES
  (1, 1, '<m1@land.test>', 'Lease renewal', 'Landlord <lord@land.test>', '["me@home.test", "mate@home.test"]',
   '["agent@land.test"]', '2026-04-10T09:00:00+08:00', 'Rent rises 5% from May.', 0, 1, '{{"X-Lease": "L-7"}}',
   '2026-04-10T01:00:00Z'),
  (2, 1, '<m2@shop.test>', 'Order shipped', 'Shop <ship@shop.test>', '["me@home.test"]', '[]',
   '2026-04-10T02:00:00Z', 'Parcel on its way', 1, 0, '{{}}', '2026-04-10T02:00:00Z'),
  (3, 1, '<m3@bank.test>', 'Re: Statement', 'Bank <no-reply@bank.test>', 'me@home.test', '[]',
   '2026-04-09', 'Your statement_2026 is ready', 0, 0, '{{}}', '2026-04-09T00:00:00Z'),
  (4, 7, '<m4@tax.test>', 'Tax refund', 'Tax Office <tax@gov.test>', '["me@home.test"]', '[]',
   '2026-04-01T08:00:00Z', 'Refund approved', 0, 0, '{{}}', '2026-04-01T08:00:00Z');
INSERT INTO attachments (id, message_id, filename, content_type, size, content_b64) VALUES
  (1, 1, 'lease.pdf', 'application/pdf', 14, '{PDF}'),
  (2, 1, 'broken.bin', NULL, 3, '***');
INSERT INTO drafts (id, subject, from_addr, to_addr_json, body_text, created_at, updated_at) VALUES
  (1, 'Old idea', 'me@home.test', '["a@b.test"]', 'draft one', '2026-04-01T00:00:00Z', '2026-04-01T00:00:00Z');
INSERT INTO _counters (key, value) VALUES ('msg_seq', 40);
COMMIT;
"""


@pytest.fixture
def mail(make_service):
    return make_service("email", SEED)


def ids(page):
    return [e["email_id"] for e in page["emails"]]


def test_listing_sorts_by_instant_and_pages(mail):
    names = [f["name"] for f in mail.call("get_folders")["folders"]]
    assert names == ["Bills & Tax", "Drafts", "INBOX", "Sent", "Spam", "Trash"]  # system folders added
    inbox = mail.call("get_emails", {})
    # 09:00+08:00 is 01:00Z, earlier than 02:00Z; the date-only mail is oldest
    assert ids(inbox) == ["2", "1", "3"]
    assert inbox["emails"][1]["attachments"][0] == {
        "attachment_id": "att_00000001",
        "filename": "lease.pdf",
        "content_type": "application/pdf",
        "size": 14,
    }
    assert inbox["emails"][2]["to_addr"] == "me@home.test"  # plain-string seed column
    assert "body_text" not in inbox["emails"][0]
    page = mail.call("get_emails", {"page": 9, "page_size": 2})
    assert (page["current_page"], page["total_pages"], ids(page)) == (2, 2, ["3"])
    assert mail.call("get_emails", {"page_size": 500})["page_size"] == 50
    assert ids(mail.call("get_emails", {"folder": "Bills & Tax"})) == ["4"]


def test_read_marks_read_and_counts_follow(mail):
    assert mail.call("get_unread_count", {"folder_name": "INBOX"}) == {"folder_name": "INBOX", "unread_messages": 2}
    detail = mail.call("read_email", {"email_id": "1"})
    assert detail["is_read"] is True and detail["body_text"].startswith("Rent rises")
    assert detail["cc_addr"] == "agent@land.test"
    assert mail.call("get_unread_count", {}) == {"folder_name": None, "unread_messages": 2}
    stats = mail.call("get_mailbox_stats", {"folder_name": "INBOX"})
    assert stats == {"folder_name": "INBOX", "total_messages": 3, "unread_messages": 1}
    assert mail.query_one("SELECT message_count, unread_count FROM folders WHERE name = 'INBOX'") == {
        "message_count": 3,
        "unread_count": 1,
    }
    headers = mail.call("get_email_headers", {"email_id": "1"})
    assert headers["headers"] == {"X-Lease": "L-7"} and headers["message_id"] == "<m1@land.test>"


def test_search_is_literal_substring(mail):
    assert ids(mail.call("search_emails", {"query": "LEASE"})) == ["1"]
    assert ids(mail.call("search_emails", {"query": "5%"})) == ["1"]
    assert ids(mail.call("search_emails", {"query": "Rent_rises"})) == []  # '_' is not a wildcard
    assert ids(mail.call("search_emails", {"query": "statement_2026"})) == ["3"]
    assert ids(mail.call("search_emails", {"query": "gov.test"})) == ["4"]
    scoped = mail.call("search_emails", {"query": "e", "folder": "Bills & Tax"})
    assert ids(scoped) == ["4"] and scoped["folder"] == "Bills & Tax"


def test_send_reply_forward_file_in_sent(mail):
    sent = mail.call("send_email", {"to": "ann@x.test, Bo <bo@y.test>", "subject": "Hi", "body": "Hello"})
    assert sent == {
        "email_id": "5",
        "message_id": "<emails-mcp-00000041@mock.local>",
        "folder": "Sent",
        "to": "ann@x.test, Bo <bo@y.test>",
        "subject": "Hi",
        "date": NOW,
    }
    row = mail.query_one("SELECT * FROM messages WHERE id = 5")
    assert row["from_addr"] == "me@home.test" and row["to_addr_json"] == '["ann@x.test", "Bo <bo@y.test>"]'
    assert mail.query("SELECT message_id, sent_at FROM sent_log") == [{"message_id": 5, "sent_at": NOW}]

    reply = mail.call("reply_email", {"email_id": "1", "body": "Agreed", "reply_all": True, "cc": "extra@z.test"})
    assert reply["in_reply_to"] == "<m1@land.test>" and reply["subject"] == "Re: Lease renewal"
    detail = mail.call("read_email", {"email_id": reply["email_id"]})
    assert detail["to_addr"] == "Landlord <lord@land.test>"
    assert detail["cc_addr"] == "mate@home.test, agent@land.test, extra@z.test"  # own address dropped
    assert detail["body_text"].startswith("Agreed\n\n--- Original Message ---") and "Rent rises" in detail["body_text"]
    assert mail.call("reply_email", {"email_id": "3", "body": "ok"})["subject"] == "Re: Statement"

    fwd = mail.call("forward_email", {"email_id": "1", "to": "lawyer@law.test", "body": "FYI"})
    assert fwd["subject"] == "Fwd: Lease renewal" and fwd["forwarded_attachments"] == 2
    assert [a["filename"] for a in mail.call("read_email", {"email_id": fwd["email_id"]})["attachments"]] == [
        "lease.pdf",
        "broken.bin",
    ]
    assert mail.call("get_mailbox_stats", {"folder_name": "Sent"})["total_messages"] == 4


def test_batch_move_mark_delete_report_failures(mail):
    moved = mail.call("move_emails", {"email_ids": ["1", "99", "2"], "target_folder": "Archive"})
    assert moved["moved"] == ["1", "2"] and moved["total"] == 3
    assert moved["failed"][0]["email_id"] == "99" and moved["failed"][0]["code"] == "EMAIL_NOT_FOUND"
    assert ids(mail.call("get_emails", {"folder": "Archive"})) == ["2", "1"]
    marked = mail.call("mark_emails", {"email_ids": ["1", "x"], "status": "unread"})
    assert marked["marked"] == ["1"] and marked["failed"][0]["code"] == "BAD_ARG"
    assert mail.call("get_unread_count", {"folder_name": "Archive"})["unread_messages"] == 1
    assert mail.call("move_email", {"email_id": "3", "target_folder": "Trash"}) == {
        "email_id": "3",
        "target_folder": "Trash",
    }
    assert mail.call("delete_email", {"email_id": "3"}) == {"email_id": "3", "deleted": True}
    deleted = mail.call("delete_emails", {"email_ids": ["1", "3"]})
    assert deleted["deleted"] == ["1"] and deleted["failed"][0]["email_id"] == "3"
    assert mail.query("SELECT id FROM attachments") == []  # cascaded with message 1


def test_folder_lifecycle(mail):
    assert mail.call("create_folder", {"folder_name": "  Trips  "})["folder_name"] == "Trips"
    assert mail.call("create_folder", {"folder_name": "Trips"})["code"] == "FOLDER_EXISTS"
    assert mail.call("delete_folder", {"folder_name": "Sent"})["code"] == "FOLDER_PROTECTED"
    assert mail.call("delete_folder", {"folder_name": "Bills & Tax"}) == {"folder_name": "Bills & Tax", "deleted": True}
    assert mail.call("read_email", {"email_id": "4"})["code"] == "EMAIL_NOT_FOUND"
    stats = mail.call("get_mailbox_stats", {})
    assert stats["total_messages"] == 3 and stats["folders"][0]["name"] == "Drafts"


def test_drafts_crud(mail):
    saved = mail.call("save_draft", {"subject": "Plan", "body": "v1", "to": "a@b.test, c@d.test"})
    assert saved == {"draft_id": "2", "created_at": NOW, "updated_at": NOW}
    listing = mail.call("get_drafts", {})
    assert [d["draft_id"] for d in listing["drafts"]] == ["2", "1"] and listing["total_drafts"] == 2
    assert listing["drafts"][0]["to_addr"] == "a@b.test, c@d.test"
    assert mail.call("update_draft", {"draft_id": "1", "body": "v2", "cc": "e@f.test"}) == {
        "draft_id": "1",
        "updated_at": NOW,
    }
    draft = next(d for d in mail.call("get_drafts", {})["drafts"] if d["draft_id"] == "1")
    assert (draft["draft_id"], draft["body_text"], draft["subject"], draft["cc_addr"]) == (
        "1",
        "v2",
        "Old idea",
        "e@f.test",
    )
    assert mail.call("delete_draft", {"draft_id": "2"}) == {"draft_id": "2", "deleted": True}
    assert mail.call("delete_draft", {"draft_id": "2"})["code"] == "DRAFT_NOT_FOUND"


def test_files_download_export_import(mail):
    first = mail.call(
        "download_attachment", {"email_id": "1", "attachment_filename": "lease.pdf", "download_path": "docs"}
    )
    assert first["saved_to"] == "docs/lease.pdf" and first["content_type"] == "application/pdf"
    again = mail.call(
        "download_attachment", {"email_id": "1", "attachment_filename": "lease.pdf", "download_path": "docs"}
    )
    assert again["saved_to"] == "docs/lease(1).pdf"
    assert (
        bytes(mail.query_one("SELECT content FROM _files WHERE path = 'docs/lease.pdf'")["content"])
        == b"%PDF-1.4 lease"
    )

    export = mail.call("export_emails", {"folder": "INBOX", "export_path": "out/inbox.json", "max_emails": 2})
    assert export == {"exported_path": "out/inbox.json", "total_emails": 2, "folder_stats": {"INBOX": 2}}
    imported = mail.call(
        "import_emails", {"import_path": "out/inbox.json", "target_folder": "Old", "preserve_folders": False}
    )
    assert imported["imported"] == ["5", "6"] and imported["folder_stats"] == {"Old": 2}
    # oldest first: the date-only statement, then the lease with its attachments
    old = mail.call("get_emails", {"folder": "Old"})["emails"]
    assert [e["subject"] for e in old] == ["Lease renewal", "Re: Statement"]
    assert len(old[0]["attachments"]) == 2


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("read_email", {"email_id": "999"}, "EMAIL_NOT_FOUND"),
        ("read_email", {"email_id": "abc"}, "BAD_ARG"),
        ("read_email", {"email_id": 5}, "BAD_ARG"),
        ("get_emails", {"folder": "Nope"}, "FOLDER_NOT_FOUND"),
        ("get_emails", {"folder": "  "}, "BAD_ARG"),
        ("create_folder", {"folder_name": "x" * 200}, "BAD_ARG"),
        ("search_emails", {"query": " "}, "BAD_ARG"),
        ("send_email", {"to": " , ", "subject": "s", "body": "b"}, "BAD_ARG"),
        ("send_email", {"to": "ann@x.test", "cc": "bob", "subject": "s", "body": "b"}, "BAD_ARG"),
        ("reply_email", {"email_id": "1", "body": "b", "bcc": "nobody"}, "BAD_ARG"),
        ("forward_email", {"email_id": "42", "to": "a@b.test"}, "EMAIL_NOT_FOUND"),
        ("move_email", {"email_id": "42", "target_folder": "Brand New"}, "EMAIL_NOT_FOUND"),
        ("mark_emails", {"email_ids": ["1"], "status": "starred"}, "BAD_ARG"),
        ("update_draft", {"draft_id": "9", "body": "x"}, "DRAFT_NOT_FOUND"),
        ("download_attachment", {"email_id": "1", "attachment_filename": "nope.pdf"}, "ATTACHMENT_NOT_FOUND"),
        ("download_attachment", {"email_id": "1", "attachment_filename": "broken.bin"}, "FILE_ERROR"),
        ("export_emails", {"folder": "INBOX", "export_all_folders": True}, "BAD_ARG"),
        ("export_emails", {"folder": "Spam"}, "BAD_ARG"),
        ("import_emails", {"import_path": "missing.json"}, "FILE_ERROR"),
        ("get_drafts", {"page": "first"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(mail, tool, args, code):
    before = table_dump(mail)
    result = mail.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(mail) == before


def test_failed_import_of_bad_file_changes_nothing(mail):
    mail.execute("INSERT INTO _files (path, content, written_at) VALUES ('bad.json', X'7B7B', ?)", (NOW,))
    before = table_dump(mail)
    assert mail.call("import_emails", {"import_path": "bad.json"})["code"] == "FILE_ERROR"
    assert table_dump(mail) == before


def test_folder_counters_follow_mutations(mail):
    mail.load_sql(
        "INSERT INTO messages (folder_id, subject, from_addr, date, created_at) "
        "VALUES (1, 'New', 'a@b.test', '2026-04-16T00:00:00Z', '2026-04-16T00:00:00Z');"
        "UPDATE folders SET message_count = 99 WHERE name = 'Sent';"
    )
    counts = "SELECT name, message_count, unread_count FROM folders WHERE name IN ('INBOX', 'Sent') ORDER BY name"
    assert mail.query(counts)[0] == {"name": "INBOX", "message_count": 4, "unread_count": 3}
    mail.after_mutation()
    assert mail.query(counts)[1] == {"name": "Sent", "message_count": 0, "unread_count": 0}
