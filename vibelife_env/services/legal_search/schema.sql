-- legal_search: courts, anonymized case judgments, statutes and their articles,
-- case citations, and a per-user saved-case library.
-- Table and column names follow the public legal_search_mock spec so its seeds load.
CREATE TABLE courts (
  court_id TEXT PRIMARY KEY,
  name     TEXT NOT NULL,
  level    TEXT NOT NULL CHECK (level IN ('基层法院','中级法院','高级法院','最高法院','仲裁委员会')),
  region   TEXT NOT NULL
);

CREATE TABLE cases (
  case_id       TEXT PRIMARY KEY,
  case_number   TEXT NOT NULL,
  title         TEXT NOT NULL,
  court_id      TEXT NOT NULL REFERENCES courts(court_id),
  case_type     TEXT NOT NULL CHECK (case_type IN ('劳动争议','合同纠纷','侵权责任','婚姻家庭','劳动仲裁','其他')),
  cause         TEXT NOT NULL,
  judgment_date TEXT NOT NULL,
  parties       TEXT NOT NULL,
  summary       TEXT NOT NULL,
  facts         TEXT NOT NULL,
  reasoning     TEXT NOT NULL,
  holding       TEXT NOT NULL,
  ruling        TEXT NOT NULL,
  outcome       TEXT NOT NULL CHECK (outcome IN ('支持','部分支持','驳回','调解','其他')),
  keywords      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX idx_cases_court ON cases(court_id);
CREATE INDEX idx_cases_type ON cases(case_type);
CREATE INDEX idx_cases_date ON cases(judgment_date);

CREATE TABLE statutes (
  statute_id     TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  short_name     TEXT NOT NULL DEFAULT '',
  issuer         TEXT NOT NULL,
  effective_date TEXT NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('现行有效','已修订','已废止')),
  summary        TEXT NOT NULL DEFAULT ''
);

CREATE TABLE statute_articles (
  article_id TEXT PRIMARY KEY,
  statute_id TEXT NOT NULL REFERENCES statutes(statute_id),
  article_no TEXT NOT NULL,
  seq        INTEGER NOT NULL DEFAULT 0,
  heading    TEXT NOT NULL DEFAULT '',
  text       TEXT NOT NULL
);
CREATE INDEX idx_articles_statute ON statute_articles(statute_id, seq);

CREATE TABLE citations (
  citation_id TEXT PRIMARY KEY,
  case_id     TEXT NOT NULL REFERENCES cases(case_id),
  target_type TEXT NOT NULL CHECK (target_type IN ('article','case')),
  target_id   TEXT NOT NULL,
  label       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX idx_citations_case ON citations(case_id);

CREATE TABLE saved_cases (
  saved_id TEXT PRIMARY KEY,
  user_id  TEXT NOT NULL,
  case_id  TEXT NOT NULL REFERENCES cases(case_id),
  note     TEXT,
  saved_at TEXT NOT NULL
);
CREATE UNIQUE INDEX idx_saved_user_case ON saved_cases(user_id, case_id);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
