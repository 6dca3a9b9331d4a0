"""Money and deadlines in hotel_booking: free-cancellation windows, penalties, late checkout.

Pure functions of rows and the current time; nothing here touches the database.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo
from typing import Any

#: Late checkout price list: latest time (minutes after midnight) → fee.
LATE_CHECKOUT_FREE_UNTIL = 12 * 60
LATE_CHECKOUT_PAID_UNTIL = 14 * 60
LATE_CHECKOUT_LATEST = 16 * 60
LATE_CHECKOUT_FEE, LATE_CHECKOUT_LATEST_FEE = 2000, 5000
#: Occupancy under which the latest late checkout is still granted.
LATE_CHECKOUT_MAX_OCCUPANCY = 0.85


def deadline(value: str, tz: tzinfo | None) -> datetime:
    """A ``refundable_until`` as an aware datetime (a bare date means the end of that day)."""
    text = value.strip().replace("Z", "+00:00")
    if len(text) == 10:
        dt = datetime.fromisoformat(text) + timedelta(days=1, seconds=-1)
    else:
        dt = datetime.fromisoformat(text)
    return dt if dt.tzinfo else dt.replace(tzinfo=tz)


def refund_window(rows: list[dict[str, Any]], now: datetime) -> tuple[bool, str | None]:
    """(refundable now, earliest deadline) for a set of nights; every night needs a deadline."""
    untils = [r["refundable_until"] for r in rows if r["refundable_until"]]
    if not untils or len(untils) != len(rows):
        return False, None
    until = min(untils, key=lambda v: deadline(v, now.tzinfo))
    return deadline(until, now.tzinfo) >= now, until


def refundable_now(reservation: dict[str, Any], now: datetime) -> bool:
    """Whether a reservation can still be cancelled for free."""
    until = reservation["refundable_until"]
    return bool(reservation["refundable"]) and (until is None or deadline(until, now.tzinfo) >= now)


def cancellation_penalty(reservation: dict[str, Any], nights: list[dict[str, Any]], free: bool) -> int:
    """What cancelling keeps: nothing while free; all of a prepaid rate; else the first night."""
    total = int(reservation["total_charged"])
    if free:
        return 0
    if reservation["flavor"] == "prepaid":
        return total
    return min(total, int(nights[0]["nightly_price"]) if nights else 0)


def late_checkout(minutes: int, occupancy: Callable[[], float]) -> tuple[bool, int, str | None]:
    """(approved, fee, reason) for a checkout ``minutes`` after midnight.

    Args:
        minutes: The requested checkout time, in minutes after midnight.
        occupancy: Reads the hotel's occupancy that night (asked only when it matters).
    """
    if minutes <= LATE_CHECKOUT_FREE_UNTIL:
        return True, 0, None
    if minutes <= LATE_CHECKOUT_PAID_UNTIL:
        return True, LATE_CHECKOUT_FEE, None
    if minutes <= LATE_CHECKOUT_LATEST:
        if occupancy() < LATE_CHECKOUT_MAX_OCCUPANCY:
            return True, LATE_CHECKOUT_LATEST_FEE, None
        return False, 0, "hotel is at capacity"
    return False, 0, "beyond latest late checkout time"
