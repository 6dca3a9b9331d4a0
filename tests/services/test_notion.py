"""notion through its tools: pages, blocks, databases, search, users, comments, errors."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO users VALUES ('u_bot', 'Helper', NULL, NULL, 'bot');
INSERT INTO users VALUES ('u_ann', 'Ann', NULL, 'ann@example.test', 'person');
INSERT INTO workspaces VALUES ('ws1', 'Home', 'u_ann');
INSERT INTO pages VALUES ('pg_trip', 'workspace', 'ws1', 'Kyoto Trip Plan', 0, '2026-03-01T08:00:00Z', '2026-03-02T08:00:00Z', '{"status": "draft"}', NULL, NULL);
INSERT INTO pages VALUES ('pg_old', 'workspace', 'ws1', 'Old budget', 1, '2026-01-01T08:00:00Z', '2026-01-01T08:00:00Z', '{}', NULL, NULL);
INSERT INTO pages VALUES ('pg_gym', 'workspace', 'ws1', 'Gym log', 0, '2026-03-05T08:00:00+08:00', '2026-03-05T08:00:00+08:00', '{}', NULL, NULL);
INSERT INTO databases VALUES ('db_exp', 'workspace', 'ws1', 'Trip Expenses', '{"Item": {"type": "title"}}', 0, '2026-02-01T00:00:00Z', '2026-02-01T00:00:00Z');
INSERT INTO database_rows VALUES ('r1', 'db_exp', '{"Item": {"title": [{"plain_text": "Train"}]}, "Amount": {"number": 120}, "Paid": {"checkbox": true}, "Kind": {"select": {"name": "transport"}}}', '2026-02-02T00:00:00Z', '2026-02-02T00:00:00Z', 0);
INSERT INTO database_rows VALUES ('r2', 'db_exp', '{"Item": "Hotel", "Amount": 480, "Paid": false, "Kind": "lodging"}', '2026-02-03T00:00:00Z', '2026-02-03T00:00:00Z', 0);
INSERT INTO database_rows VALUES ('r3', 'db_exp', '{"Item": "Snacks", "Kind": "food"}', '2026-02-01T12:00:00Z', '2026-02-01T12:00:00Z', 0);
INSERT INTO blocks VALUES ('b1', NULL, 'pg_trip', 'heading_2', '{"text": "Days"}', 0, 0, 0, '2026-03-01T08:00:00Z', '2026-03-01T08:00:00Z');
INSERT INTO blocks VALUES ('b2', NULL, 'pg_trip', 'paragraph', '{"rich_text": [{"plain_text": "Day 1 temples"}]}', 1, 0, 1, '2026-03-01T08:00:00Z', '2026-03-01T08:00:00Z');
INSERT INTO blocks VALUES ('b3', 'b2', NULL, 'to_do', '{"rich_text": [{"plain_text": "Buy pass"}], "checked": false}', 0, 0, 0, '2026-03-01T08:00:00Z', '2026-03-01T08:00:00Z');
INSERT INTO blocks VALUES ('b4', NULL, 'pg_trip', 'paragraph', '{"text": "gone"}', 0, 1, 2, '2026-03-01T08:00:00Z', '2026-03-01T08:00:00Z');
INSERT INTO comments VALUES ('c1', 'pg_trip', 'd1', '{"text": "Check rail pass price"}', 'u_ann', '2026-03-03T00:00:00Z');
INSERT INTO counters VALUES ('page', 10);
"""

TITLE = {"title": {"title": [{"type": "text", "text": {"content": "Packing list"}}]}}


@pytest.fixture
def nt(make_service):
    return make_service("notion", SEED, now=datetime(2026, 4, 17, 9, 0, tzinfo=timezone(timedelta(hours=8))))


def ids(result):
    return [o["id"] for o in result["results"]]


def test_create_page_with_children_then_read_back(nt):
    page = nt.call(
        "API-post-page",
        {
            "parent": {"type": "page_id", "page_id": "pg_trip"},
            "properties": TITLE,
            "children": [
                {"type": "heading_2", "heading_2": {"rich_text": [{"type": "text", "text": {"content": "Bag"}}]}},
                {"type": "toggle", "toggle": {"text": "Docs", "children": [{"paragraph": "Passport"}]}},
            ],
        },
    )
    assert page["object"] == "page" and page["parent"] == {"type": "page_id", "page_id": "pg_trip"}
    assert page["created_time"] == "2026-04-17T01:00:00.000Z"
    assert page["properties"]["title"]["title"][0]["text"]["content"] == "Packing list"
    kids = nt.call("API-get-block-children", {"block_id": page["id"]})
    assert [b["type"] for b in kids["results"]] == ["heading_2", "toggle"]
    assert kids["results"][0]["heading_2"]["rich_text"][0]["plain_text"] == "Bag"
    toggle = kids["results"][1]
    assert toggle["has_children"] and toggle["toggle"]["rich_text"][0]["plain_text"] == "Docs"
    nested = nt.call("API-get-block-children", {"block_id": toggle["id"]})
    assert nested["results"][0]["paragraph"]["rich_text"][0]["plain_text"] == "Passport"
    # dashless ids resolve too
    assert nt.call("API-retrieve-a-page", {"page_id": page["id"].replace("-", "")})["id"] == page["id"]
    found = nt.call("API-post-search", {"query": "packing"})
    assert ids(found) == [page["id"]]


def test_block_children_order_archive_and_after(nt):
    assert ids(nt.call("API-get-block-children", {"block_id": "pg_trip"})) == ["b1", "b2"]
    assert ids(nt.call("API-get-block-children", {"block_id": "b2"})) == ["b3"]
    added = nt.call(
        "API-patch-block-children",
        {"block_id": "pg_trip", "children": [{"type": "divider", "divider": {}}], "after": "b1"},
    )
    new_id = added["results"][0]["id"]
    assert ids(nt.call("API-get-block-children", {"block_id": "pg_trip"})) == ["b1", new_id, "b2"]
    page1 = nt.call("API-get-block-children", {"block_id": "pg_trip", "page_size": 2})
    assert page1["has_more"] and page1["next_cursor"] == "b2"
    assert ids(nt.call("API-get-block-children", {"block_id": "pg_trip", "start_cursor": "b2"})) == ["b2"]
    assert nt.call("API-delete-a-block", {"block_id": "b1"})["archived"] is True
    assert ids(nt.call("API-get-block-children", {"block_id": "pg_trip"})) == [new_id, "b2"]
    assert nt.call("API-retrieve-a-block", {"block_id": "b1"})["in_trash"] is True


def test_update_block_content(nt):
    up = nt.call(
        "API-update-a-block", {"block_id": "b1", "heading_2": {"rich_text": [{"text": {"content": "Itinerary"}}]}}
    )
    assert up["heading_2"] == {
        "rich_text": [{"type": "text", "text": {"content": "Itinerary"}, "plain_text": "Itinerary"}]
    }
    done = nt.call("API-update-a-block", {"block_id": "b3", "to_do": {"checked": True}})
    assert done["to_do"]["checked"] is True and done["to_do"]["rich_text"][0]["plain_text"] == "Buy pass"
    retyped = nt.call("API-update-a-block", {"block_id": "b1", "type": "heading_1", "heading_1": {"color": "red"}})
    assert retyped["type"] == "heading_1" and retyped["heading_1"]["color"] == "red"
    assert nt.call("API-update-a-block", {"block_id": "b4", "archived": False})["archived"] is False


def test_database_rows_query_filter_sort(nt):
    q = nt.call("API-post-database-query", {"database_id": "db_exp"})
    assert ids(q) == ["r3", "r1", "r2"] and q["type"] == "page_or_database"
    f = {"property": "Amount", "number": {"greater_than": 100}}
    assert ids(nt.call("API-post-database-query", {"database_id": "db_exp", "filter": f})) == ["r1", "r2"]
    f = {"or": [{"property": "kind", "select": {"equals": "food"}}, {"property": "Paid", "checkbox": {"equals": True}}]}
    assert ids(nt.call("API-post-database-query", {"database_id": "db_exp", "filter": f})) == ["r3", "r1"]
    s = [{"property": "Amount", "direction": "descending"}]
    assert ids(nt.call("API-post-database-query", {"database_id": "db_exp", "sorts": s})) == ["r2", "r1", "r3"]
    row = nt.call(
        "API-post-page",
        {
            "parent": {"database_id": "db_exp"},
            "properties": {"Item": {"title": [{"text": {"content": "Tea"}}]}, "Amount": {"number": 9}},
        },
    )
    assert row["parent"] == {"type": "database_id", "database_id": "db_exp"}
    newest = nt.call(
        "API-post-database-query",
        {"database_id": "db_exp", "sorts": [{"timestamp": "created_time", "direction": "descending"}], "page_size": 1},
    )
    assert ids(newest) == [row["id"]] and newest["has_more"]
    patched = nt.call("API-patch-page", {"page_id": row["id"], "properties": {"Amount": {"number": 12}}})
    assert patched["properties"]["Amount"] == {"number": 12}
    assert nt.call("API-retrieve-a-page-property", {"page_id": "r1", "property_id": "kind"}) == {
        "select": {"name": "transport"}
    }


def test_patch_page_title_archive_and_search(nt):
    assert ids(nt.call("API-post-search", {"query": "budget"})) == []  # archived
    res = nt.call("API-post-search", {})
    assert ids(res) == ["pg_gym", "pg_trip", "db_exp"]  # newest edit first; +08:00 compared as an instant
    assert ids(nt.call("API-post-search", {"query": "trip", "filter": {"value": "database"}})) == ["db_exp"]
    assert ids(nt.call("API-post-search", {"query": "DRAFT"})) == ["pg_trip"]  # property text
    up = nt.call(
        "API-patch-page",
        {
            "page_id": "pg_trip",
            "properties": {"title": {"title": [{"text": {"content": "Osaka Trip"}}]}, "status": None},
        },
    )
    assert "status" not in up["properties"] and up["last_edited_time"] == "2026-04-17T01:00:00.000Z"
    assert ids(nt.call("API-post-search", {"query": "osaka"})) == ["pg_trip"]
    assert (
        nt.call("API-retrieve-a-page-property", {"page_id": "pg_gym", "property_id": "title"})["title"][0]["plain_text"]
        == "Gym log"
    )
    assert nt.call("API-patch-page", {"page_id": "pg_trip", "archived": True})["archived"] is True
    assert ids(nt.call("API-post-search", {"query": "osaka"})) == []


def test_databases_users_comments(nt):
    db = nt.call(
        "API-create-a-database",
        {
            "parent": {"page_id": "pg_gym"},
            "title": "Lifts",
            "properties": {"Lift": {"title": {}}, "Kg": {"number": {}}},
        },
    )
    assert db["title"][0]["plain_text"] == "Lifts" and db["properties"]["Kg"]["type"] == "number"
    assert nt.call("API-get-block-children", {"block_id": "pg_gym"})["results"][-1]["type"] == "child_database"
    up = nt.call("API-update-a-database", {"database_id": db["id"], "properties": {"Kg": None, "Reps": {"number": {}}}})
    assert set(up["properties"]) == {"Lift", "Reps"}
    assert nt.call("API-retrieve-a-database", {"database_id": "db_exp"})["title"][0]["plain_text"] == "Trip Expenses"
    assert nt.call("API-get-self", {})["id"] == "u_bot"
    assert nt.call("API-get-user", {"user_id": "u_ann"})["person"] == {"email": "ann@example.test"}
    assert ids(nt.call("API-get-users", {})) == ["u_ann", "u_bot"]
    c = nt.call("API-create-a-comment", {"discussion_id": "d1", "rich_text": "Done: 3,000 yen"})
    assert c["parent"]["page_id"] == "pg_trip" and c["created_by"]["id"] == "u_bot"
    thread = nt.call("API-retrieve-a-comment", {"block_id": "pg_trip"})
    assert [x["rich_text"][0]["plain_text"] for x in thread["results"]] == ["Check rail pass price", "Done: 3,000 yen"]


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("API-retrieve-a-page", {"page_id": "nope"}, "PAGE_NOT_FOUND"),
        ("API-get-block-children", {"block_id": "nope"}, "PAGE_NOT_FOUND"),
        ("API-retrieve-a-block", {"block_id": "nope"}, "BLOCK_NOT_FOUND"),
        ("API-post-database-query", {"database_id": "nope"}, "DATABASE_NOT_FOUND"),
        (
            "API-post-database-query",
            {"database_id": "db_exp", "filter": {"property": "Amount", "number": {"between": 1}}},
            "BAD_ARG",
        ),
        (
            "API-post-database-query",
            {"database_id": "db_exp", "filter": {"property": "Amount", "formula": {}}},
            "BAD_ARG",
        ),
        ("API-post-page", {"parent": {"page_id": "nope"}, "properties": TITLE}, "BAD_ARG"),
        ("API-post-page", {"parent": {"page_id": "pg_old"}, "properties": TITLE}, "BAD_ARG"),
        ("API-post-page", {"parent": {"type": "block_id", "block_id": "b1"}}, "BAD_ARG"),
        (
            "API-post-page",
            {"parent": {"page_id": "pg_trip"}, "children": [{"type": "paragraph"}, {"type": "banner"}]},
            "BAD_ARG",
        ),
        ("API-patch-block-children", {"block_id": "pg_trip", "children": []}, "BAD_ARG"),
        (
            "API-patch-block-children",
            {"block_id": "pg_trip", "children": [{"type": "divider"}], "after": "b3"},
            "BAD_ARG",
        ),
        ("API-patch-page", {"page_id": "pg_old", "properties": TITLE}, "BAD_ARG"),
        ("API-patch-page", {"page_id": "pg_trip"}, "BAD_ARG"),
        ("API-retrieve-a-page-property", {"page_id": "pg_trip", "property_id": "Owner"}, "BAD_ARG"),
        ("API-update-a-block", {"block_id": "b1", "paragraph": {"text": "x"}}, "BAD_ARG"),
        ("API-update-a-block", {"block_id": "b4", "paragraph": {"text": "x"}}, "BAD_ARG"),
        ("API-post-search", {"filter": {"value": "blocks"}}, "BAD_ARG"),
        ("API-get-user", {"user_id": "ghost"}, "USER_NOT_FOUND"),
        (
            "API-create-a-database",
            {"parent": {"page_id": "pg_gym"}, "properties": {"Kg": {"number": {}}}},
            "BAD_ARG",
        ),
        ("API-create-a-comment", {"discussion_id": "zzz", "rich_text": "hi"}, "BAD_ARG"),
        ("API-get-block-children", {"block_id": "pg_trip", "start_cursor": "b3"}, "BAD_ARG"),
        ("API-retrieve-a-page", {"page_id": 7}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(nt, tool, args, code):
    before = table_dump(nt)
    result = nt.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(nt) == before


def test_get_self_without_users(make_service):
    assert make_service("notion").call("API-get-self", {})["code"] == "USER_NOT_FOUND"


def test_updates_with_nothing_to_change_say_what_would_change_something(nt):
    before = table_dump(nt)
    page = nt.call("API-patch-page", {"page_id": "pg_trip"})
    assert page["code"] == "BAD_ARG" and "properties, icon, cover, archived, in_trash" in page["error"]
    block = nt.call("API-update-a-block", {"block_id": "b1"})
    assert block["code"] == "BAD_ARG" and "heading_2=..." in block["error"]
    assert table_dump(nt) == before
