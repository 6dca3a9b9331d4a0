"""Bookings (PNRs) of flight_booking: rows, ids, passengers, history, views and clock upkeep.

Functions take the service first. Ids come from the world's generator (``ctx.rng``), so
they are reproducible per seed and given back when a call fails.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from vibelife_env.errors import ToolError
from vibelife_env.services.base import Service
from vibelife_env.services.common import dumps
from vibelife_env.services.flight_booking import _fares as F
from vibelife_env.services.flight_booking import _inventory as inventory
from vibelife_env.services.flight_booking._pricing import iso
from vibelife_env.services.flight_booking._types import BookingContact, PassengerProfile

_PNR_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_PAX_TYPES = ("ADT", "CHD", "INF")


# ------------------------------------------------------------------ rows and ids
def offer_row(svc: Service, offer_id: str) -> dict[str, Any]:
    """The stored offer, or ``OFFER_NOT_FOUND``."""
    return svc.require(
        "SELECT * FROM offers WHERE offer_id = ?", (offer_id,), "OFFER_NOT_FOUND", f"no offer {offer_id!r}"
    )


def require_fresh(offer: dict[str, Any], now: datetime) -> None:
    """Refuse an offer past its 20 minutes (``OFFER_EXPIRED``)."""
    if F.parse_dt(offer["expires_at"]) < now:
        raise ToolError("OFFER_EXPIRED", f"offer {offer['offer_id']} expired at {offer['expires_at']}; search again")


def booking_row(svc: Service, pnr: str) -> dict[str, Any]:
    """The booking row, or ``BOOKING_NOT_FOUND``."""
    return svc.require("SELECT * FROM bookings WHERE pnr = ?", (pnr,), "BOOKING_NOT_FOUND", f"no booking {pnr!r}")


def hex_id(svc: Service, n: int) -> str:
    """``n`` hex digits from the world's generator."""
    return "".join("0123456789abcdef"[int(d)] for d in svc.ctx.rng.integers(0, 16, size=n))


def new_pnr(svc: Service) -> str:
    """A fresh 6-character booking reference from the world's generator."""
    while True:
        pnr = "".join(_PNR_ALPHABET[int(i)] for i in svc.ctx.rng.integers(0, len(_PNR_ALPHABET), size=6))
        if svc.query_one("SELECT 1 FROM bookings WHERE pnr = ?", (pnr,)) is None:
            return pnr


def ticket_no(pnr: str, pax_idx: int, seg_idx: int) -> str:
    """The e-ticket number of one passenger on one segment (a stable hash)."""
    digits = "".join(c for c in hashlib.sha256(f"{pnr}|{pax_idx}|{seg_idx}".encode()).hexdigest() if c.isdigit())
    return "172-" + (digits * 2)[:9]


# ------------------------------------------------------------------ passengers
def seated_count(passengers: list[dict[str, Any]]) -> int:
    """Passengers who take a seat (all but lap infants; at least one)."""
    return max(1, sum(1 for p in passengers if str(p.get("type", "ADT")).upper() != "INF"))


def validate_passengers(passengers: Sequence[PassengerProfile], paid_pax: int) -> int:
    """Check travellers against an offer priced for ``paid_pax`` seats; returns the seated count.

    Raises:
        ToolError: ``INVALID_PASSENGERS`` saying what does not fit.
    """
    if not passengers:
        raise ToolError("INVALID_PASSENGERS", "at least one passenger is required")
    for i, p in enumerate(passengers):
        if str(p["type"]).upper() not in _PAX_TYPES:
            raise ToolError("INVALID_PASSENGERS", f"passenger {i} has type {p['type']!r}; use ADT, CHD or INF")
        if not p["given_name"].strip() or not p["family_name"].strip():
            raise ToolError("INVALID_PASSENGERS", f"passenger {i} needs a given and family name")
    seated = sum(1 for p in passengers if p["type"].upper() != "INF")
    infants = len(passengers) - seated
    adults = sum(1 for p in passengers if p["type"].upper() == "ADT")
    if seated != paid_pax:
        raise ToolError("INVALID_PASSENGERS", f"the offer is priced for {paid_pax} seated passengers, got {seated}")
    if infants > adults:
        raise ToolError("INVALID_PASSENGERS", f"{infants} lap infants need as many adults, got {adults}")
    return seated


# ------------------------------------------------------------------ writing
def hold_deadline(segments: list[dict[str, Any]], now: datetime) -> datetime:
    """When a HOLD lapses: 24 h from now, never later than 2 h before the first departure.

    Raises:
        ToolError: ``HOLD_NOT_AVAILABLE`` when that moment has already passed.
    """
    first_departure = F.parse_dt(segments[0]["depart_dt"])
    until = min(now + timedelta(hours=F.HOLD_HOURS), first_departure - timedelta(hours=2))
    if until <= now:
        raise ToolError("HOLD_NOT_AVAILABLE", f"{segments[0]['flight_no']} departs too soon to hold")
    return until


def issue(
    svc: Service,
    offer_id: str,
    payload: dict[str, Any],
    passengers: Sequence[PassengerProfile],
    contact: BookingContact,
    seats: Sequence[inventory.SeatPick],
    fare: float,
    seat_fees: float,
    hold: bool,
    hold_until: datetime | None,
) -> dict[str, Any]:
    """Store a new booking (inventory already taken) and return what create_booking shows.

    Args:
        svc: The flight_booking service.
        offer_id: The booked offer.
        payload: The offer's stored payload (segments, currency).
        passengers: The travellers, in order.
        contact: Who owns the booking.
        seats: Validated seat picks.
        fare: The fare charged for all seated passengers.
        seat_fees: The seat selection surcharge, already rounded.
        hold: Hold without ticketing instead of issuing tickets.
        hold_until: When the HOLD lapses; ``None`` for a hold that never lapses (the
            release profile).
    """
    segments, currency = payload["segments"], payload["currency"]
    pnr = new_pnr(svc)
    status = "HOLD" if hold else "TICKETED"
    created = iso(svc.now())
    total = round(fare + seat_fees, 2)
    booking_segments = [
        {
            "segment_idx": i,
            "flight_no": s["flight_no"],
            "origin": s["origin"],
            "dest": s["destination"],
            "depart_dt": s["depart_dt"],
            "arrive_dt": s["arrive_dt"],
            "cabin": s["cabin"],
            "equipment": s.get("equipment", ""),
        }
        for i, s in enumerate(segments)
    ]
    history = [{"at": created, "event": "CREATED", "detail": f"status={status} offer={offer_id}"}]
    svc.execute(
        "INSERT INTO bookings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            pnr,
            contact.get("user_id") or contact.get("email"),
            offer_id,
            status,
            total,
            currency,
            created,
            dumps(booking_segments),
            dumps(passengers),
            dumps(dict(contact)),
            dumps(history),
        ),
    )
    for seg_idx, pax_idx, seat, _eq in seats:
        svc.execute("INSERT INTO seat_assignments VALUES (?, ?, ?, ?, 0, NULL)", (pnr, seg_idx, pax_idx, seat))
    if hold_until is not None:
        svc.execute("INSERT INTO booking_holds VALUES (?, ?)", (pnr, iso(hold_until)))
    tickets = [] if hold else [ticket_no(pnr, p, s) for p in range(len(passengers)) for s in range(len(segments))]
    result = {
        "pnr": pnr,
        "status": status,
        "total_paid": {"amount": total, "currency": currency},
        "seat_fees": {"amount": seat_fees, "currency": currency},
        "ticket_numbers": tickets,
        "segments": [
            {
                "segment_idx": s["segment_idx"],
                "flight_no": s["flight_no"],
                "cabin": s["cabin"],
                "seat": next((x[2] for x in seats if x[0] == s["segment_idx"] and x[1] == 0), None),
            }
            for s in booking_segments
        ],
        "created_at": created,
    }
    if hold_until is not None:
        result["hold_expires_at"] = iso(hold_until)
    return result


def append_history(
    svc: Service, row: dict[str, Any], event: str, detail: str, status: str | None = None, at: str | None = None
) -> None:
    """Add an event to a booking's history, optionally moving it to ``status``."""
    history = json.loads(row["history_json"] or "[]")
    history.append({"at": at or iso(svc.now()), "event": event, "detail": detail})
    svc.execute(
        "UPDATE bookings SET history_json = ?, status = ? WHERE pnr = ?",
        (dumps(history), status or row["status"], row["pnr"]),
    )


def splice(
    old: list[dict[str, Any]], targets: list[int], new: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[int, int], list[int]]:
    """Replace segments ``targets`` of ``old`` by an offer's ``new`` segments, in place.

    Returns:
        The booking's new segment list (re-indexed), where each kept old segment went,
        and the indices of the inserted segments.
    """
    spliced: list[dict[str, Any]] = []
    index_map: dict[int, int] = {}
    inserted: list[int] = []
    for i, s in enumerate(old):
        if i == targets[0]:
            for ns in new:
                inserted.append(len(spliced))
                spliced.append(
                    {
                        "flight_no": ns["flight_no"],
                        "origin": ns["origin"],
                        "dest": ns["destination"],
                        "depart_dt": ns["depart_dt"],
                        "arrive_dt": ns["arrive_dt"],
                        "cabin": ns["cabin"],
                        "equipment": ns.get("equipment", ""),
                    }
                )
        if i not in targets:
            index_map[i] = len(spliced)
            spliced.append(dict(s))
    for j, s in enumerate(spliced):
        s["segment_idx"] = j
    return spliced, index_map, inserted


def move_seats(svc: Service, pnr: str, index_map: dict[int, int]) -> None:
    """Keep the seat assignments of kept segments under their new indices; drop the others."""
    kept = svc.query("SELECT * FROM seat_assignments WHERE pnr = ?", (pnr,))
    svc.execute("DELETE FROM seat_assignments WHERE pnr = ?", (pnr,))
    for sa in kept:
        if sa["segment_idx"] in index_map:
            svc.execute(
                "INSERT INTO seat_assignments VALUES (?, ?, ?, ?, ?, ?)",
                (
                    pnr,
                    index_map[sa["segment_idx"]],
                    sa["pax_idx"],
                    sa["seat"],
                    sa["checked_in"],
                    sa["boarding_pass_id"],
                ),
            )


def board(
    svc: Service,
    pnr: str,
    segment_idx: int,
    seg: dict[str, Any],
    passengers: list[dict[str, Any]],
    targets: list[int],
    prefs: dict[int, str],
) -> list[dict[str, Any]]:
    """Check passengers ``targets`` in on one segment: a seat each (lap infants none) and a boarding pass.

    Each keeps their preferred seat, else their assignment, else gets the first free seat
    of the cabin on the live aircraft.

    Raises:
        ToolError: ``ALREADY_CHECKED_IN``, or ``SEAT_UNAVAILABLE`` for a seat that cannot be had.
    """
    existing = {
        r["pax_idx"]: r
        for r in svc.query("SELECT * FROM seat_assignments WHERE pnr = ? AND segment_idx = ?", (pnr, segment_idx))
    }
    equipment, cabin = inventory.live_equipment(svc, seg), seg.get("cabin", "ECONOMY")
    taken = inventory.taken_seats(svc, seg["flight_no"], seg["depart_dt"][:10], exclude_pnr=pnr)
    mine = {r["seat"] for p, r in existing.items() if p not in targets}
    out = []
    for px in targets:
        if px in existing and existing[px]["boarding_pass_id"]:
            raise ToolError("ALREADY_CHECKED_IN", f"passenger {px} is already checked in on segment {segment_idx}")
        seat: str | None = None
        if str(passengers[px].get("type", "ADT")).upper() != "INF":
            if px in prefs:
                seat = prefs[px]
                inventory.check_seat(seat, equipment, cabin, taken | mine, seg["flight_no"])
            elif px in existing:
                seat = existing[px]["seat"]
            else:
                seat = next((s for s in F.ordered_seats(equipment, cabin) if s not in taken | mine), None)
                if seat is None:
                    raise ToolError("SEAT_UNAVAILABLE", f"no free {cabin} seat left on {seg['flight_no']}")
            mine.add(seat)
        boarding_pass = f"BP{hex_id(svc, 8).upper()}"
        svc.execute(
            "INSERT INTO seat_assignments VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT(pnr, segment_idx, pax_idx) "
            "DO UPDATE SET seat = excluded.seat, checked_in = 1, boarding_pass_id = excluded.boarding_pass_id",
            (pnr, segment_idx, px, seat or "", boarding_pass),
        )
        out.append({"pax_idx": px, "seat": seat, "boarding_pass_id": boarding_pass})
    return out


# ------------------------------------------------------------------ reading
def view(svc: Service, row: dict[str, Any]) -> dict[str, Any]:
    """What get_booking shows: passengers, segments with live status and seats, history."""
    pnr = row["pnr"]
    seats: dict[int, list[dict[str, Any]]] = {}
    for sa in svc.query("SELECT * FROM seat_assignments WHERE pnr = ? ORDER BY segment_idx, pax_idx", (pnr,)):
        seats.setdefault(sa["segment_idx"], []).append(
            {"pax_idx": sa["pax_idx"], "seat": sa["seat"], "checked_in": bool(sa["checked_in"])}
        )
    segments = []
    for s in json.loads(row["segments_json"]):
        fs = inventory.status_row(svc, s["flight_no"], s["depart_dt"][:10])
        segments.append(
            {
                "segment_idx": s["segment_idx"],
                "flight_no": s["flight_no"],
                "origin": s["origin"],
                "destination": s.get("dest") or s.get("destination"),
                "depart_dt": s["depart_dt"],
                "arrive_dt": s["arrive_dt"],
                "cabin": s["cabin"],
                "equipment": inventory.live_equipment(svc, s),
                "status": fs["status"] if fs else "SCHEDULED",
                "seats": seats.get(s["segment_idx"], []),
            }
        )
    out = {
        "pnr": row["pnr"],
        "status": row["status"],
        "total_paid": {"amount": row["paid_amount"], "currency": row["currency"]},
        "passengers": [
            {"given_name": p.get("given_name"), "family_name": p.get("family_name"), "type": p.get("type")}
            for p in json.loads(row["passengers_json"])
        ],
        "segments": segments,
        "contact": json.loads(row["contact_json"]),
        "created_at": row["created_at"],
        "history": json.loads(row["history_json"]),
    }
    hold = svc.query_one("SELECT expires_at FROM booking_holds WHERE pnr = ?", (pnr,))
    if hold and row["status"] in ("HOLD", "EXPIRED"):
        out["hold_expires_at"] = hold["expires_at"]
    return out


def summary(row: dict[str, Any]) -> dict[str, Any]:
    """One line of list_bookings: status, amount, first departure and route."""
    segs = json.loads(row["segments_json"])
    airports = [segs[0]["origin"], *[s.get("dest") or s.get("destination") for s in segs]] if segs else []
    return {
        "pnr": row["pnr"],
        "status": row["status"],
        "total_paid": {"amount": row["paid_amount"], "currency": row["currency"]},
        "first_depart_dt": segs[0]["depart_dt"] if segs else "",
        "route_summary": "-".join(airports),
    }


# ------------------------------------------------------------------ clock upkeep
def expire_holds(svc: Service) -> None:
    """Lapse HOLD bookings whose deadline passed, giving their seats back."""
    now = svc.now()
    for h in svc.query(
        "SELECT b.*, h.expires_at FROM booking_holds h JOIN bookings b ON b.pnr = h.pnr WHERE b.status = 'HOLD'"
    ):
        if F.parse_dt(h["expires_at"]) > now:
            continue
        seated = seated_count(json.loads(h["passengers_json"]))
        for s in json.loads(h["segments_json"]):
            inventory.move(svc, s, seated)
        append_history(svc, h, "EXPIRED", f"hold lapsed at {h['expires_at']}", status="EXPIRED", at=h["expires_at"])


def invalidate_seats(svc: Service) -> None:
    """Drop seat assignments the live aircraft no longer has in the booked cabin (and say so)."""
    rows = svc.query(
        "SELECT sa.*, b.segments_json FROM seat_assignments sa JOIN bookings b ON b.pnr = sa.pnr "
        f"WHERE b.status IN {F.LIVE_STATUSES!r} AND sa.seat != '' ORDER BY sa.pnr, sa.segment_idx, sa.pax_idx"
    )
    for r in rows:
        segs = json.loads(r["segments_json"])
        if not 0 <= r["segment_idx"] < len(segs):
            continue
        seg = segs[r["segment_idx"]]
        equipment = inventory.live_equipment(svc, seg)
        block = F.seat_cabin(equipment, r["seat"])
        if block is not None and F.cabin_matches(seg.get("cabin", "ECONOMY"), block):
            continue
        svc.execute(
            "DELETE FROM seat_assignments WHERE pnr = ? AND segment_idx = ? AND pax_idx = ?",
            (r["pnr"], r["segment_idx"], r["pax_idx"]),
        )
        detail = (
            f"seat {r['seat']} of passenger {r['pax_idx']} on {seg['flight_no']} no longer exists "
            f"after the aircraft change to {equipment}; a new seat is needed"
        )
        append_history(svc, booking_row(svc, r["pnr"]), "SEAT_INVALIDATED", detail)
        event = {
            "pnr": r["pnr"],
            "flight_no": seg["flight_no"],
            "event": "SEAT_INVALIDATED",
            "seat": r["seat"],
            "equipment": equipment,
        }
        svc.execute(
            "INSERT INTO notifications (created_at, channel, payload_json) VALUES (?, 'system', ?)",
            (iso(svc.now()), dumps(event)),
        )
