"""notification_hub through its tools: main flows, error paths, atomicity."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO official_accounts VALUES ('acc_jp', 'Japan Travel Desk', 'travel', 'Entry rules');
INSERT INTO official_account_posts VALUES ('p1', 'acc_jp', 'Old rule', 's', NULL, '2026-03-01T00:00:00Z');
INSERT INTO official_account_posts VALUES ('p2', 'acc_jp', 'New rule', 's', NULL, '2026-04-10T00:00:00Z');
INSERT INTO notifications VALUES ('ntf_1', 'u1', 'flight_booking', 'price_drop', NULL, 'Fare down', 'b', '{"fare": 100}', '2026-04-01T08:00:00Z', 0);
INSERT INTO notifications VALUES ('ntf_2', 'u1', 'hotel_booking', 'restock', NULL, 'Room back', 'b', NULL, '2026-04-12T08:00:00Z', 0);
INSERT INTO notifications VALUES ('ntf_3', 'u2', 'hotel_booking', 'restock', NULL, 'Other user', 'b', NULL, '2026-04-12T08:00:00Z', 0);
"""


@pytest.fixture
def hub(make_service):
    return make_service("notification_hub", SEED)


def test_subscription_lifecycle(hub):
    sub = hub.call(
        "create_subscription",
        {"user_id": "u1", "source": "ecommerce", "type": "restock", "target": "sku9", "condition_json": '{"qty": 1}'},
    )
    assert sub["subscription_id"] == "sub_000001"
    assert sub["condition"] == {"qty": 1} and sub["status"] == "active"
    assert hub.call("pause_subscription", {"subscription_id": "sub_000001"})["status"] == "paused"
    assert hub.call("delete_subscription", {"subscription_id": "sub_000001"})["status"] == "deleted"
    assert hub.call("list_subscriptions", {"user_id": "u1"}) == []
    assert len(hub.call("list_subscriptions", {"user_id": "u1", "status": "deleted"})) == 1


def test_notifications_filter_sort_and_mark(hub):
    rows = hub.call("list_notifications", {"user_id": "u1"})
    assert [r["notification_id"] for r in rows] == ["ntf_2", "ntf_1"]
    assert rows[1]["payload"] == {"fare": 100}
    assert [r["notification_id"] for r in hub.call("list_notifications", {"user_id": "u1", "since": "2026-04-05"})] == [
        "ntf_2"
    ]
    assert hub.call("mark_read", {"notification_id": "ntf_1"})["read"] is True
    assert [r["notification_id"] for r in hub.call("list_notifications", {"user_id": "u1", "unread_only": True})] == [
        "ntf_2"
    ]
    assert hub.call("mark_all_read", {"user_id": "u1"}) == {"user_id": "u1", "marked_read": 1}


def test_feed_and_accounts(hub):
    assert (
        hub.call("subscribe_official_account", {"user_id": "u1", "account_id": "acc_jp"})["name"] == "Japan Travel Desk"
    )
    assert (
        hub.call("subscribe_official_account", {"user_id": "u1", "account_id": "acc_jp"})["code"]
        == "ALREADY_SUBSCRIBED"
    )
    assert [p["post_id"] for p in hub.call("get_account_feed", {"account_id": "acc_jp", "limit": 1})] == ["p2"]


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_subscription", {"subscription_id": "sub_999"}, "SUBSCRIPTION_NOT_FOUND"),
        ("get_notification", {"notification_id": "nope"}, "NOTIFICATION_NOT_FOUND"),
        ("create_subscription", {"user_id": "u1", "source": "x", "type": "weird", "target": "t"}, "BAD_ARG"),
        (
            "create_subscription",
            {"user_id": "u1", "source": "x", "type": "keyword", "target": "t", "condition_json": "{"},
            "BAD_ARG",
        ),
        ("list_notifications", {"user_id": "u1", "since": "April"}, "BAD_ARG"),
        ("create_price_alert", {"user_id": "u1", "item_ref": "i", "target_price_minor": 0}, "BAD_ARG"),
        ("get_account_feed", {"account_id": "nope"}, "ACCOUNT_NOT_FOUND"),
        ("list_notifications", {"user_id": ["u1"]}, "BAD_ARG"),
        ("list_notifications", {}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(hub, tool, args, code):
    before = table_dump(hub)
    result = hub.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(hub) == before


def test_failed_write_rolls_back_partial_work(hub):
    hub.call("create_subscription", {"user_id": "u1", "source": "s", "type": "keyword", "target": "t"})
    before = table_dump(hub)
    # update with no fields fails after the existence check; nothing changes
    assert hub.call("update_subscription", {"subscription_id": "sub_000001"})["code"] == "BAD_ARG"
    assert table_dump(hub) == before
