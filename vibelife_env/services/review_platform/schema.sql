-- review_platform: merchants, reviews, group-buy deals, reservations, Q&A, saved merchants.
-- Table and column names follow the public review_platform_mock spec so its seeds load.
-- Money is integer minor units (fen); merchant ratings are INTEGER tenths (46 -> 4.6).
CREATE TABLE merchants (
  merchant_id      TEXT PRIMARY KEY,
  name             TEXT NOT NULL,
  category         TEXT NOT NULL CHECK (category IN ('restaurant','venue','vet','home_service')),
  city             TEXT NOT NULL,
  area             TEXT NOT NULL,
  address          TEXT NOT NULL,
  phone            TEXT,
  rating_tenths    INTEGER NOT NULL DEFAULT 0,
  review_count     INTEGER NOT NULL DEFAULT 0,
  avg_price_minor  INTEGER NOT NULL DEFAULT 0,
  price_band       TEXT NOT NULL CHECK (price_band IN ('$','$$','$$$','$$$$')),
  hours            TEXT,
  tags             TEXT,
  has_private_room INTEGER NOT NULL DEFAULT 0,
  max_party_size   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_merchants_cat ON merchants(category);
CREATE INDEX idx_merchants_area ON merchants(city, area);

CREATE TABLE reviews (
  review_id      TEXT PRIMARY KEY,
  merchant_id    TEXT NOT NULL REFERENCES merchants(merchant_id),
  user_id        TEXT NOT NULL,
  rating         INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  body           TEXT NOT NULL,
  image_captions TEXT,
  created_at     TEXT NOT NULL
);
CREATE INDEX idx_reviews_merchant ON reviews(merchant_id, created_at);

CREATE TABLE deals (
  deal_id          TEXT PRIMARY KEY,
  merchant_id      TEXT NOT NULL REFERENCES merchants(merchant_id),
  title            TEXT NOT NULL,
  description      TEXT,
  price_minor      INTEGER NOT NULL,
  list_price_minor INTEGER NOT NULL,
  serves           INTEGER NOT NULL DEFAULT 1,
  valid_until      TEXT,
  status           TEXT NOT NULL CHECK (status IN ('active','sold_out','expired'))
);
CREATE INDEX idx_deals_merchant ON deals(merchant_id);

CREATE TABLE reservations (
  reservation_id TEXT PRIMARY KEY,
  user_id        TEXT NOT NULL,
  merchant_id    TEXT NOT NULL REFERENCES merchants(merchant_id),
  datetime       TEXT NOT NULL,
  party_size     INTEGER NOT NULL,
  deal_id        TEXT REFERENCES deals(deal_id),
  status         TEXT NOT NULL CHECK (status IN ('confirmed','cancelled')),
  created_at     TEXT NOT NULL
);
CREATE INDEX idx_reservations_user ON reservations(user_id, datetime);

CREATE TABLE merchant_qa (
  qa_id       TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(merchant_id),
  user_id     TEXT NOT NULL,
  question    TEXT NOT NULL,
  answer      TEXT,
  answered_by TEXT,
  created_at  TEXT NOT NULL
);
CREATE INDEX idx_qa_merchant ON merchant_qa(merchant_id, created_at);

CREATE TABLE saved_merchants (
  user_id     TEXT NOT NULL,
  merchant_id TEXT NOT NULL REFERENCES merchants(merchant_id),
  saved_at    TEXT NOT NULL,
  PRIMARY KEY (user_id, merchant_id)
);
CREATE INDEX idx_saved_user ON saved_merchants(user_id);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
