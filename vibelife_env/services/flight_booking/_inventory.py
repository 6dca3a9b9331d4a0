"""What flight_booking can sell: scheduled flights, fare buckets and seats on the live aircraft.

Functions take the service first and only read or write inventory rows (``flights``,
``flight_status``, ``fare_buckets``, ``seat_assignments``); bookings are
:mod:`._bookings`' business.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vibelife_env.errors import ToolError
from vibelife_env.services.base import Service
from vibelife_env.services.flight_booking import _fares as F
from vibelife_env.services.flight_booking._types import PassengerProfile, SeatSelection

#: A validated seat pick: (segment_idx, pax_idx, seat, equipment of the live aircraft).
SeatPick = tuple[int, int, str, str]


# ------------------------------------------------------------------ flights
def flight_row(svc: Service, flight_no: str, date: str) -> dict[str, Any] | None:
    """The scheduled flight ``flight_no`` departing on local ``date``."""
    return svc.query_one(
        "SELECT * FROM flights WHERE flight_no = ? AND substr(depart_dt, 1, 10) = ?", (flight_no, date)
    )


def status_row(svc: Service, flight_no: str, date: str) -> dict[str, Any] | None:
    """The live status row of a flight on a date, if any."""
    return svc.query_one("SELECT * FROM flight_status WHERE flight_no = ? AND date = ?", (flight_no, date))


def is_cancelled(status: dict[str, Any] | None) -> bool:
    """Whether a status row says the flight is cancelled."""
    if not status:
        return False
    return str(status["status"]).upper() == "CANCELLED"


def bucket(svc: Service, flight_no: str, date: str, cabin: str) -> dict[str, Any] | None:
    """The fare bucket (price, seats left) of a flight's cabin on a date."""
    return svc.query_one(
        "SELECT * FROM fare_buckets WHERE flight_no = ? AND date = ? AND cabin = ?", (flight_no, date, cabin)
    )


def live_equipment(svc: Service, seg: dict[str, Any]) -> str:
    """The aircraft now scheduled for a segment (mutations may have swapped it)."""
    flight = flight_row(svc, seg["flight_no"], seg["depart_dt"][:10])
    return flight["equipment"] if flight else seg.get("equipment") or "738"


def itineraries(
    svc: Service, origin: str, dest: str, date: str, cabin: str, carriers: list[str] | None, seats: int
) -> list[dict[str, Any]]:
    """Direct and one-stop paths departing ``origin`` on ``date`` that can seat ``seats``."""
    now = svc.now()
    wanted = {c.upper() for c in carriers} if carriers else None

    def leg(row: dict[str, Any]) -> dict[str, Any] | None:
        if wanted and row["carrier"].upper() not in wanted and row["flight_no"][:2].upper() not in wanted:
            return None
        if F.parse_dt(row["depart_dt"]) <= now:
            return None
        if is_cancelled(status_row(svc, row["flight_no"], row["depart_dt"][:10])):
            return None
        found = bucket(svc, row["flight_no"], row["depart_dt"][:10], cabin)
        if found is None or found["seats_remaining"] < seats:
            return None
        return {**row, "price": float(found["price"]), "seats_remaining": int(found["seats_remaining"])}

    paths = []
    firsts = svc.query(
        "SELECT * FROM flights WHERE origin = ? AND substr(depart_dt, 1, 10) = ? ORDER BY depart_dt, flight_no",
        (origin, date),
    )
    for first_row in firsts:
        first = leg(first_row)
        if first is None:
            continue
        if first["dest"] == dest:
            paths.append([first])
            continue
        for second_row in svc.query(
            "SELECT * FROM flights WHERE origin = ? AND dest = ? ORDER BY depart_dt, flight_no",
            (first["dest"], dest),
        ):
            gap = F.minutes_between(first["arrive_dt"], second_row["depart_dt"])
            if F.MIN_CONNECTION_MIN <= gap <= F.MAX_CONNECTION_MIN and (second := leg(second_row)):
                paths.append([first, second])
    paths.sort(
        key=lambda p: (F.parse_dt(p[0]["depart_dt"]), F.parse_dt(p[-1]["arrive_dt"]), [x["flight_no"] for x in p])
    )
    return [
        {
            "origin": p[0]["origin"],
            "dest": p[-1]["dest"],
            "depart_dt": p[0]["depart_dt"],
            "arrive_dt": p[-1]["arrive_dt"],
            "legs": p,
        }
        for p in paths
    ]


# ------------------------------------------------------------------ fare buckets
def require_bookable(svc: Service, seg: dict[str, Any], seats: int, now: datetime) -> None:
    """Refuse a segment that departed, is cancelled or has fewer than ``seats`` seats left.

    Raises:
        ToolError: ``FLIGHT_DEPARTED``, ``FLIGHT_CANCELLED`` or ``INVENTORY_GONE``.
    """
    date = seg["depart_dt"][:10]
    if F.parse_dt(seg["depart_dt"]) <= now:
        raise ToolError("FLIGHT_DEPARTED", f"{seg['flight_no']} on {date} has already departed")
    if is_cancelled(status_row(svc, seg["flight_no"], date)):
        raise ToolError("FLIGHT_CANCELLED", f"{seg['flight_no']} on {date} is cancelled")
    found = bucket(svc, seg["flight_no"], date, seg["cabin"])
    if found is None or found["seats_remaining"] < seats:
        raise ToolError("INVENTORY_GONE", f"{seg['flight_no']} {seg['cabin']} on {date}: not enough seats")


def move(svc: Service, seg: dict[str, Any], delta: int) -> None:
    """Take (negative ``delta``) or give back seats of a segment's fare bucket."""
    svc.execute(
        "UPDATE fare_buckets SET seats_remaining = MAX(0, seats_remaining + ?) "
        "WHERE flight_no = ? AND date = ? AND cabin = ?",
        (delta, seg["flight_no"], seg["depart_dt"][:10], seg["cabin"]),
    )


# ------------------------------------------------------------------ seats
def taken_seats(svc: Service, flight_no: str, date: str, exclude_pnr: str | None = None) -> set[str]:
    """Seats held by live bookings on a flight and date (optionally not counting one booking)."""
    taken = set()
    for r in svc.query(
        "SELECT sa.seat, sa.segment_idx, b.pnr, b.segments_json FROM seat_assignments sa "
        f"JOIN bookings b ON b.pnr = sa.pnr WHERE b.status IN {F.LIVE_STATUSES!r} AND sa.seat != ''"
    ):
        if r["pnr"] == exclude_pnr:
            continue
        for s in json.loads(r["segments_json"]):
            if s["segment_idx"] == r["segment_idx"] and s["flight_no"] == flight_no and s["depart_dt"][:10] == date:
                taken.add(r["seat"])
    return taken


def check_seat(seat: str, equipment: str, cabin: str, taken: set[str], flight_no: str) -> None:
    """Refuse a seat that is not on the aircraft, outside the booked cabin or taken.

    Raises:
        ToolError: ``SEAT_UNAVAILABLE`` saying which.
    """
    block = F.seat_cabin(equipment, seat)
    if block is None:
        raise ToolError("SEAT_UNAVAILABLE", f"seat {seat} does not exist on {flight_no} ({equipment})")
    if not F.cabin_matches(cabin, block):
        raise ToolError("SEAT_UNAVAILABLE", f"seat {seat} is in {block}, the booking is {cabin}")
    if seat in taken:
        raise ToolError("SEAT_UNAVAILABLE", f"seat {seat} on {flight_no} is already taken")


def validate_seats(
    svc: Service,
    selections: Sequence[SeatSelection],
    segments: list[dict[str, Any]],
    passengers: Sequence[PassengerProfile],
    own_pnr: str | None,
) -> list[SeatPick]:
    """Check seat picks against segments, seated passengers and the live aircraft.

    Raises:
        ToolError: ``SEAT_UNAVAILABLE`` for the first pick that cannot be honoured.
    """
    out: list[SeatPick] = []
    used: set[tuple[int, str]] = set()
    placed: set[tuple[int, int]] = set()
    for sel in selections:
        seg_idx, pax_idx, seat = int(sel["segment_idx"]), int(sel["pax_idx"]), sel["seat"].strip().upper()
        if not 0 <= seg_idx < len(segments):
            raise ToolError("SEAT_UNAVAILABLE", f"segment {seg_idx} out of range 0..{len(segments) - 1}")
        if not 0 <= pax_idx < len(passengers) or str(passengers[pax_idx].get("type", "")).upper() == "INF":
            raise ToolError("SEAT_UNAVAILABLE", f"pax_idx {pax_idx} is not a seated passenger")
        if (seg_idx, seat) in used or (seg_idx, pax_idx) in placed:
            raise ToolError("SEAT_UNAVAILABLE", f"duplicate seat selection {seat} / pax {pax_idx} on segment {seg_idx}")
        used.add((seg_idx, seat))
        placed.add((seg_idx, pax_idx))
        seg = segments[seg_idx]
        equipment = live_equipment(svc, seg)
        taken = taken_seats(svc, seg["flight_no"], seg["depart_dt"][:10], exclude_pnr=own_pnr)
        check_seat(seat, equipment, seg["cabin"], taken, seg["flight_no"])
        out.append((seg_idx, pax_idx, seat, equipment))
    return out
