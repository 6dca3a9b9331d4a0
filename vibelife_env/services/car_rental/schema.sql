-- car_rental: rental locations, vehicles, insurance plans, rental offers, bookings,
-- incident reports, road policies and fuel/charging stops. Table and column names follow
-- the public car_rental_mock source so seeds written for it load.
CREATE TABLE rental_locations (
  location_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  city TEXT NOT NULL,
  address TEXT NOT NULL,
  lat REAL NOT NULL,
  lng REAL NOT NULL,
  hours_json TEXT NOT NULL,
  notes TEXT,
  source_url TEXT
);

CREATE TABLE vehicles (
  vehicle_id TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  class TEXT NOT NULL,
  energy_type TEXT NOT NULL CHECK (energy_type IN ('gasoline','ev','hybrid')),
  seats INTEGER NOT NULL,
  luggage_capacity TEXT,
  width_mm INTEGER,
  range_km_estimate REAL,
  energy_consumption_per_100km REAL,
  energy_unit TEXT NOT NULL,
  plate_tail TEXT,
  driver_notes TEXT,
  source_url TEXT
);

CREATE TABLE insurance_plans (
  plan_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  daily_price REAL NOT NULL,
  currency TEXT NOT NULL DEFAULT 'CNY',
  coverage_json TEXT NOT NULL,
  notes TEXT
);

CREATE TABLE rental_offers (
  offer_id TEXT PRIMARY KEY,
  vehicle_id TEXT NOT NULL REFERENCES vehicles(vehicle_id),
  pickup_location_id TEXT NOT NULL REFERENCES rental_locations(location_id),
  return_location_id TEXT NOT NULL REFERENCES rental_locations(location_id),
  pickup_at TEXT NOT NULL,
  return_at TEXT NOT NULL,
  daily_price REAL NOT NULL,
  currency TEXT NOT NULL DEFAULT 'CNY',
  deposit_amount REAL NOT NULL,
  one_way_fee REAL NOT NULL DEFAULT 0,
  included_km_per_day REAL,
  energy_policy_json TEXT NOT NULL,
  return_requirements_json TEXT NOT NULL,
  inventory_remaining INTEGER NOT NULL DEFAULT 1,
  cancellation_policy TEXT NOT NULL,
  source_url TEXT,
  notes TEXT
);

CREATE TABLE bookings (
  booking_ref TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  offer_id TEXT NOT NULL REFERENCES rental_offers(offer_id),
  insurance_plan_id TEXT NOT NULL REFERENCES insurance_plans(plan_id),
  status TEXT NOT NULL,
  estimated_total REAL NOT NULL,
  currency TEXT NOT NULL DEFAULT 'CNY',
  created_at TEXT NOT NULL,
  drivers_json TEXT NOT NULL,
  contact_json TEXT NOT NULL,
  payment_json TEXT NOT NULL,
  pickup_condition_json TEXT,
  return_condition_json TEXT,
  history_json TEXT NOT NULL DEFAULT '[]'
);

CREATE INDEX idx_bookings_user ON bookings(user_id);

CREATE TABLE incident_reports (
  incident_id TEXT PRIMARY KEY,
  booking_ref TEXT NOT NULL REFERENCES bookings(booking_ref),
  incident_type TEXT NOT NULL,
  occurred_at TEXT NOT NULL,
  location TEXT NOT NULL,
  description TEXT NOT NULL,
  photos_count INTEGER NOT NULL DEFAULT 0,
  safe_to_drive INTEGER NOT NULL DEFAULT 1,
  platform_case_ref TEXT NOT NULL,
  created_at TEXT NOT NULL,
  status TEXT NOT NULL,
  estimated_fee REAL,
  currency TEXT NOT NULL DEFAULT 'CNY'
);

CREATE TABLE road_policy (
  policy_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  applies_to TEXT NOT NULL,
  detail_json TEXT NOT NULL,
  source_url TEXT
);

CREATE TABLE energy_stops (
  stop_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  city TEXT NOT NULL,
  lat REAL NOT NULL,
  lng REAL NOT NULL,
  energy_types_json TEXT NOT NULL,
  hours_json TEXT NOT NULL,
  wait_risk TEXT,
  notes TEXT,
  source_url TEXT
);

CREATE TABLE _counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
