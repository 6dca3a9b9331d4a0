-- content_platform: a Xiaohongshu-style UGC community (notes, comments, users, topics,
-- like/collect/follow edges). Table and column names follow the public
-- content_platform_mock spec so its seeds load. tags / image_captions are JSON-array TEXT.
CREATE TABLE users (
  user_id        TEXT PRIMARY KEY,
  handle         TEXT NOT NULL,
  nickname       TEXT NOT NULL,
  bio            TEXT,
  is_official    INTEGER NOT NULL DEFAULT 0,
  follower_count INTEGER NOT NULL DEFAULT 0,
  note_count     INTEGER NOT NULL DEFAULT 0,
  joined_at      TEXT NOT NULL
);
CREATE INDEX idx_users_handle ON users(handle);

CREATE TABLE notes (
  note_id        TEXT PRIMARY KEY,
  author_id      TEXT NOT NULL REFERENCES users(user_id),
  title          TEXT NOT NULL,
  body           TEXT NOT NULL,
  category       TEXT NOT NULL CHECK (category IN ('备考','装修','健身','旅行','母婴','其他')),
  tags           TEXT NOT NULL DEFAULT '[]',
  image_captions TEXT NOT NULL DEFAULT '[]',
  like_count     INTEGER NOT NULL DEFAULT 0,
  collect_count  INTEGER NOT NULL DEFAULT 0,
  comment_count  INTEGER NOT NULL DEFAULT 0,
  view_count     INTEGER NOT NULL DEFAULT 0,
  published_at   TEXT NOT NULL
);
CREATE INDEX idx_notes_author ON notes(author_id);
CREATE INDEX idx_notes_category ON notes(category);
CREATE INDEX idx_notes_published ON notes(published_at);

CREATE TABLE comments (
  comment_id TEXT PRIMARY KEY,
  note_id    TEXT NOT NULL REFERENCES notes(note_id),
  user_id    TEXT NOT NULL REFERENCES users(user_id),
  body       TEXT NOT NULL,
  like_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_comments_note ON comments(note_id, created_at);

CREATE TABLE follows (
  follower_id TEXT NOT NULL REFERENCES users(user_id),
  followee_id TEXT NOT NULL REFERENCES users(user_id),
  created_at  TEXT NOT NULL,
  PRIMARY KEY (follower_id, followee_id)
);
CREATE INDEX idx_follows_follower ON follows(follower_id);
CREATE INDEX idx_follows_followee ON follows(followee_id);

CREATE TABLE likes (
  user_id    TEXT NOT NULL REFERENCES users(user_id),
  note_id    TEXT NOT NULL REFERENCES notes(note_id),
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, note_id)
);
CREATE INDEX idx_likes_note ON likes(note_id);

CREATE TABLE collections (
  user_id    TEXT NOT NULL REFERENCES users(user_id),
  note_id    TEXT NOT NULL REFERENCES notes(note_id),
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, note_id)
);
CREATE INDEX idx_collections_user ON collections(user_id, created_at);

CREATE TABLE topics (
  topic_id    TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  category    TEXT NOT NULL CHECK (category IN ('备考','装修','健身','旅行','母婴','其他')),
  description TEXT,
  note_count  INTEGER NOT NULL DEFAULT 0,
  view_count  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_topics_name ON topics(name);

CREATE TABLE note_topics (
  note_id  TEXT NOT NULL REFERENCES notes(note_id),
  topic_id TEXT NOT NULL REFERENCES topics(topic_id),
  PRIMARY KEY (note_id, topic_id)
);
CREATE INDEX idx_note_topics_topic ON note_topics(topic_id);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
