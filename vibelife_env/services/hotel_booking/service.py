"""hotel_booking: a hotel aggregator with per-night rate plans, reservations and guest services.

Tool surface: the public ``hotel_booking_mock`` spec (11 tools). Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` and
``RESERVATION_NOT_FOUND`` for the SPEC's ``RES_NOT_FOUND``. Semantics on the virtual clock:

* A rate plan is a (room_type, flavor) bundle that has a ``rate_plans`` row with
  inventory on every night of the stay; its id is
  ``rp_<hotel_id>_<room-slug>_<flavor>_<YYYYMMDD>_<YYYYMMDD>``.
* Booking charges the sum of the nightly prices at booking time (stored per night in
  ``reservation_nights``) and takes one room from each night's inventory. It is
  refundable while the clock is before the earliest ``refundable_until`` of its nights.
* Cancelling refunds in full inside that window; outside it, ``prepaid`` forfeits
  everything and ``flex``/``semi`` forfeit the first night. Changing dates outside the
  window costs one night (the first original night); room-type changes are free.
* Seeded ``pending_events`` of type ``hold_expiry`` fire at their ``flip_at``: an
  unconfirmed hold (no live reservation on that room type and date) loses its inventory.

The tools below validate and delegate: rate plans and rooms live in :mod:`._inventory`,
refund windows and fees in :mod:`._pricing`, reservation rows and views in
:mod:`._reservations`, argument shapes in :mod:`._types`.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import dumps, loads
from vibelife_env.services.hotel_booking import _inventory as inventory
from vibelife_env.services.hotel_booking import _pricing as pricing
from vibelife_env.services.hotel_booking import _reservations as reservations
from vibelife_env.services.hotel_booking._reservations import LIVE
from vibelife_env.services.hotel_booking._types import GuestProfile
from vibelife_env.services.hotel_booking.read import listed_email

SORTS = ("price_asc", "price_desc", "user_rating_desc", "star_desc")
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
_SORT_KEYS = {
    "price_asc": lambda r: (r["nightly_price_from"], r["hotel_id"]),
    "price_desc": lambda r: (-r["nightly_price_from"], r["hotel_id"]),
    "user_rating_desc": lambda r: (-r["user_rating"], r["hotel_id"]),
    "star_desc": lambda r: (-r["star_rating"], -r["user_rating"], r["hotel_id"]),
}


class HotelBookingService(Service):
    """Hotel search, room availability, reservations, cancellations and guest requests."""

    name = "hotel_booking"
    SCHEMA = schema_from(__file__)

    def sync_clock(self) -> None:
        """Fire seeded hold-expiry events whose time has come before serving the call."""
        reservations.fire_hold_expiries(self)

    # ------------------------------------------------------------------ catalogue
    @tool(read_only=True)
    def search_hotels(
        self, city_or_geo: str, check_in: str, check_out: str, guests: int, filters: dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Search hotels with a bookable room for every night of a stay.

        Each result gives ``nightly_price_from`` (cheapest night among bundles covering the
        stay), ``currency`` and whether that cheapest bundle is still ``refundable``.
        Sorted by price ascending unless ``filters.sort`` says otherwise.

        Args:
            city_or_geo: City (e.g. "Tokyo"), district, or "lat,lng;radius_km" (e.g. "35.68,139.76;3").
            check_in: Arrival date, YYYY-MM-DD.
            check_out: Departure date, YYYY-MM-DD (after check_in, at most 30 nights).
            guests: Adults sharing one room, 1 to 6.
            filters: Optional object: min_star_rating, max_star_rating, min_user_rating (0-10), max_nightly_price, refundable_only, breakfast_included, amenities (list, all required), sort (price_asc, price_desc, user_rating_desc, star_desc), limit (1-50, default 20).
        """

        stay = inventory.nights(check_in, check_out)
        if not 1 <= guests <= 6:
            raise ToolError("BAD_ARG", f"guests must be 1..6, got {guests}")
        f = filters or {}
        sort = f.get("sort") or "price_asc"
        if sort not in SORTS:
            raise ToolError("BAD_ARG", f"filters.sort must be one of {', '.join(SORTS)}, got {sort!r}")
        try:
            limit = max(1, min(int(f.get("limit") or 20), 50))
        except (TypeError, ValueError):
            raise ToolError("BAD_ARG", f"filters.limit must be an integer, got {f.get('limit')!r}") from None
        results = []
        for h in inventory.hotels_at(self, city_or_geo):
            if not inventory.hotel_passes(h, f):
                continue
            found = inventory.bundles(self, h["hotel_id"], stay, guests, f)
            if not found:
                continue
            cheapest = min(found, key=lambda b: min(b["prices"]))
            results.append(
                {
                    "hotel_id": h["hotel_id"],
                    "name": h["name"],
                    "star_rating": int(h["star_rating"]),
                    "user_rating": float(h["user_rating"]),
                    "nightly_price_from": min(cheapest["prices"]),
                    "currency": cheapest["currency"],
                    "refundable": cheapest["refundable"],
                    "thumbnail": f"https://mock.hotels.local/img/{h['hotel_id']}/1.jpg",
                    "district": h["district"],
                    "city": h["city"],
                }
            )
        results.sort(key=_SORT_KEYS[sort])
        return results[:limit]

    @tool(read_only=True)
    def get_hotel_details(self, hotel_id: str) -> dict[str, Any]:
        """Full profile of a hotel: description, address with coordinates, amenities, policies, contact.

        Args:
            hotel_id: The hotel id from search_hotels.
        """

        h = inventory.hotel_row(self, hotel_id)
        address = loads(h["address_json"], {})
        if isinstance(address, dict):
            address.setdefault("geo_lat", float(h["geo_lat"]))
            address.setdefault("geo_lng", float(h["geo_lng"]))
        digest = int(hashlib.sha256(hotel_id.encode()).hexdigest()[:8], 16)
        return {
            "hotel_id": hotel_id,
            "name": h["name"],
            "description": h["description"],
            "star_rating": int(h["star_rating"]),
            "user_rating": float(h["user_rating"]),
            "user_rating_count": int(h["user_rating_count"]),
            "city": h["city"],
            "district": h["district"],
            "address": address,
            "amenities": loads(h["amenities_json"], []),
            "photos": [f"https://mock.hotels.local/img/{hotel_id}/{i}.jpg" for i in range(1, 4)],
            "policies": loads(h["policies_json"], {}),
            "contact": {
                "phone": _phone(float(h["geo_lat"]), float(h["geo_lng"]), digest),
                "email": listed_email(hotel_id),
            },
        }

    @tool(read_only=True)
    def get_room_availability(self, hotel_id: str, check_in: str, check_out: str, guests: int) -> list[dict[str, Any]]:
        """Bookable rate plans of a hotel for a stay, cheapest total first.

        One entry per (room_type, flavor) with a room left on every night: ``rate_plan_id``
        (pass to create_reservation), ``nightly_prices``, ``price_total``, ``currency``,
        ``cancellation_policy``, ``refundable`` / ``refundable_until`` (free cancellation
        deadline), ``breakfast_included``, ``inventory_remaining`` (fewest rooms on any night).

        Args:
            hotel_id: The hotel id.
            check_in: Arrival date, YYYY-MM-DD.
            check_out: Departure date, YYYY-MM-DD (after check_in, at most 30 nights).
            guests: Guests in the room; plans with a smaller max_occupancy are left out.
        """

        stay = inventory.nights(check_in, check_out)
        inventory.hotel_row(self, hotel_id)
        out = []
        for b in inventory.bundles(self, hotel_id, stay, guests, {}):
            rows = b["rows"]
            out.append(
                {
                    "rate_plan_id": inventory.rate_plan_id(hotel_id, b["room_type"], b["flavor"], check_in, check_out),
                    "room_type": b["room_type"],
                    "max_occupancy": int(rows[0]["max_occupancy"]),
                    "nights": len(stay),
                    "nightly_prices": b["prices"],
                    "price_total": sum(b["prices"]),
                    "currency": b["currency"],
                    "cancellation_policy": rows[0]["cancellation_policy"],
                    "refundable": b["refundable"],
                    "refundable_until": b["refundable_until"],
                    "breakfast_included": bool(rows[0]["breakfast_included"]),
                    "inventory_remaining": min(int(r["inventory_remaining"]) for r in rows),
                    "flavor": b["flavor"],
                    "notes": "Prices are per room per night; weekend surcharges are included.",
                }
            )
        out.sort(key=lambda x: (x["price_total"], x["room_type"], x["flavor"]))
        return out

    # ------------------------------------------------------------------ reservations
    @tool
    def create_reservation(
        self,
        rate_plan_id: str,
        guest_profile: GuestProfile,
        payment_method_id: str,
        special_requests: str | None = None,
    ) -> dict[str, Any]:
        """Book one room on a rate plan from get_room_availability; charges the nightly total now.

        Args:
            rate_plan_id: The exact rate_plan_id from get_room_availability (rp_<hotel_id>_<room-slug>_<flavor>_<YYYYMMDD>_<YYYYMMDD>).
            guest_profile: {first_name, last_name, email, phone, user_id}; user_id owns the reservation.
            payment_method_id: The payment method to charge (non-empty).
            special_requests: Optional free-text request opened as a ticket (crib, high floor...).
        """

        if not payment_method_id.strip():
            raise ToolError("BAD_ARG", "payment_method_id must be a non-empty string")
        for key in ("first_name", "last_name", "email", "phone", "user_id"):
            if not str(guest_profile.get(key) or "").strip():
                raise ToolError("BAD_ARG", f"guest_profile.{key} is required")
        hotel_id, room_type, flavor, check_in, check_out = inventory.parse_rate_plan(self, rate_plan_id)
        if date.fromisoformat(check_in) < self.now().date():
            raise ToolError("BAD_ARG", f"check_in {check_in} is in the past")
        stay = inventory.nights(check_in, check_out)
        rows = inventory.plan_rows(self, hotel_id, room_type, flavor, stay)
        if len(rows) != len(stay):
            raise ToolError("RATE_PLAN_NOT_FOUND", f"rate plan {rate_plan_id} is not offered on every night")
        if any(int(r["inventory_remaining"]) <= 0 for r in rows):
            sold = next(r["date"] for r in rows if int(r["inventory_remaining"]) <= 0)
            raise ToolError("SOLD_OUT", f"{room_type} ({flavor}) at {hotel_id} is sold out on {sold}")
        if len({r["currency"] for r in rows}) != 1:
            raise ToolError("RATE_PLAN_NOT_FOUND", f"rate plan {rate_plan_id} spans several currencies")
        res_id = reservations.insert(
            self, guest_profile, hotel_id, (check_in, check_out), (room_type, flavor), rows, payment_method_id
        )
        inventory.take_nights(self, res_id, rows)
        if special_requests and special_requests.strip():
            reservations.open_ticket(self, res_id, special_requests)
        row = reservations.reservation_row(self, res_id)
        reservations.notify(
            self,
            "email",
            {
                "kind": "confirmation",
                "reservation_id": res_id,
                "confirmation_code": row["confirmation_code"],
                "hotel_id": hotel_id,
                "check_in": check_in,
                "check_out": check_out,
                "total_charged": row["total_charged"],
                "currency": row["currency"],
            },
        )
        return reservations.view(self, row, details=False)

    @tool(read_only=True)
    def get_reservation(self, reservation_id: str) -> dict[str, Any]:
        """Full reservation: status, charge, refund window, nights with prices, requests, modifications.

        Args:
            reservation_id: The reservation id, e.g. res_20260417_000001.
        """

        return reservations.view(self, reservations.reservation_row(self, reservation_id), details=True)

    @tool(read_only=True)
    def list_reservations(self, user_id: str) -> dict[str, Any]:
        """Ids of a user's reservations (all statuses), newest first; details via get_reservation.

        Args:
            user_id: The owning user id given in guest_profile.
        """

        ids = [
            r["reservation_id"]
            for r in self.query(
                "SELECT reservation_id FROM reservations WHERE user_id = ? ORDER BY created_at DESC, reservation_id DESC",
                (user_id,),
            )
        ]
        return {"user_id": user_id, "count": len(ids), "reservation_ids": ids}

    @tool
    def modify_reservation(
        self,
        reservation_id: str,
        new_check_in: str | None = None,
        new_check_out: str | None = None,
        new_room_type: str | None = None,
    ) -> dict[str, Any]:
        """Move a reservation's dates and/or room type within the same hotel and flavor.

        Re-prices every night at current rates (``price_delta`` = new total - old total,
        ``total_charged`` becomes the new total). A date change outside the free
        cancellation window costs ``fees`` = the first original night; room changes are free.

        Args:
            reservation_id: The reservation to change.
            new_check_in: New arrival date, YYYY-MM-DD.
            new_check_out: New departure date, YYYY-MM-DD.
            new_room_type: New room type name exactly as listed by get_room_availability.
        """

        if new_check_in is None and new_check_out is None and new_room_type is None:
            raise ToolError("BAD_ARG", "give at least one of new_check_in, new_check_out, new_room_type")
        row = reservations.reservation_row(self, reservation_id)
        if row["status"] not in LIVE:
            raise ToolError(
                "MODIFY_NO_AVAILABILITY", f"reservation {reservation_id} is {row['status']} and cannot be modified"
            )
        ci, co = new_check_in or row["check_in"], new_check_out or row["check_out"]
        room = new_room_type or row["room_type"]
        stay = inventory.nights(ci, co)
        if (ci != row["check_in"]) and date.fromisoformat(ci) < self.now().date():
            raise ToolError("BAD_ARG", f"new_check_in {ci} is in the past")
        old_nights = self.query(
            "SELECT * FROM reservation_nights WHERE reservation_id = ? ORDER BY date", (reservation_id,)
        )
        for n in old_nights:
            inventory.move_room(self, n["rate_plan_row_id"], +1)
        self.execute("DELETE FROM reservation_nights WHERE reservation_id = ?", (reservation_id,))
        rows = inventory.plan_rows(self, row["hotel_id"], room, row["flavor"], stay)
        if len(rows) != len(stay) or any(int(r["inventory_remaining"]) <= 0 for r in rows):
            raise ToolError(
                "MODIFY_NO_AVAILABILITY",
                f"no {room} ({row['flavor']}) room at {row['hotel_id']} for every night {ci} to {co}",
            )
        date_shift = (ci, co) != (row["check_in"], row["check_out"])
        fee = 0
        if date_shift and not pricing.refundable_now(row, self.now()):
            fee = int(old_nights[0]["nightly_price"]) if old_nights else 0
        inventory.take_nights(self, reservation_id, rows)
        new_total = sum(int(r["nightly_price"]) for r in rows)
        refundable, until = pricing.refund_window(rows, self.now())
        extra = reservations.extras(row)
        mods = extra.setdefault("modifications", [])
        now = self.now_iso()
        for field, old, new in (
            ("check_in", row["check_in"], new_check_in),
            ("check_out", row["check_out"], new_check_out),
            ("room_type", row["room_type"], new_room_type),
        ):
            if new is not None:
                mods.append({"at": now, "fee": fee, "field": field, "from": old, "to": new})
        self.execute(
            "UPDATE reservations SET status = 'modified', check_in = ?, check_out = ?, room_type = ?, total_charged = ?, "
            "refundable = ?, refundable_until = ?, updated_at = ?, special_requests_json = ? WHERE reservation_id = ?",
            (ci, co, room, new_total, int(refundable), until, now, dumps(extra), reservation_id),
        )
        return {
            "reservation_id": reservation_id,
            "fees": fee,
            "price_delta": new_total - int(row["total_charged"]),
            "updated_reservation": self.get_reservation(reservation_id),
        }

    @tool
    def cancel_reservation(self, reservation_id: str) -> dict[str, Any]:
        """Cancel a reservation and release its rooms; returns the refund and penalty.

        Full refund before ``refundable_until``; afterwards prepaid rates refund nothing
        and flex/semi rates keep the first night as a penalty. Finished or walked stays
        cannot be cancelled.

        Args:
            reservation_id: The reservation to cancel.
        """

        row = reservations.reservation_row(self, reservation_id)
        if row["status"] == "cancelled":
            raise ToolError("ALREADY_CANCELLED", f"reservation {reservation_id} is already cancelled")
        if row["status"] in ("checked_out", "walked") or date.fromisoformat(row["check_out"]) <= self.now().date():
            raise ToolError(
                "UNCANCELLABLE",
                f"reservation {reservation_id} ({row['status']}, ends {row['check_out']}) cannot be cancelled",
            )
        nights = self.query(
            "SELECT * FROM reservation_nights WHERE reservation_id = ? ORDER BY date", (reservation_id,)
        )
        free = pricing.refundable_now(row, self.now())
        penalty = pricing.cancellation_penalty(row, nights, free)
        refund = int(row["total_charged"]) - penalty
        for n in nights:
            inventory.move_room(self, n["rate_plan_row_id"], +1)
        currency = row["currency"]
        extra = reservations.extras(row)
        now = self.now_iso()
        extra["cancellation"] = {
            "at": now,
            "refund_amount": refund,
            "penalty": penalty,
            "currency": currency,
            "was_refundable": free,
        }
        self.execute(
            "UPDATE reservations SET status = 'cancelled', updated_at = ?, special_requests_json = ? WHERE reservation_id = ?",
            (now, dumps(extra), reservation_id),
        )
        reservations.notify(
            self,
            "email",
            {
                "kind": "cancellation",
                "reservation_id": reservation_id,
                "refund_amount": refund,
                "penalty": penalty,
                "currency": currency,
            },
        )
        return {
            "reservation_id": reservation_id,
            "status": "cancelled",
            "refund_amount": refund,
            "penalty": penalty,
            "currency": currency,
        }

    # ------------------------------------------------------------------ guest services
    @tool
    def request_late_checkout(self, reservation_id: str, new_time: str) -> dict[str, Any]:
        """Ask for a late checkout on the departure day.

        Until 12:00 free; until 14:00 approved for 2000; until 16:00 approved for 5000 only
        if the hotel is under 85% occupancy that night; later is refused.

        Args:
            reservation_id: The reservation.
            new_time: Requested checkout time, 24-hour HH:MM.
        """

        if not _TIME.match(new_time):
            raise ToolError("BAD_ARG", f"new_time must be HH:MM, got {new_time!r}")
        row = reservations.reservation_row(self, reservation_id)
        if row["status"] not in LIVE:
            raise ToolError("BAD_ARG", f"reservation {reservation_id} is {row['status']}")
        minutes = int(new_time[:2]) * 60 + int(new_time[3:])
        approved, fee, reason = pricing.late_checkout(
            minutes, lambda: inventory.occupancy(self, row["hotel_id"], row["check_out"])
        )
        extra = reservations.extras(row)
        now = self.now_iso()
        extra.setdefault("modifications", []).append(
            {
                "at": now,
                "field": "late_checkout",
                "requested": new_time,
                "approved": approved,
                "fee": fee,
                "reason": reason,
            }
        )
        if approved:
            extra["late_checkout_time"] = new_time
        self.execute(
            "UPDATE reservations SET special_requests_json = ?, updated_at = ? WHERE reservation_id = ?",
            (dumps(extra), now, reservation_id),
        )
        return {
            "reservation_id": reservation_id,
            "approved": approved,
            "fee": fee,
            "new_time": new_time,
            "reason": reason,
        }

    @tool
    def submit_special_request(self, reservation_id: str, text: str) -> dict[str, Any]:
        """Open a special-request ticket, triaged to pending_hotel (cribs, allergies, early check-in), acknowledged (floor, view, pillows) or open.

        Args:
            reservation_id: The reservation.
            text: The request in free text.
        """

        reservations.reservation_row(self, reservation_id)
        if not text.strip():
            raise ToolError("BAD_ARG", "text is required")
        return reservations.open_ticket(self, reservation_id, text)

    @tool(read_only=True)
    def get_user_bookings_summary(self, user_id: str) -> dict[str, Any]:
        """Aggregate view of a user's reservations: counts, amounts spent/refunded (in ``currency``, the
        reservations' own; ``"mixed"`` when they differ), nights, cities, next check-in.

        Args:
            user_id: The owning user id.
        """

        return reservations.bookings_summary(self, user_id)


#: Country calling codes by a rough box of latitude and longitude (first match wins: the small
#: places before the countries around them), for a hotel's phone number that belongs to where it is.
_CALLING_CODES: tuple[tuple[float, float, float, float, str], ...] = (
    (22.1, 22.6, 113.8, 114.5, "852"),  # Hong Kong
    (1.1, 1.5, 103.6, 104.1, "65"),  # Singapore
    (21.8, 25.4, 119.9, 122.1, "886"),  # Taiwan
    (24.0, 46.0, 129.5, 146.0, "81"),  # Japan
    (33.0, 38.7, 124.5, 130.0, "82"),  # South Korea
    (18.0, 54.0, 73.0, 135.0, "86"),  # China
    (5.5, 20.5, 97.3, 105.7, "66"),  # Thailand
    (-44.0, -10.0, 112.0, 154.0, "61"),  # Australia
    (-47.5, -34.0, 166.0, 179.0, "64"),  # New Zealand
    (63.0, 66.6, -24.6, -13.4, "354"),  # Iceland
    (51.4, 55.4, -10.5, -5.9, "353"),  # Ireland
    (49.9, 60.9, -8.2, 1.8, "44"),  # United Kingdom
    (42.3, 51.1, -4.8, 8.2, "33"),  # France
    (36.0, 43.8, -9.3, 3.3, "34"),  # Spain
    (36.6, 47.1, 6.6, 18.5, "39"),  # Italy
    (47.3, 55.1, 5.9, 15.0, "49"),  # Germany
    (24.5, 49.4, -125.0, -66.9, "1"),  # United States
)


def _phone(lat: float, lng: float, digest: int) -> str:
    """A hotel's phone number: its country's calling code, then digits drawn from its id (a number
    without a code where the box table does not know the place)."""
    code = next((c for lo, hi, west, east, c in _CALLING_CODES if lo <= lat <= hi and west <= lng <= east), None)
    local = f"{digest % 90 + 10}-{digest // 90 % 9000 + 1000}-{digest % 10000:04d}"
    return f"+{code}-{local}" if code else local
