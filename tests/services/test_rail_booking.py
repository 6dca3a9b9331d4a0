"""rail_booking through its tools: search, student pricing, ticketing, refunds, status."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from tests.conftest import SHANGHAI, table_dump

SEED = """
INSERT INTO train_offers VALUES
 ('of_nzm_1', 'N700-1', '2026-05-02', 'Shinkansen', 'Tokyo', 'Kyoto', 'Tokyo', 'Kyoto', '2026-05-02T09:00:00+09:00', '2026-05-02T11:15:00+09:00', 'second_class', 14000, 9800, 'JPY', 4, 1, 1, 1, 'refundable', 'Nozomi', NULL),
 ('of_nzm_2', 'N700-2', '2026-05-02', 'Shinkansen', 'Tokyo', 'Kyoto', 'Shinagawa', 'Kyoto', '2026-05-02T08:00:00+09:00', '2026-05-02T10:20:00+09:00', 'first_class', 19000, 19000, 'JPY', 2, 0, 0, 0, 'non_refundable', 'Green car', NULL),
 ('of_sha', 'G7025', '2026-04-25', 'G', '上海', '苏州', '上海虹桥', '苏州', '2026-04-25T10:12:00+08:00', '2026-04-25T10:42:00+08:00', 'second_class', 39.5, 29.62, 'CNY', 3, 0, 0, 0, 'refundable', NULL, NULL);
INSERT INTO student_profiles VALUES ('stu_mei', 'Mei Lin', 1, 1, 'pending', 'pending', NULL, NULL);
INSERT INTO train_status VALUES ('G7025', '2026-04-25', 'on_time', 0, '7', 'A3', '2026-04-17T09:00:00+08:00');
"""

FAMILY = [{"user_id": "u_lin", "name": "Wei Lin"}, {"user_id": "stu_mei", "name": "Mei Lin"}]
CONTACT = {"user_id": "u_lin", "email": "lin@example.com"}


@pytest.fixture
def rb(make_service):
    return make_service("rail_booking", SEED)


def test_search_matches_aliases_and_orders_by_departure(rb):
    res = rb.call("search_trains", {"origin": "東京", "dest": "kyoto", "date": "2026-05-02"})
    assert [o["offer_id"] for o in res["offers"]] == ["of_nzm_2", "of_nzm_1"]
    assert (
        rb.call("search_trains", {"origin": "Shanghai Hongqiao", "dest": "Suzhou", "date": "2026-04-25"})["total"] == 1
    )
    only = rb.call(
        "search_trains",
        {"origin": "Tokyo", "dest": "Kyoto", "date": "2026-05-02", "seat_class": "second_class", "passengers": FAMILY},
    )
    preview = only["offers"][0]["pricing_preview"]
    assert preview["total_price"]["amount"] == 23800.0 and preview["tickets"][1]["student_quota_source"] == "ordinary"


def test_student_quota_and_graduation_proof(rb):
    twice = [{"user_id": "stu_mei"}, {"user_id": "stu_mei"}]
    tickets = rb.call("price_train_offer", {"offer_id": "of_nzm_1", "passengers": twice})["tickets"]
    assert [t["fare_type"] for t in tickets] == ["student", "adult"]
    assert tickets[1]["student_ineligibility_reason"] == "graduation_proof_pending"
    rb.call("update_student_verification", {"user_id": "stu_mei", "xuexin_status": "verified"})
    tickets = rb.call("price_train_offer", {"offer_id": "of_nzm_1", "passengers": twice})["tickets"]
    assert [t["student_quota_source"] for t in tickets] == ["ordinary", "graduation-trip"]


def test_booking_takes_seats_and_quota_cancel_returns_them(rb):
    b = rb.call("create_train_booking", {"offer_id": "of_nzm_1", "passengers": FAMILY, "contact": CONTACT})
    assert b["booking_ref"] == "RB000001" and b["total_paid"] == {"amount": 23800.0, "currency": "JPY"}
    assert [t["seat"] for t in b["tickets"]] == ["01车01A", "01车01B"]
    offer = rb.call("get_train_offer", {"offer_id": "of_nzm_1"})
    assert (offer["adult_seats_remaining"], offer["ordinary_student_seats_remaining"]) == (3, 0)
    assert rb.call("get_student_profile", {"user_id": "stu_mei"})["ordinary_quota_remaining"] == 0
    listed = rb.call("list_train_bookings", {"user_id": "u_lin"})
    assert listed["count"] == 1 and listed["bookings"][0]["route"] == "Tokyo->Kyoto"
    # 2026-04-17 09:00 CST is more than 8 days before departure: free
    out = rb.call("cancel_train_booking", {"booking_ref": "RB000001", "reason": "plans changed"})
    assert out["refund"]["amount"] == 23800.0 and out["penalty"]["amount"] == 0.0
    offer = rb.call("get_train_offer", {"offer_id": "of_nzm_1"})
    assert (offer["adult_seats_remaining"], offer["ordinary_student_seats_remaining"]) == (4, 1)
    assert rb.call("get_student_profile", {"user_id": "stu_mei"})["ordinary_quota_remaining"] == 1
    assert rb.call("cancel_train_booking", {"booking_ref": "RB000001"})["code"] == "ALREADY_CANCELLED"


def test_refund_bands_follow_the_clock(rb):
    rb.call("create_train_booking", {"offer_id": "of_sha", "passengers": FAMILY[:1], "contact": CONTACT})
    rb.ctx.clock.advance_to(datetime(2026, 4, 24, 20, 0, tzinfo=SHANGHAI))  # 14 h before departure
    assert rb.call("cancel_train_booking", {"booking_ref": "RB000001"})["penalty"]["amount"] == 7.9
    history = json.loads(
        rb.query_one("SELECT history_json FROM train_bookings WHERE booking_ref = 'RB000001'")["history_json"]
    )
    assert history[-1]["event"] == "CANCELLED" and history[-1]["penalty"] == 7.9  # checks read what was kept
    rb.call("create_train_booking", {"offer_id": "of_nzm_2", "passengers": FAMILY[:1], "contact": CONTACT})
    assert rb.call("cancel_train_booking", {"booking_ref": "RB000002"})["refund"]["amount"] == 0.0
    rb.ctx.clock.advance_to(datetime(2026, 4, 25, 11, 0, tzinfo=SHANGHAI))
    res = rb.call("create_train_booking", {"offer_id": "of_sha", "passengers": FAMILY[:1], "contact": CONTACT})
    assert res["code"] == "TRAIN_DEPARTED"


def test_status(rb):
    assert rb.call("get_train_status", {"train_no": "G7025", "date": "2026-04-25"})["platform"] == "7"
    assert rb.call("get_train_status", {"train_no": "N700-1", "date": "2026-05-02"})["status"] == "SCHEDULED"
    rb.load_sql("UPDATE train_status SET status = 'cancelled' WHERE train_no = 'G7025'")
    res = rb.call("create_train_booking", {"offer_id": "of_sha", "passengers": FAMILY[:1], "contact": CONTACT})
    assert res["code"] == "TRAIN_CANCELLED"


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_train_offer", {"offer_id": "nope"}, "OFFER_NOT_FOUND"),
        ("cancel_train_booking", {"booking_ref": "RB999999"}, "BOOKING_NOT_FOUND"),
        ("get_student_profile", {"user_id": "nobody"}, "STUDENT_PROFILE_NOT_FOUND"),
        ("update_student_verification", {"user_id": "stu_mei", "xuexin_status": "maybe"}, "BAD_ARG"),
        ("create_train_booking", {"offer_id": "of_nzm_1", "passengers": [], "contact": CONTACT}, "BAD_ARG"),
        ("get_train_status", {"train_no": "X1", "date": "2026-05-02"}, "TRAIN_NOT_FOUND"),
        ("search_trains", {"origin": "Tokyo", "dest": "Kyoto", "date": "May 2"}, "BAD_ARG"),
        ("search_trains", {"origin": "Tokyo"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(rb, tool, args, code):
    before = table_dump(rb)
    result = rb.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(rb) == before


def test_sold_out_booking_rolls_back(rb):
    before = table_dump(rb)
    four = [{"name": f"P{i}"} for i in range(4)]
    assert (
        rb.call("create_train_booking", {"offer_id": "of_sha", "passengers": four, "contact": CONTACT})["code"]
        == "INVENTORY_GONE"
    )
    assert table_dump(rb) == before
