"""ecommerce through its tools: catalog, cart and coupons, checkout, fulfilment, refunds."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from tests.conftest import SHANGHAI, table_dump

SEED = """
INSERT INTO products VALUES ('p_kettle', 'SteamCo Kettle', 'SteamCo', 'appliance', 'electric kettle 1.7L', 4.6, 120, 900, 19900, '7-day returns');
INSERT INTO products VALUES ('p_tea', 'Leaf Green Tea', 'Leaf', 'food', 'loose tea 250g', 4.8, 40, 300, 5900, '7-day returns');
INSERT INTO products VALUES ('p_gone', 'SteamCo Mini', 'SteamCo', 'appliance', 'mini kettle', 4.0, 10, 50, 9900, '7-day returns');
INSERT INTO skus VALUES ('s_kettle_w', 'p_kettle', '{"color": "white"}', 19900);
INSERT INTO skus VALUES ('s_kettle_b', 'p_kettle', '{"color": "black"}', 21900);
INSERT INTO skus VALUES ('s_tea', 'p_tea', '{}', 5900);
INSERT INTO skus VALUES ('s_gone', 'p_gone', '{}', 9900);
INSERT INTO stocks VALUES ('s_kettle_w', 5), ('s_kettle_b', 1), ('s_tea', 10), ('s_gone', 0);
INSERT INTO addresses VALUES ('addr_u1', 'u1', 'Li Lei', '139', 'Jiangsu', 'Nanjing', 'Jianye', 'Road 1', '210000', 1);
INSERT INTO coupons VALUES ('PCT10', 'percent_off', 1000, 10000, '2026-04-01', '2026-04-30', NULL, 10, 0, 1);
INSERT INTO coupons VALUES ('FOOD5', 'flat_off', 500, 0, '2026-04-01', '2026-04-30', 'food', 0, 0, 1);
INSERT INTO coupons VALUES ('SHIPFREE', 'free_shipping', 0, 0, '2026-04-01', '2026-04-30', NULL, 0, 0, 1);
INSERT INTO coupons VALUES ('OLD', 'flat_off', 500, 0, '2026-01-01', '2026-03-31', NULL, 0, 0, 1);
INSERT INTO orders VALUES ('ord_old', 'u1', 'addr_u1', 'alipay', 5900, 0, 800, 6700, 'delivered', '2026-04-01T10:00:00+08:00', NULL, 'SF1');
INSERT INTO order_items VALUES ('it_old', 'ord_old', 'p_tea', 's_tea', 1, 5900, 5900);
INSERT INTO orders VALUES ('ord_recent', 'u1', 'addr_u1', 'alipay', 5900, 0, 800, 6700, 'delivered', '2026-04-14T10:00:00+08:00', NULL, 'SF2');
INSERT INTO order_items VALUES ('it_recent', 'ord_recent', 'p_tea', 's_tea', 2, 5900, 11800);
"""


@pytest.fixture
def shop(make_service):
    return make_service("ecommerce", SEED)


def _buy(shop, sku="s_kettle_w", product="p_kettle", qty=1):
    shop.call("add_to_cart", {"user_id": "u1", "product_id": product, "sku_id": sku, "qty": qty})


def test_search_filters_and_sorts(shop):
    rows = shop.call("search_products", {"query": "steamco"})
    assert [r["product_id"] for r in rows] == ["p_kettle", "p_gone"]  # in stock first
    assert rows[0]["min_sku_price_minor"] == 19900 and rows[0]["max_sku_price_minor"] == 21900
    rows = shop.call("search_products", {"query": "", "filters": {"in_stock_only": True}, "sort": "price_asc"})
    assert [r["product_id"] for r in rows] == ["p_tea", "p_kettle"]
    assert shop.call("search_products", {"query": "", "filters": {"max_price_minor": 6000}})[0]["product_id"] == "p_tea"
    assert shop.call("search_products", {"query": "", "category": "food"})[0]["product_id"] == "p_tea"
    product = shop.call("get_product", {"product_id": "p_kettle"})
    assert product["skus"][0] == {"sku_id": "s_kettle_b", "attrs": {"color": "black"}, "price_minor": 21900, "stock": 1}


def test_cart_coupons_and_checkout(shop):
    _buy(shop)
    _buy(shop)  # merges into one line
    cart = shop.call("add_to_cart", {"user_id": "u1", "product_id": "p_tea", "sku_id": "s_tea", "qty": 1})
    assert [i["qty"] for i in cart["items"]] == [2, 1] and cart["subtotal_minor"] == 45700
    cart = shop.call("apply_coupon", {"user_id": "u1", "code": "PCT10"})
    assert cart["discount_minor"] == 4570 and cart["total_minor"] == 41130
    cart = shop.call("apply_coupon", {"user_id": "u1", "code": "FOOD5"})
    assert [c["code"] for c in cart["applied_coupons"]] == ["PCT10", "FOOD5"] and cart["discount_minor"] == 5070
    # dropping below the minimum spend detaches PCT10 automatically
    kettle_line = cart["items"][0]["cart_item_id"]
    cart = shop.call("update_cart_item", {"user_id": "u1", "cart_item_id": kettle_line, "qty": 0})
    assert [c["code"] for c in cart["applied_coupons"]] == ["FOOD5"]
    order = shop.call("place_order", {"user_id": "u1", "address_id": "addr_u1", "payment_method": "alipay"})
    assert order == {
        "order_id": "ord_20260417_000001",
        "total_minor": 5900 - 500 + 800,
        "item_count": 1,
        "status": "paid",
    }
    assert shop.call("get_cart", {"user_id": "u1"})["items"] == []
    assert shop.call("get_product", {"product_id": "p_tea"})["skus"][0]["stock"] == 9
    assert shop.query_one("SELECT used_count FROM coupons WHERE code = 'FOOD5'")["used_count"] == 1


def test_free_shipping_and_cancel_restocks(shop):
    _buy(shop, qty=2)
    shop.call("apply_coupon", {"user_id": "u1", "code": "SHIPFREE"})
    order = shop.call(
        "place_order", {"user_id": "u1", "address_id": "addr_u1", "payment_method": "card", "note": "gift"}
    )
    assert order["total_minor"] == 39800
    out = shop.call("cancel_order", {"order_id": order["order_id"], "reason": "changed mind"})
    assert out["status"] == "cancelled"
    assert shop.call("get_product", {"product_id": "p_kettle"})["skus"][1]["stock"] == 5
    assert shop.call("list_orders", {"user_id": "u1", "status_filter": "cancelled"})[0]["order_id"] == order["order_id"]


def test_fulfilment_follows_the_clock(shop):
    _buy(shop)
    oid = shop.call("place_order", {"user_id": "u1", "address_id": "addr_u1", "payment_method": "alipay"})["order_id"]
    assert shop.call("track_order", {"order_id": oid})["latest_status"] == "paid"
    shop.ctx.clock.advance(timedelta(hours=25))
    assert shop.call("track_order", {"order_id": oid})["latest_status"] == "shipped"
    assert shop.call("cancel_order", {"order_id": oid, "reason": "late"})["code"] == "ORDER_NOT_CANCELABLE"
    shop.ctx.clock.advance(timedelta(days=2))
    detail = shop.call("get_order", {"order_id": oid})
    assert detail["status"] == "delivered"
    assert [h["status"] for h in detail["status_history"]] == ["pending_payment", "paid", "shipped", "delivered"]
    refund = shop.call(
        "request_refund", {"order_id": oid, "item_id": detail["items"][0]["item_id"], "qty": 1, "reason": "dent"}
    )
    assert refund["status"] == "submitted" and refund["refund_amount_minor"] == 19900
    detail = shop.call("get_order", {"order_id": oid})
    assert detail["status"] == "refund_requested" and detail["refunds"][0]["refund_id"] == refund["refund_id"]
    assert [h["status"] for h in detail["status_history"]][-2:] == ["delivered", "refund_requested"]


def test_refund_window_reads_the_clock(shop):
    ok = shop.call("request_refund", {"order_id": "ord_recent", "item_id": "it_recent", "qty": 2, "reason": "stale"})
    assert ok["refund_amount_minor"] == 11800
    late = shop.call("request_refund", {"order_id": "ord_old", "item_id": "it_old", "qty": 1, "reason": "stale"})
    assert late["code"] == "REFUND_WINDOW_CLOSED"


def test_addresses_default_first(shop):
    new = shop.call("add_address", {"user_id": "u1", "recipient": "Han", "phone": "138", "province": "P", "city": "C",
                                    "district": "D", "detail": "X", "postal_code": "1", "is_default": True})  # fmt: skip
    assert new["address_id"] == "addr_000001" and new["is_default"] is True
    assert [a["address_id"] for a in shop.call("list_addresses", {"user_id": "u1"})] == ["addr_000001", "addr_u1"]


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_product", {"product_id": "nope"}, "PRODUCT_NOT_FOUND"),
        ("add_to_cart", {"user_id": "u1", "product_id": "p_kettle", "sku_id": "nope", "qty": 1}, "SKU_NOT_FOUND"),
        (
            "add_to_cart",
            {"user_id": "u1", "product_id": "p_tea", "sku_id": "s_kettle_w", "qty": 1},
            "PRODUCT_NOT_FOUND",
        ),
        ("add_to_cart", {"user_id": "u1", "product_id": "p_kettle", "sku_id": "s_kettle_b", "qty": 2}, "OUT_OF_STOCK"),
        ("add_to_cart", {"user_id": "u1", "product_id": "p_kettle", "sku_id": "s_kettle_w", "qty": 0}, "BAD_ARG"),
        ("add_to_cart", {"user_id": "u1", "product_id": "p_kettle", "sku_id": "s_kettle_w", "qty": "many"}, "BAD_ARG"),
        ("update_cart_item", {"user_id": "u1", "cart_item_id": "ci_x", "qty": 1}, "CART_ITEM_NOT_FOUND"),
        ("apply_coupon", {"user_id": "u1", "code": "OLD"}, "COUPON_EXPIRED"),
        ("apply_coupon", {"user_id": "u1", "code": "NOPE"}, "COUPON_INVALID"),
        ("apply_coupon", {"user_id": "u1", "code": "PCT10"}, "COUPON_INVALID"),  # empty cart
        ("remove_coupon", {"user_id": "u1", "code": "PCT10"}, "COUPON_NOT_APPLIED"),
        ("place_order", {"user_id": "u1", "address_id": "addr_u1", "payment_method": "alipay"}, "CART_EMPTY"),
        ("place_order", {"user_id": "u1", "address_id": "addr_x", "payment_method": "alipay"}, "ADDRESS_NOT_FOUND"),
        ("get_order", {"order_id": "nope"}, "ORDER_NOT_FOUND"),
        ("cancel_order", {"order_id": "ord_old", "reason": "x"}, "ORDER_NOT_CANCELABLE"),
        (
            "request_refund",
            {"order_id": "ord_recent", "item_id": "it_old", "qty": 1, "reason": "x"},
            "ORDER_ITEM_NOT_FOUND",
        ),
        ("request_refund", {"order_id": "ord_recent", "item_id": "it_recent", "qty": 3, "reason": "x"}, "BAD_ARG"),
        ("search_products", {"query": "", "sort": "cheapest"}, "BAD_ARG"),
        ("search_products", {"query": "", "filters": {"colour": "red"}}, "BAD_ARG"),
        ("list_orders", {"user_id": "u1", "status_filter": "lost"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(shop, tool, args, code):
    before = table_dump(shop)
    result = shop.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(shop) == before


def test_failed_checkout_rolls_back(shop, make_service):
    _buy(shop, sku="s_kettle_b")
    shop.execute("UPDATE stocks SET quantity = 0 WHERE sku_id = 's_kettle_b'")  # sold out meanwhile
    before = table_dump(shop)
    result = shop.call("place_order", {"user_id": "u1", "address_id": "addr_u1", "payment_method": "alipay"})
    assert result["code"] == "OUT_OF_STOCK"
    assert table_dump(shop) == before


def test_expired_coupon_falls_off_the_cart(make_service):
    shop = make_service("ecommerce", SEED, now=datetime(2026, 4, 30, 20, 0, tzinfo=SHANGHAI))
    _buy(shop, sku="s_tea", product="p_tea")
    shop.call("apply_coupon", {"user_id": "u1", "code": "FOOD5"})
    shop.ctx.clock.advance(timedelta(days=1))
    assert shop.call("get_cart", {"user_id": "u1"})["applied_coupons"] == []


def test_an_unknown_filter_names_the_supported_ones(shop):
    res = shop.call("search_products", {"query": "", "filters": {"colour": "red"}})
    assert res["code"] == "BAD_ARG" and "'colour'" in res["error"] and "max_price_minor" in res["error"]
