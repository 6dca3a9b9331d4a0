-- brokerage: cash accounts, positions, orders, symbols with daily quotes, funds with NAVs, snapshots.
-- Table and column names follow the public brokerage_mock spec so its seeds load
-- (note: this service's _counters table keys on "name", not "key").
CREATE TABLE accounts (
  account_id    TEXT PRIMARY KEY,
  user_id       TEXT NOT NULL,
  broker        TEXT NOT NULL,
  account_type  TEXT NOT NULL CHECK (account_type IN ('cash','margin')),
  cash_minor    INTEGER NOT NULL DEFAULT 0,
  opened_at     TEXT NOT NULL,
  status        TEXT NOT NULL DEFAULT 'active'
);
CREATE INDEX idx_accounts_user ON accounts(user_id);

CREATE TABLE positions (
  position_id     INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id      TEXT NOT NULL REFERENCES accounts(account_id) ON DELETE CASCADE,
  symbol          TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('stock','fund')),
  qty_milli       INTEGER NOT NULL DEFAULT 0,
  avg_cost_minor  INTEGER NOT NULL DEFAULT 0,
  UNIQUE (account_id, symbol)
);
CREATE INDEX idx_positions_account ON positions(account_id);

CREATE TABLE orders (
  order_id           TEXT PRIMARY KEY,
  account_id         TEXT NOT NULL REFERENCES accounts(account_id) ON DELETE CASCADE,
  symbol             TEXT NOT NULL,
  side               TEXT NOT NULL CHECK (side IN ('buy','sell')),
  qty_milli          INTEGER NOT NULL,
  order_type         TEXT NOT NULL CHECK (order_type IN ('market','limit')),
  limit_price_minor  INTEGER,
  tif                TEXT NOT NULL DEFAULT 'day',
  status             TEXT NOT NULL CHECK (status IN ('pending','filled','cancelled','rejected')),
  placed_at          TEXT NOT NULL,
  filled_at          TEXT,
  fill_price_minor   INTEGER
);
CREATE INDEX idx_orders_account ON orders(account_id);
CREATE INDEX idx_orders_status ON orders(status);

CREATE TABLE symbols (
  symbol  TEXT PRIMARY KEY,
  name    TEXT NOT NULL,
  kind    TEXT NOT NULL CHECK (kind IN ('stock','fund'))
);

CREATE TABLE quotes_daily (
  symbol       TEXT NOT NULL,
  date         TEXT NOT NULL,
  open_minor   INTEGER NOT NULL,
  close_minor  INTEGER NOT NULL,
  high_minor   INTEGER NOT NULL,
  low_minor    INTEGER NOT NULL,
  volume       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (symbol, date)
);
CREATE INDEX idx_quotes_date ON quotes_daily(date);

CREATE TABLE funds (
  fund_code          TEXT PRIMARY KEY,
  fund_name          TEXT NOT NULL,
  category           TEXT NOT NULL CHECK (category IN ('money_market','bond','equity','mixed','index')),
  current_nav_minor  INTEGER NOT NULL,
  ytd_return_bp      INTEGER NOT NULL DEFAULT 0,
  risk_level         INTEGER NOT NULL DEFAULT 3,
  manager            TEXT,
  inception          TEXT
);

CREATE TABLE fund_navs (
  fund_code  TEXT NOT NULL REFERENCES funds(fund_code) ON DELETE CASCADE,
  date       TEXT NOT NULL,
  nav_minor  INTEGER NOT NULL,
  PRIMARY KEY (fund_code, date)
);

CREATE TABLE portfolio_snapshots (
  account_id             TEXT NOT NULL REFERENCES accounts(account_id) ON DELETE CASCADE,
  date                   TEXT NOT NULL,
  cash_minor             INTEGER NOT NULL,
  positions_value_minor  INTEGER NOT NULL,
  total_value_minor      INTEGER NOT NULL,
  PRIMARY KEY (account_id, date)
);

CREATE TABLE _counters (
  name   TEXT PRIMARY KEY,
  value  INTEGER NOT NULL DEFAULT 0
);
