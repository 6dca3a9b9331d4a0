-- rail_booking: train offers (one row per train, date and seat class), student
-- discount profiles, bookings with per-passenger tickets, live train status.
-- Table and column names follow the public rail_booking_mock source so its seeds load.
CREATE TABLE train_offers (
  offer_id                           TEXT PRIMARY KEY,
  train_no                           TEXT NOT NULL,
  date                               TEXT NOT NULL,
  train_type                         TEXT NOT NULL,
  origin_city                        TEXT NOT NULL,
  dest_city                          TEXT NOT NULL,
  origin_station                     TEXT NOT NULL,
  dest_station                       TEXT NOT NULL,
  depart_at                          TEXT NOT NULL,
  arrive_at                          TEXT NOT NULL,
  seat_class                         TEXT NOT NULL,
  adult_fare                         REAL NOT NULL,
  student_fare                       REAL NOT NULL,
  currency                           TEXT NOT NULL DEFAULT 'CNY',
  adult_seats_remaining              INTEGER NOT NULL,
  ordinary_student_seats_remaining   INTEGER NOT NULL,
  graduation_student_seats_remaining INTEGER NOT NULL,
  student_discount_available         INTEGER NOT NULL DEFAULT 0,
  refundability                      TEXT NOT NULL,
  route_notes                        TEXT,
  source_url                         TEXT
);
CREATE INDEX idx_train_route_date ON train_offers(origin_city, dest_city, date);

CREATE TABLE student_profiles (
  user_id                    TEXT PRIMARY KEY,
  display_name               TEXT NOT NULL,
  ordinary_quota_remaining   INTEGER NOT NULL DEFAULT 0,
  graduation_quota_remaining INTEGER NOT NULL DEFAULT 0,
  xuexin_status              TEXT NOT NULL DEFAULT 'pending',
  school_proof_status        TEXT NOT NULL DEFAULT 'pending',
  discount_zone              TEXT,
  notes                      TEXT
);

CREATE TABLE train_bookings (
  booking_ref     TEXT PRIMARY KEY,
  user_id         TEXT,
  offer_id        TEXT NOT NULL REFERENCES train_offers(offer_id),
  status          TEXT NOT NULL,
  total_paid      REAL NOT NULL,
  currency        TEXT NOT NULL DEFAULT 'CNY',
  created_at      TEXT NOT NULL,
  contact_json    TEXT NOT NULL,
  passengers_json TEXT NOT NULL,
  tickets_json    TEXT NOT NULL,
  history_json    TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX idx_train_bookings_user ON train_bookings(user_id);

CREATE TABLE train_status (
  train_no     TEXT NOT NULL,
  date         TEXT NOT NULL,
  status       TEXT NOT NULL,
  delay_min    INTEGER NOT NULL DEFAULT 0,
  platform     TEXT,
  gate         TEXT,
  last_updated TEXT NOT NULL,
  PRIMARY KEY (train_no, date)
);

CREATE TABLE _counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
