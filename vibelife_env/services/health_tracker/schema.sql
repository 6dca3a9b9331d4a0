-- health_tracker: body metrics, workouts, goals, nutrition logs.
-- Table and column names follow the public health_tracker_mock schema so its seeds load.
CREATE TABLE metrics (
  metric_id   TEXT PRIMARY KEY,
  user_id     TEXT NOT NULL,
  type        TEXT NOT NULL CHECK (type IN ('weight','steps','heart_rate','sleep_minutes',
                                            'blood_pressure','body_fat','finger_pain','score')),
  value       REAL NOT NULL,
  value_text  TEXT,
  unit        TEXT NOT NULL,
  recorded_at TEXT NOT NULL
);
CREATE INDEX idx_metrics_user_type ON metrics(user_id, type, recorded_at);

CREATE TABLE workouts (
  workout_id   TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL,
  type         TEXT NOT NULL,
  duration_min INTEGER NOT NULL,
  calories     INTEGER,
  distance_m   INTEGER,
  started_at   TEXT NOT NULL
);
CREATE INDEX idx_workouts_user ON workouts(user_id, started_at);

CREATE TABLE goals (
  goal_id    TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL,
  type       TEXT NOT NULL,
  target     REAL NOT NULL,
  unit       TEXT NOT NULL,
  period     TEXT NOT NULL CHECK (period IN ('day','week','month','once')),
  direction  TEXT NOT NULL CHECK (direction IN ('at_least','at_most')),
  start_date TEXT NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('active','achieved','abandoned'))
);
CREATE INDEX idx_goals_user ON goals(user_id, status);

CREATE TABLE nutrition_logs (
  nutrition_id TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL,
  meal         TEXT NOT NULL CHECK (meal IN ('breakfast','lunch','dinner','snack')),
  description  TEXT,
  calories     INTEGER NOT NULL,
  protein_g    REAL,
  carbs_g      REAL,
  fat_g        REAL,
  logged_at    TEXT NOT NULL
);
CREATE INDEX idx_nutrition_user ON nutrition_logs(user_id, logged_at);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
