"""weather: current conditions, hourly/daily forecasts, AQI, alerts and typhoon tracks.

Tool surface: the public ``weather_mock`` spec (seven tools). Weather is pre-baked in the
seed (``hourly_weather``, ``daily_weather``, ``daily_aqi``); the service is a read-through
anchored on the world's virtual clock, converted to each location's own time zone:
"current" is the row for the current whole hour, the hourly forecast starts at the next
whole hour, the daily forecast starts today. Alerts are shown while their ``active`` flag
is set (timeline mutations flip it). ``geo`` is a location key, a city name or alias, or
``{"lat": .., "lng": ..}`` snapped to the nearest location within 50 km.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the reference's
``invalid_geo``) and ``BAD_PATH`` for its ``sink_outside_workspace``. Besides them:
``NO_NEARBY_LOCATION``, ``OBSERVATION_MISSING``, ``UNKNOWN_STORM``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import check_coordinates, haversine_km

SNAP_KM = 50.0
#: Common names for the reference's Japanese and Shanghai locations.
ALIASES = {
    "tokyo": "tokyo_city", "tokyo haneda": "tokyo_hnd", "tokyo-haneda": "tokyo_hnd", "haneda": "tokyo_hnd",
    "hnd": "tokyo_hnd", "tokyo narita": "tokyo_nrt", "tokyo-narita": "tokyo_nrt", "narita": "tokyo_nrt",
    "nrt": "tokyo_nrt", "kyoto": "kyoto_city", "osaka": "osaka_city", "osaka kansai": "osaka_kix",
    "osaka kansai intl": "osaka_kix", "kansai": "osaka_kix", "kix": "osaka_kix", "shanghai_city": "shanghai",
    "shanghai pudong": "shanghai_pvg", "shanghai pudong intl": "shanghai_pvg", "pudong": "shanghai_pvg",
    "pvg": "shanghai_pvg",
}  # fmt: skip
AQI_BANDS = (
    (50, "good"),
    (100, "moderate"),
    (150, "unhealthy_for_sensitive"),
    (200, "unhealthy"),
    (300, "very_unhealthy"),
)

Geo = str | dict[str, Any]


class WeatherService(Service):
    """Pre-baked weather, air quality, severe-weather alerts and storm tracks."""

    name = "weather"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------------ weather
    @tool(read_only=True)
    def get_current_weather(self, geo: Geo, units: Literal["metric", "imperial"] = "metric") -> dict[str, Any]:
        """Current observed weather (the current whole hour, location-local) for a location.

        Metric returns temp_c and wind_kmh; imperial returns temp_f and wind_mph instead.
        Also humidity (%), condition, precip_mm and observed_at.

        Args:
            geo: A city name or location key (e.g. "Tokyo", "深圳市"), or {"lat": .., "lng": ..} snapped to the nearest location within 50 km.
            units: "metric" (default) or "imperial".
        """
        loc = self._location(geo)
        hour = self._local_now(loc).replace(minute=0, second=0, microsecond=0)
        row = self._hourly(loc).get(hour.astimezone(UTC))
        if row is None:
            raise ToolError("OBSERVATION_MISSING", f"no observation for {loc['geo_key']} at {hour.isoformat()}")
        obs = {
            "geo_key": loc["geo_key"],
            "city": loc["city"],
            "temp_c": row["temp_c"],
            "humidity": row["humidity"],
            "wind_kmh": row["wind_kmh"],
            "condition": row["condition"],
            "precip_mm": row["precip_mm"],
            "observed_at": hour.isoformat(),
        }
        if units == "imperial":
            obs["temp_f"] = round(obs.pop("temp_c") * 9 / 5 + 32, 1)
            obs["wind_mph"] = round(obs.pop("wind_kmh") * 0.621371, 1)
        return obs

    @tool(read_only=True)
    def get_forecast_hourly(self, geo: Geo, hours: int = 72) -> list[dict[str, Any]]:
        """Hourly forecast starting at the next whole hour, oldest first.

        Each entry: dt (location-local ISO-8601), temp_c, condition, precip_mm, wind_kmh.
        Hours without data are skipped.

        Args:
            geo: A city name or location key, or {"lat": .., "lng": ..}.
            hours: How many hours ahead, clamped to 1..120 (default 72).
        """
        hours = max(1, min(120, hours))
        loc = self._location(geo)
        start = (self._local_now(loc) + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
        by_instant = self._hourly(loc)
        out = []
        for i in range(hours):
            dt = start + timedelta(hours=i)
            row = by_instant.get(dt.astimezone(UTC))
            if row is not None:
                out.append(
                    {
                        "dt": dt.isoformat(),
                        "temp_c": row["temp_c"],
                        "condition": row["condition"],
                        "precip_mm": row["precip_mm"],
                        "wind_kmh": row["wind_kmh"],
                    }
                )
        return out

    @tool(read_only=True)
    def get_forecast_daily(self, geo: Geo, days: int = 10) -> list[dict[str, Any]]:
        """Daily forecast starting today (location-local date), oldest first.

        Each entry: date, tmin and tmax (°C), condition, precip_prob, wind_kmh. Days
        without data are skipped.

        Args:
            geo: A city name or location key, or {"lat": .., "lng": ..}.
            days: How many days, clamped to 1..14 (default 10).
        """
        days = max(1, min(14, days))
        loc = self._location(geo)
        today = self._local_now(loc).date()
        last = today + timedelta(days=days - 1)
        rows = self.query(
            "SELECT * FROM daily_weather WHERE geo_key = ? AND date BETWEEN ? AND ? ORDER BY date",
            (loc["geo_key"], today.isoformat(), last.isoformat()),
        )
        return [
            {
                "date": r["date"],
                "tmin": r["tmin"],
                "tmax": r["tmax"],
                "condition": r["condition"],
                "precip_prob": r["precip_prob"],
                "wind_kmh": r["wind_kmh"],
            }
            for r in rows
        ]

    @tool(read_only=True)
    def get_aqi(self, geo: Geo) -> dict[str, Any]:
        """Today's Air Quality Index for a location.

        Uses the day's measured value when available, else the location's climate
        baseline. category: good, moderate, unhealthy_for_sensitive, unhealthy,
        very_unhealthy or hazardous.

        Args:
            geo: A city name or location key, or {"lat": .., "lng": ..}.
        """
        loc = self._location(geo)
        now = self._local_now(loc)
        seeded = self.query_one(
            "SELECT aqi, dominant_pollutant FROM daily_aqi WHERE geo_key = ? AND date = ?",
            (loc["geo_key"], now.date().isoformat()),
        )
        if seeded is not None:
            aqi, dominant = int(seeded["aqi"]), str(seeded["dominant_pollutant"])
        else:
            aqi, dominant = self._aqi_baseline(loc["climate_profile_id"])
        return {
            "geo_key": loc["geo_key"],
            "aqi": aqi,
            "category": next((name for top, name in AQI_BANDS if aqi <= top), "hazardous"),
            "dominant_pollutant": dominant,
            "observed_at": now.replace(minute=0, second=0, microsecond=0).isoformat(),
        }

    # ------------------------------------------------------------------ alerts
    @tool(read_only=True)
    def get_alerts(self, geo: Geo) -> list[dict[str, Any]]:
        """Currently active severe-weather alerts covering a location, by start time.

        Each alert: alert_id, kind, severity, start, end, areas (location keys) and
        description.

        Args:
            geo: A city name or location key, or {"lat": .., "lng": ..}.
        """
        loc = self._location(geo)
        return [a for a in self._active_alerts() if loc["geo_key"] in a["areas"]]

    @tool
    def subscribe_alerts(self, geo: Geo, sink: str) -> dict[str, Any]:
        """Subscribe a sink to push alerts covering a location.

        Alerts already active for the location are delivered at once; later ones as they
        are raised.

        Args:
            geo: A city name or location key, or {"lat": .., "lng": ..}.
            sink: Where to deliver, e.g. "memory://<channel>" or "file:///<workspace path>/alerts.log".
        """
        loc = self._location(geo)
        sink = sink.strip()
        if not sink:
            raise ToolError("BAD_ARG", "sink must not be empty")
        if sink.lower().startswith("file://") and ".." in sink.split("/"):
            raise ToolError("BAD_PATH", f"sink {sink!r} escapes the workspace")
        sub_id = f"sub_{self.next_seq('sub_seq'):06d}"
        now = self.now_utc()
        self.execute(
            "INSERT INTO alert_subscriptions (sub_id, geo_key, sink, created_at, active) VALUES (?, ?, ?, ?, 1)",
            (sub_id, loc["geo_key"], sink, now),
        )
        for alert in self._active_alerts():
            if loc["geo_key"] in alert["areas"]:
                payload = {**alert, "geo_key": loc["geo_key"], "delivered_at": now}
                payload.pop("areas")
                self.execute(
                    "INSERT INTO notifications (created_at, channel, sub_id, alert_id, payload_json, delivered) "
                    "VALUES (?, ?, ?, ?, ?, 1)",
                    (now, sink, sub_id, alert["alert_id"], json.dumps(payload, ensure_ascii=False)),
                )
        return {"subscription_id": sub_id, "geo_key": loc["geo_key"], "sink": sink}

    # ------------------------------------------------------------------ typhoons
    @tool(read_only=True)
    def get_typhoon_track(self, storm_id: str) -> list[dict[str, Any]]:
        """Best-track / forecast track points of a storm, oldest first (dt, lat, lng, intensity).

        Args:
            storm_id: The storm identifier, as given in alerts or notices.
        """
        rows = self.query(
            "SELECT dt, lat, lng, intensity FROM typhoon_tracks WHERE storm_id = ? ORDER BY dt", (storm_id,)
        )
        if not rows:
            raise ToolError("UNKNOWN_STORM", f"no track for storm {storm_id!r}")
        return rows

    # ------------------------------------------------------------------ helpers
    def _location(self, geo: Geo) -> dict[str, Any]:
        locations = self.query("SELECT * FROM locations ORDER BY geo_key")
        if isinstance(geo, dict):
            lat = geo.get("lat", geo.get("latitude"))
            lng = geo.get("lng", geo.get("longitude"))
            try:
                point = check_coordinates("geo", float(lat), float(lng))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ToolError("BAD_ARG", f"geo dict must contain numeric lat and lng, got {geo!r}") from None
            best = min(locations, key=lambda r: haversine_km(point, (r["lat"], r["lng"])), default=None)
            if best is None or haversine_km(point, (best["lat"], best["lng"])) > SNAP_KM:
                raise ToolError("NO_NEARBY_LOCATION", f"no known location within {SNAP_KM:.0f} km of {point}")
            return best
        needle = geo.strip().lower()
        if not needle:
            raise ToolError("BAD_ARG", "geo must not be empty")
        by_key = {r["geo_key"].lower(): r for r in locations}
        by_city = {r["city"].strip().lower(): r for r in locations}
        found = by_key.get(needle) or by_key.get(ALIASES.get(needle, "")) or by_city.get(needle)
        if found is None:
            # Loose match: "深圳" for "深圳市", "Shanghai, China" for "shanghai".
            loose = [r for city, r in by_city.items() if city and (needle in city or city in needle)]
            found = loose[0] if len(loose) == 1 else None
        if found is None:
            raise ToolError("NO_NEARBY_LOCATION", f"unknown location {geo!r}; give a known city or {{lat, lng}}")
        return found

    def _local_now(self, loc: dict[str, Any]) -> datetime:
        try:
            return self.now().astimezone(ZoneInfo(loc["timezone"]))
        except (KeyError, ValueError):
            return self.now()

    def _hourly(self, loc: dict[str, Any]) -> dict[datetime, dict[str, Any]]:
        """The location's hourly rows keyed by UTC instant (naive stamps are location-local)."""
        tz = self._local_now(loc).tzinfo
        out = {}
        for row in self.query("SELECT * FROM hourly_weather WHERE geo_key = ?", (loc["geo_key"],)):
            try:
                dt = datetime.fromisoformat(row["datetime"].replace("Z", "+00:00"))
            except ValueError:
                continue
            dt = dt if dt.tzinfo else dt.replace(tzinfo=tz)
            out[dt.astimezone(UTC)] = row
        return out

    def _active_alerts(self) -> list[dict[str, Any]]:
        out = []
        for r in self.query("SELECT * FROM alerts WHERE active = 1 ORDER BY start_dt, alert_id"):
            try:
                areas = json.loads(r["areas_json"])
            except json.JSONDecodeError:
                areas = []
            out.append(
                {
                    "alert_id": r["alert_id"],
                    "kind": r["kind"],
                    "severity": r["severity"],
                    "start": r["start_dt"],
                    "end": r["end_dt"],
                    "areas": areas if isinstance(areas, list) else [],
                    "description": r["description"],
                }
            )
        return out

    def _aqi_baseline(self, profile_id: str) -> tuple[int, str]:
        row = self.query_one("SELECT aqi_baseline_json FROM climate_profiles WHERE profile_id = ?", (profile_id,))
        try:
            data = json.loads(row["aqi_baseline_json"]) if row else {}
        except json.JSONDecodeError:
            data = {}
        if not isinstance(data, dict):
            return 50, "pm25"
        dominant = str(data.get("dominant", "pm25"))
        for key in ("aqi", "median"):
            if isinstance(data.get(key), (int, float)):
                return int(data[key]), dominant
        numbers = [v for v in data.values() if isinstance(v, (int, float))]
        return (round(sum(numbers) / len(numbers)) if numbers else 50), dominant
