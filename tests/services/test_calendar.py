"""calendar through its tools: main flows, error paths, atomicity."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO calendars VALUES ('cal_work', 'u1', 'Work', '#111', 'Asia/Shanghai', 0, '2025-01-01T00:00:00Z');
INSERT INTO calendars VALUES ('cal_home', 'u1', 'Home', '#222', 'Asia/Shanghai', 1, '2025-02-01T00:00:00Z');
INSERT INTO calendars VALUES ('cal_other', 'u2', 'Other', NULL, 'UTC', 1, '2025-03-01T00:00:00Z');
INSERT INTO events VALUES ('evt_a', 'cal_home', 'Dentist', 'Bring X-ray', 'Clinic 3', '2026-04-20T01:00:00Z', '2026-04-20T02:00:00Z', 0, 'confirmed', '2026-04-01T00:00:00Z', '2026-04-02T00:00:00Z', NULL, NULL);
INSERT INTO events VALUES ('evt_b', 'cal_work', 'Standup', NULL, NULL, '2026-04-20T08:30:00+08:00', '2026-04-20T08:45:00+08:00', 0, 'confirmed', '2026-04-01T00:00:00Z', '2026-04-05T00:00:00Z', 'FREQ=DAILY', NULL);
INSERT INTO events VALUES ('evt_c', 'cal_work', 'Review', 'quarterly', 'Room 5', '2026-05-02T10:00:00', '2026-05-02T11:00:00', 0, 'tentative', '2026-04-01T00:00:00Z', '2026-04-03T00:00:00Z', NULL, NULL);
INSERT INTO attendees (event_id, email, name, response_status) VALUES ('evt_c', 'boss@example.com', 'Ms Boss', 'accepted');
INSERT INTO reminders (event_id, method, minutes_before) VALUES ('evt_a', 'popup', 10);
INSERT INTO reminders (event_id, method, minutes_before) VALUES ('evt_a', 'email', 1440);
"""


@pytest.fixture
def cal(make_service):
    return make_service("calendar", SEED)


def test_list_calendars_primary_first(cal):
    rows = cal.call("list_calendars", {"user_id": "u1"})
    assert [r["calendar_id"] for r in rows] == ["cal_home", "cal_work"]
    assert rows[0]["is_primary"] is True


def test_list_events_window_compares_instants(cal):
    # evt_b (00:30Z) starts before evt_a (01:00Z) even though its string sorts later
    rows = cal.call("list_events", {"time_min": "2026-04-20T00:00:00+08:00", "time_max": "2026-04-21T00:00:00+08:00"})
    assert [r["event_id"] for r in rows] == ["evt_b", "evt_a"]
    assert rows[1]["reminders"] == [
        {"method": "email", "minutes_before": 1440},
        {"method": "popup", "minutes_before": 10},
    ]
    # naive stored time is read in the calendar's zone (Asia/Shanghai): 10:00 local = 02:00Z
    rows = cal.call("list_events", {"time_min": "2026-05-02T01:30:00Z", "time_max": "2026-05-02T02:30:00Z"})
    assert [r["event_id"] for r in rows] == ["evt_c"]
    assert [r["event_id"] for r in cal.call("list_events", {"calendar_id": "cal_work", "order_by": "updated"})] == [
        "evt_b",
        "evt_c",
    ]
    assert len(cal.call("list_events", {"max_results": 1})) == 1


def test_search_matches_attendees_and_text(cal):
    assert [r["event_id"] for r in cal.call("search_events", {"query": "MS BOSS"})] == ["evt_c"]
    assert [r["event_id"] for r in cal.call("search_events", {"query": "x-ray"})] == ["evt_a"]
    assert cal.call("search_events", {"query": "review", "time_max": "2026-05-01T00:00:00Z"}) == []


def test_create_update_delete(cal):
    ev = cal.call(
        "create_event",
        {
            "summary": "Lunch",
            "start": "2026-04-22T12:00:00+08:00",
            "end": "2026-04-22T13:00:00+08:00",
            "attendees": [{"email": "a@x.com"}],
            "reminders": [{"minutes_before": 30}],
        },
    )
    assert ev["event_id"] == "evt_00000001" and ev["calendar_id"] == "cal_home"
    assert ev["attendees"] == [{"email": "a@x.com", "name": None, "response_status": "needsAction"}]
    assert ev["reminders"] == [{"method": "popup", "minutes_before": 30}]
    assert ev["created_at"] == "2026-04-17T01:00:00Z" and ev["status"] == "confirmed"
    up = cal.call(
        "update_event",
        {
            "event_id": ev["event_id"],
            "end": "2026-04-22T14:00:00+08:00",
            "location": "Cafe",
            "status": "tentative",
            "calendar_id": "cal_work",
        },
    )
    assert up["end"]["dateTime"] == "2026-04-22T14:00:00+08:00" and up["location"] == "Cafe"
    assert up["status"] == "tentative" and up["calendar_id"] == "cal_work"
    assert cal.call("update_event", {"event_id": ev["event_id"], "location": ""})["location"] == ""
    assert cal.call("delete_event", {"event_id": ev["event_id"]}) == {"event_id": ev["event_id"], "deleted": True}
    assert cal.call("get_event", {"event_id": ev["event_id"]})["code"] == "EVENT_NOT_FOUND"
    assert cal.query("SELECT COUNT(*) AS n FROM attendees WHERE event_id = 'evt_00000001'")[0]["n"] == 0


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_event", {"event_id": "evt_zzz"}, "EVENT_NOT_FOUND"),
        ("get_event", {"event_id": "evt_a", "calendar_id": "cal_work"}, "EVENT_NOT_FOUND"),
        ("delete_event", {"event_id": "evt_a", "calendar_id": "cal_work"}, "EVENT_NOT_FOUND"),
        ("list_events", {"calendar_id": "cal_nope"}, "CALENDAR_NOT_FOUND"),
        ("list_events", {"order_by": "summary"}, "BAD_ARG"),
        ("list_events", {"time_min": "tomorrow"}, "BAD_ARG"),
        (
            "create_event",
            {"summary": "x", "start": "2026-04-22T12:00:00Z", "end": "2026-04-22T12:00:00Z"},
            "BAD_ARG",
        ),
        (
            "create_event",
            {"summary": "x", "start": "2026-04-22T12:00:00Z", "end": "2026-04-22T13:00:00Z", "calendar_id": "nope"},
            "CALENDAR_NOT_FOUND",
        ),
        (
            "create_event",
            {
                "summary": "x",
                "start": "2026-04-22T12:00:00Z",
                "end": "2026-04-22T13:00:00Z",
                "reminders": [{"minutes_before": 5}, {"minutes_before": -1}],
            },
            "BAD_ARG",
        ),
        (
            "create_event",
            {
                "summary": "x",
                "start": "2026-04-22T12:00:00Z",
                "end": "2026-04-22T13:00:00Z",
                "attendees": [{"email": "a@x", "response_status": "maybe"}],
            },
            "BAD_ARG",
        ),
        ("update_event", {"event_id": "evt_a", "start": "2026-04-20T03:00:00Z"}, "BAD_ARG"),
        ("update_event", {"event_id": "evt_a", "summary": "Dentist 2", "status": "done"}, "BAD_ARG"),
        ("search_events", {"query": ""}, "BAD_ARG"),
        ("search_events", {"query": 5}, "BAD_ARG"),
        ("list_calendars", {}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(cal, tool, args, code):
    before = table_dump(cal)
    result = cal.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(cal) == before


def test_create_without_calendars_is_bad_arg(make_service):
    empty = make_service("calendar")
    result = empty.call(
        "create_event", {"summary": "x", "start": "2026-04-22T12:00:00Z", "end": "2026-04-22T13:00:00Z"}
    )
    assert result["code"] == "BAD_ARG"
    assert empty.query("SELECT * FROM _counters") == []
