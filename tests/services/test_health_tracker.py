"""health_tracker through its tools: metrics, workouts, goals, nutrition, range flags."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

# The fixture clock is 2026-04-17 09:00 (Asia/Shanghai).
SEED = """
INSERT INTO metrics VALUES ('m_w1', 'u1', 'weight', 80000, NULL, 'g', '2026-04-08T07:00:00+08:00');
INSERT INTO metrics VALUES ('m_w2', 'u1', 'weight', 79500, NULL, 'g', '2026-04-12T07:00:00+08:00');
INSERT INTO metrics VALUES ('m_w3', 'u1', 'weight', 79000, NULL, 'g', '2026-04-16T07:00:00+08:00');
INSERT INTO metrics VALUES ('m_s1', 'u1', 'steps', 4000, NULL, 'count', '2026-04-16T12:00:00+08:00');
INSERT INTO metrics VALUES ('m_s2', 'u1', 'steps', 9000, NULL, 'count', '2026-04-16T22:00:00+08:00');
INSERT INTO metrics VALUES ('m_s3', 'u1', 'steps', 6000, NULL, 'count', '2026-04-15T22:00:00+08:00');
INSERT INTO metrics VALUES ('m_bp', 'u1', 'blood_pressure', 146, '146/94', 'mmHg', '2026-04-14T07:00:00+08:00');
INSERT INTO metrics VALUES ('m_hr', 'u1', 'heart_rate', 45, NULL, 'bpm', '2026-04-15T07:00:00+08:00');
INSERT INTO metrics VALUES ('m_hr2', 'u1', 'heart_rate', 70, NULL, 'bpm', '2026-04-16T07:00:00+08:00');
INSERT INTO workouts VALUES ('w_1', 'u1', 'run', 30, 300, 5000, '2026-04-16T18:00:00+08:00');
INSERT INTO workouts VALUES ('w_2', 'u1', 'gym', 45, NULL, NULL, '2026-04-16T07:00:00+08:00');
INSERT INTO workouts VALUES ('w_3', 'u1', 'run', 40, 400, 7000, '2026-04-01T18:00:00+08:00');
INSERT INTO goals VALUES ('g_run', 'u1', 'run_distance', 10000, 'm', 'week', 'at_least', '2026-04-01', 'active');
INSERT INTO goals VALUES ('g_wt', 'u1', 'weight', 78000, 'g', 'once', 'at_most', '2026-04-01', 'active');
INSERT INTO _counters VALUES ('workout_seq', 0);
"""


@pytest.fixture
def health(make_service):
    return make_service("health_tracker", SEED)


def test_metrics_log_list_latest(health):
    logged = health.call(
        "log_metric", {"user_id": "u1", "type": "weight", "value": 78800, "recorded_at": "2026-04-17T07:00:00+08:00"}
    )
    assert logged["metric_id"] == "met_00000001" and logged["unit"] == "g" and logged["value"] == 78800.0
    assert health.call("get_latest_metric", {"user_id": "u1", "type": "weight"})["metric_id"] == "met_00000001"
    window = health.call(
        "get_metrics", {"user_id": "u1", "type": "weight", "since": "2026-04-10", "until": "2026-04-16"}
    )
    assert [m["metric_id"] for m in window] == ["m_w3", "m_w2"]
    assert len(health.call("get_metrics", {"user_id": "u1", "type": "weight", "limit": 2})) == 2


def test_summary_window_ends_today(health):
    s = health.call("get_metric_summary", {"user_id": "u1", "type": "weight", "period": "week"})
    assert (s["window_start"], s["window_end"]) == ("2026-04-11", "2026-04-17")
    assert (s["count"], s["first"], s["last"], s["delta"], s["trend"], s["avg"]) == (
        2,
        79500.0,
        79000.0,
        -500.0,
        "down",
        79250.0,
    )
    empty = health.call("get_metric_summary", {"user_id": "u1", "type": "body_fat", "period": "month"})
    assert empty["count"] == 0 and empty["trend"] is None and empty["unit"] == "percent"


def test_workouts_and_activity(health):
    w = health.call(
        "log_workout",
        {
            "user_id": "u1",
            "type": "swim",
            "duration_min": 20,
            "started_at": "2026-04-16T20:00:00+08:00",
            "distance_m": 800,
        },
    )
    assert w["workout_id"] == "wkt_000001" and w["calories"] is None
    day = health.call("get_activity_summary", {"user_id": "u1", "date": "2026-04-16"})
    assert day["steps"] == 9000 and day["workout_count"] == 3
    assert (day["active_minutes"], day["workout_calories"], day["distance_m"]) == (95, 300, 5800)
    assert [x["workout_id"] for x in day["workouts"]] == ["w_2", "w_1", "wkt_000001"]
    assert [x["workout_id"] for x in health.call("list_workouts", {"user_id": "u1", "since": "2026-04-10"})] == [
        "wkt_000001",
        "w_1",
        "w_2",
    ]
    assert health.call("get_workout", {"workout_id": "w_3"})["distance_m"] == 7000


def test_goals_progress(health):
    run = health.call("get_goal_progress", {"user_id": "u1", "goal_id": "g_run"})
    assert (run["current"], run["percent_of_target"], run["on_track"]) == (5000.0, 50.0, False)
    health.call(
        "log_workout",
        {
            "user_id": "u1",
            "type": "run",
            "duration_min": 30,
            "started_at": "2026-04-17T07:00:00+08:00",
            "distance_m": 5000,
        },
    )
    assert health.call("get_goal_progress", {"user_id": "u1", "goal_id": "g_run"})["on_track"] is True
    wt = health.call("get_goal_progress", {"user_id": "u1", "goal_id": "g_wt"})
    assert wt["current"] == 79000.0 and wt["on_track"] is False and wt["window_start"] == "2026-04-01"
    new = health.call("set_goal", {"user_id": "u1", "type": "steps", "target": 20000, "period": "week"})
    assert new["status"] == "active" and new["start_date"] == "2026-04-17" and new["goal_id"] == "goal_000001"
    assert health.call("get_goal_progress", {"user_id": "u1", "goal_id": new["goal_id"]})["current"] == 15000.0
    assert [g["goal_id"] for g in health.call("get_goals", {"user_id": "u1", "status": "active"})] == [
        "goal_000001",
        "g_wt",
        "g_run",
    ]


def test_nutrition_totals(health):
    health.call(
        "log_nutrition",
        {
            "user_id": "u1",
            "meal": "lunch",
            "calories": 600,
            "logged_at": "2026-04-17T12:00:00+08:00",
            "protein_g": 30.5,
        },
    )
    health.call(
        "log_nutrition",
        {
            "user_id": "u1",
            "meal": "breakfast",
            "calories": 350,
            "logged_at": "2026-04-17T08:00:00+08:00",
            "protein_g": 12,
            "fat_g": 9,
        },
    )
    s = health.call("get_nutrition_summary", {"user_id": "u1", "date": "2026-04-17"})
    assert (s["meal_count"], s["total_calories"], s["total_protein_g"], s["total_fat_g"], s["total_carbs_g"]) == (
        2,
        950,
        42.5,
        9.0,
        0,
    )
    assert [m["meal"] for m in s["meals"]] == ["breakfast", "lunch"]


def test_health_alerts_are_descriptive(health):
    alerts = health.call("list_health_alerts", {"user_id": "u1"})
    assert [(a["metric_id"], a["flag"]) for a in alerts] == [
        ("m_hr", "below_typical_range"),
        ("m_bp", "above_typical_range"),
    ]
    assert "146/94" in alerts[1]["note"] and "not a diagnosis" in alerts[1]["note"]
    assert len(health.call("list_health_alerts", {"user_id": "u1", "limit": 1})) == 1


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        (
            "log_metric",
            {"user_id": "u1", "type": "mood", "value": 1, "recorded_at": "2026-04-17T07:00:00+08:00"},
            "BAD_ARG",
        ),
        ("log_metric", {"user_id": "u1", "type": "steps", "value": 1, "recorded_at": "yesterday"}, "BAD_ARG"),
        ("log_metric", {"user_id": "u1", "type": "steps", "value": "many", "recorded_at": "2026-04-17"}, "BAD_ARG"),
        ("get_latest_metric", {"user_id": "u1", "type": "body_fat"}, "METRIC_NOT_FOUND"),
        ("get_metric_summary", {"user_id": "u1", "type": "weight", "period": "year"}, "BAD_ARG"),
        ("get_metrics", {"user_id": "u1", "type": "weight", "since": "04/01/2026"}, "BAD_ARG"),
        ("get_workout", {"workout_id": "w_404"}, "WORKOUT_NOT_FOUND"),
        (
            "log_workout",
            {"user_id": "u1", "type": "run", "duration_min": 0, "started_at": "2026-04-17T07:00:00"},
            "BAD_ARG",
        ),
        ("get_goal_progress", {"user_id": "u2", "goal_id": "g_run"}, "GOAL_NOT_FOUND"),
        ("set_goal", {"user_id": "u1", "type": "steps", "target": 1, "period": "year"}, "BAD_ARG"),
        (
            "set_goal",
            {"user_id": "u1", "type": "steps", "target": 1, "period": "day", "direction": "more"},
            "BAD_ARG",
        ),
        (
            "log_nutrition",
            {"user_id": "u1", "meal": "brunch", "calories": 1, "logged_at": "2026-04-17T07:00:00"},
            "BAD_ARG",
        ),
        ("get_nutrition_summary", {"user_id": "u1", "date": "today"}, "BAD_ARG"),
        ("list_health_alerts", {"user_id": "u1", "limit": 0}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(health, tool, args, code):
    before = table_dump(health)
    result = health.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(health) == before
