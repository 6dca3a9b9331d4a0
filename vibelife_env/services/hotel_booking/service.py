"""hotel_booking: a hotel aggregator with per-night rate plans, reservations and guest services.

Tool surface: the public ``hotel_booking_mock`` spec (11 tools, error codes such as
``RES_NOT_FOUND``, ``SOLD_OUT``). Semantics on the virtual clock:

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
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import date, datetime, timedelta
from typing import Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict

from vibelife_env.services.base import Service, ToolError, schema_from, tool

SORTS = ("price_asc", "price_desc", "user_rating_desc", "star_desc")
FLAVORS = ("flex", "semi", "prepaid")
LIVE = ("confirmed", "modified")
MAX_NIGHTS = 30
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


class GuestProfile(TypedDict):
    """Guest identity and the account that owns the reservation."""

    first_name: Annotated[str, Field(description="Guest given/first name.")]
    last_name: Annotated[str, Field(description="Guest family/last name.")]
    email: Annotated[str, Field(description="Guest contact email address.")]
    phone: Annotated[str, Field(description="Guest contact phone number.")]
    user_id: Annotated[str, Field(description="Stable user_id that owns and can list this reservation.")]


class HotelBookingService(Service):
    """Hotel search, room availability, reservations, cancellations and guest requests."""

    name = "hotel_booking"
    SCHEMA = schema_from(__file__)

    def sync_clock(self) -> None:
        """Fire seeded hold-expiry events whose time has come before serving the call."""
        self._fire_hold_expiries()

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
        nights = _nights(check_in, check_out)
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
        for h in self._hotels_at(city_or_geo):
            if not _hotel_passes(h, f):
                continue
            bundles = self._bundles(h["hotel_id"], nights, guests, f)
            if not bundles:
                continue
            cheapest = min(bundles, key=lambda b: min(b["prices"]))
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
        keys = {
            "price_asc": lambda r: (r["nightly_price_from"], r["hotel_id"]),
            "price_desc": lambda r: (-r["nightly_price_from"], r["hotel_id"]),
            "user_rating_desc": lambda r: (-r["user_rating"], r["hotel_id"]),
            "star_desc": lambda r: (-r["star_rating"], -r["user_rating"], r["hotel_id"]),
        }
        results.sort(key=keys[sort])
        return results[:limit]

    @tool(read_only=True)
    def get_hotel_details(self, hotel_id: str) -> dict[str, Any]:
        """Full profile of a hotel: description, address with coordinates, amenities, policies, contact.

        Args:
            hotel_id: The hotel id from search_hotels.
        """
        h = self._hotel_row(hotel_id)
        address = _loads(h["address_json"], {})
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
            "amenities": _loads(h["amenities_json"], []),
            "photos": [f"https://mock.hotels.local/img/{hotel_id}/{i}.jpg" for i in range(1, 4)],
            "policies": _loads(h["policies_json"], {}),
            "contact": {"phone": f"+81-3-0000-{digest % 10000:04d}", "email": f"reservations@mock-{hotel_id}.example"},
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
        nights = _nights(check_in, check_out)
        self._hotel_row(hotel_id)
        out = []
        for b in self._bundles(hotel_id, nights, guests, {}):
            rows = b["rows"]
            out.append(
                {
                    "rate_plan_id": _rate_plan_id(hotel_id, b["room_type"], b["flavor"], check_in, check_out),
                    "room_type": b["room_type"],
                    "max_occupancy": int(rows[0]["max_occupancy"]),
                    "nights": len(nights),
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
        hotel_id, room_type, flavor, check_in, check_out = self._parse_rate_plan(rate_plan_id)
        if date.fromisoformat(check_in) < self.now().date():
            raise ToolError("BAD_DATE_RANGE", f"check_in {check_in} is in the past")
        nights = _nights(check_in, check_out)
        rows = self._plan_rows(hotel_id, room_type, flavor, nights)
        if len(rows) != len(nights):
            raise ToolError("RATE_PLAN_NOT_FOUND", f"rate plan {rate_plan_id} is not offered on every night")
        if any(int(r["inventory_remaining"]) <= 0 for r in rows):
            sold = next(r["date"] for r in rows if int(r["inventory_remaining"]) <= 0)
            raise ToolError("SOLD_OUT", f"{room_type} ({flavor}) at {hotel_id} is sold out on {sold}")
        if len({r["currency"] for r in rows}) != 1:
            raise ToolError("RATE_PLAN_NOT_FOUND", f"rate plan {rate_plan_id} spans several currencies")
        total = sum(int(r["nightly_price"]) for r in rows)
        refundable, until = self._refund_window(rows)
        seq = self.next_seq("reservation_seq")
        res_id = f"res_{self.now().strftime('%Y%m%d')}_{seq:06d}"
        code = hashlib.sha256(res_id.encode()).hexdigest().upper()
        code = f"MOCK-{code[:4]}-{code[4:8]}"
        now = self.now_iso()
        currency = rows[0]["currency"]
        self.execute(
            "INSERT INTO reservations VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'confirmed', ?, ?, ?, ?, ?, ?, ?, ?, '{}')",
            (
                res_id,
                code,
                guest_profile["user_id"],
                hotel_id,
                check_in,
                check_out,
                room_type,
                flavor,
                total,
                currency,
                int(refundable),
                until,
                now,
                now,
                json.dumps(dict(guest_profile), ensure_ascii=False),
                payment_method_id,
            ),
        )
        self._take_nights(res_id, rows)
        if special_requests and special_requests.strip():
            self._open_ticket(res_id, special_requests)
        self._notify(
            "email",
            {
                "kind": "confirmation",
                "reservation_id": res_id,
                "confirmation_code": code,
                "hotel_id": hotel_id,
                "check_in": check_in,
                "check_out": check_out,
                "total_charged": total,
                "currency": currency,
            },
        )
        return self._reservation(self._reservation_row(res_id), details=False)

    @tool(read_only=True)
    def get_reservation(self, reservation_id: str) -> dict[str, Any]:
        """Full reservation: status, charge, refund window, nights with prices, requests, modifications.

        Args:
            reservation_id: The reservation id, e.g. res_20260417_000001.
        """
        return self._reservation(self._reservation_row(reservation_id), details=True)

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
        row = self._reservation_row(reservation_id)
        if row["status"] not in LIVE:
            raise ToolError(
                "MODIFY_NO_AVAILABILITY", f"reservation {reservation_id} is {row['status']} and cannot be modified"
            )
        ci, co = new_check_in or row["check_in"], new_check_out or row["check_out"]
        room = new_room_type or row["room_type"]
        nights = _nights(ci, co)
        if (ci != row["check_in"]) and date.fromisoformat(ci) < self.now().date():
            raise ToolError("BAD_DATE_RANGE", f"new_check_in {ci} is in the past")
        old_nights = self.query(
            "SELECT * FROM reservation_nights WHERE reservation_id = ? ORDER BY date", (reservation_id,)
        )
        for n in old_nights:
            self._move_room(n["rate_plan_row_id"], +1)
        self.execute("DELETE FROM reservation_nights WHERE reservation_id = ?", (reservation_id,))
        rows = self._plan_rows(row["hotel_id"], room, row["flavor"], nights)
        if len(rows) != len(nights) or any(int(r["inventory_remaining"]) <= 0 for r in rows):
            raise ToolError(
                "MODIFY_NO_AVAILABILITY",
                f"no {room} ({row['flavor']}) room at {row['hotel_id']} for every night {ci} to {co}",
            )
        date_shift = (ci, co) != (row["check_in"], row["check_out"])
        fee = 0
        if date_shift and not self._refundable_now(row):
            fee = int(old_nights[0]["nightly_price"]) if old_nights else 0
        self._take_nights(reservation_id, rows)
        new_total = sum(int(r["nightly_price"]) for r in rows)
        refundable, until = self._refund_window(rows)
        extra = _loads(row["special_requests_json"], {}) or {}
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
            (ci, co, room, new_total, int(refundable), until, now, _dumps(extra), reservation_id),
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
        row = self._reservation_row(reservation_id)
        if row["status"] == "cancelled":
            raise ToolError("ALREADY_CANCELLED", f"reservation {reservation_id} is already cancelled")
        if row["status"] in ("checked_out", "walked") or date.fromisoformat(row["check_out"]) <= self.now().date():
            raise ToolError(
                "UNCANCELLABLE",
                f"reservation {reservation_id} ({row['status']}, ends {row['check_out']}) cannot be cancelled",
            )
        total = int(row["total_charged"])
        nights = self.query(
            "SELECT * FROM reservation_nights WHERE reservation_id = ? ORDER BY date", (reservation_id,)
        )
        refundable_now = self._refundable_now(row)
        if refundable_now:
            penalty = 0
        elif row["flavor"] == "prepaid":
            penalty = total
        else:
            penalty = min(total, int(nights[0]["nightly_price"]) if nights else 0)
        refund = total - penalty
        for n in nights:
            self._move_room(n["rate_plan_row_id"], +1)
        currency = row["currency"]
        extra = _loads(row["special_requests_json"], {}) or {}
        now = self.now_iso()
        extra["cancellation"] = {
            "at": now,
            "refund_amount": refund,
            "penalty": penalty,
            "currency": currency,
            "was_refundable": refundable_now,
        }
        self.execute(
            "UPDATE reservations SET status = 'cancelled', updated_at = ?, special_requests_json = ? WHERE reservation_id = ?",
            (now, _dumps(extra), reservation_id),
        )
        self._notify(
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
        row = self._reservation_row(reservation_id)
        if row["status"] not in LIVE:
            raise ToolError("BAD_ARG", f"reservation {reservation_id} is {row['status']}")
        minutes = int(new_time[:2]) * 60 + int(new_time[3:])
        approved, fee, reason = False, 0, None
        if minutes <= 12 * 60:
            approved = True
        elif minutes <= 14 * 60:
            approved, fee = True, 2000
        elif minutes <= 16 * 60:
            approved = self._occupancy(row["hotel_id"], row["check_out"]) < 0.85
            fee, reason = (5000, None) if approved else (0, "hotel is at capacity")
        else:
            reason = "beyond latest late checkout time"
        extra = _loads(row["special_requests_json"], {}) or {}
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
            (_dumps(extra), now, reservation_id),
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
        self._reservation_row(reservation_id)
        if not text.strip():
            raise ToolError("BAD_ARG", "text is required")
        return self._open_ticket(reservation_id, text)

    @tool(read_only=True)
    def get_user_bookings_summary(self, user_id: str) -> dict[str, Any]:
        """Aggregate view of a user's reservations: counts, amounts spent/refunded, nights, cities, next check-in.

        Args:
            user_id: The owning user id.
        """
        rows = self.query("SELECT * FROM reservations WHERE user_id = ?", (user_id,))
        stayed = ("confirmed", "modified", "walked", "checked_out")
        today = self.now().date().isoformat()
        spent = sum(int(r["total_charged"]) for r in rows if r["status"] in stayed)
        refunded, nights, cities, upcoming = 0, 0, set(), None
        for r in rows:
            if r["status"] == "cancelled":
                cancel = (_loads(r["special_requests_json"], {}) or {}).get("cancellation") or {}
                refunded += int(cancel.get("refund_amount", r["total_charged"]))
            if r["status"] in stayed:
                nights += self.query_one(
                    "SELECT COUNT(*) AS c FROM reservation_nights WHERE reservation_id = ?", (r["reservation_id"],)
                )["c"]
            hotel = self.query_one("SELECT city FROM hotels WHERE hotel_id = ?", (r["hotel_id"],))
            if hotel:
                cities.add(hotel["city"])
            if r["status"] in LIVE and r["check_in"] >= today and (upcoming is None or r["check_in"] < upcoming):
                upcoming = r["check_in"]
        open_requests = self.query_one(
            "SELECT COUNT(*) AS c FROM special_requests s JOIN reservations r ON r.reservation_id = s.reservation_id "
            "WHERE r.user_id = ? AND s.status IN ('open', 'pending_hotel', 'acknowledged')",
            (user_id,),
        )["c"]
        return {
            "user_id": user_id,
            "total_reservations": len(rows),
            "active_reservations": sum(1 for r in rows if r["status"] in LIVE),
            "cancelled_reservations": sum(1 for r in rows if r["status"] == "cancelled"),
            "total_spent_jpy": spent,
            "total_refunded_jpy": refunded,
            "total_nights": nights,
            "cities": sorted(cities),
            "upcoming_check_in": upcoming,
            "loyalty_points_estimate": spent // 100,
            "open_special_requests": open_requests,
        }

    # ------------------------------------------------------------------ internals
    def _hotels_at(self, where: str) -> list[dict[str, Any]]:
        s = where.strip()
        if ";" in s and "," in s.split(";", 1)[0]:
            try:
                coords, radius = s.split(";", 1)
                lat, lng = (float(x) for x in coords.split(",", 1))
                r_km = float(radius)
            except ValueError:
                raise ToolError("BAD_ARG", f"city_or_geo geo form is 'lat,lng;radius_km', got {where!r}") from None
            return [
                h
                for h in self.query("SELECT * FROM hotels ORDER BY hotel_id")
                if _haversine_km(lat, lng, h["geo_lat"], h["geo_lng"]) <= r_km
            ]
        rows = self.query("SELECT * FROM hotels WHERE lower(city) = lower(?) ORDER BY hotel_id", (s,))
        return rows or self.query("SELECT * FROM hotels WHERE lower(district) = lower(?) ORDER BY hotel_id", (s,))

    def _bundles(self, hotel_id: str, nights: list[str], guests: int, f: dict[str, Any]) -> list[dict[str, Any]]:
        """(room_type, flavor) bundles with a room on every night that pass the filters."""
        marks = ",".join("?" * len(nights))
        combos: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        for r in self.query(f"SELECT * FROM rate_plans WHERE hotel_id = ? AND date IN ({marks})", [hotel_id, *nights]):
            if int(r["max_occupancy"]) < guests or int(r["inventory_remaining"]) <= 0:
                continue
            if f.get("breakfast_included") and not r["breakfast_included"]:
                continue
            if f.get("max_nightly_price") is not None and int(r["nightly_price"]) > float(f["max_nightly_price"]):
                continue
            combos.setdefault((r["room_type"], r["flavor"]), {})[r["date"]] = r
        out = []
        for (room_type, flavor), by_date in sorted(combos.items()):
            if not all(n in by_date for n in nights):
                continue
            rows = [by_date[n] for n in nights]
            if len({r["currency"] for r in rows}) != 1:
                continue
            refundable, until = self._refund_window(rows)
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

    def _refund_window(self, rows: list[dict[str, Any]]) -> tuple[bool, str | None]:
        """(refundable now, earliest deadline) for a set of nights; every night needs a deadline."""
        untils = [r["refundable_until"] for r in rows if r["refundable_until"]]
        if not untils or len(untils) != len(rows):
            return False, None
        until = min(untils, key=self._deadline)
        return self._deadline(until) >= self.now(), until

    def _refundable_now(self, res: dict[str, Any]) -> bool:
        until = res["refundable_until"]
        return bool(res["refundable"]) and (until is None or self._deadline(until) >= self.now())

    def _deadline(self, value: str) -> datetime:
        """A refundable_until as an aware datetime (a bare date means the end of that day)."""
        text = value.strip().replace("Z", "+00:00")
        if len(text) == 10:
            dt = datetime.fromisoformat(text) + timedelta(days=1, seconds=-1)
        else:
            dt = datetime.fromisoformat(text)
        return dt if dt.tzinfo else dt.replace(tzinfo=self.now().tzinfo)

    def _parse_rate_plan(self, rate_plan_id: str) -> tuple[str, str, str, str, str]:
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
        hotel_id, slug = "_".join(parts[1:-4]), parts[-4]
        self._hotel_row(hotel_id)
        rooms = self.query(
            "SELECT DISTINCT room_type FROM rate_plans WHERE hotel_id = ? ORDER BY room_type", (hotel_id,)
        )
        room = next((r["room_type"] for r in rooms if _slug(r["room_type"]) == slug), None)
        if room is None:
            raise bad
        return hotel_id, room, parts[-3], check_in, check_out

    def _plan_rows(self, hotel_id: str, room_type: str, flavor: str, nights: list[str]) -> list[dict[str, Any]]:
        marks = ",".join("?" * len(nights))
        return self.query(
            f"SELECT * FROM rate_plans WHERE hotel_id = ? AND room_type = ? AND flavor = ? AND date IN ({marks}) ORDER BY date",
            [hotel_id, room_type, flavor, *nights],
        )

    def _take_nights(self, reservation_id: str, rows: list[dict[str, Any]]) -> None:
        for r in rows:
            self.execute(
                "INSERT INTO reservation_nights (reservation_id, date, rate_plan_row_id, nightly_price) VALUES (?, ?, ?, ?)",
                (reservation_id, r["date"], r["rate_plan_row_id"], int(r["nightly_price"])),
            )
            self._move_room(r["rate_plan_row_id"], -1)

    def _move_room(self, row_id: int, delta: int) -> None:
        self.execute(
            "UPDATE rate_plans SET inventory_remaining = inventory_remaining + ? WHERE rate_plan_row_id = ?",
            (delta, row_id),
        )

    def _occupancy(self, hotel_id: str, day: str) -> float:
        rows = self.query(
            "SELECT inventory_remaining, inventory_capacity FROM rate_plans WHERE hotel_id = ? AND date = ?",
            (hotel_id, day),
        )
        if not rows:
            return 0.0
        free = sum(int(r["inventory_remaining"]) / max(int(r["inventory_capacity"]), 1) for r in rows) / len(rows)
        return 1.0 - free

    def _open_ticket(self, reservation_id: str, text: str) -> dict[str, Any]:
        ticket = f"tkt_{self.next_seq('ticket_seq'):06d}"
        status = _triage(text)
        now = self.now_iso()
        self.execute(
            "INSERT INTO special_requests VALUES (?, ?, ?, ?, ?, ?)", (ticket, reservation_id, text, status, now, now)
        )
        return {"ticket_id": ticket, "reservation_id": reservation_id, "status": status}

    def _notify(self, channel: str, payload: dict[str, Any]) -> None:
        self.execute(
            "INSERT INTO notifications (created_at, channel, payload_json) VALUES (?, ?, ?)",
            (self.now_iso(), channel, _dumps(payload)),
        )

    def _fire_hold_expiries(self) -> None:
        if not self.query_one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pending_events'"):
            return
        now = self.now()
        for ev in self.query(
            "SELECT * FROM pending_events WHERE type = 'hold_expiry' AND consumed_at IS NULL ORDER BY id"
        ):
            payload = _loads(ev["payload_json"], {}) or {}
            flip_at = payload.get("flip_at") or f"{ev['target_date']}T23:59:59"
            if self._deadline(flip_at) > now:
                continue
            wanted = _slug(str(payload.get("room_type") or ""))
            rooms = [
                r["room_type"]
                for r in self.query("SELECT DISTINCT room_type FROM rate_plans WHERE hotel_id = ?", (ev["hotel_id"],))
                if _slug(r["room_type"]) == wanted
            ]
            for room in rooms:
                confirmed = self.query_one(
                    "SELECT 1 FROM reservations WHERE hotel_id = ? AND room_type = ? AND status IN ('confirmed', 'modified')",
                    (ev["hotel_id"], room),
                )
                if confirmed:
                    continue
                self.execute(
                    "UPDATE rate_plans SET inventory_remaining = 0 WHERE hotel_id = ? AND room_type = ?",
                    (ev["hotel_id"], room),
                )
                self._notify("system", {"kind": "hold_expired", "hotel_id": ev["hotel_id"], **payload})
            self.execute("UPDATE pending_events SET consumed_at = ? WHERE id = ?", (flip_at, ev["id"]))

    def _reservation(self, row: dict[str, Any], details: bool) -> dict[str, Any]:
        hotel = self.query_one("SELECT name FROM hotels WHERE hotel_id = ?", (row["hotel_id"],))
        guest = _loads(row["guest_profile_json"], {}) or {}
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
        extra = _loads(row["special_requests_json"], {}) or {}
        out["flavor"] = row["flavor"]
        out["user_id"] = row["user_id"]
        out["nights"] = [
            {
                "date": n["date"],
                "nightly_price": int(n["nightly_price"]),
                "rate_plan_row_id": int(n["rate_plan_row_id"]),
            }
            for n in self.query(
                "SELECT * FROM reservation_nights WHERE reservation_id = ? ORDER BY date", (row["reservation_id"],)
            )
        ]
        out["special_requests"] = self.query(
            "SELECT ticket_id, text, status FROM special_requests WHERE reservation_id = ? ORDER BY created_at, ticket_id",
            (row["reservation_id"],),
        )
        out["created_at"] = row["created_at"]
        out["modifications"] = extra.get("modifications", [])
        for key in ("late_checkout_time", "walked_from", "walk_info", "compensation", "cancellation"):
            if key in extra:
                out[key] = extra[key]
        return out

    def _hotel_row(self, hotel_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM hotels WHERE hotel_id = ?", (hotel_id,), "HOTEL_NOT_FOUND", f"no hotel {hotel_id!r}"
        )

    def _reservation_row(self, reservation_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM reservations WHERE reservation_id = ?",
            (reservation_id,),
            "RES_NOT_FOUND",
            f"no reservation {reservation_id!r}",
        )


# ---------------------------------------------------------------------- helpers
def _nights(check_in: str, check_out: str) -> list[str]:
    try:
        ci, co = date.fromisoformat(check_in), date.fromisoformat(check_out)
    except ValueError:
        raise ToolError("BAD_DATE_RANGE", f"dates must be YYYY-MM-DD, got {check_in!r} / {check_out!r}") from None
    if co <= ci:
        raise ToolError("BAD_DATE_RANGE", f"check_out {check_out} must be after check_in {check_in}")
    if (co - ci).days > MAX_NIGHTS:
        raise ToolError("BAD_DATE_RANGE", f"stay of {(co - ci).days} nights exceeds {MAX_NIGHTS}")
    return [(ci + timedelta(days=i)).isoformat() for i in range((co - ci).days)]


def _hotel_passes(h: dict[str, Any], f: dict[str, Any]) -> bool:
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
    have = _loads(h["amenities_json"], []) or []
    return all(a in have for a in wanted)


def _slug(text: str) -> str:
    return re.sub(r"-+", "-", "".join(c.lower() if c.isalnum() else "-" for c in text)).strip("-")


def _rate_plan_id(hotel_id: str, room_type: str, flavor: str, check_in: str, check_out: str) -> str:
    return f"rp_{hotel_id}_{_slug(room_type)}_{flavor}_{check_in.replace('-', '')}_{check_out.replace('-', '')}"


def _from_compact(s: str) -> str:
    if len(s) != 8 or not s.isdigit():
        raise ValueError(s)
    return date(int(s[:4]), int(s[4:6]), int(s[6:])).isoformat()


def _triage(text: str) -> str:
    lower = text.lower()
    if any(k in lower for k in ("crib", "cot", "baby", "allergy", "allergic", "early check-in")):
        return "pending_hotel"
    if any(k in lower for k in ("high floor", "quiet room", "extra pillow", "view")):
        return "acknowledged"
    return "open"


def _haversine_km(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lng2 - lng1) / 2) ** 2
    return 2 * 6371.0088 * math.asin(math.sqrt(a))


def _loads(raw: Any, default: Any) -> Any:
    if raw in (None, ""):
        return default
    try:
        return json.loads(raw)
    except (TypeError, json.JSONDecodeError):
        return default


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
