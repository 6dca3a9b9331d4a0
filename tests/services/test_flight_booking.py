"""flight_booking through its tools: search, pricing, booking, seats, swaps, holds, check-in."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.conftest import SHANGHAI, table_dump

SEED = """
INSERT INTO flights VALUES ('NH920', 'PVG', 'NRT', '2026-05-01T09:00:00+08:00', '2026-05-01T13:00:00+09:00', '788', 2000, 'CNY', 'NH');
INSERT INTO flights VALUES ('MU521', 'PVG', 'NRT', '2026-05-01T14:00:00+08:00', '2026-05-01T18:00:00+09:00', '738', 1500, 'CNY', 'MU');
INSERT INTO flights VALUES ('MU100', 'PVG', 'ICN', '2026-05-01T07:00:00+08:00', '2026-05-01T10:00:00+09:00', '738', 600, 'CNY', 'MU');
INSERT INTO flights VALUES ('KE701', 'ICN', 'NRT', '2026-05-01T12:00:00+09:00', '2026-05-01T14:30:00+09:00', '738', 700, 'CNY', 'KE');
INSERT INTO flights VALUES ('NH919', 'NRT', 'PVG', '2026-05-08T10:00:00+09:00', '2026-05-08T12:30:00+08:00', '788', 1800, 'CNY', 'NH');
INSERT INTO fare_buckets VALUES ('NH920', '2026-05-01', 'ECONOMY', 2000, 9);
INSERT INTO fare_buckets VALUES ('NH920', '2026-05-01', 'BUSINESS', 8000, 2);
INSERT INTO fare_buckets VALUES ('MU521', '2026-05-01', 'ECONOMY', 1500, 2);
INSERT INTO fare_buckets VALUES ('MU100', '2026-05-01', 'ECONOMY', 600, 5);
INSERT INTO fare_buckets VALUES ('KE701', '2026-05-01', 'ECONOMY', 700, 5);
INSERT INTO fare_buckets VALUES ('NH919', '2026-05-08', 'ECONOMY', 1800, 9);
INSERT INTO flight_status VALUES ('NH920', '2026-05-01', 'SCHEDULED', NULL, NULL, 'B12', 'T2', 0, '2026-04-17T09:00:00+08:00');
"""

FAMILY = [
    {"type": "ADT", "given_name": "Wei", "family_name": "Lin"},
    {"type": "ADT", "given_name": "Mei", "family_name": "Lin"},
    {"type": "CHD", "given_name": "Xiao", "family_name": "Lin"},
]
CONTACT = {"email": "lin@example.com", "phone": "+86 138", "user_id": "u_lin"}
CARD = {"method": "CARD", "card_last4": "4242"}


@pytest.fixture
def fl(make_service):
    return make_service("flight_booking", SEED)


def _offer(fl, flight_no="NH920", **kw):
    args = {"origin": "PVG", "destination": "NRT", "departure_date": "2026-05-01", "adults": 2, "children": 1, **kw}
    res = fl.call("search_flights", args)
    return next(o for o in res["offers"] if o["itinerary"]["slices"][0]["segments"][0]["flight_no"] == flight_no)


def _set_now(fl, *args):
    fl.ctx.clock.advance_to(datetime(*args, tzinfo=SHANGHAI))


def test_search_filters_sorts_and_connects(fl):
    res = fl.call(
        "search_flights",
        {"origin": "PVG", "destination": "NRT", "departure_date": "2026-05-01", "adults": 2, "children": 1},
    )
    flights = [[s["flight_no"] for s in o["itinerary"]["slices"][0]["segments"]] for o in res["offers"]]
    # MU521 has 2 seats for 3 paying passengers; the ICN connection is 2 h
    assert flights == [["MU100", "KE701"], ["NH920"]]
    assert res["offers"][1]["total_price"] == {"amount": 6000.0, "currency": "CNY"}
    assert res["offers"][0]["itinerary"]["slices"][0]["stops"] == 1
    direct = fl.call(
        "search_flights", {"origin": "PVG", "destination": "NRT", "departure_date": "2026-05-01", "non_stop": True}
    )
    assert [o["total_price"]["amount"] for o in direct["offers"]] == [1500.0, 2000.0]
    usd = fl.call(
        "search_flights",
        {"origin": "PVG", "destination": "NRT", "departure_date": "2026-05-01", "currency": "USD", "non_stop": True},
    )
    assert usd["offers"][0]["total_price"] == {"amount": 210.0, "currency": "USD"}
    rt = fl.call(
        "search_flights",
        {
            "origin": "PVG",
            "destination": "NRT",
            "departure_date": "2026-05-01",
            "return_date": "2026-05-08",
            "non_stop": True,
        },
    )
    assert rt["total"] == 2 and len(rt["offers"][0]["itinerary"]["slices"]) == 2


def test_book_with_seats_holds_inventory_and_price(fl):
    offer = _offer(fl)
    assert fl.call("price_offer", {"offer_id": offer["offer_id"]})["priced_total"]["amount"] == 6000.0
    fl.execute("UPDATE fare_buckets SET price = 2500 WHERE flight_no = 'NH920' AND cabin = 'ECONOMY'")
    seats = [{"segment_idx": 0, "pax_idx": 0, "seat": "20A"}, {"segment_idx": 0, "pax_idx": 1, "seat": "20B"}]
    b = fl.call(
        "create_booking",
        {
            "offer_id": offer["offer_id"],
            "passengers": FAMILY,
            "contact": CONTACT,
            "payment": CARD,
            "seat_selections": seats,
        },
    )
    # guaranteed price honoured, plus a 40 CNY window seat surcharge
    assert b["status"] == "TICKETED" and b["total_paid"]["amount"] == 6040.0 and len(b["ticket_numbers"]) == 3
    assert b["segments"][0]["seat"] == "20A"
    assert (
        fl.query_one("SELECT seats_remaining FROM fare_buckets WHERE flight_no='NH920' AND cabin='ECONOMY'")[
            "seats_remaining"
        ]
        == 6
    )
    got = fl.call("get_booking", {"pnr": b["pnr"]})
    assert [s["seat"] for s in got["segments"][0]["seats"]] == ["20A", "20B"]
    assert fl.call("list_bookings", {"user_id": "u_lin"})["bookings"][0]["route_summary"] == "PVG-NRT"
    seat_map = fl.call("get_seat_map", {"segment_idx": 0, "pnr": b["pnr"]})
    row20 = next(r for blk in seat_map["cabin_layout"] for r in blk["rows"] if r["row_number"] == 20)
    assert [s["available"] for s in row20["seats"][:3]] == [False, False, True]
    # another booking cannot take 20A
    other = _offer(fl, adults=1, children=0)
    res = fl.call(
        "create_booking",
        {
            "offer_id": other["offer_id"],
            "passengers": FAMILY[:1],
            "contact": CONTACT,
            "payment": CARD,
            "seat_selections": [{"segment_idx": 0, "pax_idx": 0, "seat": "20A"}],
        },
    )
    assert res["code"] == "SEAT_UNAVAILABLE"


def test_aircraft_swap_invalidates_seats_and_checkin_reassigns(fl):
    offer = _offer(fl)
    seats = [{"segment_idx": 0, "pax_idx": 2, "seat": "30K"}]
    b = fl.call(
        "create_booking",
        {
            "offer_id": offer["offer_id"],
            "passengers": FAMILY,
            "contact": CONTACT,
            "payment": CARD,
            "seat_selections": seats,
        },
    )
    fl.load_sql("UPDATE flights SET equipment = '738' WHERE flight_no = 'NH920'")
    got = fl.call("get_booking", {"pnr": b["pnr"]})
    assert got["segments"][0]["seats"] == [] and got["segments"][0]["equipment"] == "738"
    assert got["history"][-1]["event"] == "SEAT_INVALIDATED"
    assert fl.query("SELECT channel FROM notifications") == [{"channel": "system"}]
    assert fl.call("check_in", {"pnr": b["pnr"], "segment_idx": 0})["code"] == "CHECK_IN_NOT_OPEN"
    _set_now(fl, 2026, 4, 30, 12, 0)
    res = fl.call("check_in", {"pnr": b["pnr"], "segment_idx": 0, "preferred_seats": [{"pax_idx": 0, "seat": "8A"}]})
    assert [c["seat"] for c in res["checked_in"]] == ["8A", "7A", "7B"]
    assert res["gate"] == "B12" and res["boarding_time"] == "2026-05-01T08:20:00+08:00"
    assert fl.call("check_in", {"pnr": b["pnr"], "segment_idx": 0, "pax_indices": [0]})["code"] == "ALREADY_CHECKED_IN"


def test_hold_expires_on_virtual_clock(fl):
    offer = _offer(fl, adults=1, children=0)
    b = fl.call(
        "create_booking",
        {"offer_id": offer["offer_id"], "passengers": FAMILY[:1], "contact": CONTACT, "payment": CARD, "hold": True},
    )
    assert b["status"] == "HOLD" and b["ticket_numbers"] == [] and b["hold_expires_at"] == "2026-04-18T09:00:00+08:00"
    assert (
        fl.query_one("SELECT seats_remaining FROM fare_buckets WHERE flight_no='NH920' AND cabin='ECONOMY'")[
            "seats_remaining"
        ]
        == 8
    )
    _set_now(fl, 2026, 4, 18, 9, 1)
    assert fl.call("get_booking", {"pnr": b["pnr"]})["status"] == "EXPIRED"
    assert (
        fl.query_one("SELECT seats_remaining FROM fare_buckets WHERE flight_no='NH920' AND cabin='ECONOMY'")[
            "seats_remaining"
        ]
        == 9
    )
    assert fl.call("cancel_booking", {"pnr": b["pnr"]})["code"] == "ALREADY_CANCELLED"
    # the offer is long expired too
    assert fl.call("price_offer", {"offer_id": offer["offer_id"]})["code"] == "OFFER_EXPIRED"


def test_cancel_applies_fare_rules(fl):
    eco = _offer(fl, adults=1, children=0)
    b = fl.call(
        "create_booking", {"offer_id": eco["offer_id"], "passengers": FAMILY[:1], "contact": CONTACT, "payment": CARD}
    )
    refund = fl.call("cancel_booking", {"pnr": b["pnr"], "reason": "plans changed"})["refund"]
    assert (
        refund["fees_withheld"]["amount"] == 900.0
        and refund["amount"]["amount"] == 1100.0
        and refund["method"] == "VOUCHER"
    )
    biz = _offer(fl, adults=1, children=0, cabin="BUSINESS")
    b2 = fl.call(
        "create_booking", {"offer_id": biz["offer_id"], "passengers": FAMILY[:1], "contact": CONTACT, "payment": CARD}
    )
    refund = fl.call("cancel_booking", {"pnr": b2["pnr"]})["refund"]
    assert refund == {
        "refundable": True,
        "amount": {"amount": 8000.0, "currency": "CNY"},
        "fees_withheld": {"amount": 0.0, "currency": "CNY"},
        "method": "ORIGINAL_FORM",
    }
    assert (
        fl.query_one("SELECT seats_remaining FROM fare_buckets WHERE flight_no='NH920' AND cabin='BUSINESS'")[
            "seats_remaining"
        ]
        == 2
    )


def test_change_booking_moves_inventory_and_charges_fee(fl):
    a = _offer(fl, adults=1, children=0)
    b = fl.call(
        "create_booking", {"offer_id": a["offer_id"], "passengers": FAMILY[:1], "contact": CONTACT, "payment": CARD}
    )
    new = _offer(fl, "MU521", adults=1, children=0)
    res = fl.call("change_booking", {"pnr": b["pnr"], "new_offer_id": new["offer_id"]})
    assert (
        res["status"] == "CHANGED"
        and res["fare_difference"]["amount"] == -500.0
        and res["change_fee"]["amount"] == 450.0
    )
    assert res["new_segments"][0]["flight_no"] == "MU521"
    assert fl.call("get_booking", {"pnr": b["pnr"]})["total_paid"]["amount"] == 1950.0
    buckets = {
        r["flight_no"]: r["seats_remaining"] for r in fl.query("SELECT * FROM fare_buckets WHERE cabin='ECONOMY'")
    }
    assert buckets["NH920"] == 9 and buckets["MU521"] == 1


def test_flight_status_and_subscription(fl):
    st = fl.call("get_flight_status", {"flight_no": "NH920", "date": "2026-05-01"})
    assert st["gate"] == "B12" and st["equipment"] == "788"
    assert fl.call("get_flight_status", {"flight_no": "MU521", "date": "2026-05-01"})["status"] == "SCHEDULED"
    sub = fl.call("subscribe_flight_status", {"flight_no": "NH920", "date": "2026-05-01", "sink": "email"})
    assert sub["sub_id"].startswith("sub_") and len(sub["sub_id"]) == 14


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_booking", {"pnr": "ZZZZZZ"}, "BOOKING_NOT_FOUND"),
        ("get_flight_offer", {"offer_id": "ofr_nope"}, "OFFER_NOT_FOUND"),
        ("price_offer", {"offer_id": "ofr_nope"}, "OFFER_NOT_FOUND"),
        ("cancel_booking", {"pnr": "ZZZZZZ"}, "BOOKING_NOT_FOUND"),
        ("get_flight_status", {"flight_no": "XX1", "date": "2026-05-01"}, "FLIGHT_NOT_FOUND"),
        ("subscribe_flight_status", {"flight_no": "NH920", "date": "2026-05-01", "sink": "pager"}, "BAD_ARG"),
        ("search_flights", {"origin": "PVG", "destination": "NRT", "departure_date": "May 1"}, "BAD_ARG"),
        (
            "search_flights",
            {"origin": "PVG", "destination": "NRT", "departure_date": "2026-05-01", "cabin": "LUXE"},
            "BAD_ARG",
        ),
        ("get_seat_map", {"segment_idx": 0}, "OFFER_NOT_FOUND"),
        ("search_flights", {"origin": "PVG"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(fl, tool, args, code):
    before = table_dump(fl)
    result = fl.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(fl) == before


def test_failed_booking_rolls_back(fl):
    offer = _offer(fl)
    before = table_dump(fl)
    bad_seat = [{"segment_idx": 0, "pax_idx": 0, "seat": "2A"}]  # a business seat on an economy fare
    args = {
        "offer_id": offer["offer_id"],
        "passengers": FAMILY,
        "contact": CONTACT,
        "payment": CARD,
        "seat_selections": bad_seat,
    }
    assert fl.call("create_booking", args)["code"] == "SEAT_UNAVAILABLE"
    assert (
        fl.call(
            "create_booking", {**args, "seat_selections": None, "payment": {"method": "CARD", "card_last4": "0000"}}
        )["code"]
        == "PAYMENT_DECLINED"
    )
    assert (
        fl.call("create_booking", {**args, "seat_selections": None, "passengers": FAMILY[:2]})["code"]
        == "INVALID_PASSENGERS"
    )
    fl.execute("UPDATE fare_buckets SET seats_remaining = 1 WHERE flight_no = 'NH920' AND cabin = 'ECONOMY'")
    before = table_dump(fl)
    assert fl.call("create_booking", {**args, "seat_selections": None})["code"] == "INVENTORY_GONE"
    assert table_dump(fl) == before
    _set_now(fl, 2026, 4, 17, 9, 30)
    assert fl.call("create_booking", {**args, "seat_selections": None})["code"] == "OFFER_EXPIRED"


def test_sort_aliases_are_accepted_and_unknown_sorts_list_the_choices(fl):
    args = {"origin": "PVG", "destination": "NRT", "departure_date": "2026-05-01", "non_stop": True}
    by_alias = fl.call("search_flights", {**args, "sort": "price"})["offers"]
    by_name = fl.call("search_flights", {**args, "sort": "price_asc"})["offers"]
    assert [o["total_price"] for o in by_alias] == [o["total_price"] for o in by_name]
    bad = fl.call("search_flights", {**args, "sort": "cheapest"})
    assert bad["code"] == "BAD_ARG" and "price_asc, duration_asc, depart_asc" in bad["error"]
