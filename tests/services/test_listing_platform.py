"""listing_platform through its tools: search, detail, favourites, viewings, self-listing, stats."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO agents VALUES ('agt_a', 'Zhou Lan', 'HomeLink', '160', 4.8, 211, 'Jing''an');
INSERT INTO listings VALUES ('l1', 'rent', 'Sunny one-bed near park', 'Shanghai', 'Jingan', 'Garden Court', 650000, 42.0, 1,
  'Line 2', '{"floor": "6/18"}', 'quiet, elevator', '["living room"]', 'agt_a', NULL, 'active', '2026-04-10T10:00:00+08:00');
INSERT INTO listings VALUES ('l2', 'rent', 'Two-bed family flat', 'Shanghai', 'Jingan', 'River View', 980000, 75.0, 2,
  'Line 7', '{}', 'school nearby', '[]', 'agt_a', NULL, 'active', '2026-04-12T10:00:00+08:00');
INSERT INTO listings VALUES ('l3', 'rent', 'Old studio', 'Shanghai', 'Xuhui', 'Old Lane', 400000, 20.0, 0,
  NULL, '{}', NULL, '[]', NULL, 'owner9', 'delisted', '2026-03-01T10:00:00+08:00');
INSERT INTO listings VALUES ('l4', 'used_car', 'Compact hatchback 2019', 'Shanghai', 'Pudong', NULL, 5800000, NULL, NULL,
  NULL, '{"mileage_km": 42000}', 'one owner', '[]', NULL, 'owner9', 'active', '2026-04-01T10:00:00+08:00');
INSERT INTO market_stats VALUES ('st1', 'Jingan', 'Shanghai', 'rent', 820000, 'per_month', 120, '2026-03');
INSERT INTO market_stats VALUES ('st2', 'Jingan Temple', 'Shanghai', 'rent', 900000, 'per_month', 40, '2026-03');
INSERT INTO viewings VALUES ('viw_old', 'u1', 'l2', 'agt_a', '2026-04-01T10:00:00+08:00', 'scheduled', '2026-03-30T10:00:00+08:00');
"""


@pytest.fixture
def lp(make_service):
    return make_service("listing_platform", SEED)


def test_search_filters_sorts_and_hides_delisted(lp):
    ids = [r["listing_id"] for r in lp.call("search_listings", {"category": "rent"})]
    assert ids == ["l2", "l1"]  # newest first, delisted l3 hidden
    cheap = lp.call("search_listings", {"category": "rent", "max_price_minor": 700000, "sort": "price_asc"})
    assert [r["listing_id"] for r in cheap] == ["l1"]
    assert [r["listing_id"] for r in lp.call("search_listings", {"category": "rent", "min_rooms": 2})] == ["l2"]
    assert [r["listing_id"] for r in lp.call("search_listings", {"category": "rent", "keyword": "ELEVATOR"})] == ["l1"]
    assert lp.call("search_listings", {"category": "rent", "district": "Xuhui"}) == []


def test_detail_agent_and_contact(lp):
    detail = lp.call("get_listing_detail", {"listing_id": "l1"})
    assert detail["attrs"] == {"floor": "6/18"} and detail["photos"] == ["living room"]
    assert detail["agent"]["name"] == "Zhou Lan"
    assert lp.call("get_listing_detail", {"listing_id": "l4"})["agent"] is None
    sent = lp.call("contact_agent", {"user_id": "u1", "listing_id": "l1", "message": "Is it still available?"})
    assert sent["contact_id"] == "con_000001" and sent["status"] == "sent" and sent["agent"]["agent_id"] == "agt_a"


def test_favourites(lp):
    first = lp.call("save_listing", {"user_id": "u1", "listing_id": "l2"})
    assert first["status"] == "saved" and first["saved_at"] == "2026-04-17T09:00:00+08:00"
    lp.ctx.clock.advance(timedelta(minutes=5))
    lp.call("save_listing", {"user_id": "u1", "listing_id": "l1"})
    assert [r["listing_id"] for r in lp.call("list_saved", {"user_id": "u1"})] == ["l2", "l1"]
    assert lp.call("unsave_listing", {"user_id": "u1", "listing_id": "l2"})["status"] == "unsaved"
    assert [r["listing_id"] for r in lp.call("list_saved", {"user_id": "u1"})] == ["l1"]


def test_viewings_read_the_clock(lp):
    booked = lp.call("schedule_viewing", {"user_id": "u1", "listing_id": "l1", "datetime": "2026-04-18T15:00:00+08:00"})
    assert booked["viewing_id"] == "viw_000001" and booked["agent_id"] == "agt_a"
    assert [v["viewing_id"] for v in lp.call("list_viewings", {"user_id": "u1"})] == ["viw_old", "viw_000001"]
    assert lp.call("cancel_viewing", {"viewing_id": "viw_000001"}) == {
        "viewing_id": "viw_000001",
        "status": "cancelled",
    }
    assert lp.call("cancel_viewing", {"viewing_id": "viw_000001"})["code"] == "BAD_ARG"
    assert lp.call("cancel_viewing", {"viewing_id": "viw_old"})["code"] == "BAD_ARG"  # already happened


def test_post_and_delist_own_listing(lp):
    posted = lp.call(
        "post_listing",
        {"user_id": "u1", "category": "secondhand", "title": "Baby stroller", "price_minor": 30000, "city": "Shanghai",
         "attrs": {"condition": "good"}, "photos": ["front"]},
    )  # fmt: skip
    assert posted["listing_id"] == "lst_00000001" and posted["owner_user_id"] == "u1" and posted["agent_id"] is None
    assert posted["attrs"] == {"condition": "good"} and posted["listed_at"] == "2026-04-17T09:00:00+08:00"
    assert lp.call("search_listings", {"category": "secondhand"})[0]["listing_id"] == "lst_00000001"
    assert lp.call("delist", {"listing_id": "lst_00000001", "user_id": "u2"})["code"] == "NOT_OWNER"
    assert lp.call("delist", {"listing_id": "lst_00000001", "user_id": "u1"})["status"] == "delisted"
    assert lp.call("search_listings", {"category": "secondhand"}) == []


def test_market_stats_and_saved_search(lp):
    assert [r["stat_id"] for r in lp.call("get_market_stats", {"area_or_community": "Jingan"})] == ["st1"]
    assert [r["stat_id"] for r in lp.call("get_market_stats", {"area_or_community": "Temple"})] == ["st2"]
    sub = lp.call(
        "subscribe_search", {"user_id": "u1", "query_json": '{"category": "rent", "max_price_minor": 900000}'}
    )
    assert sub["subscription_id"] == "sub_000001" and sub["query"]["max_price_minor"] == 900000


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("search_listings", {"category": "boat"}, "BAD_ARG"),
        ("search_listings", {"category": "rent", "sort": "cheapest"}, "BAD_ARG"),
        ("search_listings", {"category": "rent", "limit": 0}, "BAD_ARG"),
        ("get_listing", {"listing_id": "nope"}, "LISTING_NOT_FOUND"),
        ("get_agent", {"agent_id": "nope"}, "AGENT_NOT_FOUND"),
        ("contact_agent", {"user_id": "u1", "listing_id": "l3", "message": "hi"}, "LISTING_DELISTED"),
        ("save_listing", {"user_id": "u1", "listing_id": "nope"}, "LISTING_NOT_FOUND"),
        ("unsave_listing", {"user_id": "u1", "listing_id": "l1"}, "NOT_SAVED"),
        ("schedule_viewing", {"user_id": "u1", "listing_id": "l1", "datetime": "next tuesday"}, "BAD_ARG"),
        (
            "schedule_viewing",
            {"user_id": "u1", "listing_id": "l1", "datetime": "2026-04-16T10:00:00+08:00"},
            "BAD_ARG",
        ),
        (
            "schedule_viewing",
            {"user_id": "u1", "listing_id": "l3", "datetime": "2026-04-20T10:00:00+08:00"},
            "LISTING_DELISTED",
        ),
        ("cancel_viewing", {"viewing_id": "viw_404"}, "VIEWING_NOT_FOUND"),
        (
            "post_listing",
            {"user_id": "u1", "category": "rent", "title": "t", "price_minor": 0, "city": "c"},
            "BAD_ARG",
        ),
        (
            "post_listing",
            {"user_id": "u1", "category": "castle", "title": "t", "price_minor": 1, "city": "c"},
            "BAD_ARG",
        ),
        ("delist", {"listing_id": "l4", "user_id": "u1"}, "NOT_OWNER"),
        ("get_market_stats", {"area_or_community": "Atlantis"}, "STATS_NOT_FOUND"),
        ("subscribe_search", {"user_id": "u1", "query_json": "{oops"}, "BAD_ARG"),
        ("search_listings", {"category": "rent", "min_rooms": "two"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(lp, tool, args, code):
    before = table_dump(lp)
    result = lp.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(lp) == before


def test_duplicate_save_is_refused_atomically(lp):
    lp.call("save_listing", {"user_id": "u1", "listing_id": "l1"})
    before = table_dump(lp)
    assert lp.call("save_listing", {"user_id": "u1", "listing_id": "l1"})["code"] == "ALREADY_SAVED"
    assert table_dump(lp) == before
