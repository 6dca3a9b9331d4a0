"""Pure geometry, speed and time helpers for the maps service (no database access)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone, tzinfo

from vibelife_env.services.common import check_coordinates

LATLNG = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")
TOKEN = re.compile(r"[a-z0-9\u3000-\u9fff\u30a0-\u30ff\u3040-\u309f]+")

#: Straight-line to road-distance multiplier per mode.
TORTUOSITY = {"driving": 1.30, "bicycling": 1.25, "walking": 1.15, "transit": 1.20}
MODES = ("driving", "walking", "transit", "bicycling")

_JST = timezone(timedelta(hours=9), name="Asia/Tokyo")
_JAPAN_CITIES = {"tokyo", "osaka", "kyoto", "nara", "hakone", "nagoya", "yokohama", "kobe", "sapporo", "fukuoka"}

#: Rush-hour bumps per city: (peak hour, extra multiplier at the peak), half-width in hours.
_RUSH = {
    "tokyo": ([(8.0, 0.35), (18.5, 0.40)], 2.0),
    "osaka": ([(8.0, 0.35), (18.5, 0.40)], 2.0),
    "kyoto": ([(9.0, 0.18), (18.0, 0.20)], 2.5),
    "nara": ([(9.0, 0.18), (18.0, 0.20)], 2.5),
    "hakone": ([(10.0, 0.05)], 3.0),
    "shanghai": ([(8.5, 0.35), (18.0, 0.35)], 2.0),
    "上海": ([(8.5, 0.35), (18.0, 0.35)], 2.0),
}


def speed_mps(mode: str, intercity: bool) -> float:
    """Average speed for a surface mode in m/s (driving 40 km/h in town, 90 between cities)."""
    kmh = {"driving": 90.0 if intercity else 40.0, "bicycling": 15.0, "walking": 5.0}.get(mode, 40.0)
    return kmh / 3.6


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (latin, digits, CJK, kana)."""
    return TOKEN.findall((text or "").lower())


def parse_latlng(text: str) -> tuple[float, float] | None:
    """``"lat,lng"`` as floats, or ``None`` when the text is not a coordinate pair.

    Raises:
        ToolError: ``BAD_ARG`` when the pair is no point on Earth.
    """
    m = LATLNG.match(text or "")
    return check_coordinates("a 'lat,lng' pair", float(m.group(1)), float(m.group(2))) if m else None


def city_tz(city: str | None, default: tzinfo) -> tzinfo:
    """Local zone of a city: Japan Standard Time for Japanese cities, else ``default``."""
    return _JST if (city or "").strip().lower() in _JAPAN_CITIES else default


def parse_dt(text: str, tz: tzinfo) -> datetime:
    """Parse ISO-8601; a naive value is local time in ``tz``.

    Raises:
        ValueError: not an ISO-8601 timestamp.
    """
    raw = text.strip()
    if raw.endswith("Z"):
        raw = raw[:-1] + "+00:00"
    dt = datetime.fromisoformat(raw)
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=tz)


def iso(dt: datetime) -> str:
    """ISO-8601 with offset, seconds precision."""
    return dt.isoformat(timespec="seconds")


def rush_hour_extra(city: str, at: datetime) -> float:
    """Extra traffic multiplier from the hour of day (triangular peaks) plus a weekday bump."""
    key = (city or "").strip().lower()
    peaks, width = _RUSH.get(key, ([], 1.0))
    hour = at.hour + at.minute / 60.0
    extra = sum(v * (1 - abs(hour - p) / width) for p, v in peaks if abs(hour - p) < width)
    if key in ("tokyo", "osaka") and at.weekday() <= 4:
        extra += 0.05
    return extra


def severity(multiplier: float) -> str:
    """Traffic severity from the with-traffic / normal duration ratio."""
    if multiplier < 1.10:
        return "light"
    if multiplier < 1.30:
        return "moderate"
    if multiplier < 1.60:
        return "heavy"
    return "severe"


def polyline(geom_json: str | None) -> list[tuple[float, float]]:
    """Road geometry ``[[lat, lng], ...]`` as tuples (empty when unparsable)."""
    try:
        return [(float(p[0]), float(p[1])) for p in json.loads(geom_json or "[]")]
    except (TypeError, ValueError, IndexError):
        return []


def overlaps(a0: datetime, a1: datetime, b0: datetime, b1: datetime) -> bool:
    """Whether two closed intervals intersect."""
    return a0 <= b1 and b0 <= a1
