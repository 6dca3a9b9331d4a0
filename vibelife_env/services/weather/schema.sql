-- weather: locations, pre-baked hourly/daily weather, AQI, alerts, subscriptions, typhoons.
-- Table and column names follow the public weather_mock schema so its seeds load.
CREATE TABLE climate_profiles (
  profile_id               TEXT PRIMARY KEY,
  seasonal_temp_means_json TEXT NOT NULL,
  precip_freq_json         TEXT NOT NULL,
  wind_baseline_kmh        REAL NOT NULL,
  humidity_baseline_pct    REAL NOT NULL,
  aqi_baseline_json        TEXT NOT NULL,
  notes                    TEXT
);

CREATE TABLE locations (
  geo_key            TEXT PRIMARY KEY,
  city               TEXT NOT NULL,
  country            TEXT NOT NULL,
  lat                REAL NOT NULL,
  lng                REAL NOT NULL,
  timezone           TEXT NOT NULL,
  climate_profile_id TEXT NOT NULL REFERENCES climate_profiles(profile_id),
  kind               TEXT NOT NULL DEFAULT 'city'
);

CREATE TABLE daily_weather (
  geo_key     TEXT NOT NULL REFERENCES locations(geo_key),
  date        TEXT NOT NULL,
  tmin        REAL NOT NULL,
  tmax        REAL NOT NULL,
  condition   TEXT NOT NULL,
  precip_mm   REAL NOT NULL,
  precip_prob REAL NOT NULL,
  wind_kmh    REAL NOT NULL,
  PRIMARY KEY (geo_key, date)
);

CREATE TABLE hourly_weather (
  geo_key   TEXT NOT NULL REFERENCES locations(geo_key),
  datetime  TEXT NOT NULL,
  temp_c    REAL NOT NULL,
  humidity  REAL NOT NULL,
  condition TEXT NOT NULL,
  precip_mm REAL NOT NULL,
  wind_kmh  REAL NOT NULL,
  PRIMARY KEY (geo_key, datetime)
);

CREATE TABLE alerts (
  alert_id     TEXT PRIMARY KEY,
  kind         TEXT NOT NULL,
  severity     TEXT NOT NULL,
  start_dt     TEXT NOT NULL,
  end_dt       TEXT NOT NULL,
  areas_json   TEXT NOT NULL,
  description  TEXT NOT NULL,
  active       INTEGER NOT NULL DEFAULT 1,
  created_at   TEXT NOT NULL,
  source_event TEXT
);
CREATE INDEX idx_alerts_active ON alerts(active);

CREATE TABLE alert_subscriptions (
  sub_id     TEXT PRIMARY KEY,
  geo_key    TEXT NOT NULL REFERENCES locations(geo_key),
  sink       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  active     INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE notifications (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at   TEXT NOT NULL,
  channel      TEXT NOT NULL,
  sub_id       TEXT REFERENCES alert_subscriptions(sub_id),
  alert_id     TEXT REFERENCES alerts(alert_id),
  payload_json TEXT NOT NULL,
  delivered    INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE typhoon_tracks (
  storm_id  TEXT NOT NULL,
  dt        TEXT NOT NULL,
  lat       REAL NOT NULL,
  lng       REAL NOT NULL,
  intensity TEXT NOT NULL,
  PRIMARY KEY (storm_id, dt)
);

CREATE TABLE daily_aqi (
  geo_key            TEXT NOT NULL REFERENCES locations(geo_key),
  date               TEXT NOT NULL,
  aqi                INTEGER NOT NULL,
  category           TEXT NOT NULL,
  dominant_pollutant TEXT NOT NULL,
  observed_at        TEXT NOT NULL,
  PRIMARY KEY (geo_key, date)
);

CREATE TABLE _counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);

-- Kept so seeds that set it load; the service reads the world's virtual clock instead.
CREATE TABLE _sim_clock (
  id      INTEGER PRIMARY KEY,
  sim_now TEXT NOT NULL
);
