-- flight_booking: flights, fare buckets, offers, PNRs, seats, live status.
-- Table and column names follow the public flight_booking_mock spec so its seeds load.
CREATE TABLE flights (
  flight_no   TEXT NOT NULL,
  origin      TEXT NOT NULL,
  dest        TEXT NOT NULL,
  depart_dt   TEXT NOT NULL,
  arrive_dt   TEXT NOT NULL,
  equipment   TEXT NOT NULL,
  base_price  REAL NOT NULL,
  currency    TEXT NOT NULL DEFAULT 'CNY',
  carrier     TEXT NOT NULL,
  PRIMARY KEY (flight_no, depart_dt)
);
CREATE INDEX idx_flights_route_date ON flights(origin, dest, substr(depart_dt, 1, 10));

CREATE TABLE fare_buckets (
  flight_no       TEXT NOT NULL,
  date            TEXT NOT NULL,
  cabin           TEXT NOT NULL,
  price           REAL NOT NULL,
  seats_remaining INTEGER NOT NULL,
  PRIMARY KEY (flight_no, date, cabin)
);

CREATE TABLE offers (
  offer_id              TEXT PRIMARY KEY,
  created_at            TEXT NOT NULL,
  expires_at            TEXT NOT NULL,
  payload_json          TEXT NOT NULL,
  priced_price          REAL,
  priced_at             TEXT,
  price_guarantee_until TEXT
);
CREATE INDEX idx_offers_expires ON offers(expires_at);

CREATE TABLE bookings (
  pnr             TEXT PRIMARY KEY,
  user_id         TEXT,
  offer_id        TEXT NOT NULL,
  status          TEXT NOT NULL,
  paid_amount     REAL NOT NULL,
  currency        TEXT NOT NULL DEFAULT 'CNY',
  created_at      TEXT NOT NULL,
  segments_json   TEXT NOT NULL,
  passengers_json TEXT NOT NULL,
  contact_json    TEXT NOT NULL,
  history_json    TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX idx_bookings_user ON bookings(user_id);

CREATE TABLE seat_assignments (
  pnr              TEXT NOT NULL,
  segment_idx      INTEGER NOT NULL,
  pax_idx          INTEGER NOT NULL,
  seat             TEXT NOT NULL,
  checked_in       INTEGER NOT NULL DEFAULT 0,
  boarding_pass_id TEXT,
  PRIMARY KEY (pnr, segment_idx, pax_idx),
  FOREIGN KEY (pnr) REFERENCES bookings(pnr)
);

CREATE TABLE flight_status (
  flight_no     TEXT NOT NULL,
  date          TEXT NOT NULL,
  status        TEXT NOT NULL,
  actual_depart TEXT,
  actual_arrive TEXT,
  gate          TEXT,
  terminal      TEXT,
  delay_min     INTEGER NOT NULL DEFAULT 0,
  last_updated  TEXT NOT NULL,
  PRIMARY KEY (flight_no, date)
);

CREATE TABLE status_subscriptions (
  sub_id      TEXT PRIMARY KEY,
  flight_no   TEXT NOT NULL,
  date        TEXT NOT NULL,
  sink        TEXT NOT NULL,
  webhook_url TEXT,
  created_at  TEXT NOT NULL
);
CREATE INDEX idx_subs_flight_date ON status_subscriptions(flight_no, date);

CREATE TABLE notifications (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at   TEXT NOT NULL,
  channel      TEXT NOT NULL,
  payload_json TEXT NOT NULL
);
CREATE INDEX idx_notifs_created ON notifications(created_at);

CREATE TABLE _counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);

-- Ours (not in the public spec): when an unticketed HOLD lapses on the virtual clock.
CREATE TABLE booking_holds (
  pnr        TEXT PRIMARY KEY REFERENCES bookings(pnr),
  expires_at TEXT NOT NULL
);
