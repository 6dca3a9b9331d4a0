-- email: one mailbox (account, folders, messages, attachments, drafts, sent log).
-- Table and column names follow the public email_mock spec so its seeds load.
CREATE TABLE account_config (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  email       TEXT NOT NULL,
  name        TEXT,
  created_at  TEXT NOT NULL
);

CREATE TABLE folders (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  name           TEXT NOT NULL UNIQUE,
  delimiter      TEXT NOT NULL DEFAULT '/',
  flags_json     TEXT NOT NULL DEFAULT '[]',
  message_count  INTEGER NOT NULL DEFAULT 0,
  unread_count   INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE messages (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  folder_id         INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
  message_id        TEXT,
  subject           TEXT,
  from_addr         TEXT,
  to_addr_json      TEXT NOT NULL DEFAULT '[]',
  cc_addr_json      TEXT NOT NULL DEFAULT '[]',
  bcc_addr_json     TEXT NOT NULL DEFAULT '[]',
  date              TEXT NOT NULL,
  body_text         TEXT,
  body_html         TEXT,
  is_read           INTEGER NOT NULL DEFAULT 0,
  is_important      INTEGER NOT NULL DEFAULT 0,
  is_flagged        INTEGER NOT NULL DEFAULT 0,
  in_reply_to       TEXT,
  references_header TEXT,
  headers_json      TEXT NOT NULL DEFAULT '{}',
  uid               INTEGER,
  size              INTEGER NOT NULL DEFAULT 0,
  created_at        TEXT NOT NULL
);
CREATE INDEX idx_messages_folder ON messages(folder_id);
CREATE INDEX idx_messages_date ON messages(date DESC);
CREATE INDEX idx_messages_from ON messages(from_addr);
-- a folder's messages newest first (rows.NEWEST_FIRST) without sorting the folder
CREATE INDEX idx_messages_folder_newest ON messages(folder_id, COALESCE(julianday(date), 0), date, id);

CREATE TABLE attachments (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id    INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  filename      TEXT NOT NULL,
  content_type  TEXT,
  size          INTEGER NOT NULL DEFAULT 0,
  content_b64   TEXT,
  content_id    TEXT
);
CREATE INDEX idx_attachments_msg ON attachments(message_id);

CREATE TABLE drafts (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  subject       TEXT,
  from_addr     TEXT,
  to_addr_json  TEXT NOT NULL DEFAULT '[]',
  cc_addr_json  TEXT NOT NULL DEFAULT '[]',
  bcc_addr_json TEXT NOT NULL DEFAULT '[]',
  body_text     TEXT,
  body_html     TEXT,
  in_reply_to   TEXT,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX idx_drafts_updated ON drafts(updated_at DESC);

CREATE TABLE sent_log (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id  INTEGER REFERENCES messages(id) ON DELETE SET NULL,
  sent_at     TEXT NOT NULL
);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);

-- Control table: the mailbox's private file area used by download_attachment,
-- export_emails and import_emails (no real disk I/O; rolls back with the call).
CREATE TABLE _files (
  path        TEXT PRIMARY KEY,
  content     BLOB NOT NULL,
  written_at  TEXT NOT NULL
);

-- Keep the denormalised folder counters true whatever writes the messages
-- (tools, seeds or timeline mutations).
CREATE TRIGGER trg_messages_count_ins AFTER INSERT ON messages BEGIN
  UPDATE folders SET
    message_count = (SELECT COUNT(*) FROM messages WHERE folder_id = NEW.folder_id),
    unread_count  = (SELECT COUNT(*) FROM messages WHERE folder_id = NEW.folder_id AND is_read = 0)
  WHERE id = NEW.folder_id;
END;

CREATE TRIGGER trg_messages_count_del AFTER DELETE ON messages BEGIN
  UPDATE folders SET
    message_count = (SELECT COUNT(*) FROM messages WHERE folder_id = OLD.folder_id),
    unread_count  = (SELECT COUNT(*) FROM messages WHERE folder_id = OLD.folder_id AND is_read = 0)
  WHERE id = OLD.folder_id;
END;

CREATE TRIGGER trg_messages_count_upd AFTER UPDATE OF folder_id, is_read ON messages BEGIN
  UPDATE folders SET
    message_count = (SELECT COUNT(*) FROM messages WHERE folder_id = folders.id),
    unread_count  = (SELECT COUNT(*) FROM messages WHERE folder_id = folders.id AND is_read = 0)
  WHERE id IN (OLD.folder_id, NEW.folder_id);
END;
