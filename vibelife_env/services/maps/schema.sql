-- maps: places, reviews, roads, transit network, road/transit incidents.
-- Table and column names follow the public maps_mock schema so its seeds load.
CREATE TABLE places (
  place_id    TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  category    TEXT NOT NULL,
  lat         REAL NOT NULL,
  lng         REAL NOT NULL,
  country     TEXT NOT NULL,
  city        TEXT NOT NULL,
  rating      REAL,
  price_level INTEGER,
  hours_json  TEXT,
  phone       TEXT,
  website     TEXT,
  formatted   TEXT
);
CREATE INDEX idx_places_city ON places(city);
CREATE INDEX idx_places_category ON places(category);

CREATE TABLE place_reviews (
  id       INTEGER PRIMARY KEY AUTOINCREMENT,
  place_id TEXT NOT NULL REFERENCES places(place_id),
  author   TEXT NOT NULL,
  rating   INTEGER NOT NULL,
  text     TEXT NOT NULL,
  time     TEXT NOT NULL
);
CREATE INDEX idx_reviews_place ON place_reviews(place_id);

CREATE TABLE roads (
  road_id   TEXT PRIMARY KEY,
  name      TEXT NOT NULL,
  city      TEXT NOT NULL,
  geom_json TEXT NOT NULL
);

CREATE TABLE transit_stops (
  stop_id TEXT PRIMARY KEY,
  name    TEXT NOT NULL,
  lat     REAL NOT NULL,
  lng     REAL NOT NULL,
  city    TEXT NOT NULL
);

CREATE TABLE transit_lines (
  line_id              TEXT PRIMARY KEY,
  name                 TEXT NOT NULL,
  mode                 TEXT NOT NULL CHECK (mode IN ('subway','train','bus','shinkansen')),
  operator             TEXT,
  segment_minutes_json TEXT
);

CREATE TABLE transit_schedule (
  schedule_id INTEGER PRIMARY KEY AUTOINCREMENT,
  line_id     TEXT NOT NULL REFERENCES transit_lines(line_id),
  stop_id     TEXT NOT NULL REFERENCES transit_stops(stop_id),
  direction   TEXT NOT NULL,
  stop_seq    INTEGER NOT NULL,
  time        TEXT NOT NULL
);
CREATE INDEX idx_sched_line_time ON transit_schedule(line_id, direction, time);
CREATE INDEX idx_sched_stop ON transit_schedule(stop_id);

CREATE TABLE road_events (
  event_id  TEXT PRIMARY KEY,
  road_id   TEXT NOT NULL REFERENCES roads(road_id),
  start_dt  TEXT NOT NULL,
  end_dt    TEXT NOT NULL,
  kind      TEXT NOT NULL CHECK (kind IN ('closure','heavy_traffic','accident')),
  magnitude REAL,
  note      TEXT,
  active    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_road_events_active ON road_events(active);

CREATE TABLE transit_events (
  event_id TEXT PRIMARY KEY,
  line_id  TEXT REFERENCES transit_lines(line_id),
  stop_id  TEXT REFERENCES transit_stops(stop_id),
  start_dt TEXT NOT NULL,
  end_dt   TEXT NOT NULL,
  kind     TEXT NOT NULL CHECK (kind IN ('suspended','delayed')),
  note     TEXT,
  active   INTEGER NOT NULL DEFAULT 0,
  CHECK (line_id IS NOT NULL OR stop_id IS NOT NULL)
);
CREATE INDEX idx_transit_events_active ON transit_events(active);

CREATE TABLE notifications (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at   TEXT NOT NULL,
  channel      TEXT NOT NULL,
  payload_json TEXT NOT NULL
);
