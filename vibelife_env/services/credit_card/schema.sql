-- credit_card: cards, statements and their lines, unbilled charges, payments, disputes, rewards.
-- Table and column names follow the public credit_card_mock spec so its seeds load.
CREATE TABLE cards (
  card_id                  TEXT PRIMARY KEY,
  user_id                  TEXT NOT NULL,
  issuer                   TEXT NOT NULL,
  product_name             TEXT NOT NULL,
  masked_no                TEXT NOT NULL,
  type                     TEXT NOT NULL,
  credit_limit_minor       INTEGER NOT NULL,
  available_credit_minor   INTEGER NOT NULL,
  statement_balance_minor  INTEGER NOT NULL DEFAULT 0,
  unbilled_balance_minor   INTEGER NOT NULL DEFAULT 0,
  min_payment_due_minor    INTEGER NOT NULL DEFAULT 0,
  due_date                 TEXT,
  cycle_start_day          INTEGER NOT NULL DEFAULT 1,
  cycle_end_day            INTEGER NOT NULL DEFAULT 28,
  grace_period_days        INTEGER NOT NULL DEFAULT 14,
  status                   TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','frozen','expired','closed')),
  interest_apr_bp          INTEGER NOT NULL DEFAULT 1800
);
CREATE INDEX idx_cards_user ON cards(user_id);

CREATE TABLE statements (
  statement_id           TEXT PRIMARY KEY,
  card_id                TEXT NOT NULL REFERENCES cards(card_id) ON DELETE CASCADE,
  period_start           TEXT NOT NULL,
  period_end             TEXT NOT NULL,
  opening_balance_minor  INTEGER NOT NULL DEFAULT 0,
  new_charges_minor      INTEGER NOT NULL DEFAULT 0,
  payments_minor         INTEGER NOT NULL DEFAULT 0,
  closing_balance_minor  INTEGER NOT NULL DEFAULT 0,
  min_payment_due_minor  INTEGER NOT NULL DEFAULT 0,
  due_date               TEXT NOT NULL,
  status                 TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','paid','overdue','partial'))
);
CREATE INDEX idx_statements_card ON statements(card_id, period_end);
CREATE INDEX idx_statements_status ON statements(status);

CREATE TABLE statement_lines (
  line_id        TEXT PRIMARY KEY,
  statement_id   TEXT NOT NULL REFERENCES statements(statement_id) ON DELETE CASCADE,
  posted_at      TEXT NOT NULL,
  amount_minor   INTEGER NOT NULL,
  merchant_name  TEXT NOT NULL DEFAULT '',
  mcc            TEXT,
  category       TEXT,
  kind           TEXT NOT NULL CHECK (kind IN ('purchase','refund','payment','fee','interest','adjustment'))
);
CREATE INDEX idx_lines_statement ON statement_lines(statement_id, posted_at);

CREATE TABLE unbilled_transactions (
  tx_id          TEXT PRIMARY KEY,
  card_id        TEXT NOT NULL REFERENCES cards(card_id) ON DELETE CASCADE,
  posted_at      TEXT NOT NULL,
  amount_minor   INTEGER NOT NULL,
  merchant_name  TEXT NOT NULL DEFAULT '',
  mcc            TEXT,
  category       TEXT,
  kind           TEXT NOT NULL CHECK (kind IN ('purchase','refund','payment','fee','interest','adjustment'))
);
CREATE INDEX idx_unbilled_card ON unbilled_transactions(card_id, posted_at);

CREATE TABLE payments (
  payment_id                  TEXT PRIMARY KEY,
  card_id                     TEXT NOT NULL REFERENCES cards(card_id) ON DELETE CASCADE,
  posted_at                   TEXT NOT NULL,
  amount_minor                INTEGER NOT NULL,
  source_hint                 TEXT NOT NULL DEFAULT '',
  applied_to_statement_minor  INTEGER NOT NULL DEFAULT 0,
  applied_to_unbilled_minor   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_payments_card ON payments(card_id, posted_at);

CREATE TABLE disputes (
  dispute_id                TEXT PRIMARY KEY,
  card_id                   TEXT NOT NULL REFERENCES cards(card_id) ON DELETE CASCADE,
  tx_id                     TEXT NOT NULL,
  reason                    TEXT NOT NULL DEFAULT '',
  status                    TEXT NOT NULL DEFAULT 'under_review'
                            CHECK (status IN ('under_review','approved','denied','withdrawn')),
  opened_at                 TEXT NOT NULL,
  expected_resolution_date  TEXT NOT NULL,
  resolved_at               TEXT
);
CREATE INDEX idx_disputes_card ON disputes(card_id, opened_at);
CREATE INDEX idx_disputes_tx ON disputes(tx_id);
CREATE INDEX idx_disputes_status ON disputes(status);

CREATE TABLE rewards_balances (
  card_id          TEXT PRIMARY KEY REFERENCES cards(card_id) ON DELETE CASCADE,
  points_balance   INTEGER NOT NULL DEFAULT 0,
  ytd_earned       INTEGER NOT NULL DEFAULT 0,
  lifetime_earned  INTEGER NOT NULL DEFAULT 0,
  updated_at       TEXT NOT NULL
);

CREATE TABLE rewards_ledger (
  ledger_id      TEXT PRIMARY KEY,
  card_id        TEXT NOT NULL REFERENCES cards(card_id) ON DELETE CASCADE,
  posted_at      TEXT NOT NULL,
  kind           TEXT NOT NULL CHECK (kind IN ('earn','redeem','adjust','expire')),
  delta          INTEGER NOT NULL,
  balance_after  INTEGER NOT NULL,
  note           TEXT
);
CREATE INDEX idx_ledger_card ON rewards_ledger(card_id, posted_at);

CREATE TABLE _counters (
  key    TEXT PRIMARY KEY,
  value  INTEGER NOT NULL DEFAULT 0
);
