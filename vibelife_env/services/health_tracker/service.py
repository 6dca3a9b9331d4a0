"""health_tracker: body metrics, workouts, goals, nutrition and descriptive range flags.

Tool surface: the public ``health_tracker_mock`` spec (fourteen tools). Units by metric
type: weight grams, steps count, heart_rate bpm, sleep_minutes minutes, blood_pressure
systolic mmHg (``value_text`` holds "sys/dia"), body_fat percent. Readings carry the
caller's timestamps; calendar days are the date part of those timestamps. Trailing
windows (metric summaries, goal progress) end today on the world's virtual clock.

Safety: tools only record and describe data. ``list_health_alerts`` flags readings outside
a typical reference range with neutral wording and never diagnoses or advises.

Ids come from ``_counters`` (``met_%08d``, ``wkt_%06d``, ``goal_%06d``, ``nut_%08d``).
Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's
``BAD_TYPE``, ``BAD_PERIOD``, ``BAD_DATE``, ``BAD_VALUE``). Besides it:
``METRIC_NOT_FOUND``, ``WORKOUT_NOT_FOUND``, ``GOAL_NOT_FOUND``.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.health_tracker import _rows as R


class HealthTrackerService(Service):
    """Personal health log: metrics, workouts, goals and meals."""

    name = "health_tracker"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------------ metrics
    @tool
    def log_metric(
        self,
        user_id: str,
        type: str,
        value: float,
        recorded_at: str,
        unit: str | None = None,
        value_text: str | None = None,
    ) -> dict[str, Any]:
        """Record one health metric reading (data only; never interpreted medically).

        Default units: weight=g, steps=count, heart_rate=bpm, sleep_minutes=min,
        blood_pressure=mmHg systolic, body_fat=percent. For composite readings such as
        blood pressure put "120/80" in value_text and the systolic number in value.

        Args:
            user_id: The user the reading belongs to.
            type: weight, steps, heart_rate, sleep_minutes, blood_pressure, body_fat, finger_pain or score.
            value: The numeric reading in the type's unit.
            recorded_at: ISO-8601 timestamp of the reading, e.g. "2026-05-18T07:10:00+08:00".
            unit: Unit override; defaults per type.
            value_text: Human-readable form, e.g. "120/80" for blood pressure.
        """
        R.check_user(user_id)
        R.check_type(type)
        R.check_timestamp(recorded_at, "recorded_at")
        metric_id = self.mint_id("met_{:08d}", "metric_seq", "metrics", "metric_id")
        self.execute(
            "INSERT INTO metrics (metric_id, user_id, type, value, value_text, unit, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (metric_id, user_id, type, float(value), value_text, unit or R.DEFAULT_UNITS[type], recorded_at),
        )
        return R.metric(self._one("metrics", "metric_id", metric_id))

    @tool(read_only=True)
    def get_metrics(
        self, user_id: str, type: str, since: str | None = None, until: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        """List a user's readings of one metric type, newest first.

        Args:
            user_id: The user.
            type: The metric type (see log_metric).
            since: Earliest date, YYYY-MM-DD inclusive.
            until: Latest date, YYYY-MM-DD inclusive.
            limit: Maximum readings (default 100, capped at 1000).
        """
        R.check_user(user_id)
        R.check_type(type)
        sql = "SELECT * FROM metrics WHERE user_id = ? AND type = ?"
        params: list[Any] = [user_id, type]
        sql, params = self._window_filter(sql, params, "recorded_at", since, until)
        sql += " ORDER BY recorded_at DESC, metric_id DESC LIMIT ?"
        params.append(_limit(limit, 1000))
        return [R.metric(r) for r in self.query(sql, params)]

    @tool(read_only=True)
    def get_latest_metric(self, user_id: str, type: str) -> dict[str, Any]:
        """The single most recent reading of a metric type for a user.

        Args:
            user_id: The user.
            type: The metric type (see log_metric).
        """
        R.check_user(user_id)
        R.check_type(type)
        row = self.query_one(
            "SELECT * FROM metrics WHERE user_id = ? AND type = ? ORDER BY recorded_at DESC, metric_id DESC LIMIT 1",
            (user_id, type),
        )
        if row is None:
            raise ToolError("METRIC_NOT_FOUND", f"no {type} readings for user {user_id!r}")
        return R.metric(row)

    @tool(read_only=True)
    def get_metric_summary(self, user_id: str, type: str, period: str) -> dict[str, Any]:
        """Descriptive statistics of a metric over the trailing week (7 days) or month (30 days) ending today.

        Returns window_start/window_end, unit, count, min, max, avg, first, last,
        delta (last - first) and trend (up/down/flat). With no readings in the window,
        count is 0 and the statistics are null. No medical interpretation.

        Args:
            user_id: The user.
            type: The metric type (see log_metric).
            period: "week" or "month".
        """
        R.check_user(user_id)
        R.check_type(type)
        if period not in R.SUMMARY_DAYS:
            raise ToolError("BAD_ARG", f"period must be one of {tuple(R.SUMMARY_DAYS)}, got {period!r}")
        today = self._today()
        start = R.shift(today, -(R.SUMMARY_DAYS[period] - 1))
        rows = self.query(
            "SELECT value, unit FROM metrics WHERE user_id = ? AND type = ? "
            "AND substr(recorded_at, 1, 10) BETWEEN ? AND ? ORDER BY recorded_at, metric_id",
            (user_id, type, start, today.isoformat()),
        )
        out: dict[str, Any] = {
            "user_id": user_id,
            "type": type,
            "period": period,
            "window_start": start,
            "window_end": today.isoformat(),
            "unit": rows[0]["unit"] if rows else R.DEFAULT_UNITS[type],
            "count": len(rows),
        }
        if not rows:
            return out | dict.fromkeys(("min", "max", "avg", "first", "last", "delta", "trend"))
        values = [float(r["value"]) for r in rows]
        delta = round(values[-1] - values[0], 4)
        return out | {
            "min": min(values),
            "max": max(values),
            "avg": round(sum(values) / len(values), 2),
            "first": values[0],
            "last": values[-1],
            "delta": delta,
            "trend": "up" if delta > 0 else "down" if delta < 0 else "flat",
        }

    # ------------------------------------------------------------------ workouts
    @tool
    def log_workout(
        self,
        user_id: str,
        type: str,
        duration_min: int,
        started_at: str,
        calories: int | None = None,
        distance_m: int | None = None,
    ) -> dict[str, Any]:
        """Record a workout session.

        Args:
            user_id: The user.
            type: Free-form label, e.g. run, gym, cycling, swim, yoga.
            duration_min: Duration in whole minutes (positive).
            started_at: ISO-8601 start timestamp.
            calories: Energy burned in kcal (>= 0), optional.
            distance_m: Distance in meters (>= 0), optional.
        """
        R.check_user(user_id)
        if not type.strip():
            raise ToolError("BAD_ARG", "type is required (e.g. run, gym, cycling, swim, yoga)")
        if duration_min <= 0:
            raise ToolError("BAD_ARG", f"duration_min must be a positive integer, got {duration_min}")
        for name, v in (("calories", calories), ("distance_m", distance_m)):
            if v is not None and v < 0:
                raise ToolError("BAD_ARG", f"{name} must be >= 0, got {v}")
        R.check_timestamp(started_at, "started_at")
        workout_id = self.mint_id("wkt_{:06d}", "workout_seq", "workouts", "workout_id")
        self.execute(
            "INSERT INTO workouts (workout_id, user_id, type, duration_min, calories, distance_m, started_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (workout_id, user_id, type, duration_min, calories, distance_m, started_at),
        )
        return R.workout(self._one("workouts", "workout_id", workout_id))

    @tool(read_only=True)
    def list_workouts(
        self, user_id: str, since: str | None = None, until: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        """List a user's workouts, newest first.

        Args:
            user_id: The user.
            since: Earliest date, YYYY-MM-DD inclusive.
            until: Latest date, YYYY-MM-DD inclusive.
            limit: Maximum workouts (default 100, capped at 500).
        """
        R.check_user(user_id)
        sql, params = self._window_filter(
            "SELECT * FROM workouts WHERE user_id = ?", [user_id], "started_at", since, until
        )
        sql += " ORDER BY started_at DESC, workout_id DESC LIMIT ?"
        params.append(_limit(limit, 500))
        return [R.workout(r) for r in self.query(sql, params)]

    @tool(read_only=True)
    def get_workout(self, workout_id: str) -> dict[str, Any]:
        """One workout by id.

        Args:
            workout_id: The workout id, e.g. wkt_000025.
        """
        row = self.query_one("SELECT * FROM workouts WHERE workout_id = ?", (workout_id,))
        if row is None:
            raise ToolError("WORKOUT_NOT_FOUND", f"workout not found: {workout_id!r}")
        return R.workout(row)

    @tool(read_only=True)
    def get_activity_summary(self, user_id: str, date: str) -> dict[str, Any]:
        """Activity for one calendar day: steps, workout count, active minutes, workout kcal, distance and the workouts.

        steps is the day's latest steps reading (0 if none); workouts are oldest first.

        Args:
            user_id: The user.
            date: The day, YYYY-MM-DD.
        """
        R.check_user(user_id)
        R.parse_day(date)
        steps = self.query_one(
            "SELECT value FROM metrics WHERE user_id = ? AND type = 'steps' AND substr(recorded_at, 1, 10) = ? "
            "ORDER BY recorded_at DESC, metric_id DESC LIMIT 1",
            (user_id, date),
        )
        workouts = [
            R.workout(r)
            for r in self.query(
                "SELECT * FROM workouts WHERE user_id = ? AND substr(started_at, 1, 10) = ? ORDER BY started_at, workout_id",
                (user_id, date),
            )
        ]
        return {
            "user_id": user_id,
            "date": date,
            "steps": int(steps["value"]) if steps else 0,
            "workout_count": len(workouts),
            "active_minutes": sum(w["duration_min"] for w in workouts),
            "workout_calories": sum(w["calories"] or 0 for w in workouts),
            "distance_m": sum(w["distance_m"] or 0 for w in workouts),
            "workouts": workouts,
        }

    # ------------------------------------------------------------------ goals
    @tool
    def set_goal(
        self,
        user_id: str,
        type: str,
        target: float,
        period: str,
        unit: str | None = None,
        direction: str = "at_least",
        start_date: str | None = None,
    ) -> dict[str, Any]:
        """Create a health goal; it starts with status "active".

        Goal types measured automatically: anything with "distance" (or run/cycling) sums
        workout distance_m; steps sums daily steps; weight, body_fat, heart_rate,
        blood_pressure, sleep_minutes use the latest reading; anything else counts workouts.

        Args:
            user_id: The user.
            type: Goal label, e.g. weight, run_distance, steps, workouts.
            target: The numeric target in the goal's unit.
            period: day, week, month or once.
            unit: Unit label of the target, optional.
            direction: at_least (more is better) or at_most (less is better, e.g. target weight).
            start_date: First day of the goal, YYYY-MM-DD; defaults to today.
        """
        R.check_user(user_id)
        if not type.strip():
            raise ToolError("BAD_ARG", "type is required (e.g. weight, run_distance, steps)")
        if period not in R.GOAL_PERIODS:
            raise ToolError("BAD_ARG", f"period must be one of {R.GOAL_PERIODS}, got {period!r}")
        if direction not in R.GOAL_DIRECTIONS:
            raise ToolError("BAD_ARG", f"direction must be one of {R.GOAL_DIRECTIONS}, got {direction!r}")
        start = R.parse_day(start_date, "start_date").isoformat() if start_date else self._today().isoformat()
        goal_id = self.mint_id("goal_{:06d}", "goal_seq", "goals", "goal_id")
        self.execute(
            "INSERT INTO goals (goal_id, user_id, type, target, unit, period, direction, start_date, status) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active')",
            (goal_id, user_id, type, float(target), unit or "", period, direction, start),
        )
        return R.goal(self._one("goals", "goal_id", goal_id))

    @tool(read_only=True)
    def get_goals(self, user_id: str, status: str | None = None) -> list[dict[str, Any]]:
        """List a user's goals, latest start date first.

        Args:
            user_id: The user.
            status: Only goals in this status: active, achieved or abandoned.
        """
        R.check_user(user_id)
        if status is not None and status not in R.GOAL_STATUSES:
            raise ToolError("BAD_ARG", f"status must be one of {R.GOAL_STATUSES}, got {status!r}")
        sql, params = "SELECT * FROM goals WHERE user_id = ?", [user_id]
        if status is not None:
            sql += " AND status = ?"
            params.append(status)
        return [R.goal(r) for r in self.query(sql + " ORDER BY start_date DESC, goal_id DESC", params)]

    @tool(read_only=True)
    def get_goal_progress(self, user_id: str, goal_id: str) -> dict[str, Any]:
        """Descriptive progress of a goal over its current period window ending today.

        Windows: day = today; week = last 7 days; month = last 30 days; once = from the
        goal's start date. Returns current, percent_of_target and a boolean on_track
        (numbers only, no advice).

        Args:
            user_id: The goal's owner.
            goal_id: The goal id.
        """
        R.check_user(user_id)
        row = self.query_one("SELECT * FROM goals WHERE goal_id = ? AND user_id = ?", (goal_id, user_id))
        if row is None:
            raise ToolError("GOAL_NOT_FOUND", f"goal not found for user {user_id!r}: {goal_id!r}")
        g = R.goal(row)
        today = self._today()
        start = {
            "day": today.isoformat(),
            "week": R.shift(today, -6),
            "month": R.shift(today, -29),
        }.get(g["period"], g["start_date"])
        current = self._measure(user_id, g["type"].lower(), start, today.isoformat())
        target = g["target"]
        if current is None:
            pct, on_track = 0.0, False
        elif g["direction"] == "at_least":
            pct, on_track = (round(100.0 * current / target, 1) if target else 0.0), current >= target
        else:
            pct, on_track = (round(100.0 * target / current, 1) if current else 0.0), current <= target
        return {
            "goal_id": g["goal_id"],
            "user_id": user_id,
            "type": g["type"],
            "direction": g["direction"],
            "period": g["period"],
            "target": target,
            "unit": g["unit"],
            "current": current,
            "window_start": start,
            "window_end": today.isoformat(),
            "percent_of_target": pct,
            "on_track": on_track,
            "status": g["status"],
        }

    # ------------------------------------------------------------------ nutrition
    @tool
    def log_nutrition(
        self,
        user_id: str,
        meal: str,
        calories: int,
        logged_at: str,
        description: str | None = None,
        protein_g: float | None = None,
        carbs_g: float | None = None,
        fat_g: float | None = None,
    ) -> dict[str, Any]:
        """Record a meal.

        Args:
            user_id: The user.
            meal: breakfast, lunch, dinner or snack.
            calories: Energy in kcal, a non-negative integer.
            logged_at: ISO-8601 timestamp of the meal.
            description: What was eaten, optional.
            protein_g: Protein in grams, optional.
            carbs_g: Carbohydrates in grams, optional.
            fat_g: Fat in grams, optional.
        """
        R.check_user(user_id)
        if meal not in R.MEALS:
            raise ToolError("BAD_ARG", f"meal must be one of {R.MEALS}, got {meal!r}")
        if calories < 0:
            raise ToolError("BAD_ARG", f"calories must be a non-negative integer, got {calories}")
        for name, v in (("protein_g", protein_g), ("carbs_g", carbs_g), ("fat_g", fat_g)):
            if v is not None and v < 0:
                raise ToolError("BAD_ARG", f"{name} must be >= 0, got {v}")
        R.check_timestamp(logged_at, "logged_at")
        nutrition_id = self.mint_id("nut_{:08d}", "nutrition_seq", "nutrition_logs", "nutrition_id")
        self.execute(
            "INSERT INTO nutrition_logs (nutrition_id, user_id, meal, description, calories, protein_g, carbs_g, fat_g, "
            "logged_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (nutrition_id, user_id, meal, description, calories, protein_g, carbs_g, fat_g, logged_at),
        )
        return R.meal(self._one("nutrition_logs", "nutrition_id", nutrition_id))

    @tool(read_only=True)
    def get_nutrition_summary(self, user_id: str, date: str) -> dict[str, Any]:
        """Totals of calories (kcal) and macros (g) for one day, with the meals oldest first. Totals only, no advice.

        Args:
            user_id: The user.
            date: The day, YYYY-MM-DD.
        """
        R.check_user(user_id)
        R.parse_day(date)
        meals = [
            R.meal(r)
            for r in self.query(
                "SELECT * FROM nutrition_logs WHERE user_id = ? AND substr(logged_at, 1, 10) = ? "
                "ORDER BY logged_at, nutrition_id",
                (user_id, date),
            )
        ]
        return {
            "user_id": user_id,
            "date": date,
            "meal_count": len(meals),
            "total_calories": sum(m["calories"] for m in meals),
            **{f"total_{k}": round(sum(m[k] or 0 for m in meals), 1) for k in ("protein_g", "carbs_g", "fat_g")},
            "meals": meals,
        }

    # ------------------------------------------------------------------ alerts
    @tool(read_only=True)
    def list_health_alerts(self, user_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """Readings outside a typical reference range, newest first. Informational only, not a diagnosis.

        Checked: heart_rate 50-100 bpm, blood_pressure systolic 90-140 mmHg, body_fat
        8-30 %. Each flag is above_typical_range or below_typical_range with the bounds.

        Args:
            user_id: The user.
            limit: Maximum flags (default 50, capped at 200).
        """
        R.check_user(user_id)
        cap = _limit(limit, 200)
        types = tuple(R.TYPICAL_RANGES)
        rows = self.query(
            f"SELECT * FROM metrics WHERE user_id = ? AND type IN ({', '.join('?' * len(types))}) "
            "ORDER BY recorded_at DESC, metric_id DESC",
            (user_id, *types),
        )
        alerts: list[dict[str, Any]] = []
        for r in rows:
            low, high = R.TYPICAL_RANGES[r["type"]]
            value = float(r["value"])
            flag = "below_typical_range" if value < low else "above_typical_range" if value > high else None
            if flag is None:
                continue
            shown = r["value_text"] or value
            alerts.append(
                {
                    **{k: v for k, v in R.metric(r).items() if k != "user_id"},
                    "typical_low": low,
                    "typical_high": high,
                    "flag": flag,
                    "note": f"{r['type']} reading of {shown} {r['unit']} is {flag.replace('_', ' ')} "
                    f"({low}-{high} {r['unit']}). Informational only; not a diagnosis.",
                }
            )
            if len(alerts) >= cap:
                break
        return alerts

    # ------------------------------------------------------------------ helpers
    def _today(self) -> date:
        return self.now().date()

    def _one(self, table: str, key: str, value: str) -> dict[str, Any]:
        return self.query_one(f'SELECT * FROM "{table}" WHERE "{key}" = ?', (value,)) or {}

    def _window_filter(
        self, sql: str, params: list[Any], column: str, since: str | None, until: str | None
    ) -> tuple[str, list[Any]]:
        if since:
            R.parse_day(since, "since")
            sql += f" AND substr({column}, 1, 10) >= ?"
            params.append(since)
        if until:
            R.parse_day(until, "until")
            sql += f" AND substr({column}, 1, 10) <= ?"
            params.append(until)
        return sql, params

    def _measure(self, user_id: str, goal_type: str, start: str, end: str) -> float | None:
        """The goal's current value in [start, end] (dates inclusive)."""
        if "distance" in goal_type or goal_type in ("run", "running", "cycling"):
            row = self.query_one(
                "SELECT COALESCE(SUM(distance_m), 0) AS s FROM workouts WHERE user_id = ? "
                "AND substr(started_at, 1, 10) BETWEEN ? AND ?",
                (user_id, start, end),
            )
            return float(row["s"]) if row else 0.0
        if goal_type == "steps":
            rows = self.query(
                "SELECT substr(recorded_at, 1, 10) AS d, MAX(value) AS v FROM metrics WHERE user_id = ? "
                "AND type = 'steps' AND substr(recorded_at, 1, 10) BETWEEN ? AND ? GROUP BY d",
                (user_id, start, end),
            )
            return float(sum(float(r["v"]) for r in rows))
        if goal_type in R.LEVEL_GOALS:
            row = self.query_one(
                "SELECT value FROM metrics WHERE user_id = ? AND type = ? AND substr(recorded_at, 1, 10) <= ? "
                "ORDER BY recorded_at DESC, metric_id DESC LIMIT 1",
                (user_id, goal_type, end),
            )
            return float(row["value"]) if row else None
        row = self.query_one(
            "SELECT COUNT(*) AS c FROM workouts WHERE user_id = ? AND substr(started_at, 1, 10) BETWEEN ? AND ?",
            (user_id, start, end),
        )
        return float(row["c"]) if row else 0.0


def _limit(limit: int, cap: int) -> int:
    if limit < 1:
        raise ToolError("BAD_ARG", f"limit must be >= 1, got {limit}")
    return min(limit, cap)
