"""Reservations of hotel_booking: rows, views, guest tickets, notifications and hold expiry.

Functions take the service first. A reservation's ``special_requests_json`` column keeps
what happened to it (modifications, late checkout, cancellation, walk details).
"""

from __future__ import annotations

import hashlib
from typing import Any

from vibelife_env.services.base import Service
from vibelife_env.services.common import dumps, loads
from vibelife_env.services.hotel_booking import _inventory as inventory
from vibelife_env.services.hotel_booking import _pricing as pricing
from vibelife_env.services.hotel_booking._types import GuestProfile

#: Statuses of a reservation that still holds rooms.
LIVE = ("confirmed", "modified")
#: Keys of ``special_requests_json`` that get_reservation shows when present.
_SHOWN_EXTRAS = ("late_checkout_time", "walked_from", "walk_info", "compensation", "cancellation")


def reservation_row(svc: Service, reservation_id: str) -> dict[str, Any]:
    """The reservation row, or ``RESERVATION_NOT_FOUND``."""
    return svc.require(
        "SELECT * FROM reservations WHERE reservation_id = ?",
        (reservation_id,),
        "RESERVATION_NOT_FOUND",
        f"no reservation {reservation_id!r}",
    )


def extras(row: dict[str, Any]) -> dict[str, Any]:
    """The reservation's history object (``special_requests_json``)."""
    return loads(row["special_requests_json"], {}) or {}


def insert(
    svc: Service,
    guest: GuestProfile,
    hotel_id: str,
    stay: tuple[str, str],
    bundle: tuple[str, str],
    rows: list[dict[str, Any]],
    payment_method_id: str,
) -> str:
    """Store a confirmed reservation of one room on ``rows`` (rooms not yet taken); returns its id."""
    check_in, check_out = stay
    room_type, flavor = bundle
    total = sum(int(r["nightly_price"]) for r in rows)
    refundable, until = pricing.refund_window(rows, svc.now())
    seq = svc.next_seq("reservation_seq")
    res_id = f"res_{svc.now().strftime('%Y%m%d')}_{seq:06d}"
    code = hashlib.sha256(res_id.encode()).hexdigest().upper()
    code = f"MOCK-{code[:4]}-{code[4:8]}"
    now = svc.now_iso()
    svc.execute(
        "INSERT INTO reservations VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'confirmed', ?, ?, ?, ?, ?, ?, ?, ?, '{}')",
        (
            res_id,
            code,
            guest["user_id"],
            hotel_id,
            check_in,
            check_out,
            room_type,
            flavor,
            total,
            rows[0]["currency"],
            int(refundable),
            until,
            now,
            now,
            dumps(dict(guest)),
            payment_method_id,
        ),
    )
    return res_id


def view(svc: Service, row: dict[str, Any], details: bool) -> dict[str, Any]:
    """A reservation as the tools show it; with ``details``, nights, requests and history too."""
    hotel = svc.query_one("SELECT name FROM hotels WHERE hotel_id = ?", (row["hotel_id"],))
    guest = loads(row["guest_profile_json"], {}) or {}
    out = {
        "reservation_id": row["reservation_id"],
        "confirmation_code": row["confirmation_code"],
        "status": row["status"],
        "total_charged": int(row["total_charged"]),
        "currency": row["currency"],
        "hotel_id": row["hotel_id"],
        "hotel_name": hotel["name"] if hotel else row["hotel_id"],
        "check_in": row["check_in"],
        "check_out": row["check_out"],
        "room_type": row["room_type"],
        "guest_name": f"{guest.get('first_name', '')} {guest.get('last_name', '')}".strip() or "Guest",
        "refundable": bool(row["refundable"]),
        "refundable_until": row["refundable_until"],
    }
    if not details:
        return out
    extra = extras(row)
    out["flavor"] = row["flavor"]
    out["user_id"] = row["user_id"]
    out["nights"] = [
        {"date": n["date"], "nightly_price": int(n["nightly_price"]), "rate_plan_row_id": int(n["rate_plan_row_id"])}
        for n in svc.query(
            "SELECT * FROM reservation_nights WHERE reservation_id = ? ORDER BY date", (row["reservation_id"],)
        )
    ]
    out["special_requests"] = svc.query(
        "SELECT ticket_id, text, status FROM special_requests WHERE reservation_id = ? ORDER BY created_at, ticket_id",
        (row["reservation_id"],),
    )
    out["created_at"] = row["created_at"]
    out["modifications"] = extra.get("modifications", [])
    for key in _SHOWN_EXTRAS:
        if key in extra:
            out[key] = extra[key]
    return out


def triage(text: str) -> str:
    """Where a special request goes: ``pending_hotel``, ``acknowledged`` or ``open``."""
    lower = text.lower()
    if any(k in lower for k in ("crib", "cot", "baby", "allergy", "allergic", "early check-in")):
        return "pending_hotel"
    if any(k in lower for k in ("high floor", "quiet room", "extra pillow", "view")):
        return "acknowledged"
    return "open"


def open_ticket(svc: Service, reservation_id: str, text: str) -> dict[str, Any]:
    """File a special-request ticket, triaged by its text."""
    ticket = f"tkt_{svc.next_seq('ticket_seq'):06d}"
    status = triage(text)
    now = svc.now_iso()
    svc.execute(
        "INSERT INTO special_requests VALUES (?, ?, ?, ?, ?, ?)", (ticket, reservation_id, text, status, now, now)
    )
    return {"ticket_id": ticket, "reservation_id": reservation_id, "status": status}


def notify(svc: Service, channel: str, payload: dict[str, Any]) -> None:
    """Queue a guest or system notification."""
    svc.execute(
        "INSERT INTO notifications (created_at, channel, payload_json) VALUES (?, ?, ?)",
        (svc.now_iso(), channel, dumps(payload)),
    )


def fire_hold_expiries(svc: Service) -> None:
    """Apply seeded ``hold_expiry`` events whose time has come: unconfirmed holds lose their rooms."""
    if not svc.query_one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pending_events'"):
        return
    now = svc.now()
    for ev in svc.query("SELECT * FROM pending_events WHERE type = 'hold_expiry' AND consumed_at IS NULL ORDER BY id"):
        payload = loads(ev["payload_json"], {}) or {}
        flip_at = payload.get("flip_at") or f"{ev['target_date']}T23:59:59"
        if pricing.deadline(flip_at, now.tzinfo) > now:
            continue
        wanted = inventory.slug(str(payload.get("room_type") or ""))
        rooms = [
            r["room_type"]
            for r in svc.query("SELECT DISTINCT room_type FROM rate_plans WHERE hotel_id = ?", (ev["hotel_id"],))
            if inventory.slug(r["room_type"]) == wanted
        ]
        for room in rooms:
            confirmed = svc.query_one(
                "SELECT 1 FROM reservations WHERE hotel_id = ? AND room_type = ? AND status IN ('confirmed', 'modified')",
                (ev["hotel_id"], room),
            )
            if confirmed:
                continue
            svc.execute(
                "UPDATE rate_plans SET inventory_remaining = 0 WHERE hotel_id = ? AND room_type = ?",
                (ev["hotel_id"], room),
            )
            notify(svc, "system", {"kind": "hold_expired", "hotel_id": ev["hotel_id"], **payload})
        svc.execute("UPDATE pending_events SET consumed_at = ? WHERE id = ?", (flip_at, ev["id"]))


def bookings_summary(svc: Service, user_id: str) -> dict[str, Any]:
    """Counts, amounts, nights, cities and next check-in of a user's reservations."""
    rows = svc.query("SELECT * FROM reservations WHERE user_id = ?", (user_id,))
    stayed = ("confirmed", "modified", "walked", "checked_out")
    today = svc.now().date().isoformat()
    spent = sum(int(r["total_charged"]) for r in rows if r["status"] in stayed)
    currencies = sorted({str(r["currency"]) for r in rows})
    currency = currencies[0] if len(currencies) == 1 else ("mixed" if currencies else None)
    refunded, nights, cities, upcoming = 0, 0, set(), None
    for r in rows:
        if r["status"] == "cancelled":
            cancel = extras(r).get("cancellation") or {}
            refunded += int(cancel.get("refund_amount", r["total_charged"]))
        if r["status"] in stayed:
            nights += svc.aggregate(
                "SELECT COUNT(*) AS c FROM reservation_nights WHERE reservation_id = ?", (r["reservation_id"],)
            )["c"]
        hotel = svc.query_one("SELECT city FROM hotels WHERE hotel_id = ?", (r["hotel_id"],))
        if hotel:
            cities.add(hotel["city"])
        if r["status"] in LIVE and r["check_in"] >= today and (upcoming is None or r["check_in"] < upcoming):
            upcoming = r["check_in"]
    open_requests = svc.aggregate(
        "SELECT COUNT(*) AS c FROM special_requests s JOIN reservations r ON r.reservation_id = s.reservation_id "
        "WHERE r.user_id = ? AND s.status IN ('open', 'pending_hotel', 'acknowledged')",
        (user_id,),
    )["c"]
    return {
        "user_id": user_id,
        "total_reservations": len(rows),
        "active_reservations": sum(1 for r in rows if r["status"] in LIVE),
        "cancelled_reservations": sum(1 for r in rows if r["status"] == "cancelled"),
        "total_spent": spent,
        "total_refunded": refunded,
        "currency": currency,
        "total_nights": nights,
        "cities": sorted(cities),
        "upcoming_check_in": upcoming,
        "loyalty_points_estimate": spent // 100,
        "open_special_requests": open_requests,
    }
