"""ecommerce: a shopping platform with catalog, cart, coupons, addresses, orders and refunds.

Tool surface: the public ``ecommerce_mock`` spec (16 tools). Money is integer fen
(1 RMB = 100), dates are ``YYYY-MM-DD`` on the virtual clock, ids come from
``_counters`` (``ci_%08d``, ``addr_%06d``, ``ord_<date>_%06d``, ``rf_<date>_%06d``).

Semantics:
  * ``place_order`` turns the cart into a ``paid`` order: it checks and decrements
    stock, bumps ``sales_count`` and coupon ``used_count``, charges ¥8 shipping unless a
    free_shipping coupon is applied, and empties the cart.
  * Orders placed here then ship 24 h and are delivered 72 h after payment on the
    virtual clock (kept in ``_fulfilment``; seeded orders move only by timeline
    mutations). Read tools show due transitions; write tools store them first.
  * ``cancel_order`` is allowed while ``pending_payment``/``paid`` and restocks.
  * ``request_refund`` needs an eligible status and at most 7 calendar days since
    ``placed_at``; the order becomes ``refund_requested``.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG``.

Where the release is lenient: ``search_products`` with an unknown ``filters`` key (say
``color``) returns ``BAD_ARG`` naming the supported keys; the release ignores the key and
returns unfiltered results an agent would take as filtered.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import contains_pattern
from vibelife_env.services.ecommerce import _rules as rules
from vibelife_env.services.ecommerce._rules import (
    CANCELABLE_STATUSES,
    DELIVER_AFTER,
    FILTER_KEYS,
    ORDER_STATUSES,
    REFUND_ELIGIBLE_STATUSES,
    REFUND_WINDOW_DAYS,
    SHIP_AFTER,
    SHIPPING_FEE_MINOR,
    SORTS,
)


class EcommerceService(Service):
    """Product search, cart and coupons, checkout, order tracking, cancellation and refunds."""

    name = "ecommerce"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------------ catalog
    @tool(read_only=True)
    def search_products(
        self,
        query: str,
        category: str | None = None,
        filters: dict[str, Any] | None = None,
        sort: str | None = None,
        limit: int = 20,
    ) -> list[dict[str, Any]]:
        """Search products by keyword, category and filters; prices are in fen (1 RMB = 100).

        Products without any SKU are never returned. ``relevance`` ranks in-stock products
        first, then by sales.

        Args:
            query: Case-insensitive substring matched against title, brand and description; empty matches all.
            category: Exact category label, e.g. "家电" (appliances), "母婴" (mother & baby), "服装", "食品", "礼品".
            filters: Optional object with max_price_minor, min_price_minor (bounds on SKU prices), brand (exact), in_stock_only (bool), min_rating (float).
            sort: One of relevance (default), price_asc, price_desc, rating_desc, sales_desc.
            limit: Maximum results, 1 to 100 (default 20).
        """
        filters = filters or {}
        unknown = sorted(set(filters) - set(FILTER_KEYS))
        if unknown:
            raise ToolError("BAD_ARG", f"unknown filter {unknown[0]!r}; supported: {', '.join(FILTER_KEYS)}")
        sort_key = sort or "relevance"
        if sort_key not in SORTS:
            raise ToolError("BAD_ARG", f"sort must be one of {', '.join(SORTS)}, got {sort_key!r}")
        limit = max(1, min(limit, 100))
        max_p, min_p = _num(filters, "max_price_minor"), _num(filters, "min_price_minor")
        min_rating = _num(filters, "min_rating")

        sql = "SELECT * FROM products WHERE 1 = 1"
        params: list[Any] = []
        if query.strip():
            like = contains_pattern("query", query.strip())
            sql += " AND (title LIKE ? ESCAPE '\\' OR brand LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\')"
            params += [like, like, like]
        if category:
            sql += " AND category = ?"
            params.append(category)
        if filters.get("brand"):
            sql += " AND brand = ?"
            params.append(filters["brand"])
        if min_rating is not None:
            sql += " AND rating >= ?"
            params.append(min_rating)
        results = []
        for p in self.query(sql + " ORDER BY product_id", params):
            skus = self._sku_rows(p["product_id"])
            if not skus:
                continue
            lo = min(s["price_minor"] for s in skus)
            hi = max(s["price_minor"] for s in skus)
            in_stock = sum(s["stock"] for s in skus) > 0
            if (max_p is not None and lo > max_p) or (min_p is not None and hi < min_p):
                continue
            if filters.get("in_stock_only") and not in_stock:
                continue
            results.append(
                {
                    "product_id": p["product_id"],
                    "title": p["title"],
                    "brand": p["brand"],
                    "category": p["category"],
                    "price_minor": int(p["base_price_minor"]),
                    "min_sku_price_minor": lo,
                    "max_sku_price_minor": hi,
                    "rating": float(p["rating"]),
                    "sales_count": int(p["sales_count"]),
                    "in_stock": in_stock,
                    "thumbnail_url": f"https://mock.ecommerce.local/img/{p['product_id']}/main.jpg",
                }
            )
        orderings = {
            "price_asc": lambda r: r["min_sku_price_minor"],
            "price_desc": lambda r: -r["max_sku_price_minor"],
            "rating_desc": lambda r: (-r["rating"], -r["sales_count"]),
            "sales_desc": lambda r: -r["sales_count"],
            "relevance": lambda r: (not r["in_stock"], -r["sales_count"]),
        }
        results.sort(key=orderings[sort_key])
        return results[:limit]

    @tool(read_only=True)
    def get_product(self, product_id: str) -> dict[str, Any]:
        """Full product detail: SKUs with attributes, price (fen) and stock, rating and return policy.

        Args:
            product_id: The product id from search_products.
        """
        p = self._product_row(product_id)
        skus = [
            {
                "sku_id": s["sku_id"],
                "attrs": _attrs(s["attrs_json"]),
                "price_minor": s["price_minor"],
                "stock": s["stock"],
            }
            for s in self._sku_rows(product_id)
        ]
        return {
            "product_id": p["product_id"],
            "title": p["title"],
            "brand": p["brand"],
            "category": p["category"],
            "description": p["description"],
            "rating": float(p["rating"]),
            "rating_count": int(p["rating_count"]),
            "sales_count": int(p["sales_count"]),
            "skus": skus,
            "reviews_summary": {"average_rating": float(p["rating"]), "count": int(p["rating_count"])},
            "return_policy": p["return_policy"],
        }

    # --------------------------------------------------------------------- cart
    @tool(read_only=True)
    def get_cart(self, user_id: str) -> dict[str, Any]:
        """The user's cart: lines, subtotal, applied coupons, discount and total (all fen).

        Args:
            user_id: The shopper.
        """
        return rules.cart_view(self, user_id, detach_invalid=False)

    @tool
    def add_to_cart(self, user_id: str, product_id: str, sku_id: str, qty: int) -> dict[str, Any]:
        """Add units of a SKU to the cart (a SKU already in the cart gets its quantity increased).

        Fails with OUT_OF_STOCK when the cart would hold more than the stock. Returns the cart.

        Args:
            user_id: The shopper.
            product_id: The product the SKU belongs to.
            sku_id: The SKU (variant) to add, from get_product.
            qty: Units to add, at least 1.
        """
        if qty <= 0:
            raise ToolError("BAD_ARG", f"qty must be positive, got {qty}")
        sku = self.query_one(
            "SELECT s.*, COALESCE(st.quantity, 0) AS stock FROM skus s LEFT JOIN stocks st ON st.sku_id = s.sku_id "
            "WHERE s.sku_id = ?",
            (sku_id,),
        )
        if sku is None:
            raise ToolError("SKU_NOT_FOUND", f"no sku {sku_id!r}")
        if sku["product_id"] != product_id:
            raise ToolError("PRODUCT_NOT_FOUND", f"sku {sku_id!r} does not belong to product {product_id!r}")
        existing = self.query_one(
            "SELECT cart_item_id, qty FROM cart_items WHERE user_id = ? AND sku_id = ?", (user_id, sku_id)
        )
        wanted = qty + (int(existing["qty"]) if existing else 0)
        if wanted > int(sku["stock"]):
            raise ToolError(
                "OUT_OF_STOCK", f"sku {sku_id!r} has only {sku['stock']} in stock, cart would hold {wanted}"
            )
        self._touch_cart(user_id)
        if existing:
            self.execute(
                "UPDATE cart_items SET qty = ?, unit_price_minor = ? WHERE cart_item_id = ?",
                (wanted, sku["price_minor"], existing["cart_item_id"]),
            )
        else:
            item_id = self.mint_id("ci_{:08d}", "cart_item_seq", "cart_items", "cart_item_id")
            self.execute(
                "INSERT INTO cart_items VALUES (?, ?, ?, ?, ?, ?, ?)",
                (item_id, user_id, product_id, sku_id, qty, sku["price_minor"], self.now_iso()),
            )
        return rules.cart_view(self, user_id, detach_invalid=True)

    @tool
    def update_cart_item(self, user_id: str, cart_item_id: str, qty: int) -> dict[str, Any]:
        """Set the quantity of a cart line; qty 0 removes the line. Returns the cart.

        Args:
            user_id: The shopper.
            cart_item_id: The cart line, e.g. ``ci_00000001``.
            qty: New quantity (0 removes the line).
        """
        if qty < 0:
            raise ToolError("BAD_ARG", f"qty must be 0 or more, got {qty}")
        line = self._cart_line(user_id, cart_item_id)
        if qty == 0:
            self.execute("DELETE FROM cart_items WHERE cart_item_id = ?", (cart_item_id,))
        else:
            stock = self._stock(line["sku_id"])
            if qty > stock:
                raise ToolError("OUT_OF_STOCK", f"sku {line['sku_id']!r} has only {stock} in stock, asked for {qty}")
            self.execute("UPDATE cart_items SET qty = ? WHERE cart_item_id = ?", (qty, cart_item_id))
        self._touch_cart(user_id)
        return rules.cart_view(self, user_id, detach_invalid=True)

    @tool
    def remove_from_cart(self, user_id: str, cart_item_id: str) -> dict[str, Any]:
        """Remove a line from the cart. Returns the cart.

        Args:
            user_id: The shopper.
            cart_item_id: The cart line to remove.
        """
        self._cart_line(user_id, cart_item_id)
        self.execute("DELETE FROM cart_items WHERE cart_item_id = ?", (cart_item_id,))
        self._touch_cart(user_id)
        return rules.cart_view(self, user_id, detach_invalid=True)

    # ------------------------------------------------------------------ coupons
    @tool
    def apply_coupon(self, user_id: str, code: str) -> dict[str, Any]:
        """Apply a coupon code to the cart and return the repriced cart.

        percent_off takes value/10000 of the eligible subtotal, flat_off a fixed amount,
        free_shipping waives the ¥8 shipping fee at checkout. Coupons that stop qualifying
        after a cart change are detached automatically.

        Args:
            user_id: The shopper.
            code: The coupon code.
        """
        code = code.strip()
        if not code:
            raise ToolError("COUPON_INVALID", "coupon code is empty")
        lines = self.query("SELECT * FROM cart_items WHERE user_id = ?", (user_id,))
        rules.evaluate_coupon(self, code, lines, self.today())
        self._touch_cart(user_id)
        self.execute(
            "INSERT OR IGNORE INTO applied_coupons (user_id, code, applied_at) VALUES (?, ?, ?)",
            (user_id, code, self.now_iso()),
        )
        return rules.cart_view(self, user_id, detach_invalid=True)

    @tool
    def remove_coupon(self, user_id: str, code: str) -> dict[str, Any]:
        """Detach an applied coupon and return the repriced cart.

        Args:
            user_id: The shopper.
            code: The applied coupon code.
        """
        cur = self.execute("DELETE FROM applied_coupons WHERE user_id = ? AND code = ?", (user_id, code))
        if cur.rowcount == 0:
            raise ToolError("COUPON_NOT_APPLIED", f"coupon {code!r} is not applied to {user_id}'s cart")
        return rules.cart_view(self, user_id, detach_invalid=True)

    # ---------------------------------------------------------------- addresses
    @tool(read_only=True)
    def list_addresses(self, user_id: str) -> list[dict[str, Any]]:
        """List the user's shipping addresses, default first.

        Args:
            user_id: The shopper.
        """
        rows = self.query("SELECT * FROM addresses WHERE user_id = ? ORDER BY is_default DESC, address_id", (user_id,))
        return [_address(r) for r in rows]

    @tool
    def add_address(
        self,
        user_id: str,
        recipient: str,
        phone: str,
        province: str,
        city: str,
        district: str,
        detail: str,
        postal_code: str,
        is_default: bool = False,
    ) -> dict[str, Any]:
        """Add a shipping address; with is_default the user's other addresses stop being default.

        Args:
            user_id: The shopper.
            recipient: Recipient name.
            phone: Recipient phone number.
            province: Province.
            city: City.
            district: District.
            detail: Street and building detail.
            postal_code: Postal code.
            is_default: Make this the default address.
        """
        fields = {
            "recipient": recipient,
            "phone": phone,
            "province": province,
            "city": city,
            "district": district,
            "detail": detail,
            "postal_code": postal_code,
        }
        for key, value in fields.items():
            if not value.strip():
                raise ToolError("BAD_ARG", f"address field {key!r} must not be empty")
        address_id = self.mint_id("addr_{:06d}", "address_seq", "addresses", "address_id")
        if is_default:
            self.execute("UPDATE addresses SET is_default = 0 WHERE user_id = ?", (user_id,))
        self.insert_rows(
            "addresses", [{"address_id": address_id, "user_id": user_id, **fields, "is_default": is_default}]
        )
        return _address(self.query_one("SELECT * FROM addresses WHERE address_id = ?", (address_id,)) or {})

    # ------------------------------------------------------------------- orders
    @tool
    def place_order(
        self, user_id: str, address_id: str, payment_method: str, note: str | None = None
    ) -> dict[str, Any]:
        """Check out the whole cart as a paid order.

        Decrements stock, applies the cart's coupons (consuming one use each), adds ¥8
        shipping (800 fen) unless a free_shipping coupon is applied, and empties the cart.
        The order then ships about 24 h after payment and is delivered about 72 h after payment.

        Args:
            user_id: The shopper.
            address_id: One of the user's addresses (list_addresses).
            payment_method: How the order is paid, e.g. alipay, wechat_pay, credit_card.
            note: Optional note to the seller.
        """
        if not payment_method.strip():
            raise ToolError("BAD_ARG", "payment_method must not be empty")
        self.require(
            "SELECT 1 FROM addresses WHERE address_id = ? AND user_id = ?",
            (address_id, user_id),
            "ADDRESS_NOT_FOUND",
            f"no address {address_id!r} for user {user_id!r}",
        )
        lines = self.query("SELECT * FROM cart_items WHERE user_id = ? ORDER BY added_at, cart_item_id", (user_id,))
        if not lines:
            raise ToolError("CART_EMPTY", f"{user_id}'s cart is empty")
        for line in lines:
            stock = self._stock(line["sku_id"])
            if stock < int(line["qty"]):
                raise ToolError(
                    "OUT_OF_STOCK", f"sku {line['sku_id']!r} has only {stock} in stock, cart wants {line['qty']}"
                )
        cart = rules.cart_view(self, user_id, detach_invalid=True)
        free_ship = any(c["kind"] == "free_shipping" for c in cart["applied_coupons"])
        shipping = 0 if free_ship else SHIPPING_FEE_MINOR
        total = cart["total_minor"] + shipping
        now, now_iso = self.now(), self.now_iso()
        order_id = self.mint_id(f"ord_{now:%Y%m%d}_{{:06d}}", "order_seq", "orders", "order_id")
        digits = "".join(c for c in order_id if c.isdigit())[-12:].rjust(12, "0")
        self.execute(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'paid', ?, ?, ?)",
            (order_id, user_id, address_id, payment_method, cart["subtotal_minor"], cart["discount_minor"],
             shipping, total, now_iso, note, f"SF{digits}"),
        )  # fmt: skip
        for status in ("pending_payment", "paid"):
            self.execute("INSERT INTO order_status_history (order_id, status, set_at) VALUES (?, ?, ?)",
                         (order_id, status, now_iso))  # fmt: skip
        self.execute(
            "INSERT INTO _fulfilment VALUES (?, ?, ?)",
            (order_id, (now + SHIP_AFTER).isoformat(timespec="seconds"),
             (now + DELIVER_AFTER).isoformat(timespec="seconds")),
        )  # fmt: skip
        for idx, line in enumerate(lines, start=1):
            qty, unit = int(line["qty"]), int(line["unit_price_minor"])
            self.execute(
                "INSERT INTO order_items VALUES (?, ?, ?, ?, ?, ?, ?)",
                (f"oit_{order_id[4:]}_{idx:02d}", order_id, line["product_id"], line["sku_id"], qty, unit, qty * unit),
            )
            self.execute("UPDATE stocks SET quantity = quantity - ? WHERE sku_id = ?", (qty, line["sku_id"]))
            self.execute("UPDATE products SET sales_count = sales_count + ? WHERE product_id = ?",
                         (qty, line["product_id"]))  # fmt: skip
        for coupon in cart["applied_coupons"]:
            self.execute("UPDATE coupons SET used_count = used_count + 1 WHERE code = ?", (coupon["code"],))
        self.execute("DELETE FROM applied_coupons WHERE user_id = ?", (user_id,))
        self.execute("DELETE FROM cart_items WHERE user_id = ?", (user_id,))
        self._touch_cart(user_id)
        return {"order_id": order_id, "total_minor": total, "item_count": sum(int(x["qty"]) for x in lines),
                "status": "paid"}  # fmt: skip

    @tool(read_only=True)
    def list_orders(self, user_id: str, status_filter: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """List the user's orders (headers only), newest first.

        Args:
            user_id: The shopper.
            status_filter: Only this status: pending_payment, paid, shipped, delivered, completed, refund_requested, refunded or cancelled.
            limit: Maximum orders, 1 to 100 (default 20).
        """
        if status_filter and status_filter not in ORDER_STATUSES:
            raise ToolError(
                "BAD_ARG", f"status_filter must be one of {', '.join(ORDER_STATUSES)}, got {status_filter!r}"
            )
        now = self.now()
        headers = [self._header(r) for r in self.query("SELECT * FROM orders WHERE user_id = ?", (user_id,))]
        if status_filter:
            headers = [h for h in headers if h["status"] == status_filter]
        headers.sort(key=lambda h: h["order_id"], reverse=True)
        headers.sort(key=lambda h: rules.sort_key_time(h["placed_at"], now), reverse=True)
        return headers[: max(1, min(limit, 100))]

    @tool(read_only=True)
    def get_order(self, order_id: str) -> dict[str, Any]:
        """Full order: header, items, status history (oldest first) and refunds.

        Args:
            order_id: The order id.
        """
        row = self._order_row(order_id)
        _, pending = rules.timeline(self, row)
        items = self.query("SELECT * FROM order_items WHERE order_id = ? ORDER BY item_id", (order_id,))
        history = self.query(
            "SELECT status, set_at FROM order_status_history WHERE order_id = ? ORDER BY id", (order_id,)
        )
        refunds = self.query("SELECT * FROM refunds WHERE order_id = ? ORDER BY opened_at, refund_id", (order_id,))
        return {
            **self._header(row),
            "items": [
                {k: i[k] for k in ("item_id", "product_id", "sku_id", "qty", "unit_price_minor", "line_total_minor")}
                for i in items
            ],
            "status_history": history + pending,
            "refunds": [
                {k: r[k] for k in ("refund_id", "item_id", "qty", "status", "refund_amount_minor")} for r in refunds
            ],
        }

    @tool
    def cancel_order(self, order_id: str, reason: str) -> dict[str, Any]:
        """Cancel an order that has not shipped (status pending_payment or paid); stock is released.

        Args:
            order_id: The order to cancel.
            reason: Why the order is cancelled.
        """
        if not reason.strip():
            raise ToolError("BAD_ARG", "reason must not be empty")
        row = self._settle(order_id)
        if row["status"] not in CANCELABLE_STATUSES:
            raise ToolError(
                "ORDER_NOT_CANCELABLE", f"order {order_id!r} is {row['status']} and can no longer be cancelled"
            )
        now = self.now_iso()
        self._set_status(order_id, "cancelled", now)
        if row["status"] == "paid":
            for item in self.query("SELECT sku_id, qty FROM order_items WHERE order_id = ?", (order_id,)):
                self.execute(
                    "UPDATE stocks SET quantity = quantity + ? WHERE sku_id = ?", (item["qty"], item["sku_id"])
                )
        return {"order_id": order_id, "status": "cancelled", "reason": reason, "cancelled_at": now}

    @tool(read_only=True)
    def track_order(self, order_id: str) -> dict[str, Any]:
        """Lightweight tracking: courier tracking number, latest status and when it was set.

        The courier's full event timeline is in the delivery_logistics service.

        Args:
            order_id: The order to track.
        """
        row = self._order_row(order_id)
        status, pending = rules.timeline(self, row)
        history = (
            self.query("SELECT status, set_at FROM order_status_history WHERE order_id = ? ORDER BY id", (order_id,))
            + pending
        )
        matching = [h for h in history if h["status"] == status]
        latest = (matching or history or [{"set_at": None}])[-1]
        return {"order_id": order_id, "tracking_no": row["tracking_no"], "latest_status": status,
                "updated_at": latest["set_at"]}  # fmt: skip

    # ------------------------------------------------------------------ refunds
    @tool
    def request_refund(self, order_id: str, item_id: str, qty: int, reason: str) -> dict[str, Any]:
        """Open a refund for some units of one order item; the order becomes refund_requested.

        Allowed while the order is paid, shipped, delivered, completed or refund_requested and
        no more than 7 calendar days after it was placed. The refund starts as ``submitted``;
        the amount is unit price × qty in fen.

        Args:
            order_id: The order.
            item_id: The order item (from get_order items).
            qty: Units to refund, at most the units bought.
            reason: Why the refund is requested.
        """
        if qty <= 0:
            raise ToolError("BAD_ARG", f"qty must be positive, got {qty}")
        if not reason.strip():
            raise ToolError("BAD_ARG", "reason must not be empty")
        order = self._settle(order_id)
        if order["status"] not in REFUND_ELIGIBLE_STATUSES:
            raise ToolError("REFUND_WINDOW_CLOSED", f"order {order_id!r} is {order['status']} and not refund-eligible")
        item = self.require(
            "SELECT * FROM order_items WHERE item_id = ? AND order_id = ?",
            (item_id, order_id),
            "ORDER_ITEM_NOT_FOUND",
            f"no item {item_id!r} on order {order_id!r}",
        )
        if qty > int(item["qty"]):
            raise ToolError("BAD_ARG", f"refund qty {qty} exceeds the {item['qty']} bought")
        now = self.now()
        placed = rules.local_date(order["placed_at"], now)
        if _days_between(placed, now.date()) > REFUND_WINDOW_DAYS:
            raise ToolError(
                "REFUND_WINDOW_CLOSED", f"order {order_id!r} was placed on {placed}, over {REFUND_WINDOW_DAYS} days ago"
            )
        amount = int(item["unit_price_minor"]) * qty
        refund_id = self.mint_id(f"rf_{now:%Y%m%d}_{{:06d}}", "refund_seq", "refunds", "refund_id")
        now_iso = self.now_iso()
        self.execute(
            "INSERT INTO refunds (refund_id, order_id, item_id, qty, reason, status, opened_at, refund_amount_minor) "
            "VALUES (?, ?, ?, ?, ?, 'submitted', ?, ?)",
            (refund_id, order_id, item_id, qty, reason, now_iso, amount),
        )
        if order["status"] != "refund_requested":
            self._set_status(order_id, "refund_requested", now_iso)
        return {"refund_id": refund_id, "order_id": order_id, "item_id": item_id, "qty": qty, "status": "submitted",
                "refund_amount_minor": amount, "opened_at": now_iso}  # fmt: skip

    # ------------------------------------------------------------------ helpers
    def today(self) -> str:
        """The virtual clock's local date."""
        return self.now().date().isoformat()

    def _touch_cart(self, user_id: str) -> None:
        self.execute(
            "INSERT INTO carts (user_id, updated_at) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET updated_at = excluded.updated_at",
            (user_id, self.now_iso()),
        )

    def _product_row(self, product_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM products WHERE product_id = ?",
            (product_id,),
            "PRODUCT_NOT_FOUND",
            f"no product {product_id!r}",
        )

    def _sku_rows(self, product_id: str) -> list[dict[str, Any]]:
        return self.query(
            "SELECT s.sku_id, s.attrs_json, s.price_minor, COALESCE(st.quantity, 0) AS stock FROM skus s "
            "LEFT JOIN stocks st ON st.sku_id = s.sku_id WHERE s.product_id = ? ORDER BY s.sku_id",
            (product_id,),
        )

    def _stock(self, sku_id: str) -> int:
        row = self.query_one("SELECT quantity FROM stocks WHERE sku_id = ?", (sku_id,))
        return int(row["quantity"]) if row else 0

    def _cart_line(self, user_id: str, cart_item_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM cart_items WHERE cart_item_id = ? AND user_id = ?",
            (cart_item_id, user_id),
            "CART_ITEM_NOT_FOUND",
            f"no cart item {cart_item_id!r} in {user_id}'s cart",
        )

    def _order_row(self, order_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM orders WHERE order_id = ?", (order_id,), "ORDER_NOT_FOUND", f"no order {order_id!r}"
        )

    def _header(self, row: dict[str, Any]) -> dict[str, Any]:
        status, _ = rules.timeline(self, row)
        return {**row, "status": status}

    def _set_status(self, order_id: str, status: str, at: str) -> None:
        self.execute("UPDATE orders SET status = ? WHERE order_id = ?", (status, order_id))
        self.execute(
            "INSERT INTO order_status_history (order_id, status, set_at) VALUES (?, ?, ?)", (order_id, status, at)
        )

    def _settle(self, order_id: str) -> dict[str, Any]:
        """Store the fulfilment transitions that are due, then return the order row."""
        row = self._order_row(order_id)
        _, pending = rules.timeline(self, row)
        for step in pending:
            self._set_status(order_id, step["status"], step["set_at"])
        return self._order_row(order_id)


def _num(filters: dict[str, Any], key: str) -> float | None:
    value = filters.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ToolError("BAD_ARG", f"filter {key!r} must be a number, got {value!r}")
    return value


def _attrs(raw: Any) -> Any:
    try:
        return json.loads(raw) if raw else {}
    except (TypeError, json.JSONDecodeError):
        return {}


def _days_between(iso_day: str, today: date) -> int:
    """Calendar days from ``iso_day`` to ``today`` (0 when the day is unreadable)."""
    try:
        return (today - date.fromisoformat(iso_day)).days
    except ValueError:
        return 0


def _address(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "is_default": bool(row.get("is_default"))}
