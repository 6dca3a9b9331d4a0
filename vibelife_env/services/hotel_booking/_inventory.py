"""What hotel_booking can sell: hotels, per-night rate plans, rooms left, rate-plan ids.

A bookable bundle is a (room_type, flavor) with a ``rate_plans`` row holding a room on
every night of the stay; its id spells hotel, room, flavor and dates
(``rp_<hotel_id>_<room-slug>_<flavor>_<YYYYMMDD>_<YYYYMMDD>``). Functions that read or
write rows take the service first.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from vibelife_env.errors import ToolError
from vibelife_env.services.base import Service
from vibelife_env.services.common import check_coordinates, haversine_km, loads
from vibelife_env.services.hotel_booking import _pricing as pricing

FLAVORS = ("flex", "semi", "prepaid")
MAX_NIGHTS = 30


# ------------------------------------------------------------------ stays and ids
def nights(check_in: str, check_out: str) -> list[str]:
    """The nights (dates) of a stay.

    Raises:
        ToolError: ``BAD_ARG`` for malformed dates, an empty stay or more than 30 nights.
    """
    try:
        ci, co = date.fromisoformat(check_in), date.fromisoformat(check_out)
    except ValueError:
        raise ToolError("BAD_ARG", f"dates must be YYYY-MM-DD, got {check_in!r} / {check_out!r}") from None
    if co <= ci:
        raise ToolError("BAD_ARG", f"check_out {check_out} must be after check_in {check_in}")
    if (co - ci).days > MAX_NIGHTS:
        raise ToolError("BAD_ARG", f"stay of {(co - ci).days} nights exceeds {MAX_NIGHTS}")
    return [(ci + timedelta(days=i)).isoformat() for i in range((co - ci).days)]


def slug(text: str) -> str:
    """A room type name as it appears in rate-plan ids (lower case, dashes)."""
    return re.sub(r"-+", "-", "".join(c.lower() if c.isalnum() else "-" for c in text)).strip("-")


def rate_plan_id(hotel_id: str, room_type: str, flavor: str, check_in: str, check_out: str) -> str:
    """The id create_reservation takes for a bundle and stay."""
    return f"rp_{hotel_id}_{slug(room_type)}_{flavor}_{check_in.replace('-', '')}_{check_out.replace('-', '')}"


def _from_compact(s: str) -> str:
    if len(s) != 8 or not s.isdigit():
        raise ValueError(s)
    return date(int(s[:4]), int(s[4:6]), int(s[6:])).isoformat()


def parse_rate_plan(svc: Service, rate_plan_id: str) -> tuple[str, str, str, str, str]:
    """(hotel_id, room_type, flavor, check_in, check_out) of a rate-plan id.

    Raises:
        ToolError: ``RATE_PLAN_NOT_FOUND`` for an id no availability call could have shown,
            ``HOTEL_NOT_FOUND`` for an unknown hotel.
    """
    parts = rate_plan_id.split("_")
    bad = ToolError(
        "RATE_PLAN_NOT_FOUND", f"no rate plan {rate_plan_id!r}; use a rate_plan_id from get_room_availability"
    )
    if parts[0] != "rp" or len(parts) < 6 or parts[-3] not in FLAVORS:
        raise bad
    try:
        check_in, check_out = (_from_compact(p) for p in parts[-2:])
    except ValueError:
        raise bad from None
    hotel_id, room_slug = "_".join(parts[1:-4]), parts[-4]
    hotel_row(svc, hotel_id)
    rooms = svc.query("SELECT DISTINCT room_type FROM rate_plans WHERE hotel_id = ? ORDER BY room_type", (hotel_id,))
    room = next((r["room_type"] for r in rooms if slug(r["room_type"]) == room_slug), None)
    if room is None:
        raise bad
    return hotel_id, room, parts[-3], check_in, check_out


# ------------------------------------------------------------------ hotels
def hotel_row(svc: Service, hotel_id: str) -> dict[str, Any]:
    """The hotel row, or ``HOTEL_NOT_FOUND``."""
    return svc.require(
        "SELECT * FROM hotels WHERE hotel_id = ?", (hotel_id,), "HOTEL_NOT_FOUND", f"no hotel {hotel_id!r}"
    )


def hotels_at(svc: Service, where: str) -> list[dict[str, Any]]:
    """Hotels in a city or district, or within ``radius_km`` of ``"lat,lng;radius_km"``.

    Raises:
        ToolError: ``BAD_ARG`` for a malformed geo form.
    """
    s = where.strip()
    if ";" in s and "," in s.split(";", 1)[0]:
        try:
            coords, radius = s.split(";", 1)
            lat, lng = (float(x) for x in coords.split(",", 1))
            r_km = float(radius)
        except ValueError:
            raise ToolError("BAD_ARG", f"city_or_geo geo form is 'lat,lng;radius_km', got {where!r}") from None
        lat, lng = check_coordinates("city_or_geo", lat, lng)
        return [
            h
            for h in svc.query("SELECT * FROM hotels ORDER BY hotel_id")
            if haversine_km((lat, lng), (h["geo_lat"], h["geo_lng"])) <= r_km
        ]
    rows = svc.query("SELECT * FROM hotels WHERE lower(city) = lower(?) ORDER BY hotel_id", (s,))
    return rows or svc.query("SELECT * FROM hotels WHERE lower(district) = lower(?) ORDER BY hotel_id", (s,))


def hotel_passes(h: dict[str, Any], f: dict[str, Any]) -> bool:
    """Whether a hotel meets the star, rating and amenity filters of search_hotels.

    Raises:
        ToolError: ``BAD_ARG`` when a rating filter is not a number.
    """
    try:
        if f.get("min_star_rating") is not None and h["star_rating"] < float(f["min_star_rating"]):
            return False
        if f.get("max_star_rating") is not None and h["star_rating"] > float(f["max_star_rating"]):
            return False
        if f.get("min_user_rating") is not None and h["user_rating"] < float(f["min_user_rating"]):
            return False
    except (TypeError, ValueError):
        raise ToolError("BAD_ARG", f"rating filters must be numbers, got {f}") from None
    wanted = f.get("amenities") or []
    have = loads(h["amenities_json"], []) or []
    return all(a in have for a in wanted)


# ------------------------------------------------------------------ rate plans
def bundles(svc: Service, hotel_id: str, stay: list[str], guests: int, f: dict[str, Any]) -> list[dict[str, Any]]:
    """(room_type, flavor) bundles with a room on every night of ``stay`` that pass the filters."""
    marks = ",".join("?" * len(stay))
    combos: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for r in svc.query(f"SELECT * FROM rate_plans WHERE hotel_id = ? AND date IN ({marks})", [hotel_id, *stay]):
        if int(r["max_occupancy"]) < guests or int(r["inventory_remaining"]) <= 0:
            continue
        if f.get("breakfast_included") and not r["breakfast_included"]:
            continue
        if f.get("max_nightly_price") is not None and int(r["nightly_price"]) > _number(f, "max_nightly_price"):
            continue
        combos.setdefault((r["room_type"], r["flavor"]), {})[r["date"]] = r
    out = []
    now = svc.now()
    for (room_type, flavor), by_date in sorted(combos.items()):
        if not all(n in by_date for n in stay):
            continue
        rows = [by_date[n] for n in stay]
        if len({r["currency"] for r in rows}) != 1:
            continue
        refundable, until = pricing.refund_window(rows, now)
        if f.get("refundable_only") and not refundable:
            continue
        out.append(
            {
                "room_type": room_type,
                "flavor": flavor,
                "rows": rows,
                "prices": [int(r["nightly_price"]) for r in rows],
                "currency": rows[0]["currency"],
                "refundable": refundable,
                "refundable_until": until,
            }
        )
    return out


def _number(f: dict[str, Any], key: str) -> float:
    try:
        return float(f[key])
    except (TypeError, ValueError):
        raise ToolError("BAD_ARG", f"filters.{key} must be a number, got {f[key]!r}") from None


def plan_rows(svc: Service, hotel_id: str, room_type: str, flavor: str, stay: list[str]) -> list[dict[str, Any]]:
    """The rate-plan rows of one bundle on the nights of ``stay`` that exist, by date."""
    marks = ",".join("?" * len(stay))
    return svc.query(
        f"SELECT * FROM rate_plans WHERE hotel_id = ? AND room_type = ? AND flavor = ? AND date IN ({marks}) "
        "ORDER BY date",
        [hotel_id, room_type, flavor, *stay],
    )


def take_nights(svc: Service, reservation_id: str, rows: list[dict[str, Any]]) -> None:
    """Record a reservation's nights at their current prices and take one room per night."""
    for r in rows:
        svc.execute(
            "INSERT INTO reservation_nights (reservation_id, date, rate_plan_row_id, nightly_price) VALUES (?, ?, ?, ?)",
            (reservation_id, r["date"], r["rate_plan_row_id"], int(r["nightly_price"])),
        )
        move_room(svc, r["rate_plan_row_id"], -1)


def move_room(svc: Service, row_id: int, delta: int) -> None:
    """Take (negative ``delta``) or give back rooms of one rate-plan night."""
    svc.execute(
        "UPDATE rate_plans SET inventory_remaining = inventory_remaining + ? WHERE rate_plan_row_id = ?",
        (delta, row_id),
    )


def occupancy(svc: Service, hotel_id: str, day: str) -> float:
    """Share of a hotel's rooms taken on a night (0 when it sells nothing that night)."""
    rows = svc.query(
        "SELECT inventory_remaining, inventory_capacity FROM rate_plans WHERE hotel_id = ? AND date = ?",
        (hotel_id, day),
    )
    if not rows:
        return 0.0
    free = sum(int(r["inventory_remaining"]) / max(int(r["inventory_capacity"]), 1) for r in rows) / len(rows)
    return 1.0 - free
