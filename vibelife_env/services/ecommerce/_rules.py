"""ecommerce business rules that several tools share: coupons, cart pricing, fulfilment.

Pure functions over rows plus a few that read the service's database; none of them
writes, so read-only tools can use them freely.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from vibelife_env.clock import parse_time
from vibelife_env.services.base import ToolError

if TYPE_CHECKING:
    from vibelife_env.services.ecommerce.service import EcommerceService

#: Flat shipping fee in fen unless a free_shipping coupon is applied.
SHIPPING_FEE_MINOR = 800
#: Refund requests are accepted up to this many calendar days after placement.
REFUND_WINDOW_DAYS = 7
#: Orders placed through place_order ship this long after payment...
SHIP_AFTER = timedelta(hours=24)
#: ...and are delivered this long after payment.
DELIVER_AFTER = timedelta(hours=72)

ORDER_STATUSES = (
    "pending_payment",
    "paid",
    "shipped",
    "delivered",
    "completed",
    "refund_requested",
    "refunded",
    "cancelled",
)
CANCELABLE_STATUSES = ("pending_payment", "paid")
REFUND_ELIGIBLE_STATUSES = ("paid", "shipped", "delivered", "completed", "refund_requested")
SORTS = ("relevance", "price_asc", "price_desc", "rating_desc", "sales_desc")
FILTER_KEYS = ("max_price_minor", "min_price_minor", "brand", "in_stock_only", "min_rating")


# ------------------------------------------------------------------ coupons
@dataclass(frozen=True)
class CouponEffect:
    """The result of evaluating one coupon against a cart."""

    kind: str
    discount_minor: int


def check_coupon_usable(coupon: dict[str, Any] | None, code: str, today: str) -> dict[str, Any]:
    """Existence, active flag, validity dates and use cap (spec order).

    Raises:
        ToolError: COUPON_INVALID or COUPON_EXPIRED.
    """
    if coupon is None:
        raise ToolError("COUPON_INVALID", f"coupon {code!r} does not exist")
    if not int(coupon["active"]):
        raise ToolError("COUPON_INVALID", f"coupon {code!r} is inactive")
    if today < str(coupon["valid_from"])[:10]:
        raise ToolError("COUPON_INVALID", f"coupon {code!r} is not active until {coupon['valid_from']}")
    if today > str(coupon["valid_until"])[:10]:
        raise ToolError("COUPON_EXPIRED", f"coupon {code!r} expired on {coupon['valid_until']}")
    max_uses = int(coupon["max_uses"])
    if max_uses > 0 and int(coupon["used_count"]) >= max_uses:
        raise ToolError("COUPON_INVALID", f"coupon {code!r} has reached its limit of {max_uses} uses")
    return coupon


def evaluate_coupon(svc: EcommerceService, code: str, lines: list[dict[str, Any]], today: str) -> CouponEffect:
    """Validate a coupon against cart lines and compute its discount.

    Raises:
        ToolError: COUPON_INVALID, COUPON_EXPIRED, COUPON_CATEGORY_MISMATCH or COUPON_BELOW_MIN.
    """
    coupon = check_coupon_usable(svc.query_one("SELECT * FROM coupons WHERE code = ?", (code,)), code, today)
    if not lines:
        raise ToolError("COUPON_INVALID", f"the cart is empty; coupon {code!r} cannot apply")
    restriction = coupon["category_restriction"]
    eligible = 0
    for line in lines:
        product = svc.query_one("SELECT category FROM products WHERE product_id = ?", (line["product_id"],))
        if product is None or (restriction and product["category"] != restriction):
            continue
        eligible += int(line["unit_price_minor"]) * int(line["qty"])
    if restriction and eligible == 0:
        raise ToolError("COUPON_CATEGORY_MISMATCH", f"coupon {code!r} needs items in category {restriction!r}")
    min_spend = int(coupon["min_spend_minor"])
    if eligible < min_spend:
        raise ToolError(
            "COUPON_BELOW_MIN", f"coupon {code!r} needs an eligible subtotal of {min_spend}, cart has {eligible}"
        )
    kind, value = coupon["kind"], int(coupon["value_bp_or_minor"])
    if kind == "percent_off":
        discount = eligible * value // 10_000
    elif kind == "flat_off":
        discount = min(value, eligible)
    else:  # free_shipping: zeroes the shipping fee at place_order
        discount = 0
    return CouponEffect(kind, discount)


# ------------------------------------------------------------------ cart view
def cart_view(svc: EcommerceService, user_id: str, *, detach_invalid: bool) -> dict[str, Any]:
    """Priced cart: lines in the order added, then coupons that still qualify.

    With ``detach_invalid`` the coupons that no longer qualify are removed from the
    cart (write tools); otherwise they are only left out of the view (read tools).
    """
    lines = svc.query("SELECT * FROM cart_items WHERE user_id = ? ORDER BY added_at, cart_item_id", (user_id,))
    items = [
        {
            "cart_item_id": r["cart_item_id"],
            "product_id": r["product_id"],
            "sku_id": r["sku_id"],
            "qty": int(r["qty"]),
            "unit_price_minor": int(r["unit_price_minor"]),
            "line_total_minor": int(r["unit_price_minor"]) * int(r["qty"]),
        }
        for r in lines
    ]
    subtotal = sum(i["line_total_minor"] for i in items)
    today = svc.today()
    applied: list[dict[str, Any]] = []
    for row in svc.query("SELECT code FROM applied_coupons WHERE user_id = ? ORDER BY applied_at, rowid", (user_id,)):
        try:
            effect = evaluate_coupon(svc, row["code"], lines, today)
        except ToolError:
            if detach_invalid:
                svc.execute("DELETE FROM applied_coupons WHERE user_id = ? AND code = ?", (user_id, row["code"]))
            continue
        applied.append({"code": row["code"], "kind": effect.kind, "discount_minor": effect.discount_minor})
    discount = sum(c["discount_minor"] for c in applied)
    return {
        "user_id": user_id,
        "items": items,
        "subtotal_minor": subtotal,
        "applied_coupons": applied,
        "discount_minor": discount,
        "total_minor": max(0, subtotal - discount),
    }


# ------------------------------------------------------------------ fulfilment
def timeline(svc: EcommerceService, order: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The order's effective status and the transitions due but not yet stored.

    Orders placed through ``place_order`` ship and are delivered on a schedule kept in
    ``_fulfilment``; a transition is due once the virtual clock passes its time and the
    stored status is still the one it starts from (a cancel, refund or timeline
    mutation stops the schedule).
    """
    status = order["status"]
    plan = svc.query_one("SELECT * FROM _fulfilment WHERE order_id = ?", (order["order_id"],))
    if plan is None:
        return status, []
    now = svc.now()
    pending: list[dict[str, Any]] = []
    for start, target, when in (("paid", "shipped", plan["ship_at"]), ("shipped", "delivered", plan["deliver_at"])):
        if status == start and parse_time(when) <= now:
            status = target
            pending.append({"status": target, "set_at": when})
    return status, pending


def local_date(value: str, ref: datetime) -> str:
    """The calendar date of an ISO timestamp in the zone of ``ref``."""
    try:
        return parse_time(value, ref.tzinfo).astimezone(ref.tzinfo).date().isoformat()
    except ValueError:
        return str(value)[:10]


def sort_key_time(value: str, ref: datetime) -> float:
    """A sortable number for an ISO timestamp (unparseable values sort first)."""
    try:
        return parse_time(value, ref.tzinfo).timestamp()
    except ValueError:
        return float("-inf")
