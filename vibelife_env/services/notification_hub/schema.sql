-- notification_hub: subscriptions, inbox notifications, price alerts, official accounts.
-- Table and column names follow the public notification_hub_mock spec so its seeds load.
CREATE TABLE subscriptions (
  subscription_id TEXT PRIMARY KEY,
  user_id         TEXT NOT NULL,
  source          TEXT NOT NULL,
  type            TEXT NOT NULL CHECK (type IN ('price_drop','restock','policy_update','new_content','price_target','keyword')),
  target          TEXT NOT NULL,
  condition_json  TEXT,
  status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','paused','deleted')),
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX idx_subscriptions_user ON subscriptions(user_id);

CREATE TABLE notifications (
  notification_id TEXT PRIMARY KEY,
  user_id         TEXT NOT NULL,
  source          TEXT NOT NULL,
  type            TEXT NOT NULL,
  subscription_id TEXT REFERENCES subscriptions(subscription_id),
  title           TEXT NOT NULL,
  body            TEXT,
  payload_json    TEXT,
  created_at      TEXT NOT NULL,
  read            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_notifications_user_created ON notifications(user_id, created_at);

CREATE TABLE price_alerts (
  alert_id           TEXT PRIMARY KEY,
  user_id            TEXT NOT NULL,
  item_ref           TEXT NOT NULL,
  target_price_minor INTEGER NOT NULL,
  currency           TEXT NOT NULL DEFAULT 'CNY',
  status             TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','triggered','cancelled')),
  created_at         TEXT NOT NULL
);

CREATE TABLE official_accounts (
  account_id  TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  category    TEXT,
  description TEXT
);

CREATE TABLE official_account_subscriptions (
  user_id       TEXT NOT NULL,
  account_id    TEXT NOT NULL REFERENCES official_accounts(account_id),
  subscribed_at TEXT NOT NULL,
  PRIMARY KEY (user_id, account_id)
);

CREATE TABLE official_account_posts (
  post_id      TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES official_accounts(account_id),
  title        TEXT NOT NULL,
  summary      TEXT,
  url          TEXT,
  published_at TEXT NOT NULL
);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
