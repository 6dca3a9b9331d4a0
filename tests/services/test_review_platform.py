"""review_platform through its tools: discovery, reviews, deals, reservations, Q&A, atomicity."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

M = "INSERT INTO merchants VALUES"
SEED = f"""
{M} ('m_a', 'Alpha Hall', 'venue', '杭州', '西湖区', '1 Lake Rd', '0571-1', 46, 10, 30000, '$$$', '09:00-21:00', '["团建", "包场"]', 1, 50);
{M} ('m_b', 'Beta Loft', 'venue', '杭州', '滨江区', '2 River Rd', NULL, 48, 4, 12000, '$$', NULL, '江景,可开票', 0, 0);
{M} ('m_c', 'Gamma Room', 'venue', '杭州', '西湖区', '3 Hill Rd', NULL, 40, 2, 50000, '$$$$', NULL, NULL, 1, 20);
{M} ('m_r', 'Noodle Bar', 'restaurant', '杭州', '西湖区', '4 Food St', NULL, 42, 0, 6000, '$', NULL, NULL, 0, 8);
INSERT INTO reviews VALUES ('rv1', 'm_a', 'u9', 5, 'great', '["stage", "lawn"]', '2026-04-01T10:00:00+08:00');
INSERT INTO reviews VALUES ('rv2', 'm_a', 'u8', 3, 'ok', NULL, '2026-04-01T03:00:00Z');
INSERT INTO deals VALUES ('d1', 'm_a', 'Team pack', 'x', 250000, 300000, 40, '2026-12-31', 'active');
INSERT INTO deals VALUES ('d2', 'm_a', 'Old pack', 'x', 100000, 150000, 10, '2026-04-20', 'active');
INSERT INTO deals VALUES ('d3', 'm_a', 'Sold pack', 'x', 100000, 150000, 10, NULL, 'sold_out');
INSERT INTO deals VALUES ('d4', 'm_b', 'Other pack', 'x', 100000, 150000, 10, NULL, 'active');
INSERT INTO merchant_qa VALUES ('qa_x', 'm_a', 'u7', 'Parking?', 'Yes', 'merchant', '2026-03-01T00:00:00Z');
INSERT INTO _counters VALUES ('reservation', 900);
"""


@pytest.fixture
def rp(make_service):
    return make_service("review_platform", SEED)


def ids(rows, key="merchant_id"):
    return [r[key] for r in rows]


def test_search_filters_and_sorts(rp):
    assert ids(rp.call("search_merchants", {"category": "venue"})) == ["m_b", "m_a", "m_c"]
    assert ids(rp.call("search_merchants", {"category": "venue", "sort": "price_asc"})) == ["m_b", "m_a", "m_c"]
    assert ids(rp.call("search_merchants", {"category": "venue", "sort": "price_desc", "limit": 1})) == ["m_c"]
    assert ids(rp.call("search_merchants", {"category": "venue", "area": "西湖区", "min_rating": 4.5})) == ["m_a"]
    assert ids(rp.call("search_merchants", {"category": "venue", "price_band": "$$"})) == ["m_b"]
    top = rp.call("get_recommendations", {"category": "venue", "area": "西湖区"})
    assert ids(top) == ["m_a", "m_c"]
    assert top[0]["rating"] == 4.6 and top[0]["tags"] == ["团建", "包场"] and top[0]["has_private_room"] is True
    detail = rp.call("get_merchant", {"merchant_id": "m_b"})
    assert detail["tags"] == ["江景", "可开票"] and detail["address"] == "2 River Rd"


def test_reviews_newest_first_and_write_updates_aggregate(rp):
    rows = rp.call("list_reviews", {"merchant_id": "m_a"})
    assert ids(rows, "review_id") == ["rv2", "rv1"]  # 03:00Z is later than 10:00+08:00
    assert rows[1]["image_captions"] == ["stage", "lawn"] and rows[0]["image_captions"] == []
    out = rp.call(
        "write_review", {"user_id": "u1", "merchant_id": "m_a", "rating": 1, "body": "bad", "image_captions": ["c"]}
    )
    assert out["review_id"] == "rev_00000001" and out["merchant_review_count"] == 11
    assert out["merchant_new_rating"] == 4.3  # (46*10 + 10) / 11 = 42.7 -> 43 tenths
    assert rp.call("get_merchant", {"merchant_id": "m_a"})["rating"] == 4.3
    # a merchant with no aggregate: folded into its stored reviews
    out = rp.call("write_review", {"user_id": "u1", "merchant_id": "m_r", "rating": 4, "body": "fine"})
    assert out["merchant_new_rating"] == 4.0 and out["merchant_review_count"] == 1
    assert rp.call("list_reviews", {"merchant_id": "m_a", "limit": 1})[0]["image_captions"] == ["c"]


def test_reserve_list_cancel(rp):
    res = rp.call(
        "reserve",
        {"user_id": "u1", "merchant_id": "m_a", "datetime": "2026-05-01T18:30", "party_size": 30, "deal_id": "d1"},
    )
    assert res["reservation_id"] == "resv_000901"  # seeded counter alias honoured
    assert (
        res["datetime"] == "2026-05-01T18:30:00"
        and res["status"] == "confirmed"
        and res["merchant_name"] == "Alpha Hall"
    )
    rp.call("reserve", {"user_id": "u1", "merchant_id": "m_b", "datetime": "2026-06-01 12:00", "party_size": 300})
    listed = rp.call("list_reservations", {"user_id": "u1"})
    assert ids(listed, "reservation_id") == ["resv_000902", "resv_000901"]
    assert rp.call("cancel_reservation", {"reservation_id": "resv_000901"}) == {
        "reservation_id": "resv_000901",
        "status": "cancelled",
    }
    assert rp.call("cancel_reservation", {"reservation_id": "resv_000901"})["status"] == "cancelled"
    assert rp.call("list_reservations", {"user_id": "u1"})[1]["status"] == "cancelled"


def test_deals_qa_and_saved(rp):
    assert ids(rp.call("list_merchant_deals", {"merchant_id": "m_a"}), "deal_id") == ["d1", "d2", "d3"]
    assert rp.call("get_deal", {"deal_id": "d1"})["price_minor"] == 250000
    qa = rp.call("ask_question", {"user_id": "u1", "merchant_id": "m_a", "body": "Projector?"})
    assert qa["qa_id"] == "qa_000001" and qa["answer"] is None
    assert ids(rp.call("get_merchant_qa", {"merchant_id": "m_a"}), "qa_id") == ["qa_000001", "qa_x"]
    first = rp.call("save_merchant", {"user_id": "u1", "merchant_id": "m_b"})
    assert first["saved"] is True
    assert rp.call("save_merchant", {"user_id": "u1", "merchant_id": "m_b"})["saved_at"] == first["saved_at"]
    saved = rp.call("list_saved_merchants", {"user_id": "u1"})
    assert ids(saved) == ["m_b"] and saved[0]["saved_at"] == first["saved_at"]


RESERVE = {"user_id": "u1", "merchant_id": "m_a", "datetime": "2026-05-01T18:00", "party_size": 4}


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("search_merchants", {"category": "bar"}, "BAD_ARG"),
        ("search_merchants", {"category": "venue", "sort": "random"}, "BAD_ARG"),
        ("search_merchants", {"category": "venue", "price_band": "cheap"}, "BAD_ARG"),
        ("get_recommendations", {"category": "venue", "limit": 0}, "BAD_ARG"),
        ("get_merchant", {"merchant_id": "nope"}, "MERCHANT_NOT_FOUND"),
        ("list_reviews", {"merchant_id": "nope"}, "MERCHANT_NOT_FOUND"),
        ("write_review", {"user_id": "u1", "merchant_id": "m_a", "rating": 6, "body": "x"}, "BAD_ARG"),
        ("write_review", {"user_id": "u1", "merchant_id": "m_a", "rating": 4, "body": "  "}, "BAD_ARG"),
        ("write_review", {"user_id": "u1", "merchant_id": "nope", "rating": 4, "body": "x"}, "MERCHANT_NOT_FOUND"),
        ("get_deal", {"deal_id": "nope"}, "DEAL_NOT_FOUND"),
        ("reserve", {**RESERVE, "datetime": "tomorrow"}, "BAD_ARG"),
        ("reserve", {**RESERVE, "datetime": "2026-04-01T18:00"}, "BAD_ARG"),
        ("reserve", {**RESERVE, "party_size": 51}, "PARTY_SIZE_EXCEEDED"),
        ("reserve", {**RESERVE, "party_size": 0}, "BAD_ARG"),
        ("reserve", {**RESERVE, "deal_id": "nope"}, "DEAL_NOT_FOUND"),
        ("reserve", {**RESERVE, "deal_id": "d3"}, "DEAL_UNAVAILABLE"),
        ("reserve", {**RESERVE, "deal_id": "d4"}, "DEAL_UNAVAILABLE"),
        ("reserve", {**RESERVE, "deal_id": "d2"}, "DEAL_UNAVAILABLE"),
        ("reserve", {**RESERVE, "party_size": "many"}, "BAD_ARG"),
        ("cancel_reservation", {"reservation_id": "nope"}, "RESERVATION_NOT_FOUND"),
        ("ask_question", {"user_id": "u1", "merchant_id": "m_a", "body": ""}, "BAD_ARG"),
        ("save_merchant", {"user_id": "u1", "merchant_id": "nope"}, "MERCHANT_NOT_FOUND"),
        ("list_saved_merchants", {}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(rp, tool, args, code):
    before = table_dump(rp)
    result = rp.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(rp) == before


def test_a_summary_never_shows_fewer_reviews_than_the_merchant_lists(rp):
    """A seed whose aggregate trails the reviews it stores (Noodle Bar: count 0, two reviews) shows
    the larger number; a platform-wide aggregate above the stored reviews (Alpha Hall: 10) stays."""
    for rid in ("rv_n1", "rv_n2"):
        rp.conn.execute(f"INSERT INTO reviews VALUES ('{rid}', 'm_r', 'u5', 4, 'tasty', NULL, '2026-04-02T10:00:00Z')")
    listed = rp.call("list_reviews", {"merchant_id": "m_r"})
    assert len(listed) == 2 and rp.call("get_merchant", {"merchant_id": "m_r"})["review_count"] == 2
    found = {m["merchant_id"]: m["review_count"] for m in rp.call("search_merchants", {"category": "restaurant"})}
    assert found["m_r"] == 2
    assert rp.call("get_merchant", {"merchant_id": "m_a"})["review_count"] == 10
