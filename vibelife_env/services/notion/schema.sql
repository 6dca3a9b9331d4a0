-- notion: users, workspaces, pages, databases and their rows, blocks, comments.
-- Table and column names follow the public notion_mock spec so its seeds load.
CREATE TABLE users (
  user_id    TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  avatar_url TEXT,
  email      TEXT,
  type       TEXT NOT NULL DEFAULT 'person' CHECK (type IN ('person','bot'))
);

CREATE TABLE workspaces (
  workspace_id  TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  owner_user_id TEXT NOT NULL
);

CREATE TABLE pages (
  page_id          TEXT PRIMARY KEY,
  parent_type      TEXT NOT NULL CHECK (parent_type IN ('workspace','page_id','database_id')),
  parent_id        TEXT NOT NULL,
  title            TEXT NOT NULL DEFAULT '',
  archived         INTEGER NOT NULL DEFAULT 0,
  created_time     TEXT NOT NULL,
  last_edited_time TEXT NOT NULL,
  properties_json  TEXT NOT NULL DEFAULT '{}',
  icon             TEXT,
  cover            TEXT
);
CREATE INDEX idx_pages_parent ON pages(parent_type, parent_id);

CREATE TABLE databases (
  database_id      TEXT PRIMARY KEY,
  parent_type      TEXT NOT NULL CHECK (parent_type IN ('workspace','page_id')),
  parent_id        TEXT NOT NULL,
  title            TEXT NOT NULL DEFAULT '',
  schema_json      TEXT NOT NULL DEFAULT '{}',
  archived         INTEGER NOT NULL DEFAULT 0,
  created_time     TEXT NOT NULL,
  last_edited_time TEXT NOT NULL
);
CREATE INDEX idx_databases_parent ON databases(parent_type, parent_id);

-- A database row is also a page: row_id is addressable as a page_id.
CREATE TABLE database_rows (
  row_id           TEXT PRIMARY KEY,
  database_id      TEXT NOT NULL REFERENCES databases(database_id),
  properties_json  TEXT NOT NULL DEFAULT '{}',
  created_time     TEXT NOT NULL,
  last_edited_time TEXT NOT NULL,
  archived         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_dbrows_db ON database_rows(database_id);

-- Exactly one of parent_block_id / parent_page_id is set per block.
CREATE TABLE blocks (
  block_id         TEXT PRIMARY KEY,
  parent_block_id  TEXT,
  parent_page_id   TEXT,
  type             TEXT NOT NULL,
  content_json     TEXT NOT NULL DEFAULT '{}',
  has_children     INTEGER NOT NULL DEFAULT 0,
  archived         INTEGER NOT NULL DEFAULT 0,
  position         INTEGER NOT NULL DEFAULT 0,
  created_time     TEXT NOT NULL,
  last_edited_time TEXT NOT NULL
);
CREATE INDEX idx_blocks_parent_page ON blocks(parent_page_id, position);
CREATE INDEX idx_blocks_parent_block ON blocks(parent_block_id, position);

CREATE TABLE comments (
  comment_id     TEXT PRIMARY KEY,
  parent_page_id TEXT,
  discussion_id  TEXT,
  content_json   TEXT NOT NULL DEFAULT '{}',
  created_by     TEXT,
  created_time   TEXT NOT NULL
);

-- Id sequences (keys page, block, database, comment, discussion).
CREATE TABLE counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
