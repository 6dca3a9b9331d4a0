"""Courier rules for delivery_logistics: addresses, carrier offers, fees, ETAs, scan schedule.

Nothing here writes to the database; the service materialises what these functions
compute.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date, datetime, time, timedelta
from typing import Any

from vibelife_env.clock import parse_time
from vibelife_env.services.base import ToolError
from vibelife_env.services.common import check_year, loads

SERVICE_TYPES = ("standard", "express", "same_day")
#: Heaviest parcel a courier takes, in kilograms.
MAX_WEIGHT_KG = 1000
TIME_WINDOWS = ("morning", "afternoon", "evening", "anytime")
CHANNELS = ("email", "sms", "webhook")
ISSUE_TYPES = ("lost", "damaged", "wrong_address", "missing_item", "delivery_failed")
ISSUE_STATUSES = ("open", "in_review", "resolved", "closed")
SHIPMENT_STATUSES = (
    "label_created",
    "picked_up",
    "in_transit",
    "out_for_delivery",
    "delivered",
    "exception",
    "returned",
    "cancelled",
)
#: Statuses before the parcel leaves the origin hub (address change and cancel allowed).
PRE_TRANSIT = ("label_created", "picked_up")
RESCHEDULE_ALLOWED = ("in_transit", "out_for_delivery", "exception")
#: Days until a care agent answers, per issue type.
RESPONSE_SLA_DAYS = {"lost": 3, "damaged": 2, "wrong_address": 1, "missing_item": 2, "delivery_failed": 1}
ADDRESS_FIELDS = ("recipient", "phone", "province", "city", "district", "detail")

#: (carrier, service level) candidates per service type; a route hash rotates the list.
CARRIER_POOL = {
    "same_day": [("SF Express", "SF Same-Day"), ("JD Logistics", "JD Express City")],
    "express": [
        ("SF Express", "SF Standard Express"),
        ("JD Logistics", "JD Express"),
        ("ZTO Express", "ZTO Express Plus"),
    ],
    "standard": [
        ("ZTO Express", "ZTO Standard"),
        ("JD Logistics", "JD Standard"),
        ("YTO", "YTO Standard"),
        ("STO", "STO Standard"),
    ],
}
CARRIER_PREFIX = {"SF Express": "SF", "JD Logistics": "JD", "ZTO Express": "ZTO", "YTO": "YT", "STO": "ST"}
#: Fee = base + per-kg rate × weight rounded up to 0.1 kg (fen).
FEE_BASE = {"same_day": 2500, "express": 1200, "standard": 600}
FEE_PER_KG = {"same_day": 800, "express": 500, "standard": 200}
ETA_DAYS = {"same_day": 0, "express": 2, "standard": 4}
#: Hour by which a delivery in each window is completed.
WINDOW_END_HOUR = {"morning": 12, "afternoon": 17, "evening": 20, "anytime": 18}
#: Scan progression of shipments created by request_pickup: (status, from status).
PROGRESSION = (
    ("picked_up", "label_created"),
    ("in_transit", "picked_up"),
    ("out_for_delivery", "in_transit"),
    ("delivered", "out_for_delivery"),
)


# ------------------------------------------------------------------ validation
def check_address(addr: dict[str, Any], label: str) -> dict[str, Any]:
    """The address with its required fields present.

    Raises:
        ToolError: BAD_ADDRESS naming the missing field.
    """
    for key in ADDRESS_FIELDS:
        value = addr.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ToolError("BAD_ARG", f"{label}.{key} is required (a non-empty string)")
    return addr


def check_service_type(service_type: str) -> None:
    if service_type not in SERVICE_TYPES:
        raise ToolError("BAD_ARG", f"service_type must be one of {', '.join(SERVICE_TYPES)}, got {service_type!r}")


def check_weight(weight_kg: float) -> float:
    if not 0 < weight_kg <= MAX_WEIGHT_KG:
        raise ToolError("BAD_ARG", f"weight_kg must be more than 0 and at most {MAX_WEIGHT_KG}, got {weight_kg}")
    return float(weight_kg)


def parse_day(value: str, arg: str) -> date:
    try:
        day = date.fromisoformat(value[:10])
    except ValueError:
        raise ToolError("BAD_ARG", f"{arg} must start with a YYYY-MM-DD date, got {value!r}") from None
    check_year(arg, day)
    return day


# ------------------------------------------------------------------ pricing
def summary(addr: dict[str, Any]) -> str:
    """Province + city + district, the way couriers print a place."""
    return "".join(str(addr.get(k) or "") for k in ("province", "city", "district"))


def address_json(addr: dict[str, Any]) -> str:
    return json.dumps(addr, ensure_ascii=False, sort_keys=True)


def fee_minor(service_type: str, weight_kg: float) -> int:
    tenths = int(max(0.1, weight_kg) * 10 + 0.999)
    return FEE_BASE[service_type] + FEE_PER_KG[service_type] * tenths // 10


def eta(service_type: str, start: date, slot: int = 0) -> date:
    extra = 0
    if service_type == "standard":
        extra = slot
    elif service_type == "express" and slot > 1:
        extra = 1
    return start + timedelta(days=ETA_DAYS[service_type] + extra)


def _digest(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()


def carriers(
    service_type: str, origin: dict[str, Any], dest: dict[str, Any], weight_kg: float
) -> list[tuple[str, str]]:
    """Up to three (carrier, service level) offers, ordered deterministically by route."""
    pool = CARRIER_POOL[service_type]
    key = _digest(service_type, str(origin.get("city", "")), str(origin.get("district", "")),
                  str(dest.get("city", "")), str(dest.get("district", "")), f"{weight_kg:.2f}")  # fmt: skip
    rot = int(key, 16) % len(pool)
    return (pool[rot:] + pool[:rot])[:3]


def tracking_no(carrier: str, shipment_id: str) -> str:
    digits = str(int(_digest(shipment_id, carrier), 16) % 10**13).rjust(13, "0")
    return f"{CARRIER_PREFIX.get(carrier, 'DL')}{digits}"


def confirmation_code(*parts: str) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    digest = _digest(*parts)
    chars = [alphabet[int(digest[i : i + 2], 16) % len(alphabet)] for i in range(0, 16, 2)]
    return f"DL-{''.join(chars[:4])}-{''.join(chars[4:])}"


# ------------------------------------------------------------------ scan schedule
def due_scans(shipment: dict[str, Any], plan: dict[str, Any] | None, now: datetime) -> list[dict[str, Any]]:
    """Scans of a planned shipment that the clock has reached but are not stored yet.

    Pickup happens at the planned time, the parcel leaves the origin hub 4 h later, goes
    out for delivery at 08:00 on the ETA date and is delivered by the end of the chosen
    window. A step applies only from the status before it, so a cancel, an exception or
    a timeline mutation stops the schedule.
    """
    if plan is None:
        return []
    tz = now.tzinfo
    pickup = parse_time(plan["pickup_at"], tz).astimezone(tz)
    try:
        eta_day = date.fromisoformat(str(shipment["eta_date"])[:10])
    except ValueError:
        return []
    transit = pickup + timedelta(hours=4)
    out = max(datetime.combine(eta_day, time(8), tz), transit + timedelta(hours=1))
    end_hour = WINDOW_END_HOUR.get(plan["time_window"], 18)
    done = max(datetime.combine(eta_day, time(end_hour), tz), out + timedelta(hours=1))
    origin = summary(loads(shipment["sender_json"], {}))
    dest = summary(loads(shipment["recipient_json"], {}))
    steps = {
        "picked_up": (pickup, origin, "Parcel picked up by courier"),
        "in_transit": (transit, origin, "Departed origin hub"),
        "out_for_delivery": (out, dest, "Out for delivery"),
        "delivered": (done, dest, "Delivered and signed for"),
    }
    status, scans = shipment["status"], []
    for target, source in PROGRESSION:
        when, where, text = steps[target]
        if status != source or when > now:
            continue
        status = target
        scans.append({"at": when.isoformat(timespec="seconds"), "location": where, "status_code": target,
                      "description": text})  # fmt: skip
    return scans
