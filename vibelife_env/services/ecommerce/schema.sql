-- ecommerce: catalog, carts, coupons, addresses, orders, refunds.
-- Table and column names follow the public ecommerce_mock spec so its seeds load.
CREATE TABLE products (
  product_id        TEXT PRIMARY KEY,
  title             TEXT NOT NULL,
  brand             TEXT NOT NULL,
  category          TEXT NOT NULL,
  description       TEXT NOT NULL DEFAULT '',
  rating            REAL NOT NULL DEFAULT 0,
  rating_count      INTEGER NOT NULL DEFAULT 0,
  sales_count       INTEGER NOT NULL DEFAULT 0,
  base_price_minor  INTEGER NOT NULL DEFAULT 0,
  return_policy     TEXT NOT NULL DEFAULT '7天无理由退货'
);
CREATE INDEX idx_products_category ON products(category);
CREATE INDEX idx_products_brand ON products(brand);

CREATE TABLE skus (
  sku_id       TEXT PRIMARY KEY,
  product_id   TEXT NOT NULL REFERENCES products(product_id) ON DELETE CASCADE,
  attrs_json   TEXT NOT NULL DEFAULT '{}',
  price_minor  INTEGER NOT NULL
);
CREATE INDEX idx_skus_product ON skus(product_id);

CREATE TABLE stocks (
  sku_id    TEXT PRIMARY KEY REFERENCES skus(sku_id) ON DELETE CASCADE,
  quantity  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE addresses (
  address_id   TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL,
  recipient    TEXT NOT NULL,
  phone        TEXT NOT NULL,
  province     TEXT NOT NULL,
  city         TEXT NOT NULL,
  district     TEXT NOT NULL,
  detail       TEXT NOT NULL,
  postal_code  TEXT NOT NULL,
  is_default   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_addresses_user ON addresses(user_id);

CREATE TABLE carts (
  user_id     TEXT PRIMARY KEY,
  updated_at  TEXT NOT NULL
);

CREATE TABLE cart_items (
  cart_item_id      TEXT PRIMARY KEY,
  user_id           TEXT NOT NULL REFERENCES carts(user_id) ON DELETE CASCADE,
  product_id        TEXT NOT NULL REFERENCES products(product_id),
  sku_id            TEXT NOT NULL REFERENCES skus(sku_id),
  qty               INTEGER NOT NULL CHECK (qty > 0),
  unit_price_minor  INTEGER NOT NULL,
  added_at          TEXT NOT NULL
);
CREATE INDEX idx_cart_items_user ON cart_items(user_id);

CREATE TABLE coupons (
  code                  TEXT PRIMARY KEY,
  kind                  TEXT NOT NULL CHECK (kind IN ('percent_off','flat_off','free_shipping')),
  value_bp_or_minor     INTEGER NOT NULL DEFAULT 0,
  min_spend_minor       INTEGER NOT NULL DEFAULT 0,
  valid_from            TEXT NOT NULL,
  valid_until           TEXT NOT NULL,
  category_restriction  TEXT,
  max_uses              INTEGER NOT NULL DEFAULT 0,
  used_count            INTEGER NOT NULL DEFAULT 0,
  active                INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE applied_coupons (
  user_id     TEXT NOT NULL REFERENCES carts(user_id) ON DELETE CASCADE,
  code        TEXT NOT NULL REFERENCES coupons(code),
  applied_at  TEXT NOT NULL,
  PRIMARY KEY (user_id, code)
);

CREATE TABLE orders (
  order_id          TEXT PRIMARY KEY,
  user_id           TEXT NOT NULL,
  address_id        TEXT NOT NULL,
  payment_method    TEXT NOT NULL,
  subtotal_minor    INTEGER NOT NULL,
  discount_minor    INTEGER NOT NULL DEFAULT 0,
  shipping_minor    INTEGER NOT NULL DEFAULT 0,
  total_minor       INTEGER NOT NULL,
  status            TEXT NOT NULL CHECK (status IN (
                      'pending_payment','paid','shipped','delivered',
                      'completed','refund_requested','refunded','cancelled')),
  placed_at         TEXT NOT NULL,
  note              TEXT,
  tracking_no       TEXT
);
CREATE INDEX idx_orders_user ON orders(user_id);
CREATE INDEX idx_orders_status ON orders(status);

CREATE TABLE order_items (
  item_id           TEXT PRIMARY KEY,
  order_id          TEXT NOT NULL REFERENCES orders(order_id) ON DELETE CASCADE,
  product_id        TEXT NOT NULL,
  sku_id            TEXT NOT NULL,
  qty               INTEGER NOT NULL CHECK (qty > 0),
  unit_price_minor  INTEGER NOT NULL,
  line_total_minor  INTEGER NOT NULL
);
CREATE INDEX idx_order_items_order ON order_items(order_id);

CREATE TABLE order_status_history (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id  TEXT NOT NULL REFERENCES orders(order_id) ON DELETE CASCADE,
  status    TEXT NOT NULL,
  set_at    TEXT NOT NULL
);
CREATE INDEX idx_order_history_order ON order_status_history(order_id);

CREATE TABLE refunds (
  refund_id            TEXT PRIMARY KEY,
  order_id             TEXT NOT NULL REFERENCES orders(order_id) ON DELETE CASCADE,
  item_id              TEXT NOT NULL REFERENCES order_items(item_id),
  qty                  INTEGER NOT NULL CHECK (qty > 0),
  reason               TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('submitted','approved','rejected','refunded')),
  opened_at            TEXT NOT NULL,
  resolved_at          TEXT,
  refund_amount_minor  INTEGER NOT NULL
);
CREATE INDEX idx_refunds_order ON refunds(order_id);

CREATE TABLE _counters (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
);

-- Fulfilment schedule of orders placed through place_order (not part of the public
-- spec): the order ships at ship_at and is delivered at deliver_at on the virtual clock.
CREATE TABLE _fulfilment (
  order_id    TEXT PRIMARY KEY REFERENCES orders(order_id) ON DELETE CASCADE,
  ship_at     TEXT NOT NULL,
  deliver_at  TEXT NOT NULL
);
