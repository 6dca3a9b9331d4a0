"""rail_booking: intercity rail tickets with student-discount quotas and live train status.

The public release ships no SPEC for this server; the surface below is derived from the
reference ``rail_booking_mock`` source (9 tools, same names, parameters and result
shapes). Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the reference's
lower-case codes, upper-cased).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import dumps, loads, require_text_fields

#: Seat classes that may carry a student fare.
STUDENT_SEAT_CLASSES = ("second_class", "hard_seat")
VERIFICATION_STATES = ("pending", "submitted", "verified", "rejected", "expired")
#: Booking statuses that hold seats (seeded waitlist rows hold none).
TICKETED = "ticketed"

#: Interchangeable place names (English / Chinese / Japanese, city and main stations).
_PLACE_GROUPS = [
    {"beijing", "北京"},
    {"beijing south", "北京南"},
    {"beijing west", "北京西"},
    {"shanghai", "上海"},
    {"shanghai hongqiao", "上海虹桥", "hongqiao"},
    {"suzhou", "苏州"},
    {"ningbo", "宁波"},
    {"hangzhou", "杭州"},
    {"hangzhou east", "杭州东"},
    {"nanjing", "南京"},
    {"nanjing south", "南京南"},
    {"changsha", "长沙"},
    {"changsha south", "长沙南"},
    {"xian", "xi'an", "西安"},
    {"xian north", "xi'an north", "西安北"},
    {"xining", "西宁"},
    {"lhasa", "拉萨"},
    {"kunming", "昆明"},
    {"kunming south", "昆明南"},
    {"dali", "大理"},
    {"tokyo", "東京", "东京"},
    {"shinagawa", "品川"},
    {"shin-yokohama", "新横浜"},
    {"kyoto", "京都"},
    {"osaka", "大阪"},
    {"shin-osaka", "新大阪"},
    {"nagoya", "名古屋"},
    {"hiroshima", "広島", "广岛"},
    {"nara", "奈良"},
    {"kanazawa", "金沢", "金泽"},
    {"hakone", "箱根"},
    {"odawara", "小田原"},
]


class RailBookingService(Service):
    """Rail search, fare quotes with student discounts, ticketing, cancellation and status.

    Tools (``rail_booking__<name>``):

    * ``search_trains(origin, dest, date, passengers=None, seat_class=None, max_results=20)``
      -> ``{offers, total, returned}``; offers ordered by departure; ``origin``/``dest``
      match a city or station name (English, Chinese or Japanese aliases, any case). With
      ``passengers`` each offer carries a ``pricing_preview``.
    * ``get_train_offer(offer_id)`` -> the offer.
    * ``price_train_offer(offer_id, passengers)`` -> ``{offer_id, train_no, date, currency,
      total_price, tickets}``: one ticket per passenger with ``fare_type`` (student or adult),
      ``student_quota_source`` (ordinary / graduation-trip) and the ineligibility reason.
    * ``create_train_booking(offer_id, passengers, contact, payment=None)`` -> ``{booking_ref
      (RB000001...), status "ticketed", total_paid, tickets (with car/seat), created_at}``;
      takes adult / student seats from the offer and student quota from the profile.
    * ``list_train_bookings(user_id=None)`` -> ``{bookings, count}``, newest first, in detail.
    * ``cancel_train_booking(booking_ref, reason=None)`` -> ``{booking_ref, status, refund,
      penalty}``; returns seats and quota.
    * ``get_train_status(train_no, date)`` -> status row (SCHEDULED when none recorded).
    * ``get_student_profile(user_id)`` / ``update_student_verification(user_id, ...)``.

    Rules on the virtual clock: trains that have departed, are cancelled or lack seats
    cannot be booked. Refund penalties follow the railway's time bands: free 8 days or more
    before departure, 5% from 48 h, 10% from 24 h, 20% inside 24 h; ``non_refundable``
    fares forfeit everything; nothing can be cancelled after departure; a cancelled train
    or an unconfirmed waitlist refunds in full. Student fares need the offer's student
    inventory, a second-class/hard seat, and the passenger's profile: ordinary quota first,
    then graduation-trip quota, which also needs xuexin or school proof ``verified``.
    """

    name = "rail_booking"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------------ offers
    @tool(read_only=True)
    def search_trains(
        self,
        origin: str,
        dest: str,
        date: str,
        passengers: list[dict[str, Any]] | None = None,
        seat_class: str | None = None,
        max_results: int = 20,
    ) -> dict[str, Any]:
        """Search train offers between two cities or stations on a date, earliest departure first.

        Each offer is one train and seat class with ``adult_fare``, ``student_fare``, seats
        remaining per fare pool, ``refundability`` and ``bookable`` (false once departed,
        cancelled or sold out).

        Args:
            origin: Departure city or station, e.g. "上海", "Shanghai Hongqiao", "Tokyo".
            dest: Arrival city or station.
            date: Travel date, YYYY-MM-DD.
            passengers: Optional travellers [{user_id?, name?, fare_type?}] to preview fares for.
            seat_class: Optional seat class filter, e.g. second_class, first_class, business, hard_seat.
            max_results: Maximum offers (1 to 50).
        """
        _check_date(date)
        origins, dests = _place_names(origin), _place_names(dest)
        rows = [
            r
            for r in self.query("SELECT * FROM train_offers WHERE date = ? ORDER BY depart_at, offer_id", (date,))
            if _matches(r, "origin", origins)
            and _matches(r, "dest", dests)
            and (seat_class is None or r["seat_class"] == seat_class)
        ]
        rows = rows[: max(1, min(max_results, 50))]
        offers = [self._offer_out(r, passengers or []) for r in rows]
        return {"offers": offers, "total": len(offers), "returned": len(offers)}

    @tool(read_only=True)
    def get_train_offer(self, offer_id: str) -> dict[str, Any]:
        """Fetch one train offer with its fares, seats remaining and refundability.

        Args:
            offer_id: The offer id from search_trains.
        """
        return self._offer_out(self._offer_row(offer_id), [])

    @tool(read_only=True)
    def price_train_offer(self, offer_id: str, passengers: list[dict[str, Any]]) -> dict[str, Any]:
        """Quote an offer for passengers, applying student fares where the profile and inventory allow.

        Args:
            offer_id: The offer id.
            passengers: Travellers in order [{user_id?, name?, fare_type?}]; fare_type "adult" declines a student fare.
        """
        row = self._offer_row(offer_id)
        tickets = self._price_tickets(row, passengers)
        return {
            "offer_id": offer_id,
            "train_no": row["train_no"],
            "date": row["date"],
            "currency": row["currency"],
            "total_price": {"amount": round(sum(t["fare"] for t in tickets), 2), "currency": row["currency"]},
            "tickets": tickets,
        }

    # ------------------------------------------------------------------ bookings
    @tool
    def create_train_booking(
        self,
        offer_id: str,
        passengers: list[dict[str, Any]],
        contact: dict[str, Any],
        payment: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Buy tickets on an offer: charges the quoted fares and assigns a car and seat per passenger.

        Args:
            offer_id: The offer id from search_trains.
            passengers: Travellers [{user_id?, name, fare_type?, id_no?}] (at least one).
            contact: {user_id?, email?, phone?}; the booking belongs to contact.user_id, else the first passenger's user_id, else the email.
            payment: Optional payment details, e.g. {method: "CARD", card_last4: "4242"}; card 0000 is declined.
        """
        if not passengers:
            raise ToolError("BAD_ARG", "at least one passenger is required")
        require_text_fields("contact", contact, ("user_id", "email", "phone"))
        require_text_fields("payment", payment or {}, ("method", "card_last4"))
        row = self._offer_row(offer_id)
        if (payment or {}).get("card_last4") == "0000":
            raise ToolError("PAYMENT_DECLINED", "card ending 0000 was declined")
        self._require_bookable(row)
        tickets = self._price_tickets(row, passengers)
        need = _pool_counts(tickets)
        for pool, column in (
            ("adult", "adult_seats_remaining"),
            ("ordinary", "ordinary_student_seats_remaining"),
            ("graduation-trip", "graduation_student_seats_remaining"),
        ):
            if need[pool] > int(row[column]):
                raise ToolError(
                    "INVENTORY_GONE",
                    f"{row['train_no']} {row['seat_class']} on {row['date']} has {row[column]} {pool} seats, {need[pool]} needed",
                )
        self._move_seats(offer_id, need, -1)
        self._move_quota(tickets, -1)
        for t in tickets:
            t["seat"] = self._assign_seat(row)
        total = round(sum(t["fare"] for t in tickets), 2)
        ref = f"RB{self.next_seq('booking_seq'):06d}"
        now = self.now_iso()
        user_id = contact.get("user_id") or passengers[0].get("user_id") or contact.get("email") or "unknown"
        self.execute(
            "INSERT INTO train_bookings VALUES (?, ?, ?, 'ticketed', ?, ?, ?, ?, ?, ?, ?)",
            (
                ref,
                user_id,
                offer_id,
                total,
                row["currency"],
                now,
                dumps(contact),
                dumps(passengers),
                dumps(tickets),
                dumps([{"at": now, "event": "CREATED", "detail": f"offer={offer_id}"}]),
            ),
        )
        return {
            "booking_ref": ref,
            "status": TICKETED,
            "total_paid": {"amount": total, "currency": row["currency"]},
            "tickets": tickets,
            "created_at": now,
        }

    @tool(read_only=True)
    def list_train_bookings(self, user_id: str | None = None) -> dict[str, Any]:
        """List rail bookings newest first, in full (route, tickets, passengers, history).

        Args:
            user_id: Only bookings owned by this user; all bookings when omitted.
        """
        if user_id:
            rows = self.query(
                "SELECT * FROM train_bookings WHERE user_id = ? ORDER BY created_at DESC, booking_ref DESC", (user_id,)
            )
        else:
            rows = self.query("SELECT * FROM train_bookings ORDER BY created_at DESC, booking_ref DESC")
        bookings = [self._booking_out(r) for r in rows]
        return {"bookings": bookings, "count": len(bookings)}

    @tool
    def cancel_train_booking(self, booking_ref: str, reason: str | None = None) -> dict[str, Any]:
        """Cancel (refund) a booking, returning seats and student quota; penalty by time before departure.

        Free 8+ days before departure, 5% from 48 h before, 10% from 24 h, 20% inside 24 h;
        non_refundable fares forfeit the fare; a cancelled train or an unconfirmed waitlist
        refunds in full; departed trains cannot be refunded.

        Args:
            booking_ref: The booking reference, e.g. RB000001.
            reason: Optional reason kept in the booking history.
        """
        row = self.require(
            "SELECT * FROM train_bookings WHERE booking_ref = ?",
            (booking_ref,),
            "BOOKING_NOT_FOUND",
            f"no rail booking {booking_ref!r}",
        )
        if row["status"] == "cancelled":
            raise ToolError("ALREADY_CANCELLED", f"booking {booking_ref} is already cancelled")
        if row["status"] == "waitlist_failed":
            raise ToolError("ALREADY_CANCELLED", f"waitlist {booking_ref} already failed; its refund is automatic")
        offer = self._offer_row(row["offer_id"])
        paid = float(row["total_paid"])
        status = self._status_row(offer["train_no"], offer["date"])
        train_cancelled = bool(status and str(status["status"]).lower() == "cancelled")
        rate = 0.0 if row["status"] != TICKETED or train_cancelled else self._penalty_rate(offer)
        penalty = round(paid * rate, 2)
        if row["status"] == TICKETED:
            tickets = json.loads(row["tickets_json"])
            self._move_seats(row["offer_id"], _pool_counts(tickets), +1)
            self._move_quota(tickets, +1)
        history = json.loads(row["history_json"] or "[]")
        history.append(
            {
                "at": self.now_iso(),
                "event": "CANCELLED",
                "detail": reason or "",
                "penalty": penalty,
                "refund": paid - penalty,
            }
        )
        self.execute(
            "UPDATE train_bookings SET status = 'cancelled', history_json = ? WHERE booking_ref = ?",
            (dumps(history), booking_ref),
        )
        currency = row["currency"]
        return {
            "booking_ref": booking_ref,
            "status": "cancelled",
            "refund": {"amount": round(paid - penalty, 2), "currency": currency},
            "penalty": {"amount": penalty, "currency": currency},
        }

    # ------------------------------------------------------------------ status
    @tool(read_only=True)
    def get_train_status(self, train_no: str, date: str) -> dict[str, Any]:
        """Live status of a train on a date: status, delay_min, platform, gate, last_updated.

        Args:
            train_no: Train number, e.g. "G7025".
            date: Travel date, YYYY-MM-DD.
        """
        _check_date(date)
        row = self._status_row(train_no, date)
        if row:
            return row
        if not self.query_one("SELECT 1 FROM train_offers WHERE train_no = ? AND date = ?", (train_no, date)):
            raise ToolError("TRAIN_NOT_FOUND", f"no train {train_no} on {date}")
        return {
            "train_no": train_no,
            "date": date,
            "status": "SCHEDULED",
            "delay_min": 0,
            "last_updated": self.now_iso(),
        }

    # ------------------------------------------------------------------ student profiles
    @tool(read_only=True)
    def get_student_profile(self, user_id: str) -> dict[str, Any]:
        """A passenger's student-ticket quotas (ordinary, graduation-trip) and verification state.

        Args:
            user_id: The passenger's user id.
        """
        return self._profile_row(user_id)

    @tool
    def update_student_verification(
        self,
        user_id: str,
        xuexin_status: str | None = None,
        school_proof_status: str | None = None,
        discount_zone: str | None = None,
        note: str | None = None,
    ) -> dict[str, Any]:
        """Record the outcome of a student-proof review; omitted fields stay as they are.

        Args:
            user_id: The passenger's user id.
            xuexin_status: CHSI/xuexin verification: pending, submitted, verified, rejected or expired.
            school_proof_status: School graduation-proof state, same values.
            discount_zone: Home-to-school discount zone, e.g. "上海-西安".
            note: Free-text note replacing the profile's notes.
        """
        self._profile_row(user_id)
        for name, value in (("xuexin_status", xuexin_status), ("school_proof_status", school_proof_status)):
            if value is not None and value not in VERIFICATION_STATES:
                raise ToolError("BAD_ARG", f"{name} must be one of {', '.join(VERIFICATION_STATES)}, got {value!r}")
        self.execute(
            "UPDATE student_profiles SET xuexin_status = COALESCE(?, xuexin_status), "
            "school_proof_status = COALESCE(?, school_proof_status), discount_zone = COALESCE(?, discount_zone), "
            "notes = COALESCE(?, notes) WHERE user_id = ?",
            (xuexin_status, school_proof_status, discount_zone, note, user_id),
        )
        return self._profile_row(user_id)

    # ------------------------------------------------------------------ internals
    def _price_tickets(self, offer: dict[str, Any], passengers: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for idx, p in enumerate(passengers):
            require_text_fields(f"passengers[{idx}]", p, ("user_id", "name", "display_name", "fare_type", "id_no"))
        left = {
            "ordinary": int(offer["ordinary_student_seats_remaining"]),
            "graduation-trip": int(offer["graduation_student_seats_remaining"]),
        }
        used_quota: dict[tuple[str, str], int] = {}
        tickets = []
        for idx, p in enumerate(passengers):
            profile = self._profile_for(p)
            wants_adult = str(p.get("fare_type") or "").lower() == "adult"
            source, reason = self._student_source(offer, profile, left, used_quota)
            if source and profile is not None and not wants_adult:  # a source implies a profile
                fare_type, fare = "student", float(offer["student_fare"])
                left[source] -= 1
                key = (profile["user_id"], source)
                used_quota[key] = used_quota.get(key, 0) + 1
                reason = ""
            else:
                fare_type, fare, source = "adult", float(offer["adult_fare"]), None
                reason = "" if wants_adult else reason
            uid = profile["user_id"] if profile else p.get("user_id")
            tickets.append(
                {
                    "pax_idx": idx,
                    "user_id": uid,
                    "passenger_name": p.get("name")
                    or p.get("display_name")
                    or (profile or {}).get("display_name")
                    or uid,
                    "train_no": offer["train_no"],
                    "date": offer["date"],
                    "origin_station": offer["origin_station"],
                    "dest_station": offer["dest_station"],
                    "seat_class": offer["seat_class"],
                    "fare_type": fare_type,
                    "fare": round(fare, 2),
                    "currency": offer["currency"],
                    "student_quota_source": source,
                    "student_eligibility_status": "eligible" if fare_type == "student" else "not_used",
                    "student_ineligibility_reason": reason,
                    "xuexin_verification_status": profile["xuexin_status"] if profile else "unknown",
                    "school_graduation_proof_status": profile["school_proof_status"] if profile else "unknown",
                    "discount_zone": profile["discount_zone"] if profile else None,
                }
            )
        return tickets

    @staticmethod
    def _student_source(
        offer: dict[str, Any], profile: dict[str, Any] | None, left: dict[str, int], used: dict[tuple[str, str], int]
    ) -> tuple[str | None, str]:
        if not offer["student_discount_available"]:
            return None, "no_student_discount_inventory"
        if offer["seat_class"] not in STUDENT_SEAT_CLASSES:
            return None, "seat_class_not_supported"
        if profile is None:
            return None, "student_profile_not_found"
        uid = profile["user_id"]
        ordinary = int(profile["ordinary_quota_remaining"]) - used.get((uid, "ordinary"), 0)
        graduation = int(profile["graduation_quota_remaining"]) - used.get((uid, "graduation-trip"), 0)
        if ordinary > 0 and left["ordinary"] > 0:
            return "ordinary", ""
        proof_ok = "verified" in (profile["xuexin_status"], profile["school_proof_status"])
        if graduation > 0 and not proof_ok:
            return None, "graduation_proof_pending"
        if graduation > 0 and left["graduation-trip"] > 0:
            return "graduation-trip", ""
        if left["ordinary"] <= 0 and left["graduation-trip"] <= 0:
            return None, "student_discount_seats_sold_out"
        return None, "student_quota_exhausted"

    def _profile_for(self, p: dict[str, Any]) -> dict[str, Any] | None:
        if p.get("user_id"):
            row = self.query_one("SELECT * FROM student_profiles WHERE user_id = ?", (p["user_id"],))
            if row:
                return row
        name = p.get("name") or p.get("display_name")
        return self.query_one("SELECT * FROM student_profiles WHERE display_name = ?", (name,)) if name else None

    def _require_bookable(self, offer: dict[str, Any]) -> None:
        if _parse_dt(offer["depart_at"], self.now()) <= self.now():
            raise ToolError("TRAIN_DEPARTED", f"{offer['train_no']} left at {offer['depart_at']}")
        status = self._status_row(offer["train_no"], offer["date"])
        if status and str(status["status"]).lower() == "cancelled":
            raise ToolError("TRAIN_CANCELLED", f"{offer['train_no']} on {offer['date']} is cancelled")

    def _penalty_rate(self, offer: dict[str, Any]) -> float:
        now = self.now()
        depart = _parse_dt(offer["depart_at"], now)
        if depart <= now:
            raise ToolError(
                "TRAIN_DEPARTED", f"{offer['train_no']} left at {offer['depart_at']}; tickets can no longer be refunded"
            )
        refundability = str(offer["refundability"]).lower()
        if "non" in refundability or "不可退" in refundability:
            return 1.0
        ahead = depart - now
        if ahead >= timedelta(days=8):
            return 0.0
        if ahead >= timedelta(hours=48):
            return 0.05
        if ahead >= timedelta(hours=24):
            return 0.10
        return 0.20

    def _move_seats(self, offer_id: str, counts: dict[str, int], sign: int) -> None:
        self.execute(
            "UPDATE train_offers SET adult_seats_remaining = MAX(0, adult_seats_remaining + ?), "
            "ordinary_student_seats_remaining = MAX(0, ordinary_student_seats_remaining + ?), "
            "graduation_student_seats_remaining = MAX(0, graduation_student_seats_remaining + ?) WHERE offer_id = ?",
            (sign * counts["adult"], sign * counts["ordinary"], sign * counts["graduation-trip"], offer_id),
        )

    def _move_quota(self, tickets: list[dict[str, Any]], sign: int) -> None:
        columns = {"ordinary": "ordinary_quota_remaining", "graduation-trip": "graduation_quota_remaining"}
        for t in tickets:
            column = columns.get(str(t.get("student_quota_source")))
            if t.get("fare_type") == "student" and column and t.get("user_id"):
                self.execute(
                    f"UPDATE student_profiles SET {column} = MAX(0, {column} + ?) WHERE user_id = ?",
                    (sign, t["user_id"]),
                )

    def _assign_seat(self, offer: dict[str, Any]) -> str:
        """Next seat of the offer: 5 abreast (ABCDF), 20 rows a car, numbered from car 01."""
        n = self.next_seq(f"seat:{offer['offer_id']}") - 1
        letters = "ACDF" if offer["seat_class"] in ("first_class", "business") else "ABCDF"
        car, rest = divmod(n, 20 * len(letters))
        row, col = divmod(rest, len(letters))
        return f"{car + 1:02d}车{row + 1:02d}{letters[col]}"

    def _offer_out(self, row: dict[str, Any], passengers: list[dict[str, Any]]) -> dict[str, Any]:
        out = dict(row)
        out["student_discount_available"] = bool(row["student_discount_available"])
        status = self._status_row(row["train_no"], row["date"])
        out["bookable"] = (
            _parse_dt(row["depart_at"], self.now()) > self.now()
            and not (status and str(status["status"]).lower() == "cancelled")
            and row["adult_seats_remaining"] > 0
        )
        if passengers:
            out["pricing_preview"] = self.price_train_offer(row["offer_id"], passengers)
        return out

    def _booking_out(self, row: dict[str, Any]) -> dict[str, Any]:
        offer = self.query_one("SELECT * FROM train_offers WHERE offer_id = ?", (row["offer_id"],)) or {}
        return {
            "booking_ref": row["booking_ref"],
            "status": row["status"],
            "user_id": row["user_id"],
            "offer_id": row["offer_id"],
            "train_no": offer.get("train_no"),
            "date": offer.get("date"),
            "depart_at": offer.get("depart_at"),
            "arrive_at": offer.get("arrive_at"),
            "origin_city": offer.get("origin_city"),
            "dest_city": offer.get("dest_city"),
            "route": f"{offer.get('origin_station')}->{offer.get('dest_station')}",
            "total_paid": {"amount": row["total_paid"], "currency": row["currency"]},
            "created_at": row["created_at"],
            "contact": loads(row["contact_json"]),
            "passengers": loads(row["passengers_json"]),
            "tickets": loads(row["tickets_json"]),
            "history": loads(row["history_json"]),
        }

    def _offer_row(self, offer_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM train_offers WHERE offer_id = ?",
            (offer_id,),
            "OFFER_NOT_FOUND",
            f"no train offer {offer_id!r}",
        )

    def _status_row(self, train_no: str, date: str) -> dict[str, Any] | None:
        return self.query_one("SELECT * FROM train_status WHERE train_no = ? AND date = ?", (train_no, date))

    def _profile_row(self, user_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM student_profiles WHERE user_id = ?",
            (user_id,),
            "STUDENT_PROFILE_NOT_FOUND",
            f"no student profile for {user_id!r}",
        )


# ---------------------------------------------------------------------- helpers
def _place_names(value: str) -> set[str]:
    key = " ".join(value.split()).casefold()
    names = {key}
    for group in _PLACE_GROUPS:
        if key in group:
            names |= group
    return names


def _matches(row: dict[str, Any], end: str, names: set[str]) -> bool:
    return str(row[f"{end}_city"]).casefold() in names or str(row[f"{end}_station"]).casefold() in names


def _pool_counts(tickets: list[dict[str, Any]]) -> dict[str, int]:
    counts = {"adult": 0, "ordinary": 0, "graduation-trip": 0}
    for t in tickets:
        if t.get("fare_type") == "student" and t.get("student_quota_source") in counts:
            counts[t["student_quota_source"]] += 1
        else:
            counts["adult"] += 1
    return counts


def _check_date(value: str) -> None:
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise ToolError("BAD_ARG", f"date must be YYYY-MM-DD, got {value!r}") from None


def _parse_dt(value: str, ref: datetime) -> datetime:
    dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return dt if dt.tzinfo else dt.replace(tzinfo=ref.tzinfo)
