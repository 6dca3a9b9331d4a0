"""content_platform through its tools: search, notes, comments, social graph, topics, atomicity."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

U = "INSERT INTO users VALUES"
N = "INSERT INTO notes VALUES"
SEED = f"""
{U} ('u_me', 'me', 'Me', NULL, 0, 3, 0, '2024-01-01T00:00:00Z');
{U} ('u_pro', 'pro', 'Study Pro', 'tips', 1, 1000, 2, '2022-05-01T08:00:00+08:00');
{U} ('u_fan', 'fan', 'Fan', NULL, 0, 0, 0, '2023-01-01');
{N} ('n1', 'u_pro', 'Exam plan 2026', 'daily schedule', '备考', '["考研", "plan"]', '["chart"]', 100, 10, 5, 900, '2026-03-01');
{N} ('n2', 'u_pro', 'Reading list', 'books for the exam', '备考', '["书单"]', '[]', 10, 100, 0, 300, '2026-04-10T09:00:00+08:00');
{N} ('n3', 'u_fan', 'Kitchen remodel', 'tiles and exam of costs', '装修', '[]', '[]', 500, 0, 0, 50, '2026-04-10T02:00:00Z');
INSERT INTO comments VALUES ('c_old', 'n1', 'u_fan', 'first', 2, '2026-03-02T10:00:00+08:00');
INSERT INTO comments VALUES ('c_new', 'n1', 'u_me', 'second', 0, '2026-03-02T03:00:00Z');
INSERT INTO follows VALUES ('u_me', 'u_fan', '2026-01-01T00:00:00Z');
INSERT INTO topics VALUES ('topic_000001', '考研上岸', '备考', 'exam success stories', 1, 5000);
INSERT INTO topics VALUES ('topic_000002', '装修日记', '装修', 'home exam? no', 0, 9000);
INSERT INTO note_topics VALUES ('n2', 'topic_000001');
"""


@pytest.fixture
def cp(make_service):
    return make_service("content_platform", SEED)


def ids(rows, key="note_id"):
    return [r[key] for r in rows]


def test_search_sorts_and_filters(cp):
    # hot: n3 = 500, n1 = 100+20+15 = 135, n2 = 10+200 = 210
    assert ids(cp.call("search_notes", {"keyword": "exam"})) == ["n3", "n2", "n1"]
    assert ids(cp.call("search_notes", {"keyword": "EXAM", "sort": "latest"})) == ["n3", "n2", "n1"]
    assert ids(cp.call("search_notes", {"keyword": "exam", "sort": "most_collected", "limit": 1})) == ["n2"]
    assert ids(cp.call("search_notes", {"keyword": "exam", "category": "备考"})) == ["n2", "n1"]
    assert ids(cp.call("search_notes", {"keyword": "考研 daily"})) == ["n1"]
    hit = cp.call("search_notes", {"keyword": "plan"})[0]
    assert hit["author_nickname"] == "Study Pro" and hit["tags"] == ["考研", "plan"]
    trending = cp.call("get_trending", {"category": "备考"})
    assert ids(trending) == ["n2", "n1"] and trending[0]["rank"] == 1 and trending[1]["view_count"] == 900


def test_note_detail_and_comments(cp):
    note = cp.call("get_note", {"note_id": "n1"})
    assert note["author"]["is_official"] is True and note["author"]["follower_count"] == 1000
    assert note["image_captions"] == ["chart"]
    assert ids(cp.call("get_note_comments", {"note_id": "n1"}), "comment_id") == ["c_old", "c_new"]
    out = cp.call("post_comment", {"note_id": "n1", "user_id": "u_me", "body": "  thanks  "})
    assert out["comment_id"] == "cmt_00000001" and out["body"] == "thanks"
    assert cp.call("get_note", {"note_id": "n1"})["comment_count"] == 6
    last = cp.call("get_note_comments", {"note_id": "n1"})[-1]
    assert last["comment_id"] == "cmt_00000001" and last["nickname"] == "Me"


def test_publish_files_under_topic(cp):
    out = cp.call(
        "publish_note",
        {"user_id": "u_me", "title": "My plan", "body": "b", "tags": ["考研上岸", "x"], "category": "备考"},
    )
    assert out["note_id"] == "note_00000001" and out["published_at"] == "2026-04-17"
    assert cp.call("get_user_profile", {"user_id": "u_me"})["note_count"] == 1
    feed = cp.call("get_topic_feed", {"topic": "#考研上岸"})
    assert feed["note_count"] == 2 and ids(feed["notes"]) == ["n2", "note_00000001"]
    assert ids(cp.call("list_user_notes", {"user_id": "u_me"})) == ["note_00000001"]
    assert cp.call("publish_note", {"user_id": "u_me", "title": "t", "body": "b"})["category"] == "其他"


def test_follow_like_collect_roundtrip(cp):
    assert cp.call("get_user_profile", {"user_id": "u_me"})["following_count"] == 1
    out = cp.call("follow_user", {"user_id": "u_me", "target_user_id": "u_pro"})
    assert out == {"follower_id": "u_me", "followee_id": "u_pro", "following": True, "followee_follower_count": 1001}
    assert cp.call("get_user_profile", {"user_id": "u_me"})["following_count"] == 2
    assert cp.call("unfollow_user", {"user_id": "u_me", "target_user_id": "u_pro"})["followee_follower_count"] == 1000
    assert cp.call("like_note", {"user_id": "u_me", "note_id": "n2"})["like_count"] == 11
    assert cp.call("collect_note", {"user_id": "u_me", "note_id": "n2"})["collect_count"] == 101
    assert cp.call("collect_note", {"user_id": "u_me", "note_id": "n1"})["collected"] is True
    coll = cp.call("list_collections", {"user_id": "u_me"})
    assert set(ids(coll)) == {"n1", "n2"} and coll[0]["collected_at"].endswith("Z")
    assert cp.call("uncollect_note", {"user_id": "u_me", "note_id": "n2"}) == {
        "user_id": "u_me",
        "note_id": "n2",
        "collected": False,
        "collect_count": 100,
    }
    assert ids(cp.call("list_collections", {"user_id": "u_me"})) == ["n1"]


def test_topics_search(cp):
    assert ids(cp.call("search_topics", {"keyword": "exam"}), "topic_id") == ["topic_000002", "topic_000001"]
    assert cp.call("search_topics", {"keyword": "考研"})[0]["view_count"] == 5000


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("search_notes", {"keyword": "  "}, "BAD_ARG"),
        ("search_notes", {"keyword": "x", "sort": "random"}, "BAD_ARG"),
        ("search_notes", {"keyword": "x", "category": "美食"}, "BAD_ARG"),
        ("get_trending", {"limit": 0}, "BAD_ARG"),
        ("get_note", {"note_id": "nope"}, "NOTE_NOT_FOUND"),
        ("get_note_comments", {"note_id": "nope"}, "NOTE_NOT_FOUND"),
        ("post_comment", {"note_id": "n1", "user_id": "ghost", "body": "x"}, "USER_NOT_FOUND"),
        ("post_comment", {"note_id": "n1", "user_id": "u_me", "body": " "}, "BAD_ARG"),
        ("publish_note", {"user_id": "ghost", "title": "t", "body": "b"}, "USER_NOT_FOUND"),
        ("publish_note", {"user_id": "u_me", "title": "t", "body": "b", "category": "美食"}, "BAD_ARG"),
        ("publish_note", {"user_id": "u_me", "title": "", "body": "b"}, "BAD_ARG"),
        ("publish_note", {"user_id": "u_me", "title": "t", "body": "b", "tags": "考研"}, "BAD_ARG"),
        ("get_user_profile", {"user_id": "ghost"}, "USER_NOT_FOUND"),
        ("follow_user", {"user_id": "u_me", "target_user_id": "u_me"}, "SELF_FOLLOW"),
        ("follow_user", {"user_id": "u_me", "target_user_id": "u_fan"}, "ALREADY_EXISTS"),
        ("follow_user", {"user_id": "u_me", "target_user_id": "ghost"}, "USER_NOT_FOUND"),
        ("unfollow_user", {"user_id": "u_me", "target_user_id": "u_pro"}, "NOT_FOLLOWING"),
        ("like_note", {"user_id": "u_me", "note_id": "nope"}, "NOTE_NOT_FOUND"),
        ("uncollect_note", {"user_id": "u_me", "note_id": "n1"}, "NOT_COLLECTED"),
        ("list_collections", {"user_id": "ghost"}, "USER_NOT_FOUND"),
        ("search_topics", {"keyword": ""}, "BAD_ARG"),
        ("get_topic_feed", {"topic": "不存在"}, "TOPIC_NOT_FOUND"),
    ],
)
def test_errors_leave_tables_unchanged(cp, tool, args, code):
    before = table_dump(cp)
    result = cp.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(cp) == before


def test_duplicate_like_rolls_back(cp):
    cp.call("like_note", {"user_id": "u_me", "note_id": "n1"})
    before = table_dump(cp)
    assert cp.call("like_note", {"user_id": "u_me", "note_id": "n1"})["code"] == "ALREADY_EXISTS"
    assert table_dump(cp) == before
