"""car_rental through its tools: search, energy comparison, held bookings, pickup/return, incidents."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.conftest import SHANGHAI, table_dump

SEED = """
INSERT INTO rental_locations VALUES ('loc_kix', 'Kansai Airport Desk', 'Osaka', 'KIX T1', 34.43, 135.23, '{"open":"07:00","close":"22:00"}', NULL, NULL);
INSERT INTO rental_locations VALUES ('loc_kyo', 'Kyoto Station Desk', 'Kyoto', 'Hachijo', 34.98, 135.75, '{}', NULL, NULL);
INSERT INTO vehicles VALUES ('v_prius', 'Prius', 'compact', 'hybrid', 5, '2 suitcases', 1780, 1000, 4.0, 'L', '12', NULL, NULL);
INSERT INTO vehicles VALUES ('v_leaf', 'Leaf', 'compact', 'ev', 5, '2 suitcases', 1790, 300, 15.0, 'kWh', '34', NULL, NULL);
INSERT INTO vehicles VALUES ('v_kei', 'N-Box', 'kei', 'gasoline', 4, '1 suitcase', 1475, 600, 5.0, 'L', '56', NULL, NULL);
INSERT INTO insurance_plans VALUES ('ins_basic', 'Basic CDW', 1100, 'JPY', '{"cdw": true}', NULL);
INSERT INTO insurance_plans VALUES ('ins_full', 'Full cover', 2200, 'JPY', '{"cdw": true, "noc": true}', NULL);
INSERT INTO rental_offers VALUES ('off_prius', 'v_prius', 'loc_kix', 'loc_kyo', '2026-05-01T10:00:00+09:00', '2026-05-03T10:00:00+09:00', 8000, 'JPY', 30000, 5500, NULL, '{"estimated_unit_price": 175}', '{"fuel": "full"}', 1, 'free until 24h before', NULL, NULL);
INSERT INTO rental_offers VALUES ('off_leaf', 'v_leaf', 'loc_kix', 'loc_kyo', '2026-05-01T10:00:00+09:00', '2026-05-03T10:00:00+09:00', 7000, 'JPY', 30000, 5500, NULL, '{"estimated_unit_price": 40}', '{"charge": "80%"}', 2, 'free until 24h before', NULL, NULL);
INSERT INTO rental_offers VALUES ('off_kei', 'v_kei', 'loc_kix', 'loc_kix', '2026-05-01T10:00:00+09:00', '2026-05-03T11:00:00+09:00', 5000, 'JPY', 20000, 0, NULL, '{}', '{}', 1, 'free', NULL, NULL);
INSERT INTO road_policy VALUES ('pol_etc', 'ETC tolls', 'all', '{"card": "rent ETC card"}', NULL);
INSERT INTO energy_stops VALUES ('st_1', 'Kyoto EV Hub', 'Kyoto', 34.98, 135.76, '["ev"]', '{}', 'low', NULL, NULL);
INSERT INTO energy_stops VALUES ('st_2', 'ENEOS Rinku', 'Osaka', 34.41, 135.30, '["gasoline","hybrid"]', '{}', 'low', NULL, NULL);
"""

DRIVER = [{"name": "Wei Lin", "license_no": "IDP-1"}]


@pytest.fixture
def cr(make_service):
    return make_service("car_rental", SEED)


def _book(cr, offer="off_prius", plan="ins_basic", **kw):
    args = {
        "offer_id": offer,
        "insurance_plan_id": plan,
        "driver_user_id": "u_lin",
        "drivers": DRIVER,
        "contact": {"email": "l@x"},
        **kw,
    }
    return cr.call("create_rental_booking", args)


def test_search_and_compare(cr):
    res = cr.call("search_vehicle_offers", {"pickup_city": "osaka", "return_city": "Kyoto", "seats": 5})
    assert [o["offer_id"] for o in res["offers"]] == ["off_leaf", "off_prius"]
    assert res["offers"][0]["price_breakdown"]["rental_subtotal"] == 14000.0
    assert cr.call("search_vehicle_offers", {"pickup_at": "2026-05-01", "seats": 4})["count"] == 3
    cut = cr.call("search_vehicle_offers", {"pickup_at": "2026-05-01", "seats": 4, "max_results": 1})
    assert (cut["count"], cut["total"], len(cut["offers"])) == (1, 3, 1)  # the list was cut: more exist
    assert cr.call("get_vehicle_offer", {"offer_id": "off_kei"})["rental_days"] == 3
    cmp = cr.call(
        "compare_energy_options",
        {
            "pickup_city": "Osaka",
            "return_city": "Kyoto",
            "pickup_at": "2026-05-01",
            "return_at": "2026-05-03",
            "route_km_estimate": 400,
        },
    )
    leaf = cmp["comparisons"][0]
    assert leaf["estimated_energy_units"] == 60.0 and leaf["estimated_energy_cost"]["amount"] == 2400.0
    assert leaf["estimated_trip_cost_without_insurance"]["amount"] == 21900.0 and "range" in leaf["planning_notes"][0]
    assert cmp["highway_policy"]["policies"][0]["detail"] == {"card": "rent ETC card"}
    assert [p["plan_id"] for p in cr.call("list_insurance_plans", {})["plans"]] == ["ins_basic", "ins_full"]
    assert [s["stop_id"] for s in cr.call("list_energy_stops", {"energy_type": "ev"})["stops"]] == ["st_1"]


def test_booking_lifecycle_with_late_return(cr):
    b = _book(cr)
    assert b["status"] == "held" and b["estimated_total"]["amount"] == 23700.0  # (8000+1100)*2 + 5500
    assert cr.call("get_vehicle_offer", {"offer_id": "off_prius"})["inventory_remaining"] == 0
    assert _book(cr)["code"] == "INVENTORY_GONE"
    ref = b["booking_ref"]
    assert (
        cr.call("report_vehicle_condition", {"booking_ref": ref, "phase": "return", "checklist_items": {}})["code"]
        == "BAD_STATE"
    )
    out = cr.call(
        "report_vehicle_condition",
        {"booking_ref": ref, "phase": "pickup", "checklist_items": {"scratches": "rear bumper"}, "odometer_km": 1200},
    )
    assert out["status"] == "picked_up"
    inc = cr.call(
        "report_incident",
        {
            "booking_ref": ref,
            "incident_type": "scrape",
            "occurred_at": "2026-05-02T15:00:00+09:00",
            "location": "Arashiyama",
            "description": "mirror",
        },
    )
    assert (
        inc["incident_id"] == "CRI000001" and inc["platform_case_ref"] == "CASE-000001" and inc["safe_to_drive"] is True
    )
    assert cr.call("get_return_requirements", {"booking_ref": ref})["open_incidents"][0]["incident_id"] == "CRI000001"
    cr.ctx.clock.advance_to(datetime(2026, 5, 3, 12, 0, tzinfo=SHANGHAI))  # 13:00 JST, 3 h late
    out = cr.call(
        "report_vehicle_condition",
        {"booking_ref": ref, "phase": "return", "checklist_items": {}, "fuel_or_charge_level": "full"},
    )
    assert out["status"] == "returned" and out["condition"]["late_fee"]["amount"] == 9100.0
    got = cr.call("get_booking", {"booking_ref": ref})
    assert (
        got["estimated_total"]["amount"] == 32800.0 and [h["event"] for h in got["history"]][-1] == "RETURN_CONDITION"
    )
    assert cr.call("list_bookings", {"user_id": "u_lin"})["count"] == 1


def test_unclaimed_hold_becomes_no_show(cr):
    ref = _book(cr, offer="off_kei")["booking_ref"]
    cr.ctx.clock.advance_to(datetime(2026, 5, 2, 10, 0, tzinfo=SHANGHAI))  # 25 h after pickup time
    assert cr.call("get_booking", {"booking_ref": ref})["status"] == "no_show"
    assert cr.call("get_vehicle_offer", {"offer_id": "off_kei"})["inventory_remaining"] == 1
    assert _book(cr, offer="off_kei")["code"] == "OFFER_EXPIRED"


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_booking", {"booking_ref": "CR999"}, "BOOKING_NOT_FOUND"),
        ("get_vehicle_offer", {"offer_id": "nope"}, "OFFER_NOT_FOUND"),
        (
            "create_rental_booking",
            {
                "offer_id": "off_prius",
                "insurance_plan_id": "nope",
                "driver_user_id": "u",
                "drivers": DRIVER,
                "contact": {},
            },
            "INSURANCE_PLAN_NOT_FOUND",
        ),
        (
            "create_rental_booking",
            {
                "offer_id": "off_prius",
                "insurance_plan_id": "ins_basic",
                "driver_user_id": "u",
                "drivers": [],
                "contact": {},
            },
            "BAD_ARG",
        ),
        (
            "create_rental_booking",
            {
                "offer_id": "off_prius",
                "insurance_plan_id": "ins_basic",
                "driver_user_id": "u",
                "drivers": DRIVER,
                "contact": {},
                "payment": {"card_last4": "0000"},
            },
            "PAYMENT_DECLINED",
        ),
        ("report_vehicle_condition", {"booking_ref": "CR1", "phase": "midway", "checklist_items": {}}, "BAD_ARG"),
        (
            "report_incident",
            {"booking_ref": "CR1", "incident_type": "x", "occurred_at": "t", "location": "l", "description": "d"},
            "BOOKING_NOT_FOUND",
        ),
        ("search_vehicle_offers", {"energy_type": "diesel"}, "BAD_ARG"),
        ("list_bookings", {"user_id": 5}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(cr, tool, args, code):
    before = table_dump(cr)
    result = cr.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(cr) == before


def test_failed_incident_rolls_back(cr):
    ref = _book(cr)["booking_ref"]
    before = table_dump(cr)
    res = cr.call(
        "report_incident",
        {"booking_ref": ref, "incident_type": "x", "occurred_at": "yesterday", "location": "l", "description": "d"},
    )
    assert res["code"] == "BAD_ARG"
    assert table_dump(cr) == before


def test_pickup_times_match_by_day_or_by_instant(cr):
    def found(**kw):
        return sorted(o["offer_id"] for o in cr.call("search_vehicle_offers", kw)["offers"])

    assert found(pickup_at="2026-05-01") == ["off_kei", "off_leaf", "off_prius"]
    # the same instant written in UTC, and with the stored offset, both match
    assert found(pickup_at="2026-05-01T01:00:00Z") == found(pickup_at="2026-05-01T10:00:00+09:00")
    assert found(pickup_at="2026-05-01T10:00:00+09:00", return_at="2026-05-03T11:00:00+09:00") == ["off_kei"]
    assert found(pickup_at="2026-05-02") == []
    bad = cr.call("search_vehicle_offers", {"pickup_at": "tomorrow"})
    assert bad["code"] == "BAD_ARG" and "pickup_at" in bad["error"]
