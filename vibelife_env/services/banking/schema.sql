-- banking: accounts, ledger, payees, recurring and future-dated payments.
-- Table and column names follow the public banking_mock spec so its seeds load.
CREATE TABLE accounts (
  account_id     TEXT PRIMARY KEY,
  user_id        TEXT NOT NULL,
  type           TEXT NOT NULL CHECK (type IN ('checking','savings','money_market','education_fund')),
  name           TEXT NOT NULL,
  balance_minor  INTEGER NOT NULL DEFAULT 0,
  currency       TEXT NOT NULL DEFAULT 'CNY',
  opened_at      TEXT NOT NULL,
  frozen         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_accounts_user ON accounts(user_id);

CREATE TABLE transactions (
  tx_id                TEXT PRIMARY KEY,
  account_id           TEXT NOT NULL REFERENCES accounts(account_id),
  posted_at            TEXT NOT NULL,
  amount_minor         INTEGER NOT NULL,
  kind                 TEXT NOT NULL CHECK (kind IN
                         ('deposit','withdrawal','transfer_in','transfer_out','payment','fee','interest')),
  counterparty         TEXT,
  memo                 TEXT,
  balance_after_minor  INTEGER NOT NULL
);
CREATE INDEX idx_tx_account_posted ON transactions(account_id, posted_at);
CREATE INDEX idx_tx_kind ON transactions(kind);

CREATE TABLE payees (
  payee_id           TEXT PRIMARY KEY,
  user_id            TEXT NOT NULL,
  name               TEXT NOT NULL,
  account_no         TEXT NOT NULL,
  account_no_masked  TEXT NOT NULL,
  bank_name          TEXT NOT NULL,
  added_at           TEXT NOT NULL
);
CREATE INDEX idx_payees_user ON payees(user_id);

CREATE TABLE recurring_payments (
  schedule_id    TEXT PRIMARY KEY,
  user_id        TEXT NOT NULL,
  account_id     TEXT NOT NULL REFERENCES accounts(account_id),
  payee_id       TEXT NOT NULL REFERENCES payees(payee_id),
  amount_minor   INTEGER NOT NULL,
  freq           TEXT NOT NULL CHECK (freq IN ('daily','weekly','monthly')),
  start_date     TEXT NOT NULL,
  end_date       TEXT,
  next_run_date  TEXT NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('active','paused','cancelled','ended'))
);
CREATE INDEX idx_recurring_user ON recurring_payments(user_id);
CREATE INDEX idx_recurring_status ON recurring_payments(status);
CREATE INDEX idx_recurring_next ON recurring_payments(next_run_date);

CREATE TABLE pending_payments (
  pending_id     TEXT PRIMARY KEY,
  account_id     TEXT NOT NULL REFERENCES accounts(account_id),
  payee_id       TEXT NOT NULL REFERENCES payees(payee_id),
  amount_minor   INTEGER NOT NULL,
  memo           TEXT,
  scheduled_for  TEXT NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('pending','posted','cancelled'))
);
CREATE INDEX idx_pending_sched ON pending_payments(scheduled_for, status);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);
