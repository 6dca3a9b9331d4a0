"""delivery_logistics through its tools: quotes, pickups, clock-driven scans, changes, tickets."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO shipments VALUES ('shp_a', 'u1', 'SF100', 'SF Express', 'express', 'in_transit',
  '{"recipient": "Shop", "phone": "1", "province": "Jiangsu", "city": "Suzhou", "district": "SIP", "detail": "Dock 1"}',
  '{"recipient": "Li", "phone": "2", "province": "Jiangsu", "city": "Nanjing", "district": "Jianye", "detail": "Road 1"}',
  1.5, '{}', 19900, 1200, '2026-04-15T09:00:00+08:00', '2026-04-18', NULL, '2026-04-16T08:00:00+08:00', NULL);
INSERT INTO shipments VALUES ('shp_b', 'u1', 'YT200', 'YTO', 'standard', 'delivered',
  '{"recipient": "Shop", "phone": "1", "province": "Guangdong", "city": "Dongguan", "district": "Changan", "detail": "Hall 6"}',
  '{"recipient": "Li", "phone": "2", "province": "Jiangsu", "city": "Nanjing", "district": "Jianye", "detail": "Road 1"}',
  0.5, '{}', 0, 700, '2026-04-10T09:00:00+08:00', '2026-04-13', NULL, '2026-04-13T18:00:00+08:00', NULL);
INSERT INTO shipment_events VALUES ('e1', 'shp_a', '2026-04-15T10:00:00+08:00', 'Suzhou', 'picked_up', 'collected');
INSERT INTO shipment_events VALUES ('e2', 'shp_a', '2026-04-16T08:00:00+08:00', 'Suzhou hub', 'in_transit', 'departed');
"""

HOME = {
    "recipient": "Li",
    "phone": "139",
    "province": "Jiangsu",
    "city": "Nanjing",
    "district": "Jianye",
    "detail": "Road 1",
}
MOM = {
    "recipient": "Wang",
    "phone": "138",
    "province": "Zhejiang",
    "city": "Hangzhou",
    "district": "Xihu",
    "detail": "Lane 2",
}


@pytest.fixture
def dl(make_service):
    return make_service("delivery_logistics", SEED)


def _pickup(dl, **extra):
    args = {"user_id": "u1", "pickup_addr": HOME, "dest_addr": MOM, "item_desc": "books", "weight_kg": 2.0,
            "service_type": "express", "scheduled_at": "2026-04-17T14:00"}  # fmt: skip
    return dl.call("request_pickup", {**args, **extra})


def test_estimate_is_deterministic_and_pickup_books_first_offer(dl):
    quote = dl.call(
        "estimate_delivery", {"origin_addr": HOME, "dest_addr": MOM, "weight_kg": 2.0, "service_type": "express"}
    )
    assert quote == dl.call(
        "estimate_delivery", {"origin_addr": HOME, "dest_addr": MOM, "weight_kg": 2.0, "service_type": "express"}
    )
    assert len(quote["offers"]) == 3 and quote["offers"][0]["fee_minor"] == 1200 + 500 * 2
    assert quote["origin"] == "JiangsuNanjingJianye"
    booked = _pickup(dl)
    assert booked["shipment_id"] == "ship_00000001"
    assert booked["carrier"] == quote["offers"][0]["carrier"] and booked["eta_date"] == "2026-04-19"
    assert booked["confirmation_code"].startswith("DL-")
    track = dl.call("track_package", {"tracking_no": booked["tracking_no"]})
    assert track["status"] == "label_created" and track["latest_event"]["status_code"] == "label_created"


def test_scans_follow_the_clock(dl):
    booked = _pickup(dl)
    tn = booked["tracking_no"]
    dl.ctx.clock.advance(timedelta(hours=6))  # 15:00, picked up at 14:00
    assert dl.call("track_package", {"tracking_no": tn})["status"] == "picked_up"
    dl.ctx.clock.advance(timedelta(hours=4))  # 19:00, left the hub at 18:00
    assert dl.call("cancel_shipment", {"tracking_no": tn, "reason": "x"})["code"] == "CANCEL_TOO_LATE"
    dl.ctx.clock.advance(timedelta(days=3))
    shipment = dl.call("get_shipment", {"shipment_id": booked["shipment_id"]})
    assert shipment["status"] == "delivered" and shipment["time_window"] == "anytime"  # the courier's plan
    assert [e["status_code"] for e in shipment["events"]] == [
        "label_created", "picked_up", "in_transit", "out_for_delivery", "delivered"
    ]  # fmt: skip


def test_change_address_then_cancel_before_pickup(dl):
    booked = _pickup(dl)
    tn = booked["tracking_no"]
    dl.call("subscribe_status", {"tracking_no": tn, "channel": "sms", "target": "139"})
    updated = dl.call("change_address", {"tracking_no": tn, "new_address": HOME})
    assert (
        updated["destination"] == "JiangsuNanjingJianye" and updated["events"][-1]["status_code"] == "address_changed"
    )
    out = dl.call("cancel_shipment", {"tracking_no": tn, "reason": "no longer needed"})
    assert out["status"] == "cancelled"
    assert dl.query_one("SELECT status FROM pickups")["status"] == "cancelled"
    assert dl.query_one("SELECT COUNT(*) AS n FROM notifications_outbox")["n"] == 2
    dl.ctx.clock.advance(timedelta(days=1))  # a cancelled shipment is never picked up
    assert dl.call("track_package", {"tracking_no": tn})["status"] == "cancelled"


def test_reschedule_in_transit_and_seeded_listing(dl):
    out = dl.call("reschedule_delivery", {"tracking_no": "SF100", "new_date": "2026-04-20", "time_window": "evening"})
    assert out["new_eta_date"] == "2026-04-20" and out["confirmation_code"].startswith("DL-")
    assert dl.call("track_package", {"tracking_no": "SF100"})["eta_date"] == "2026-04-20"
    listing = dl.call("list_shipments", {"user_id": "u1"})
    assert [s["shipment_id"] for s in listing["items"]] == ["shp_a", "shp_b"] and listing["count"] == 2
    assert all("time_window" in s for s in listing["items"])  # the courier's planned window (None: no plan)
    assert (
        dl.call("list_shipments", {"user_id": "u1", "status_filter": "delivered"})["items"][0]["tracking_no"] == "YT200"
    )
    locked = dl.call("change_address", {"tracking_no": "SF100", "new_address": MOM})
    assert locked["code"] == "IN_TRANSIT_LOCKED"


def test_issues_and_subscriptions(dl):
    ticket = dl.call("report_issue", {"tracking_no": "YT200", "issue_type": "damaged", "description": "crushed box"})
    assert ticket["ticket_id"] == "tkt_00000001" and ticket["expected_response_date"] == "2026-04-19"
    issues = dl.call("list_issues", {"user_id": "u1", "status_filter": "open"})
    assert issues["count"] == 1 and issues["items"][0]["tracking_no"] == "YT200"
    sub = dl.call("subscribe_status", {"tracking_no": "SF100", "channel": "email", "target": "li@example.com"})
    assert dl.call("unsubscribe", {"subscription_id": sub["subscription_id"]})["active"] is False
    assert dl.call("unsubscribe", {"subscription_id": sub["subscription_id"]})["already_inactive"] is True


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("track_package", {"tracking_no": "NOPE"}, "SHIPMENT_NOT_FOUND"),
        ("get_shipment", {"shipment_id": "nope"}, "SHIPMENT_NOT_FOUND"),
        (
            "estimate_delivery",
            {"origin_addr": {"city": "X"}, "dest_addr": MOM, "weight_kg": 1, "service_type": "express"},
            "BAD_ARG",
        ),
        (
            "estimate_delivery",
            {"origin_addr": HOME, "dest_addr": MOM, "weight_kg": 1, "service_type": "rocket"},
            "BAD_ARG",
        ),
        (
            "estimate_delivery",
            {"origin_addr": HOME, "dest_addr": MOM, "weight_kg": 0, "service_type": "express"},
            "BAD_ARG",
        ),
        (
            "request_pickup",
            {
                "user_id": "u1",
                "pickup_addr": HOME,
                "dest_addr": MOM,
                "item_desc": "b",
                "weight_kg": 1,
                "service_type": "express",
                "scheduled_at": "2026-04-01",
            },
            "BAD_ARG",
        ),
        (
            "reschedule_delivery",
            {"tracking_no": "YT200", "new_date": "2026-04-20", "time_window": "morning"},
            "BAD_STATE",
        ),
        (
            "reschedule_delivery",
            {"tracking_no": "SF100", "new_date": "2026-04-01", "time_window": "morning"},
            "BAD_ARG",
        ),
        ("reschedule_delivery", {"tracking_no": "SF100", "new_date": "2026-04-20", "time_window": "night"}, "BAD_ARG"),
        ("cancel_shipment", {"tracking_no": "SF100", "reason": "x"}, "CANCEL_TOO_LATE"),
        ("report_issue", {"tracking_no": "SF100", "issue_type": "stolen", "description": "x"}, "BAD_ARG"),
        ("list_issues", {"user_id": "u1", "status_filter": "pending"}, "BAD_ARG"),
        ("subscribe_status", {"tracking_no": "SF100", "channel": "pigeon", "target": "x"}, "BAD_ARG"),
        ("unsubscribe", {"subscription_id": "sub_404"}, "SUBSCRIPTION_NOT_FOUND"),
        ("list_shipments", {"user_id": "u1", "limit": "ten"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(dl, tool, args, code):
    before = table_dump(dl)
    result = dl.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(dl) == before


def test_failed_write_does_not_store_due_scans(dl):
    tn = _pickup(dl)["tracking_no"]
    dl.ctx.clock.advance(timedelta(days=1))
    before = table_dump(dl)
    # the cancel settles the due scans first, then refuses: nothing may remain
    assert dl.call("cancel_shipment", {"tracking_no": tn, "reason": "late"})["code"] == "CANCEL_TOO_LATE"
    assert table_dump(dl) == before
