"""Money in flight_booking: offers and their totals, live re-pricing, seat fees and refunds.

Offers are priced from the fare buckets at search time; :func:`live_total` re-prices them
against the buckets as they are now. Amounts are rounded to 2 decimals in the offer's
currency, converted with the fixed mock rates of :mod:`._fares`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from vibelife_env.errors import ToolError
from vibelife_env.services.base import Service
from vibelife_env.services.flight_booking import _fares as F
from vibelife_env.services.flight_booking import _inventory as inventory


def iso(dt: datetime) -> str:
    """ISO-8601 with offset, seconds precision (every time flight_booking shows)."""
    return dt.isoformat(timespec="seconds")


def convert_cny(amount: float, currency: str) -> float:
    """A CNY amount in ``currency`` (unchanged for an unknown currency)."""
    return F.convert(amount, "CNY", currency if currency in F.FX_PER_CNY else "CNY")


def convert_between(amount: float, src: str, dst: str) -> float:
    """An amount from ``src`` into ``dst`` (unchanged when either is unknown)."""
    if src not in F.FX_PER_CNY or dst not in F.FX_PER_CNY:
        return float(amount)
    return F.convert(amount, src, dst)


# ------------------------------------------------------------------ offers
def build_offer(
    offer_id: str,
    slices: list[dict[str, Any]],
    cabin: str,
    currency: str,
    paid_pax: int,
    pax: dict[str, int],
    now: datetime,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """An offer for itinerary ``slices``: what search_flights shows, and the stored payload."""
    legs = [leg for s in slices for leg in s["legs"]]
    per_pax = sum(convert_between(leg["price"], leg["currency"], currency) for leg in legs)
    total = round(per_pax * paid_pax, 2)
    base, taxes = round(total * 0.78, 2), round(total * 0.18, 2)
    rules = F.fare_rules_for(cabin)
    rules = {**rules, "change_fee": round(convert_cny(rules["change_fee"], currency), 2)}
    segments = [
        {
            "segment_idx": i,
            "flight_no": leg["flight_no"],
            "origin": leg["origin"],
            "destination": leg["dest"],
            "depart_dt": leg["depart_dt"],
            "arrive_dt": leg["arrive_dt"],
            "equipment": leg["equipment"],
            "carrier": leg["carrier"],
            "cabin": cabin,
            "fare_basis": F.FARE_BASIS[cabin],
            "baggage_allowance": F.baggage_for(cabin),
            "fare_rules": rules,
        }
        for i, leg in enumerate(legs)
    ]
    payload = {
        "total_price": {"amount": total, "currency": currency},
        "fare_breakdown": {"base": base, "taxes": taxes, "fees": round(total - base - taxes, 2), "currency": currency},
        "segments": segments,
        "validating_carrier": legs[0]["carrier"],
        "ticketing_deadline": iso(now + timedelta(minutes=F.TICKETING_DEADLINE_MIN)),
        "paid_pax": paid_pax,
        "pax": pax,
        "cabin": cabin,
        "currency": currency,
    }
    offer = {
        "offer_id": offer_id,
        "total_price": {"amount": total, "currency": currency},
        "validating_carrier": legs[0]["carrier"],
        "itinerary": {"slices": [_slice(s, cabin) for s in slices]},
        "seats_remaining_hint": min(leg["seats_remaining"] for leg in legs),
        "expires_at": iso(now + timedelta(minutes=F.OFFER_TTL_MIN)),
    }
    return offer, payload


def _slice(s: dict[str, Any], cabin: str) -> dict[str, Any]:
    return {
        "origin": s["origin"],
        "destination": s["dest"],
        "depart_dt": s["depart_dt"],
        "arrive_dt": s["arrive_dt"],
        "duration_min": F.minutes_between(s["depart_dt"], s["arrive_dt"]),
        "stops": len(s["legs"]) - 1,
        "segments": [
            {"flight_no": x["flight_no"], "cabin": cabin, "depart_dt": x["depart_dt"], "arrive_dt": x["arrive_dt"]}
            for x in s["legs"]
        ],
    }


def sort_key(sort: str) -> Callable[[dict[str, Any]], Any]:
    """Ordering of offers for ``price_asc``, ``duration_asc`` or ``depart_asc``."""
    if sort == "duration_asc":
        return lambda o: (sum(s["duration_min"] for s in o["itinerary"]["slices"]), o["total_price"]["amount"])
    if sort == "depart_asc":
        return lambda o: (F.parse_dt(o["itinerary"]["slices"][0]["depart_dt"]), o["total_price"]["amount"])
    return lambda o: (o["total_price"]["amount"], F.parse_dt(o["itinerary"]["slices"][0]["depart_dt"]))


# ------------------------------------------------------------------ live prices
def live_total(svc: Service, payload: dict[str, Any]) -> float:
    """Current total of an offer from the live buckets.

    Raises:
        ToolError: ``INVENTORY_GONE`` when a segment has too few seats left.
    """
    seats = int(payload.get("paid_pax") or 1)
    per_pax = 0.0
    for seg in payload["segments"]:
        date = seg["depart_dt"][:10]
        found = inventory.bucket(svc, seg["flight_no"], date, seg["cabin"])
        if found is None or found["seats_remaining"] < seats:
            raise ToolError(
                "INVENTORY_GONE", f"{seg['flight_no']} {seg['cabin']} on {date} has fewer than {seats} seats left"
            )
        flight = inventory.flight_row(svc, seg["flight_no"], date)
        src = flight["currency"] if flight else payload["currency"]
        per_pax += convert_between(float(found["price"]), src, payload["currency"])
    return round(per_pax * seats, 2)


def guaranteed_or_live(svc: Service, offer: dict[str, Any], payload: dict[str, Any]) -> float:
    """The price guaranteed by price_offer while it holds, else the live total."""
    until = offer.get("price_guarantee_until")
    if offer.get("priced_price") is not None and until and F.parse_dt(until) >= svc.now():
        return float(offer["priced_price"])
    return live_total(svc, payload)


def seat_fees(seats: Sequence[inventory.SeatPick], currency: str) -> float:
    """Total selection surcharge of seat picks, in ``currency``."""
    return round(sum(convert_cny(F.seat_price_cny(eq, s), currency) for _, _, s, eq in seats), 2)


# ------------------------------------------------------------------ fare rules
def fare_rules(svc: Service, booking: dict[str, Any]) -> dict[str, Any]:
    """Refund and change rules of a booking's fare (from its offer, else from its cabin)."""
    offer = svc.query_one("SELECT payload_json FROM offers WHERE offer_id = ?", (booking["offer_id"],))
    if offer:
        segs = json.loads(offer["payload_json"]).get("segments") or [{}]
        if segs[0].get("fare_rules"):
            return segs[0]["fare_rules"]
    segs = json.loads(booking["segments_json"])
    rules = F.fare_rules_for(segs[0]["cabin"] if segs else "ECONOMY")
    return {**rules, "change_fee": round(convert_cny(rules["change_fee"], booking["currency"]), 2)}


def cancellation_refund(
    booking: dict[str, Any], segments: list[dict[str, Any]], rules: dict[str, Any], now: datetime
) -> dict[str, Any]:
    """What cancelling returns: ``refundable``, ``refund``, ``fees`` withheld and the ``method``.

    A HOLD costs nothing; after the first departure nothing is refunded; refundable fares
    refund in full; otherwise the lesser of half the fare and twice the change fee is
    withheld and the rest is a voucher.
    """
    paid = float(booking["paid_amount"])
    if booking["status"] == "HOLD":
        return {"refundable": True, "fees": 0.0, "method": "NONE", "refund": 0.0}
    if segments and F.parse_dt(segments[0]["depart_dt"]) <= now:
        return {"refundable": False, "fees": paid, "method": "NONE", "refund": 0.0}
    if rules.get("refundable"):
        return {"refundable": True, "fees": 0.0, "method": "ORIGINAL_FORM", "refund": paid}
    change_fee = float(rules.get("change_fee") or convert_cny(900, booking["currency"]) / 2)
    fees = round(min(paid * 0.5, change_fee * 2), 2)
    return {"refundable": False, "fees": fees, "method": "VOUCHER", "refund": round(paid - fees, 2)}
