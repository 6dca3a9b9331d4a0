"""hotel_booking through its tools: search, availability, book, modify, cancel, guest services."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.conftest import SHANGHAI, table_dump

SEED = """
INSERT INTO hotels VALUES ('h_kyo', 'Kamo River Inn', 'Kyoto', 'Gion', 35.0037, 135.7788, 4, 8.9, 210, '["wifi","onsen"]', '{"street":"Shijo 1"}', '{"checkin":"15:00"}', 'Riverside ryokan', 10);
INSERT INTO hotels VALUES ('h_kyo2', 'Station Box', 'Kyoto', 'Shimogyo', 34.9858, 135.7588, 3, 7.5, 900, '["wifi"]', '{}', '{}', 'Budget', 40);
INSERT INTO hotels VALUES ('h_tyo', 'Ginza Tower', 'Tokyo', 'Ginza', 35.6717, 139.7650, 5, 9.3, 1200, '["wifi","gym"]', '{}', '{}', 'Luxury', 200);
INSERT INTO rate_plans (hotel_id, date, room_type, flavor, nightly_price, currency, inventory_remaining, inventory_capacity, cancellation_policy, refundable_until, breakfast_included, max_occupancy) VALUES
 ('h_kyo', '2026-05-02', 'Family Room', 'flex', 30000, 'JPY', 2, 4, 'Free cancellation until 2 days before', '2026-04-30T18:00:00+09:00', 1, 4),
 ('h_kyo', '2026-05-03', 'Family Room', 'flex', 32000, 'JPY', 1, 4, 'Free cancellation until 2 days before', '2026-05-01T18:00:00+09:00', 1, 4),
 ('h_kyo', '2026-05-04', 'Family Room', 'flex', 30000, 'JPY', 1, 4, 'Free cancellation until 2 days before', '2026-05-02T18:00:00+09:00', 1, 4),
 ('h_kyo', '2026-05-02', 'Family Room', 'prepaid', 25000, 'JPY', 5, 5, 'Non-refundable', NULL, 0, 4),
 ('h_kyo', '2026-05-03', 'Family Room', 'prepaid', 26000, 'JPY', 5, 5, 'Non-refundable', NULL, 0, 4),
 ('h_kyo', '2026-05-02', 'Twin_Deluxe', 'flex', 20000, 'JPY', 3, 3, 'Free cancellation', '2026-04-30T18:00:00+09:00', 0, 2),
 ('h_kyo', '2026-05-03', 'Twin_Deluxe', 'flex', 21000, 'JPY', 3, 3, 'Free cancellation', '2026-05-01T18:00:00+09:00', 0, 2),
 ('h_kyo2', '2026-05-02', 'Double', 'semi', 9000, 'JPY', 9, 40, 'One night penalty', '2026-05-01', 0, 2),
 ('h_kyo2', '2026-05-03', 'Double', 'semi', 9500, 'JPY', 9, 40, 'One night penalty', '2026-05-01', 0, 2);
"""

GUEST = {"first_name": "Wei", "last_name": "Lin", "email": "lin@example.com", "phone": "+86 138", "user_id": "u_lin"}


@pytest.fixture
def ho(make_service):
    return make_service("hotel_booking", SEED)


def _book(ho, rp="rp_h_kyo_family-room_flex_20260502_20260504", **kw):
    return ho.call(
        "create_reservation", {"rate_plan_id": rp, "guest_profile": GUEST, "payment_method_id": "pm_visa", **kw}
    )


def test_search_filters_and_sorts(ho):
    res = ho.call(
        "search_hotels", {"city_or_geo": "kyoto", "check_in": "2026-05-02", "check_out": "2026-05-04", "guests": 2}
    )
    assert [(r["hotel_id"], r["nightly_price_from"]) for r in res] == [("h_kyo2", 9000), ("h_kyo", 20000)]
    fam = ho.call(
        "search_hotels",
        {
            "city_or_geo": "Kyoto",
            "check_in": "2026-05-02",
            "check_out": "2026-05-04",
            "guests": 4,
            "filters": {"breakfast_included": True},
        },
    )
    assert [r["hotel_id"] for r in fam] == ["h_kyo"] and fam[0]["refundable"] is True
    geo = ho.call(
        "search_hotels",
        {
            "city_or_geo": "35.00,135.78;1",
            "check_in": "2026-05-02",
            "check_out": "2026-05-03",
            "guests": 1,
            "filters": {"sort": "star_desc"},
        },
    )
    assert [r["hotel_id"] for r in geo] == ["h_kyo"]
    assert ho.call("get_hotel_details", {"hotel_id": "h_kyo"})["address"]["geo_lat"] == 35.0037


def test_availability_and_reservation_hold_inventory_and_price(ho):
    plans = ho.call(
        "get_room_availability", {"hotel_id": "h_kyo", "check_in": "2026-05-02", "check_out": "2026-05-04", "guests": 4}
    )
    assert [(p["flavor"], p["price_total"]) for p in plans] == [("prepaid", 51000), ("flex", 62000)]
    flex = plans[1]
    assert flex["rate_plan_id"] == "rp_h_kyo_family-room_flex_20260502_20260504" and flex["inventory_remaining"] == 1
    assert flex["refundable_until"] == "2026-04-30T18:00:00+09:00" and flex["refundable"] is True
    res = _book(ho, special_requests="Baby crib please")
    assert res["status"] == "confirmed" and res["total_charged"] == 62000 and res["refundable"] is True
    rid = res["reservation_id"]
    assert rid == "res_20260417_000001" and res["confirmation_code"].startswith("MOCK-")
    # the last room on 05-03 is gone: the flex bundle disappears, a second booking is sold out
    plans = ho.call(
        "get_room_availability", {"hotel_id": "h_kyo", "check_in": "2026-05-02", "check_out": "2026-05-04", "guests": 4}
    )
    assert [p["flavor"] for p in plans] == ["prepaid"]
    assert _book(ho)["code"] == "SOLD_OUT"
    ho.execute("UPDATE rate_plans SET nightly_price = 99999")  # later price moves do not touch the booking
    got = ho.call("get_reservation", {"reservation_id": rid})
    assert [n["nightly_price"] for n in got["nights"]] == [30000, 32000]
    assert got["special_requests"][0]["status"] == "pending_hotel"
    assert ho.call("list_reservations", {"user_id": "u_lin"}) == {
        "user_id": "u_lin",
        "count": 1,
        "reservation_ids": [rid],
    }
    # underscores in room names survive the rate plan id round trip
    assert _book(ho, rp="rp_h_kyo_twin-deluxe_flex_20260502_20260504")["room_type"] == "Twin_Deluxe"


def test_cancel_inside_and_outside_refund_window(ho):
    rid = _book(ho)["reservation_id"]
    out = ho.call("cancel_reservation", {"reservation_id": rid})
    assert out == {
        "reservation_id": rid,
        "status": "cancelled",
        "refund_amount": 62000,
        "penalty": 0,
        "currency": "JPY",
    }
    assert (
        ho.query_one(
            "SELECT inventory_remaining FROM rate_plans WHERE hotel_id='h_kyo' AND date='2026-05-03' AND flavor='flex'"
        )["inventory_remaining"]
        == 1
    )
    assert ho.call("cancel_reservation", {"reservation_id": rid})["code"] == "ALREADY_CANCELLED"
    rid2 = _book(ho)["reservation_id"]
    ho.ctx.clock.advance_to(datetime(2026, 4, 30, 18, 30, tzinfo=SHANGHAI))  # past 18:00 JST deadline
    out = ho.call("cancel_reservation", {"reservation_id": rid2})
    assert (out["refund_amount"], out["penalty"]) == (32000, 30000)
    rid3 = _book(ho, rp="rp_h_kyo_family-room_prepaid_20260502_20260504")["reservation_id"]
    out = ho.call("cancel_reservation", {"reservation_id": rid3})
    assert (out["refund_amount"], out["penalty"]) == (0, 51000)
    summary = ho.call("get_user_bookings_summary", {"user_id": "u_lin"})
    assert (
        summary["cancelled_reservations"] == 3 and summary["total_refunded"] == 94000 and summary["currency"] == "JPY"
    )


def test_modify_reprices_and_charges_fee_outside_window(ho):
    rid = _book(ho, rp="rp_h_kyo2_double_semi_20260502_20260503")["reservation_id"]
    out = ho.call("modify_reservation", {"reservation_id": rid, "new_check_out": "2026-05-04"})
    assert out["fees"] == 0 and out["price_delta"] == 9500
    assert out["updated_reservation"]["status"] == "modified" and out["updated_reservation"]["total_charged"] == 18500
    ho.ctx.clock.advance_to(datetime(2026, 5, 2, 9, 0, tzinfo=SHANGHAI))
    out = ho.call("modify_reservation", {"reservation_id": rid, "new_check_in": "2026-05-03"})
    assert out["fees"] == 9000 and out["updated_reservation"]["nights"] == [
        {"date": "2026-05-03", "nightly_price": 9500, "rate_plan_row_id": 9}
    ]
    assert (
        ho.query_one("SELECT inventory_remaining FROM rate_plans WHERE rate_plan_row_id = 8")["inventory_remaining"]
        == 9
    )


def test_guest_services(ho):
    rid = _book(ho)["reservation_id"]
    assert ho.call("request_late_checkout", {"reservation_id": rid, "new_time": "13:30"})["fee"] == 2000
    late = ho.call("request_late_checkout", {"reservation_id": rid, "new_time": "18:00"})
    assert late["approved"] is False and late["reason"]
    assert ho.call("get_reservation", {"reservation_id": rid})["late_checkout_time"] == "13:30"
    assert (
        ho.call("submit_special_request", {"reservation_id": rid, "text": "High floor with a view"})["status"]
        == "acknowledged"
    )
    assert ho.call("get_user_bookings_summary", {"user_id": "u_lin"})["open_special_requests"] == 1


def test_hold_expiry_events_fire_on_clock(ho):
    ho.load_sql(
        "CREATE TABLE pending_events (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT, hotel_id TEXT, target_date TEXT, payload_json TEXT, armed_at TEXT, armed_day INTEGER, consumed_at TEXT);"
        "INSERT INTO pending_events (type, hotel_id, target_date, payload_json) VALUES ('hold_expiry', 'h_kyo', '2026-04-20', '{\"room_type\": \"twin-deluxe\", \"flip_at\": \"2026-04-20T18:00:01+08:00\"}');"
    )
    plans = ho.call(
        "get_room_availability", {"hotel_id": "h_kyo", "check_in": "2026-05-02", "check_out": "2026-05-03", "guests": 2}
    )
    assert "Twin_Deluxe" in {p["room_type"] for p in plans}
    ho.ctx.clock.advance_to(datetime(2026, 4, 21, 9, 0, tzinfo=SHANGHAI))
    plans = ho.call(
        "get_room_availability", {"hotel_id": "h_kyo", "check_in": "2026-05-02", "check_out": "2026-05-03", "guests": 2}
    )
    assert "Twin_Deluxe" not in {p["room_type"] for p in plans}


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_reservation", {"reservation_id": "res_x"}, "RESERVATION_NOT_FOUND"),
        ("get_hotel_details", {"hotel_id": "nope"}, "HOTEL_NOT_FOUND"),
        (
            "get_room_availability",
            {"hotel_id": "h_kyo", "check_in": "2026-05-04", "check_out": "2026-05-02", "guests": 2},
            "BAD_ARG",
        ),
        (
            "search_hotels",
            {"city_or_geo": "Kyoto", "check_in": "2026-05-02", "check_out": "2026-05-03", "guests": 9},
            "BAD_ARG",
        ),
        (
            "create_reservation",
            {"rate_plan_id": "rp_bogus", "guest_profile": GUEST, "payment_method_id": "pm"},
            "RATE_PLAN_NOT_FOUND",
        ),
        (
            "create_reservation",
            {
                "rate_plan_id": "rp_h_kyo_family-room_flex_20260502_20260504",
                "guest_profile": {**GUEST, "user_id": ""},
                "payment_method_id": "pm",
            },
            "BAD_ARG",
        ),
        (
            "create_reservation",
            {
                "rate_plan_id": "rp_h_kyo_family-room_flex_20260502_20260506",
                "guest_profile": GUEST,
                "payment_method_id": "pm",
            },
            "RATE_PLAN_NOT_FOUND",
        ),
        ("request_late_checkout", {"reservation_id": "res_x", "new_time": "25:00"}, "BAD_ARG"),
        ("modify_reservation", {"reservation_id": "res_x"}, "BAD_ARG"),
        ("list_reservations", {}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(ho, tool, args, code):
    before = table_dump(ho)
    result = ho.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(ho) == before


def test_failed_modify_rolls_back_released_rooms(ho):
    rid = _book(ho)["reservation_id"]
    before = table_dump(ho)
    # the modify releases the old nights before finding no room for 05-05: all undone
    res = ho.call("modify_reservation", {"reservation_id": rid, "new_check_out": "2026-05-06"})
    assert res["code"] == "MODIFY_NO_AVAILABILITY"
    assert table_dump(ho) == before


def test_a_hotels_phone_number_carries_the_calling_code_of_where_it_stands(ho):
    """Kyoto's hotel answers on +81; the code follows the hotel's position, not one country for all."""
    from vibelife_env.services.hotel_booking.service import _phone

    assert ho.call("get_hotel_details", {"hotel_id": "h_kyo"})["contact"]["phone"].startswith("+81-")
    places = {"Nanjing": (32.06, 118.8, "+86-"), "Paris": (48.86, 2.35, "+33-"), "Busan": (35.1, 129.04, "+82-")}
    for lat, lng, code in places.values():
        assert _phone(lat, lng, 123456).startswith(code)
    assert _phone(64.1, -21.9, 7).startswith("+354-") and not _phone(-77.8, 166.7, 7).startswith(
        "+"
    )  # Antarctica: none
