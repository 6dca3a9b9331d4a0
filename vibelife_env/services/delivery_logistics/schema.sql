-- delivery_logistics: shipments, scan events, pickups, issue tickets, status subscriptions.
-- Table and column names follow the public delivery_logistics_mock spec so its seeds load.
CREATE TABLE shipments (
  shipment_id           TEXT PRIMARY KEY,
  user_id               TEXT NOT NULL,
  tracking_no           TEXT NOT NULL UNIQUE,
  carrier               TEXT NOT NULL,
  service_level         TEXT NOT NULL,
  status                TEXT NOT NULL CHECK (status IN (
    'label_created','picked_up','in_transit','out_for_delivery',
    'delivered','exception','returned','cancelled'
  )),
  sender_json           TEXT NOT NULL,
  recipient_json        TEXT NOT NULL,
  weight_kg             REAL NOT NULL,
  dimensions_json       TEXT NOT NULL DEFAULT '{}',
  declared_value_minor  INTEGER NOT NULL DEFAULT 0,
  fee_minor             INTEGER NOT NULL,
  created_at            TEXT NOT NULL,
  eta_date              TEXT NOT NULL,
  scheduled_pickup_at   TEXT,
  updated_at            TEXT NOT NULL,
  cancel_reason         TEXT
);
CREATE INDEX idx_shipments_user ON shipments(user_id);
CREATE INDEX idx_shipments_status ON shipments(status);
CREATE INDEX idx_shipments_eta ON shipments(eta_date);

CREATE TABLE shipment_events (
  event_id     TEXT PRIMARY KEY,
  shipment_id  TEXT NOT NULL REFERENCES shipments(shipment_id) ON DELETE CASCADE,
  at           TEXT NOT NULL,
  location     TEXT NOT NULL,
  status_code  TEXT NOT NULL,
  description  TEXT NOT NULL
);
CREATE INDEX idx_events_ship_at ON shipment_events(shipment_id, at);

CREATE TABLE pickups (
  pickup_id     TEXT PRIMARY KEY,
  shipment_id   TEXT NOT NULL REFERENCES shipments(shipment_id) ON DELETE CASCADE,
  scheduled_at  TEXT NOT NULL,
  completed_at  TEXT,
  status        TEXT NOT NULL CHECK (status IN ('pending','completed','cancelled'))
);
CREATE INDEX idx_pickups_ship ON pickups(shipment_id);

CREATE TABLE issue_tickets (
  ticket_id               TEXT PRIMARY KEY,
  shipment_id             TEXT NOT NULL REFERENCES shipments(shipment_id) ON DELETE CASCADE,
  issue_type              TEXT NOT NULL CHECK (issue_type IN (
    'lost','damaged','wrong_address','missing_item','delivery_failed'
  )),
  description             TEXT NOT NULL,
  status                  TEXT NOT NULL CHECK (status IN ('open','in_review','resolved','closed')),
  opened_at               TEXT NOT NULL,
  expected_response_date  TEXT NOT NULL,
  resolved_at             TEXT
);
CREATE INDEX idx_tickets_ship ON issue_tickets(shipment_id);

CREATE TABLE status_subscriptions (
  subscription_id  TEXT PRIMARY KEY,
  shipment_id      TEXT NOT NULL REFERENCES shipments(shipment_id) ON DELETE CASCADE,
  channel          TEXT NOT NULL CHECK (channel IN ('email','sms','webhook')),
  target           TEXT NOT NULL,
  active           INTEGER NOT NULL DEFAULT 1,
  created_at       TEXT NOT NULL
);
CREATE INDEX idx_subs_ship ON status_subscriptions(shipment_id);
CREATE INDEX idx_subs_active ON status_subscriptions(active);

CREATE TABLE notifications_outbox (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  subscription_id  TEXT NOT NULL REFERENCES status_subscriptions(subscription_id) ON DELETE CASCADE,
  payload_json     TEXT NOT NULL,
  queued_at        TEXT NOT NULL,
  sent_at          TEXT
);
CREATE INDEX idx_outbox_sub ON notifications_outbox(subscription_id);

CREATE TABLE address_book (
  address_id   TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL,
  label        TEXT NOT NULL,
  recipient    TEXT NOT NULL,
  phone        TEXT NOT NULL,
  province     TEXT NOT NULL,
  city         TEXT NOT NULL,
  district     TEXT NOT NULL,
  detail       TEXT NOT NULL,
  postal_code  TEXT,
  is_default   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_address_user ON address_book(user_id);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);

-- Courier schedule of shipments created through request_pickup (not part of the
-- public spec): pickup time and delivery window; scans follow the virtual clock.
CREATE TABLE _courier_plan (
  shipment_id  TEXT PRIMARY KEY REFERENCES shipments(shipment_id) ON DELETE CASCADE,
  pickup_at    TEXT NOT NULL,
  time_window  TEXT NOT NULL DEFAULT 'anytime'
);
