"""Small helpers shared by the services: JSON columns, distances, LIKE patterns, dates.

Each one used to be copied into several services; one copy here keeps their behaviour
identical. None of them touches a database or the clock.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, tzinfo
from typing import Any

from vibelife_env.errors import ToolError
from vibelife_env.services.arguments import screen_arguments, short_repr

#: Mean Earth radius used for every distance in the services.
EARTH_RADIUS_M = 6_371_000.0
#: Longest search text accepted where a tool matches with SQL ``LIKE``.
MAX_SEARCH_CHARS = 1_000
#: Earliest and latest year a date or time argument may name.
MIN_YEAR, MAX_YEAR = 1900, 2200

_MISSING: Any = object()


# --------------------------------------------------------------------- JSON columns
def dumps(value: Any) -> str:
    """JSON text for a ``*_json`` column (UTF-8 kept readable)."""
    return json.dumps(value, ensure_ascii=False)


def loads(raw: Any, default: Any = _MISSING) -> Any:
    """The value of a ``*_json`` column.

    Args:
        raw: The stored text (``None`` or ``""`` when empty).
        default: What an empty or malformed column reads as; without it, an empty column
            reads as ``None`` and malformed text as the text itself.
    """
    if raw in (None, ""):
        return None if default is _MISSING else default
    try:
        return json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        return raw if default is _MISSING else default


def parse_json_arg(arg: str, text: str) -> Any:
    """The value of an argument that is itself JSON text (``query_json``, ``condition_json``).

    The decoded value must be bounded JSON data like any argument (see
    :func:`~vibelife_env.services.arguments.screen_arguments`).

    Raises:
        ToolError: ``BAD_ARG`` naming ``arg`` when the text is not JSON, nests too deep,
            holds numbers Python cannot read, or decodes to something no tool accepts.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolError("BAD_ARG", f"{arg} is not valid JSON: {exc.msg} at position {exc.pos}") from None
    except (ValueError, RecursionError):
        raise ToolError(
            "BAD_ARG", f"{arg} is JSON that cannot be read: a number is too long or nesting too deep"
        ) from None
    screen_arguments({arg: value})
    return value


def require_text_fields(arg: str, obj: Mapping[str, Any], keys: Iterable[str]) -> None:
    """Refuse a free-form object whose ``keys`` hold something other than text (or null).

    Raises:
        ToolError: ``BAD_ARG`` naming ``arg.key`` and the type that came instead.
    """
    for key in keys:
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise ToolError("BAD_ARG", f"{arg}.{key} must be a string, got {type(value).__name__}")


# --------------------------------------------------------------------- distances
def haversine_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance between two ``(lat, lng)`` points, in metres."""
    phi1, phi2 = math.radians(a[0]), math.radians(b[0])
    dphi, dlmb = phi2 - phi1, math.radians(b[1] - a[1])
    h = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlmb / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(min(1.0, h)))


def check_coordinates(arg: str, lat: float, lng: float) -> tuple[float, float]:
    """``(lat, lng)`` as floats when they name a point on Earth.

    Raises:
        ToolError: ``BAD_ARG`` naming ``arg`` when latitude is outside -90..90 or
            longitude outside -180..180.
    """
    if not (-90.0 <= lat <= 90.0 and -180.0 <= lng <= 180.0):
        raise ToolError(
            "BAD_ARG",
            f"{arg} must be a latitude in -90..90 and a longitude in -180..180, got {short_repr(lat)}, {short_repr(lng)}",
        )
    return float(lat), float(lng)


def haversine_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance between two ``(lat, lng)`` points, in kilometres."""
    return haversine_m(a, b) / 1000.0


# --------------------------------------------------------------------- searching
def contains_pattern(arg: str, text: str) -> str:
    """A ``LIKE ... ESCAPE '\\'`` pattern matching ``text`` literally, anywhere.

    ``%`` and ``_`` in the agent's text are matched as themselves, so a search can never
    become an expensive wildcard pattern.

    Raises:
        ToolError: ``BAD_ARG`` naming ``arg`` when the text exceeds :data:`MAX_SEARCH_CHARS`.
    """
    if len(text) > MAX_SEARCH_CHARS:
        raise ToolError("BAD_ARG", f"{arg} is {len(text)} characters long; search with at most {MAX_SEARCH_CHARS}")
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


# --------------------------------------------------------------------- dates
def check_year(arg: str, value: date) -> None:
    """Refuse dates outside :data:`MIN_YEAR`..:data:`MAX_YEAR` (they overflow time-zone arithmetic).

    Raises:
        ToolError: ``BAD_ARG`` naming ``arg``.
    """
    if not MIN_YEAR <= value.year <= MAX_YEAR:
        raise ToolError(
            "BAD_ARG", f"{arg} must be a date between {MIN_YEAR} and {MAX_YEAR}, got {short_repr(value.isoformat())}"
        )


def parse_date_arg(arg: str, value: str) -> date:
    """A ``YYYY-MM-DD`` argument as a date.

    Raises:
        ToolError: ``BAD_ARG`` naming ``arg`` when the text is no such date or its year is absurd.
    """
    try:
        day = date.fromisoformat(value)
    except (TypeError, ValueError):
        raise ToolError("BAD_ARG", f"{arg} must be a date YYYY-MM-DD, got {short_repr(value)}") from None
    check_year(arg, day)
    return day


def parse_datetime_arg(arg: str, value: str, naive_tz: tzinfo | None = None) -> datetime:
    """An ISO-8601 date-time argument (``Z`` accepted); naive values are read in ``naive_tz``.

    Raises:
        ToolError: ``BAD_ARG`` naming ``arg`` when the text is no date-time or its year is absurd.
    """
    text = value.strip()
    try:
        dt = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except (TypeError, ValueError):
        raise ToolError("BAD_ARG", f"{arg} must be an ISO-8601 date-time, got {short_repr(value)}") from None
    check_year(arg, dt)
    if dt.tzinfo is None and naive_tz is not None:
        dt = dt.replace(tzinfo=naive_tz)
    return dt


def utc_text(dt: datetime) -> str:
    """An aware date-time as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
