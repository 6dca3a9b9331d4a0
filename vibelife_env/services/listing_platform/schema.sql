-- listing_platform: classified listings (rentals, houses, used cars, secondhand goods),
-- agents, saved listings, viewings, contacts, market statistics, saved searches.
-- Table and column names follow the public listing_platform_mock spec so its seeds load.
CREATE TABLE agents (
  agent_id      TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  agency        TEXT NOT NULL,
  phone         TEXT NOT NULL,
  rating        REAL NOT NULL DEFAULT 0,
  deals_count   INTEGER NOT NULL DEFAULT 0,
  service_area  TEXT
);

CREATE TABLE listings (
  listing_id     TEXT PRIMARY KEY,
  category       TEXT NOT NULL CHECK (category IN ('rent','sale_house','used_car','secondhand')),
  title          TEXT NOT NULL,
  city           TEXT NOT NULL,
  district       TEXT,
  community      TEXT,
  price_minor    INTEGER NOT NULL,            -- rent: monthly rent (fen); otherwise total price
  area_sqm       REAL,
  rooms          INTEGER,
  metro          TEXT,
  attrs_json     TEXT NOT NULL DEFAULT '{}',
  description    TEXT,
  photos_json    TEXT NOT NULL DEFAULT '[]',
  agent_id       TEXT REFERENCES agents(agent_id),
  owner_user_id  TEXT,
  status         TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','delisted')),
  listed_at      TEXT NOT NULL
);
CREATE INDEX idx_listings_cat ON listings(category, status);
CREATE INDEX idx_listings_city ON listings(city, district);
CREATE INDEX idx_listings_price ON listings(category, price_minor);
CREATE INDEX idx_listings_owner ON listings(owner_user_id);

CREATE TABLE saved_listings (
  user_id     TEXT NOT NULL,
  listing_id  TEXT NOT NULL REFERENCES listings(listing_id),
  saved_at    TEXT NOT NULL,
  PRIMARY KEY (user_id, listing_id)
);
CREATE INDEX idx_saved_user ON saved_listings(user_id);

CREATE TABLE viewings (
  viewing_id    TEXT PRIMARY KEY,
  user_id       TEXT NOT NULL,
  listing_id    TEXT NOT NULL REFERENCES listings(listing_id),
  agent_id      TEXT,
  scheduled_at  TEXT NOT NULL,
  status        TEXT NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled','cancelled')),
  created_at    TEXT NOT NULL
);
CREATE INDEX idx_viewings_user ON viewings(user_id, status);

CREATE TABLE contacts (
  contact_id  TEXT PRIMARY KEY,
  user_id     TEXT NOT NULL,
  listing_id  TEXT NOT NULL REFERENCES listings(listing_id),
  agent_id    TEXT,
  message     TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX idx_contacts_user ON contacts(user_id);

CREATE TABLE market_stats (
  stat_id          TEXT PRIMARY KEY,
  area             TEXT NOT NULL,
  city             TEXT,
  category         TEXT NOT NULL CHECK (category IN ('rent','sale_house','used_car','secondhand')),
  avg_price_minor  INTEGER NOT NULL,
  unit             TEXT NOT NULL,              -- per_month | total | per_sqm
  sample_size      INTEGER NOT NULL DEFAULT 0,
  period           TEXT NOT NULL
);
CREATE INDEX idx_stats_area ON market_stats(area);

CREATE TABLE search_subscriptions (
  subscription_id  TEXT PRIMARY KEY,
  user_id          TEXT NOT NULL,
  query_json       TEXT NOT NULL,
  created_at       TEXT NOT NULL
);
CREATE INDEX idx_subs_user ON search_subscriptions(user_id);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
