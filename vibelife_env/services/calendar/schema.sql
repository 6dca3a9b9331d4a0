-- calendar: calendars, events, attendees, reminders.
-- Table and column names follow the public calendar_mock spec so its seeds load.
CREATE TABLE calendars (
  calendar_id TEXT PRIMARY KEY,
  user_id     TEXT NOT NULL,
  name        TEXT NOT NULL,
  color       TEXT,
  timezone    TEXT NOT NULL DEFAULT 'UTC',
  is_primary  INTEGER NOT NULL DEFAULT 0,
  created_at  TEXT NOT NULL
);
CREATE INDEX idx_calendars_user ON calendars(user_id);

CREATE TABLE events (
  event_id        TEXT PRIMARY KEY,
  calendar_id     TEXT NOT NULL REFERENCES calendars(calendar_id),
  summary         TEXT NOT NULL,
  description     TEXT,
  location        TEXT,
  start_dt        TEXT NOT NULL,
  end_dt          TEXT NOT NULL,
  all_day         INTEGER NOT NULL DEFAULT 0,
  status          TEXT NOT NULL DEFAULT 'confirmed' CHECK (status IN ('confirmed','tentative','cancelled')),
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  recurrence_rule TEXT,
  parent_event_id TEXT
);
CREATE INDEX idx_events_calendar_start ON events(calendar_id, start_dt);
CREATE INDEX idx_events_start ON events(start_dt);
CREATE INDEX idx_events_parent ON events(parent_event_id);

CREATE TABLE attendees (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id        TEXT NOT NULL REFERENCES events(event_id) ON DELETE CASCADE,
  email           TEXT NOT NULL,
  name            TEXT,
  response_status TEXT NOT NULL DEFAULT 'needsAction'
                  CHECK (response_status IN ('needsAction','accepted','declined','tentative'))
);
CREATE INDEX idx_attendees_event ON attendees(event_id);

CREATE TABLE reminders (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id       TEXT NOT NULL REFERENCES events(event_id) ON DELETE CASCADE,
  method         TEXT NOT NULL DEFAULT 'popup' CHECK (method IN ('popup','email')),
  minutes_before INTEGER NOT NULL
);
CREATE INDEX idx_reminders_event ON reminders(event_id);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
