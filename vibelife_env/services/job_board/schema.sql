-- job_board: companies, job postings, resumes, saved jobs, applications,
-- recruiter chats and job alerts (job-seeker side).
-- Table and column names follow the public job_board_mock spec so its seeds load.
-- Salaries are integer minor units (fen) of monthly base pay.
CREATE TABLE companies (
  company_id TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  industry   TEXT NOT NULL,
  size       TEXT NOT NULL,
  stage      TEXT,
  city       TEXT NOT NULL,
  intro      TEXT NOT NULL,
  rating     REAL NOT NULL DEFAULT 0
);
CREATE INDEX idx_companies_city ON companies(city);

CREATE TABLE jobs (
  job_id           TEXT PRIMARY KEY,
  company_id       TEXT NOT NULL REFERENCES companies(company_id),
  title            TEXT NOT NULL,
  city             TEXT NOT NULL,
  category         TEXT NOT NULL,
  salary_min_minor INTEGER NOT NULL,
  salary_max_minor INTEGER NOT NULL,
  salary_months    INTEGER NOT NULL DEFAULT 12,
  experience       TEXT NOT NULL CHECK (experience IN ('intern','fresh_grad','1-3','3-5','5-10','10+')),
  education        TEXT NOT NULL CHECK (education IN ('unlimited','college','bachelor','master','phd')),
  jd               TEXT NOT NULL,
  requirements     TEXT NOT NULL,
  tags             TEXT,
  status           TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','closed')),
  posted_at        TEXT NOT NULL
);
CREATE INDEX idx_jobs_company ON jobs(company_id);
CREATE INDEX idx_jobs_city ON jobs(city);
CREATE INDEX idx_jobs_category ON jobs(category);

CREATE TABLE resumes (
  resume_id  TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL,
  name       TEXT NOT NULL,
  headline   TEXT NOT NULL,
  years_exp  INTEGER NOT NULL DEFAULT 0,
  education  TEXT NOT NULL,
  skills     TEXT,
  summary    TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_resumes_user ON resumes(user_id);

CREATE TABLE saved_jobs (
  user_id  TEXT NOT NULL,
  job_id   TEXT NOT NULL REFERENCES jobs(job_id),
  saved_at TEXT NOT NULL,
  PRIMARY KEY (user_id, job_id)
);

CREATE TABLE applications (
  application_id TEXT PRIMARY KEY,
  user_id        TEXT NOT NULL,
  job_id         TEXT NOT NULL REFERENCES jobs(job_id),
  resume_id      TEXT NOT NULL REFERENCES resumes(resume_id),
  cover_letter   TEXT,
  status         TEXT NOT NULL DEFAULT 'submitted' CHECK (status IN ('submitted','viewed','interview','offer','rejected')),
  applied_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
CREATE INDEX idx_apps_user ON applications(user_id);
CREATE INDEX idx_apps_status ON applications(status);

CREATE TABLE chats (
  chat_id        TEXT PRIMARY KEY,
  user_id        TEXT NOT NULL,
  job_id         TEXT NOT NULL REFERENCES jobs(job_id),
  company_id     TEXT NOT NULL REFERENCES companies(company_id),
  recruiter_name TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  last_at        TEXT NOT NULL
);
CREATE INDEX idx_chats_user ON chats(user_id);

CREATE TABLE chat_messages (
  message_id TEXT PRIMARY KEY,
  chat_id    TEXT NOT NULL REFERENCES chats(chat_id),
  sender     TEXT NOT NULL CHECK (sender IN ('user','recruiter')),
  body       TEXT NOT NULL,
  sent_at    TEXT NOT NULL
);
CREATE INDEX idx_messages_chat ON chat_messages(chat_id, sent_at);

CREATE TABLE job_alerts (
  alert_id   TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL,
  query_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  active     INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX idx_alerts_user ON job_alerts(user_id);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
