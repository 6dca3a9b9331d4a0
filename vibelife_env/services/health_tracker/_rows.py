"""Constants, validators and row-to-dict helpers for the health_tracker service."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from vibelife_env.errors import ToolError

METRIC_TYPES = ("weight", "steps", "heart_rate", "sleep_minutes", "blood_pressure", "body_fat", "finger_pain", "score")
DEFAULT_UNITS = {
    "weight": "g",
    "steps": "count",
    "heart_rate": "bpm",
    "sleep_minutes": "min",
    "blood_pressure": "mmHg",
    "body_fat": "percent",
    "finger_pain": "score",
    "score": "score",
}
#: Descriptive adult resting reference ranges (never diagnostic); blood pressure is systolic.
TYPICAL_RANGES = {"heart_rate": (50.0, 100.0), "blood_pressure": (90.0, 140.0), "body_fat": (8.0, 30.0)}
SUMMARY_DAYS = {"week": 7, "month": 30}
GOAL_PERIODS = ("day", "week", "month", "once")
GOAL_DIRECTIONS = ("at_least", "at_most")
GOAL_STATUSES = ("active", "achieved", "abandoned")
MEALS = ("breakfast", "lunch", "dinner", "snack")
#: Goal types measured by the latest metric reading.
LEVEL_GOALS = ("weight", "body_fat", "heart_rate", "blood_pressure", "sleep_minutes")


def check_type(metric_type: str) -> None:
    if metric_type not in METRIC_TYPES:
        raise ToolError("BAD_ARG", f"type must be one of {METRIC_TYPES}, got {metric_type!r}")


def check_user(user_id: str) -> None:
    if not user_id.strip():
        raise ToolError("BAD_ARG", "user_id is required")


def parse_day(value: str, name: str = "date") -> date:
    try:
        return date.fromisoformat(value) if len(value) == 10 else _bad_date(name, value)
    except ValueError:
        return _bad_date(name, value)


def check_timestamp(value: str, name: str) -> None:
    raw = value.strip()
    try:
        datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith("Z") else raw)
    except ValueError:
        _bad_date(name, value)


def _bad_date(name: str, value: str) -> date:
    raise ToolError("BAD_ARG", f"{name} must be ISO-8601 (YYYY-MM-DD for dates), got {value!r}")


def shift(day: date, days: int) -> str:
    return (day + timedelta(days=days)).isoformat()


def metric(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "metric_id": r["metric_id"],
        "user_id": r["user_id"],
        "type": r["type"],
        "value": float(r["value"]),
        "value_text": r["value_text"],
        "unit": r["unit"],
        "recorded_at": r["recorded_at"],
    }


def workout(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "workout_id": r["workout_id"],
        "user_id": r["user_id"],
        "type": r["type"],
        "duration_min": int(r["duration_min"]),
        "calories": _int(r["calories"]),
        "distance_m": _int(r["distance_m"]),
        "started_at": r["started_at"],
    }


def goal(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "goal_id": r["goal_id"],
        "user_id": r["user_id"],
        "type": r["type"],
        "target": float(r["target"]),
        "unit": r["unit"],
        "period": r["period"],
        "direction": r["direction"],
        "start_date": r["start_date"],
        "status": r["status"],
    }


def meal(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "nutrition_id": r["nutrition_id"],
        "user_id": r["user_id"],
        "meal": r["meal"],
        "description": r["description"],
        "calories": int(r["calories"]),
        "protein_g": _float(r["protein_g"]),
        "carbs_g": _float(r["carbs_g"]),
        "fat_g": _float(r["fat_g"]),
        "logged_at": r["logged_at"],
    }


def _int(v: Any) -> int | None:
    return int(v) if v is not None else None


def _float(v: Any) -> float | None:
    return float(v) if v is not None else None
