-- visa_and_advisory: entry rules, visa products, applications and documents, advisories.
-- Table and column names follow the public visa_and_advisory_mock schema so its seeds load.
CREATE TABLE entry_requirements (
  origin_nationality       TEXT NOT NULL,
  destination              TEXT NOT NULL,
  purpose                  TEXT NOT NULL,
  visa_required            INTEGER NOT NULL,
  allowed_stay_days        INTEGER,
  passport_validity_months INTEGER NOT NULL DEFAULT 6,
  docs_needed_json         TEXT NOT NULL DEFAULT '[]',
  notes                    TEXT NOT NULL DEFAULT '',
  updated_at               TEXT NOT NULL,
  PRIMARY KEY (origin_nationality, destination, purpose)
);

CREATE TABLE visa_products (
  product_id           TEXT PRIMARY KEY,
  destination          TEXT NOT NULL,
  nationality          TEXT NOT NULL,
  name                 TEXT NOT NULL,
  processing_time_days INTEGER NOT NULL,
  fee_amount           INTEGER NOT NULL,
  fee_currency         TEXT NOT NULL,
  delivery             TEXT NOT NULL,
  form_schema_json     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX idx_visa_products_dest_nat ON visa_products(destination, nationality);

CREATE TABLE visa_applications (
  application_id TEXT PRIMARY KEY,
  user_id        TEXT NOT NULL,
  product_id     TEXT NOT NULL REFERENCES visa_products(product_id),
  status         TEXT NOT NULL,
  applicant_json TEXT NOT NULL DEFAULT '{}',
  answers_json   TEXT NOT NULL DEFAULT '{}',
  decision_day   INTEGER,
  decision_note  TEXT,
  evisa_doc_ref  TEXT,
  history_json   TEXT NOT NULL DEFAULT '[]',
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
CREATE INDEX idx_visa_applications_user ON visa_applications(user_id);
CREATE INDEX idx_visa_applications_status_day ON visa_applications(status, decision_day);

CREATE TABLE application_documents (
  doc_id         TEXT PRIMARY KEY,
  application_id TEXT NOT NULL REFERENCES visa_applications(application_id),
  kind           TEXT NOT NULL,
  ref            TEXT NOT NULL,
  uploaded_at    TEXT NOT NULL
);
CREATE INDEX idx_application_documents_app_kind ON application_documents(application_id, kind);

CREATE TABLE advisories (
  country_code TEXT PRIMARY KEY,
  level        INTEGER NOT NULL,
  text         TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);

CREATE TABLE advisory_subscriptions (
  sub_id       TEXT PRIMARY KEY,
  country_code TEXT NOT NULL,
  sink         TEXT NOT NULL,
  created_at   TEXT NOT NULL
);
CREATE INDEX idx_advisory_subscriptions_country ON advisory_subscriptions(country_code);

CREATE TABLE notifications (
  id           TEXT PRIMARY KEY,
  created_at   TEXT NOT NULL,
  channel      TEXT NOT NULL,
  payload_json TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE _counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
