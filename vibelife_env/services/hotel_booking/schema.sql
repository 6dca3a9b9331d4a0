-- hotel_booking: hotels, per-night rate plans, reservations and their nights, requests.
-- Table and column names follow the public hotel_booking_mock spec so its seeds load
-- (seeds may ALTER rate_plans or create extra tables such as pending_events).
CREATE TABLE hotels (
  hotel_id          TEXT PRIMARY KEY,
  name              TEXT NOT NULL,
  city              TEXT NOT NULL,
  district          TEXT,
  geo_lat           REAL NOT NULL,
  geo_lng           REAL NOT NULL,
  star_rating       INTEGER NOT NULL CHECK (star_rating BETWEEN 1 AND 5),
  user_rating       REAL NOT NULL CHECK (user_rating BETWEEN 0 AND 10),
  user_rating_count INTEGER NOT NULL DEFAULT 0,
  amenities_json    TEXT NOT NULL,
  address_json      TEXT NOT NULL,
  policies_json     TEXT NOT NULL,
  description       TEXT,
  capacity_estimate INTEGER NOT NULL DEFAULT 20
);
CREATE INDEX idx_hotels_city ON hotels(city);
CREATE INDEX idx_hotels_district ON hotels(district);

CREATE TABLE rate_plans (
  rate_plan_row_id    INTEGER PRIMARY KEY AUTOINCREMENT,
  hotel_id            TEXT NOT NULL,
  date                TEXT NOT NULL,
  room_type           TEXT NOT NULL,
  flavor              TEXT NOT NULL CHECK (flavor IN ('flex','semi','prepaid')),
  nightly_price       INTEGER NOT NULL,
  currency            TEXT NOT NULL DEFAULT 'JPY',
  inventory_remaining INTEGER NOT NULL,
  inventory_capacity  INTEGER NOT NULL,
  cancellation_policy TEXT NOT NULL,
  refundable_until    TEXT,
  breakfast_included  INTEGER NOT NULL DEFAULT 0,
  max_occupancy       INTEGER NOT NULL DEFAULT 2,
  UNIQUE (hotel_id, date, room_type, flavor),
  FOREIGN KEY (hotel_id) REFERENCES hotels(hotel_id) ON DELETE CASCADE
);
CREATE INDEX idx_rateplans_hotel_date ON rate_plans(hotel_id, date);

CREATE TABLE reservations (
  reservation_id        TEXT PRIMARY KEY,
  confirmation_code     TEXT NOT NULL UNIQUE,
  user_id               TEXT NOT NULL,
  hotel_id              TEXT NOT NULL,
  check_in              TEXT NOT NULL,
  check_out             TEXT NOT NULL,
  room_type             TEXT NOT NULL,
  flavor                TEXT NOT NULL,
  status                TEXT NOT NULL CHECK (status IN ('confirmed','modified','cancelled','walked','checked_out')),
  total_charged         INTEGER NOT NULL,
  currency              TEXT NOT NULL DEFAULT 'JPY',
  refundable            INTEGER NOT NULL DEFAULT 1,
  refundable_until      TEXT,
  created_at            TEXT NOT NULL,
  updated_at            TEXT NOT NULL,
  guest_profile_json    TEXT NOT NULL,
  payment_method_id     TEXT NOT NULL,
  special_requests_json TEXT NOT NULL DEFAULT '{}',
  FOREIGN KEY (hotel_id) REFERENCES hotels(hotel_id)
);
CREATE INDEX idx_reservations_user ON reservations(user_id);
CREATE INDEX idx_reservations_hotel ON reservations(hotel_id);
CREATE INDEX idx_reservations_status ON reservations(status);

CREATE TABLE reservation_nights (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  reservation_id   TEXT NOT NULL,
  date             TEXT NOT NULL,
  rate_plan_row_id INTEGER NOT NULL,
  nightly_price    INTEGER NOT NULL,
  FOREIGN KEY (reservation_id) REFERENCES reservations(reservation_id) ON DELETE CASCADE,
  FOREIGN KEY (rate_plan_row_id) REFERENCES rate_plans(rate_plan_row_id)
);
CREATE INDEX idx_resnights_res ON reservation_nights(reservation_id);
CREATE INDEX idx_resnights_date ON reservation_nights(date);

CREATE TABLE special_requests (
  ticket_id      TEXT PRIMARY KEY,
  reservation_id TEXT NOT NULL,
  text           TEXT NOT NULL,
  status         TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL,
  FOREIGN KEY (reservation_id) REFERENCES reservations(reservation_id) ON DELETE CASCADE
);
CREATE INDEX idx_sreq_res ON special_requests(reservation_id);

CREATE TABLE notifications (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at   TEXT NOT NULL,
  channel      TEXT NOT NULL CHECK (channel IN ('email','sms','webhook','system')),
  payload_json TEXT NOT NULL
);
CREATE INDEX idx_notifications_created ON notifications(created_at);

-- Kept for seed compatibility; the service reads the world's virtual clock instead.
CREATE TABLE scenario_clock (
  clock_id      TEXT PRIMARY KEY CHECK (clock_id = 'default'),
  scenario_date TEXT NOT NULL
);

CREATE TABLE _counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
