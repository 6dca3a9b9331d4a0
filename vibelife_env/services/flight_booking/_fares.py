"""Static fare and aircraft knowledge for flight_booking: cabins, rules, seat layouts, FX.

Everything here is pure (no database): the service combines it with live rows, so an
aircraft swap (a mutation rewriting ``flights.equipment``) changes the seat map, the
valid seat labels and check-in assignment at once.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

CABINS = ("ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST")
SORTS = ("price_asc", "duration_asc", "depart_asc")
SINKS = ("stdout", "email", "webhook")

FARE_BASIS = {"ECONOMY": "YLX", "PREMIUM_ECONOMY": "WLX", "BUSINESS": "JLX", "FIRST": "FLX"}

#: Units of each currency per 1 CNY (fixed mock rates; prices are converted when a
#: search asks for another currency than the one the flight is sold in).
FX_PER_CNY = {"CNY": 1.0, "USD": 0.14, "EUR": 0.13, "JPY": 21.0, "HKD": 1.08, "GBP": 0.11, "KRW": 190.0}

OFFER_TTL_MIN = 20
PRICE_GUARANTEE_MIN = 10
TICKETING_DEADLINE_MIN = 60
HOLD_HOURS = 24
CHECKIN_OPENS_H = 48
CHECKIN_CLOSES_MIN = 45
MIN_CONNECTION_MIN = 45
MAX_CONNECTION_MIN = 24 * 60

#: Statuses whose seats and inventory are still held.
LIVE_STATUSES = ("TICKETED", "HOLD", "CHANGED")


def convert(amount: float, src: str, dst: str) -> float:
    """Convert between currencies with the fixed mock rates (identity when equal)."""
    if src == dst:
        return float(amount)
    return float(amount) / FX_PER_CNY[src] * FX_PER_CNY[dst]


def baggage_for(cabin: str) -> dict[str, int]:
    """Baggage allowance per passenger in kilograms."""
    return {
        "ECONOMY": {"checked_kg": 23, "carry_on_kg": 7},
        "PREMIUM_ECONOMY": {"checked_kg": 32, "carry_on_kg": 10},
    }.get(cabin, {"checked_kg": 46, "carry_on_kg": 14})


def fare_rules_for(cabin: str) -> dict[str, Any]:
    """Refund/change rules of the fare family sold in a cabin (change_fee per booking)."""
    if cabin == "ECONOMY":
        return {"refundable": False, "changeable": True, "change_fee": 450}
    if cabin == "PREMIUM_ECONOMY":
        return {"refundable": False, "changeable": True, "change_fee": 300}
    return {"refundable": True, "changeable": True, "change_fee": 0}


# ------------------------------------------------------------------ seat layouts
@dataclass(frozen=True)
class Layout:
    """One aircraft's cabin: ``rows`` rows of ``letters`` seats, aisles after ``aisle_after``."""

    rows: int
    letters: str
    aisle_after: tuple[str, ...]
    premium_rows: int  # business rows at the front (premium economy follows, 4 rows)

    def seat_cabin(self, row: int) -> str:
        if row <= self.premium_rows:
            return "BUSINESS"
        if row <= self.premium_rows + 4:
            return "PREMIUM_ECONOMY"
        return "ECONOMY"

    def aisle_letters(self) -> set[str]:
        out: set[str] = set()
        for letter in self.aisle_after:
            i = self.letters.index(letter)
            out.update({self.letters[i], self.letters[i + 1]})
        return out


_NARROW = Layout(28, "ABCDEF", ("C",), 2)
_LAYOUTS = {
    "738": _NARROW,
    "737800": _NARROW,
    "737900": Layout(30, "ABCDEF", ("C",), 2),
    "737700": Layout(24, "ABCDEF", ("C",), 2),
    "319": Layout(22, "ABCDEF", ("C",), 2),
    "320": Layout(26, "ABCDEF", ("C",), 2),
    "320NEO": Layout(26, "ABCDEF", ("C",), 2),
    "321": Layout(32, "ABCDEF", ("C",), 2),
    "788": Layout(32, "ABCDEGHJK", ("C", "G"), 4),
    "7878": Layout(32, "ABCDEGHJK", ("C", "G"), 4),
    "789": Layout(38, "ABCDEGHJK", ("C", "G"), 4),
    "7879": Layout(38, "ABCDEGHJK", ("C", "G"), 4),
    "77W": Layout(44, "ABCDEFGHJK", ("C", "G"), 4),
    "777300ER": Layout(44, "ABCDEFGHJK", ("C", "G"), 4),
    "333": Layout(40, "ABCDEGHJK", ("C", "G"), 4),
    "330300": Layout(40, "ABCDEGHJK", ("C", "G"), 4),
    "330200": Layout(36, "ABCDEGHJK", ("C", "G"), 4),
    "359": Layout(40, "ABCDEGHJK", ("C", "G"), 4),
    "350900": Layout(40, "ABCDEGHJK", ("C", "G"), 4),
}


@functools.lru_cache(maxsize=256)
def layout_for(equipment: str) -> Layout:
    """The seat layout of an aircraft code (``788``, ``B787-9``, ``A320neo``...); narrow-body default."""
    key = re.sub(r"[^0-9A-Z]", "", (equipment or "").upper())
    key = re.sub(r"^[AB](?=\d{3})", "", key)
    return _LAYOUTS.get(key, _NARROW)


def seat_row(seat: str) -> int | None:
    m = re.fullmatch(r"(\d{1,2})([A-Z])", seat.strip().upper())
    return int(m.group(1)) if m else None


def seat_cabin(equipment: str, seat: str) -> str | None:
    """The cabin a seat label belongs to on an aircraft, or None when it does not exist."""
    lay = layout_for(equipment)
    m = re.fullmatch(r"(\d{1,2})([A-Z])", seat)
    if not m or m.group(2) not in lay.letters or not 1 <= int(m.group(1)) <= lay.rows:
        return None
    return lay.seat_cabin(int(m.group(1)))


def cabin_matches(booked: str, seat_block: str) -> bool:
    """A booked cabin may sit in its own block (FIRST sits in the front block)."""
    return booked == seat_block or (booked == "FIRST" and seat_block == "BUSINESS")


def seat_price_cny(equipment: str, seat: str) -> float:
    """Seat selection surcharge in CNY (0 for business, 120 premium, 180 exit row, 40 window/aisle)."""
    lay = layout_for(equipment)
    row = seat_row(seat) or 0
    block = lay.seat_cabin(row)
    if block == "BUSINESS":
        return 0.0
    if block == "PREMIUM_ECONOMY":
        return 120.0
    chars = seat_characteristics(lay, row, seat[-1], block)
    if "EXTRA_LEGROOM" in chars:
        return 180.0
    if "WINDOW" in chars or "AISLE" in chars:
        return 40.0
    return 0.0


def seat_characteristics(lay: Layout, row: int, letter: str, block: str) -> list[str]:
    chars = []
    if letter in (lay.letters[0], lay.letters[-1]):
        chars.append("WINDOW")
    if letter in lay.aisle_letters():
        chars.append("AISLE")
    if block == "ECONOMY" and row in (12, 13):
        chars += ["EXIT", "EXTRA_LEGROOM"]
    return chars


def ordered_seats(equipment: str, cabin: str) -> list[str]:
    """Seat labels of a cabin block, front to back, left to right (auto-assignment order)."""
    lay = layout_for(equipment)
    return [
        f"{r}{letter}"
        for r in range(1, lay.rows + 1)
        if cabin_matches(cabin, lay.seat_cabin(r))
        for letter in lay.letters
    ]


@functools.lru_cache(maxsize=256)
def _seat_rows(
    equipment: str, currency: str
) -> tuple[tuple[str, int, tuple[tuple[str, tuple[str, ...], float], ...]], ...]:
    """Per row: its cabin block, number and ``(seat, characteristics, surcharge)`` of every seat
    (what a seat map shows that does not depend on the bookings; computed once per aircraft and currency)."""
    lay = layout_for(equipment)
    out = []
    for r in range(1, lay.rows + 1):
        block = lay.seat_cabin(r)
        seats = tuple(
            (
                f"{r}{letter}",
                tuple(seat_characteristics(lay, r, letter, block)),
                round(convert(seat_price_cny(equipment, f"{r}{letter}"), "CNY", currency), 2),
            )
            for letter in lay.letters
        )
        out.append((block, r, seats))
    return tuple(out)


def seat_map_blocks(equipment: str, taken: set[str], currency: str) -> list[dict[str, Any]]:
    """The aircraft's cabins with every seat, its availability, features and surcharge."""
    blocks: dict[str, list[dict[str, Any]]] = {"BUSINESS": [], "PREMIUM_ECONOMY": [], "ECONOMY": []}
    for block, r, seats in _seat_rows(equipment, currency):
        row = [
            {
                "seat": label,
                "available": label not in taken,
                "characteristics": list(chars),
                "price_delta": {"amount": price, "currency": currency},
            }
            for label, chars, price in seats
        ]
        blocks[block].append({"row_number": r, "seats": row})
    return [{"cabin": name, "rows": rows} for name, rows in blocks.items()]


# ------------------------------------------------------------------ time helpers
_CST = timezone(timedelta(hours=8))


def parse_dt(value: str) -> datetime:
    """Parse an ISO-8601 timestamp (``Z`` allowed; a naive one is read as UTC+8)."""
    dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return dt if dt.tzinfo else dt.replace(tzinfo=_CST)


def minutes_between(start: str, end: str) -> int:
    return int((parse_dt(end) - parse_dt(start)).total_seconds() // 60)
