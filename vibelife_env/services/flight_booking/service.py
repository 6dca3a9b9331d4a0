"""flight_booking: an Amadeus-flavoured flight shop with offers, PNRs, seats and live status.

Tool surface: the public ``flight_booking_mock`` spec (12 tools). Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's
``invalid_request``). Semantics on the virtual clock:

* ``search_flights`` synthesises offers (direct and one-stop, 45 min to 24 h connections)
  from ``flights`` + ``fare_buckets``; offers live 20 minutes. Departed, cancelled and
  sold-out flights are not offered. Prices are converted to the requested currency.
* ``price_offer`` re-prices against the live buckets and guarantees that price for 10 min;
  ``create_booking`` charges the guaranteed price, else the live price at booking time,
  plus seat surcharges, and takes one bucket seat per non-infant passenger per segment.
* A ``hold`` booking keeps inventory for 24 h (never past 2 h before departure) and then
  lapses to ``EXPIRED``, releasing its seats. Cancelling a ticket refunds per the fare
  rules (refundable: full; otherwise the lesser of half the fare and twice the change fee
  is withheld and the rest is a voucher; nothing after departure).
* Seats are validated against the *live* aircraft (``flights.equipment``): when a
  mutation swaps the aircraft, assignments that no longer exist in the booked cabin are
  dropped (history event ``SEAT_INVALIDATED`` + a ``notifications`` row) and check-in
  assigns a new seat. Check-in is open from 48 h to 45 min before departure.

A public-release bundle runs this service under the *release profile*
(:class:`~vibelife_env.services.flight_booking.release.ReleaseFlightBookingService`, chosen
per task by :mod:`vibelife_env.release.world`): where the release's shipped server code
does something else than the above, it does what that code does (holds never lapse;
``get_flight_status`` answers for any date of a known flight). The profile travels in the
database image (:mod:`._profile`): constructing the service on an image, or restoring one,
gives the class of the image's profile.

Where the release is lenient (decided case by case):

* ``search_flights`` with ``sort="price"`` (or ``"duration"``, ``"depart"``) sorts as
  ``price_asc`` (``duration_asc``, ``depart_asc``), as the release would; any other unknown
  sort is ``BAD_ARG`` listing the accepted values (the release silently sorts by price).

The tools below validate and delegate: offers and money live in :mod:`._pricing`, what
can be sold and seated in :mod:`._inventory`, bookings in :mod:`._bookings`, static fare
and aircraft knowledge in :mod:`._fares`.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, ClassVar

from vibelife_env.services.base import Service, ServiceContext, ToolError, schema_from, tool
from vibelife_env.services.common import dumps
from vibelife_env.services.flight_booking import _bookings as bookings
from vibelife_env.services.flight_booking import _fares as F
from vibelife_env.services.flight_booking import _inventory as inventory
from vibelife_env.services.flight_booking import _pricing as pricing
from vibelife_env.services.flight_booking import _profile
from vibelife_env.services.flight_booking._pricing import iso
from vibelife_env.services.flight_booking._types import (
    BookingContact,
    PassengerProfile,
    PaymentDetails,
    PreferredSeat,
    SeatSelection,
)

#: Sort names an agent plausibly means; the release sorts anything unknown by price.
SORT_ALIASES = {"price": "price_asc", "duration": "duration_asc", "depart": "depart_asc", "departure": "depart_asc"}


class FlightBookingService(Service):
    """Flight search, offers, pricing, PNR lifecycle, seats, check-in and flight status."""

    name = "flight_booking"
    SCHEMA = schema_from(__file__)
    #: The semantics this class implements (:mod:`._profile`); its databases carry it.
    profile: ClassVar[str] = _profile.OWN

    # ------------------------------------------------------------------ profiles
    def __new__(cls, ctx: ServiceContext, image: bytes | None = None) -> FlightBookingService:
        """An instance of the class of ``image``'s profile (``cls`` itself for a fresh database).

        Raises:
            ValueError: ``cls`` is a profile's class and ``image`` was made under another one.
        """
        target = cls if image is None else profile_class(_profile.of_image(image))
        if not issubclass(target, cls):
            raise ValueError(f"{cls.__name__} cannot open a flight_booking image of profile {target.profile!r}")
        return super().__new__(target)

    def on_create(self) -> None:
        """A fresh database carries this class's profile."""
        if self.profile != _profile.OWN:
            _profile.write(self.conn, self.profile)

    def restore(self, image: bytes) -> None:
        """Replace the database; the service takes the class of the image's profile."""
        super().restore(image)
        self.__class__ = profile_class(_profile.of_image(image))

    @classmethod
    def stamp(cls, image: bytes) -> bytes:
        """A copy of a seeded ``image`` that runs under this class's profile."""
        return _profile.stamp(image, cls.profile)

    # ------------------------------------------------------------ clock-driven upkeep
    def sync_clock(self) -> None:
        """Apply what the clock and world mutations imply (lapsed holds, swapped aircraft) first."""
        bookings.expire_holds(self)
        bookings.invalidate_seats(self)

    def hold_expiry(self, segments: list[dict[str, Any]], now: datetime) -> datetime | None:
        """When a hold made now on ``segments`` lapses: 24 h, never past 2 h before departure.

        Raises:
            ToolError: ``HOLD_NOT_AVAILABLE`` when the flight departs too soon to be held.
        """
        return bookings.hold_deadline(segments, now)

    # ------------------------------------------------------------------ search
    @tool(lookup=True)
    def search_flights(
        self,
        origin: str,
        destination: str,
        departure_date: str,
        return_date: str | None = None,
        adults: int = 1,
        children: int = 0,
        infants: int = 0,
        cabin: str = "ECONOMY",
        currency: str = "CNY",
        max_results: int = 20,
        sort: str = "price_asc",
        non_stop: bool = False,
        carriers: list[str] | None = None,
    ) -> dict[str, Any]:
        """Search flight offers for a route on a date, one-way or round-trip.

        Returns ``{offers, total, returned, search_id}``. Each offer has ``offer_id``,
        ``total_price`` (all paying passengers, in ``currency``), ``itinerary.slices``
        (per direction: times, ``duration_min``, ``stops``, segments) and
        ``seats_remaining_hint``. Direct and one-stop itineraries (45 min to 24 h
        connection) are offered; offers expire 20 minutes after the search.

        Args:
            origin: IATA 3-letter origin airport, e.g. "PVG".
            destination: IATA 3-letter destination airport, e.g. "NRT".
            departure_date: Outbound date, YYYY-MM-DD (local date of departure).
            return_date: Optional return date for a round trip, YYYY-MM-DD.
            adults: Adult passengers (1 to 9).
            children: Child passengers (0 to 8); they pay and take a seat.
            infants: Lap infants (0 to adults); free, no seat.
            cabin: ECONOMY, PREMIUM_ECONOMY, BUSINESS or FIRST.
            currency: ISO 4217 code for prices (CNY, USD, EUR, JPY, HKD, GBP, KRW).
            max_results: Maximum offers returned (1 to 50).
            sort: price_asc, duration_asc or depart_asc.
            non_stop: Only direct itineraries.
            carriers: Optional carrier filter (codes or names as stored), e.g. ["JL", "NH"].
        """

        origin, destination, cabin, currency = origin.upper(), destination.upper(), cabin.upper(), currency.upper()
        sort = SORT_ALIASES.get(sort, sort)
        _check_search(departure_date, return_date, adults, children, infants, cabin, currency, sort, max_results)
        paid_pax = adults + children
        outbound = inventory.itineraries(self, origin, destination, departure_date, cabin, carriers, paid_pax)
        paths: list[list[dict[str, Any]]] = [[o] for o in outbound]
        if return_date is not None:
            inbound = inventory.itineraries(self, destination, origin, return_date, cabin, carriers, paid_pax)
            paths = [
                [o, r] for o in outbound for r in inbound if F.parse_dt(r["depart_dt"]) > F.parse_dt(o["arrive_dt"])
            ]
        if non_stop:
            paths = [p for p in paths if all(len(s["legs"]) == 1 for s in p)]
        search_id = f"srch_{bookings.hex_id(self, 8)}"
        pax = {"adults": adults, "children": children, "infants": infants}
        now = self.now()
        priced = [
            pricing.build_offer(f"ofr_{bookings.hex_id(self, 14)}", p, cabin, currency, paid_pax, pax, now)
            for p in paths
        ]
        priced.sort(key=lambda pair: pricing.sort_key(sort)(pair[0]))
        shown = priced[:max_results]
        for offer, payload in shown:
            self.execute(
                "INSERT INTO offers (offer_id, created_at, expires_at, payload_json) VALUES (?, ?, ?, ?)",
                (offer["offer_id"], iso(now), offer["expires_at"], dumps(payload)),
            )
        return {"offers": [o for o, _ in shown], "total": len(priced), "returned": len(shown), "search_id": search_id}

    @tool(read_only=True)
    def get_flight_offer(self, offer_id: str) -> dict[str, Any]:
        """Fetch a previously returned offer in full: segments with fare rules, baggage and fare basis.

        Args:
            offer_id: Offer id from search_flights.
        """

        row = bookings.offer_row(self, offer_id)
        payload = json.loads(row["payload_json"])
        return {
            "offer_id": offer_id,
            "total_price": payload["total_price"],
            "fare_breakdown": payload["fare_breakdown"],
            "segments": payload["segments"],
            "validating_carrier": payload["validating_carrier"],
            "ticketing_deadline": payload["ticketing_deadline"],
            "expires_at": row["expires_at"],
        }

    @tool(read_only=True)
    def get_seat_map(self, segment_idx: int, offer_id: str | None = None, pnr: str | None = None) -> dict[str, Any]:
        """Seat map of one segment on the aircraft currently scheduled (reflects equipment swaps).

        Every seat lists ``available`` (not held by any live booking), ``characteristics``
        (WINDOW, AISLE, EXIT, EXTRA_LEGROOM) and ``price_delta`` (selection surcharge per
        passenger). Seats can only be chosen in the booked cabin's block.

        Args:
            segment_idx: Zero-based segment index within the offer or booking.
            offer_id: The offer whose segment to show (give exactly one of offer_id, pnr).
            pnr: The booking whose segment to show.
        """

        if bool(offer_id) == bool(pnr):
            raise ToolError("OFFER_NOT_FOUND", "give exactly one of offer_id or pnr")
        if offer_id:
            payload = json.loads(bookings.offer_row(self, offer_id)["payload_json"])
            segments, currency = payload["segments"], payload["currency"]
            if not 0 <= segment_idx < len(segments):
                raise ToolError("OFFER_NOT_FOUND", f"offer {offer_id} has no segment {segment_idx}")
        else:
            booking = bookings.booking_row(self, str(pnr))
            segments, currency = json.loads(booking["segments_json"]), booking["currency"]
            if not 0 <= segment_idx < len(segments):
                raise ToolError("BOOKING_NOT_FOUND", f"booking {pnr} has no segment {segment_idx}")
        seg = segments[segment_idx]
        equipment = inventory.live_equipment(self, seg)
        taken = inventory.taken_seats(self, seg["flight_no"], seg["depart_dt"][:10])
        return {
            "flight_no": seg["flight_no"],
            "equipment": equipment,
            "cabin": seg.get("cabin", "ECONOMY"),
            "cabin_layout": F.seat_map_blocks(equipment, taken, currency),
        }

    # ------------------------------------------------------------------ pricing
    @tool(lookup=True)
    def price_offer(self, offer_id: str) -> dict[str, Any]:
        """Re-price an offer against live fare buckets and guarantee that price for 10 minutes.

        The total may differ from what search_flights reported (fare-bucket drift, seat
        depletion). Fails with INVENTORY_GONE when a segment no longer has enough seats.

        Args:
            offer_id: Offer id from search_flights.
        """

        row = bookings.offer_row(self, offer_id)
        bookings.require_fresh(row, self.now())
        payload = json.loads(row["payload_json"])
        previous = float(payload["total_price"]["amount"])
        new_total = pricing.live_total(self, payload)
        now = self.now()
        until = iso(now + timedelta(minutes=F.PRICE_GUARANTEE_MIN))
        self.execute(
            "UPDATE offers SET priced_price = ?, priced_at = ?, price_guarantee_until = ? WHERE offer_id = ?",
            (new_total, iso(now), until, offer_id),
        )
        currency = payload["currency"]
        return {
            "offer_id": offer_id,
            "priced_total": {"amount": new_total, "currency": currency},
            "previous_total": {"amount": previous, "currency": currency},
            "price_changed": new_total != previous,
            "change_percent": 0.0 if previous == 0 else round((new_total - previous) / previous * 100, 4),
            "priced_at": iso(now),
            "price_guarantee_until": until,
        }

    # ------------------------------------------------------------------ bookings
    @tool
    def create_booking(
        self,
        offer_id: str,
        passengers: list[PassengerProfile],
        contact: BookingContact,
        payment: PaymentDetails,
        seat_selections: list[SeatSelection] | None = None,
        hold: bool = False,
    ) -> dict[str, Any]:
        """Book an offer: issue a ticketed PNR, or a free HOLD that keeps seats for 24 hours.

        Charges the price guaranteed by price_offer (if still within its 10 minutes), else
        the live price now, plus seat surcharges from get_seat_map. The number of non-infant
        passengers must equal the offer's paying passengers. A HOLD is not ticketed and
        lapses to EXPIRED at ``hold_expires_at`` (at most 2 h before departure).

        Args:
            offer_id: Offer id from search_flights or price_offer.
            passengers: Travellers in order {type, given_name, family_name, dob?, passport_no?, ...}.
            contact: {email, phone, user_id?}; the booking belongs to user_id, else to the email.
            payment: {method: "CARD"|"POINTS", card_last4?, token?}.
            seat_selections: Optional seat picks {segment_idx, pax_idx, seat} in the booked cabin.
            hold: True to hold without ticketing instead of issuing tickets.
        """

        row = bookings.offer_row(self, offer_id)
        now = self.now()
        bookings.require_fresh(row, now)
        payload = json.loads(row["payload_json"])
        seated = bookings.validate_passengers(passengers, int(payload.get("paid_pax") or 1))
        if payment.get("card_last4") == "0000":
            raise ToolError("PAYMENT_DECLINED", "card ending 0000 was declined by the issuer")
        segments = payload["segments"]
        fare = pricing.guaranteed_or_live(self, row, payload)
        for seg in segments:
            inventory.require_bookable(self, seg, seated, now)
        seats = inventory.validate_seats(self, seat_selections or [], segments, passengers, own_pnr=None)
        fees = pricing.seat_fees(seats, payload["currency"])
        hold_until = self.hold_expiry(segments, now) if hold else None
        for seg in segments:
            inventory.move(self, seg, -seated)
        return bookings.issue(self, offer_id, payload, passengers, contact, seats, fare, fees, hold, hold_until)

    @tool(read_only=True)
    def get_booking(self, pnr: str) -> dict[str, Any]:
        """Retrieve a booking: status, amount paid, passengers, segments with live status and seats, history.

        Args:
            pnr: The 6-character booking reference.
        """

        return bookings.view(self, bookings.booking_row(self, pnr))

    @tool(read_only=True)
    def list_bookings(
        self,
        user_id: str | None = None,
        email: str | None = None,
        status: str | None = None,
        page: int = 1,
        page_size: int = 20,
    ) -> dict[str, Any]:
        """List bookings, newest first, with route summaries; filters combine with AND.

        Args:
            user_id: Only bookings owned by this user id (the contact user_id or email given at booking).
            email: Only bookings whose contact email is this.
            status: Only this status: TICKETED, HOLD, CHANGED, CANCELLED or EXPIRED.
            page: 1-based page number.
            page_size: Bookings per page (1 to 50).
        """

        sql, params = "SELECT * FROM bookings WHERE 1 = 1", []
        if user_id:
            sql += " AND user_id = ?"
            params.append(user_id)
        if email:
            sql += " AND json_extract(contact_json, '$.email') = ?"
            params.append(email)
        if status:
            sql += " AND status = ?"
            params.append(status.upper())
        rows = self.query(sql + " ORDER BY created_at DESC, pnr", params)
        page, page_size = max(1, page), max(1, min(50, page_size))
        window = rows[(page - 1) * page_size : page * page_size]
        return {
            "bookings": [bookings.summary(r) for r in window],
            "total": len(rows),
            "page": page,
            "total_pages": max(1, (len(rows) + page_size - 1) // page_size),
        }

    @tool
    def cancel_booking(self, pnr: str, reason: str | None = None) -> dict[str, Any]:
        """Cancel a booking, release its seats and return the refund breakdown.

        Refundable fares refund in full to the original payment; non-refundable fares
        withhold the lesser of half the amount paid and twice the change fee and return the
        rest as a VOUCHER; after the first departure nothing is refunded. Cancelling a HOLD
        costs nothing (nothing was charged).

        Args:
            pnr: The booking reference.
            reason: Optional free-text reason, kept in the booking history.
        """

        row = bookings.booking_row(self, pnr)
        if row["status"] in ("CANCELLED", "EXPIRED"):
            raise ToolError("ALREADY_CANCELLED", f"booking {pnr} is already {row['status']}")
        segs = json.loads(row["segments_json"])
        refund = pricing.cancellation_refund(row, segs, pricing.fare_rules(self, row), self.now())
        seated = bookings.seated_count(json.loads(row["passengers_json"]))
        for s in segs:
            inventory.move(self, s, seated)
        bookings.append_history(self, row, "CANCELLED", reason or "", status="CANCELLED")
        currency = row["currency"]
        return {
            "pnr": pnr,
            "status": "CANCELLED",
            "refund": {
                "refundable": refund["refundable"],
                "amount": {"amount": refund["refund"], "currency": currency},
                "fees_withheld": {"amount": refund["fees"], "currency": currency},
                "method": refund["method"],
            },
            "cancelled_at": iso(self.now()),
        }

    @tool
    def change_booking(self, pnr: str, new_offer_id: str, segment_indices: list[int] | None = None) -> dict[str, Any]:
        """Exchange segments of a booking for the segments of a new offer.

        The new offer's segments replace the chosen ones (all by default) in place. The
        total paid moves by the fare difference (pro rata value of the replaced segments
        against the new offer's price) plus the old fare's change fee (none for a HOLD).
        Seats on replaced segments are released; the booking becomes CHANGED.

        Args:
            pnr: The booking reference.
            new_offer_id: Offer id (same passengers) whose segments replace the old ones.
            segment_indices: Zero-based indices of the segments to replace; all when omitted.
        """

        row = bookings.booking_row(self, pnr)
        if row["status"] in ("CANCELLED", "EXPIRED"):
            raise ToolError("ALREADY_CANCELLED", f"booking {pnr} is {row['status']} and cannot be changed")
        new_row = bookings.offer_row(self, new_offer_id)
        now = self.now()
        bookings.require_fresh(new_row, now)
        rules = pricing.fare_rules(self, row)
        if not rules.get("changeable", False):
            raise ToolError("NON_CHANGEABLE_FARE", f"the fare of booking {pnr} does not allow changes")
        old_segs = json.loads(row["segments_json"])
        targets = _change_targets(segment_indices, old_segs, now)
        new_payload = json.loads(new_row["payload_json"])
        seated = bookings.seated_count(json.loads(row["passengers_json"]))
        if seated != int(new_payload.get("paid_pax") or 1):
            raise ToolError(
                "INVALID_PASSENGERS",
                f"offer {new_offer_id} is priced for {new_payload.get('paid_pax')} seated passengers, booking has {seated}",
            )
        new_price = pricing.guaranteed_or_live(self, new_row, new_payload)
        if new_payload["currency"] != row["currency"]:
            new_price = round(pricing.convert_between(new_price, new_payload["currency"], row["currency"]), 2)
        for i in targets:
            inventory.move(self, old_segs[i], seated)
        for ns in new_payload["segments"]:
            inventory.require_bookable(self, ns, seated, now)
            inventory.move(self, ns, -seated)
        paid = float(row["paid_amount"])
        fare_diff = round(new_price - paid * len(targets) / len(old_segs), 2)
        change_fee = 0.0 if row["status"] == "HOLD" else float(rules.get("change_fee") or 0)
        new_list, index_map, inserted = bookings.splice(old_segs, targets, new_payload["segments"])
        bookings.move_seats(self, pnr, index_map)
        status = "HOLD" if row["status"] == "HOLD" else "CHANGED"
        self.execute(
            "UPDATE bookings SET offer_id = ?, paid_amount = ?, segments_json = ? WHERE pnr = ?",
            (new_offer_id, round(paid + fare_diff + change_fee, 2), dumps(new_list), pnr),
        )
        detail = f"new_offer={new_offer_id} diff={fare_diff}"
        bookings.append_history(self, bookings.booking_row(self, pnr), "CHANGED", detail, status=status)
        currency = row["currency"]
        return {
            "pnr": pnr,
            "status": status,
            "fare_difference": {"amount": fare_diff, "currency": currency},
            "change_fee": {"amount": change_fee, "currency": currency},
            "new_segments": [
                {k: new_list[i][k] for k in ("segment_idx", "flight_no", "depart_dt", "arrive_dt", "cabin")}
                for i in inserted
            ],
            "changed_at": iso(now),
        }

    @tool
    def check_in(
        self,
        pnr: str,
        segment_idx: int,
        pax_indices: list[int] | None = None,
        preferred_seats: list[PreferredSeat] | None = None,
    ) -> dict[str, Any]:
        """Online check-in for one segment, open from 48 hours until 45 minutes before departure.

        Each passenger keeps their preferred seat (must be free and in the booked cabin),
        else their existing assignment, else gets the first free seat of the cabin on the
        live aircraft. Lap infants get a boarding pass without a seat. Returns boarding pass
        ids, boarding time (40 min before departure), gate and terminal.

        Args:
            pnr: The booking reference (must be ticketed).
            segment_idx: Zero-based segment index.
            pax_indices: Passengers to check in (zero-based); all when omitted.
            preferred_seats: Optional seat wishes {pax_idx, seat}.
        """

        row = bookings.booking_row(self, pnr)
        if row["status"] not in ("TICKETED", "CHANGED"):
            raise ToolError(
                "BOOKING_NOT_TICKETED", f"booking {pnr} is {row['status']}; only ticketed bookings check in"
            )
        segs = json.loads(row["segments_json"])
        if not 0 <= segment_idx < len(segs):
            raise ToolError("BOOKING_NOT_FOUND", f"booking {pnr} has no segment {segment_idx}")
        seg = segs[segment_idx]
        fs = inventory.status_row(self, seg["flight_no"], seg["depart_dt"][:10])
        if inventory.is_cancelled(fs):
            raise ToolError("FLIGHT_CANCELLED", f"{seg['flight_no']} on {seg['depart_dt'][:10]} is cancelled")
        depart = F.parse_dt(seg["depart_dt"])
        _check_in_window(seg["flight_no"], depart, self.now())
        passengers = json.loads(row["passengers_json"])
        targets = pax_indices if pax_indices is not None else list(range(len(passengers)))
        for px in targets:
            if not 0 <= px < len(passengers):
                raise ToolError("BAD_ARG", f"pax_idx {px} out of range 0..{len(passengers) - 1}")
        prefs = {int(p["pax_idx"]): p["seat"].strip().upper() for p in preferred_seats or []}
        out = bookings.board(self, pnr, segment_idx, seg, passengers, targets, prefs)
        bookings.append_history(self, row, "CHECKED_IN", f"segment={segment_idx} pax={targets}")
        return {
            "pnr": pnr,
            "segment_idx": segment_idx,
            "checked_in": out,
            "boarding_time": iso(depart - timedelta(minutes=40)),
            "gate": fs["gate"] if fs else None,
            "terminal": fs["terminal"] if fs else None,
        }

    # ------------------------------------------------------------------ status
    @tool(read_only=True)
    def get_flight_status(self, flight_no: str, date: str) -> dict[str, Any]:
        """Live status of a flight on a date: status, scheduled/actual times, delay, gate, terminal, aircraft.

        Args:
            flight_no: Flight number, e.g. "NH920".
            date: Local departure date, YYYY-MM-DD.
        """

        _check_date("date", date)
        flight = inventory.flight_row(self, flight_no, date)
        fs = inventory.status_row(self, flight_no, date)
        if flight is None:
            flight = self.query_one(
                "SELECT * FROM flights WHERE flight_no = ? ORDER BY depart_dt LIMIT 1", (flight_no,)
            )
            if flight is None or fs is None:
                raise ToolError("FLIGHT_NOT_FOUND", f"no flight {flight_no} on {date}")
            depart = f"{date}{flight['depart_dt'][10:]}"
            arrive = f"{date}{flight['arrive_dt'][10:]}"
        else:
            depart, arrive = flight["depart_dt"], flight["arrive_dt"]
        return {
            "flight_no": flight_no,
            "date": date,
            "status": fs["status"] if fs else "SCHEDULED",
            "scheduled_depart": depart,
            "scheduled_arrive": arrive,
            "actual_depart": fs["actual_depart"] if fs else None,
            "actual_arrive": fs["actual_arrive"] if fs else None,
            "delay_min": fs["delay_min"] if fs else 0,
            "gate": fs["gate"] if fs else None,
            "terminal": fs["terminal"] if fs else None,
            "equipment": flight["equipment"],
            "last_updated": fs["last_updated"] if fs else iso(self.now()),
        }

    @tool
    def subscribe_flight_status(
        self, flight_no: str, date: str, sink: str = "stdout", webhook_url: str | None = None
    ) -> dict[str, Any]:
        """Subscribe to status updates (delays, gate changes) of a flight on a date.

        Args:
            flight_no: Flight number, e.g. "NH920".
            date: Local departure date, YYYY-MM-DD.
            sink: Where updates go: stdout, email or webhook.
            webhook_url: Required when sink is webhook.
        """

        if sink not in F.SINKS:
            raise ToolError("BAD_ARG", f"sink must be one of {', '.join(F.SINKS)}, got {sink!r}")
        if sink == "webhook" and not webhook_url:
            raise ToolError("BAD_ARG", "sink 'webhook' needs a webhook_url")
        _check_date("date", date)
        self.require_subscribable(flight_no, date)
        sub_id = f"sub_{bookings.hex_id(self, 10)}"
        created = iso(self.now())
        self.execute(
            "INSERT INTO status_subscriptions VALUES (?, ?, ?, ?, ?, ?)",
            (sub_id, flight_no, date, sink, webhook_url, created),
        )
        return {"sub_id": sub_id, "flight_no": flight_no, "date": date, "created_at": created}

    def require_subscribable(self, flight_no: str, date: str) -> None:
        """Refuse a flight with neither a departure nor a status row on ``date``.

        Raises:
            ToolError: ``FLIGHT_NOT_FOUND``.
        """
        if inventory.flight_row(self, flight_no, date) is None and inventory.status_row(self, flight_no, date) is None:
            raise ToolError("FLIGHT_NOT_FOUND", f"no flight {flight_no} on {date}")


def profile_class(profile: str) -> type[FlightBookingService]:
    """The class implementing ``profile`` (:mod:`._profile`).

    Raises:
        ValueError: unknown profile.
    """
    if profile == _profile.OWN:
        return FlightBookingService
    if profile == _profile.RELEASE:
        from vibelife_env.services.flight_booking.release import ReleaseFlightBookingService

        return ReleaseFlightBookingService
    raise ValueError(f"unknown flight_booking profile {profile!r}")


# ---------------------------------------------------------------------- argument checks
def _check_date(name: str, value: str) -> None:
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise ToolError("BAD_ARG", f"{name} must be YYYY-MM-DD, got {value!r}") from None


def _check_search(
    departure_date: str,
    return_date: str | None,
    adults: int,
    children: int,
    infants: int,
    cabin: str,
    currency: str,
    sort: str,
    max_results: int,
) -> None:
    _check_date("departure_date", departure_date)
    if return_date is not None:
        _check_date("return_date", return_date)
        if return_date < departure_date:
            raise ToolError("BAD_ARG", f"return_date {return_date} is before departure_date {departure_date}")
    if not 1 <= adults <= 9 or not 0 <= children <= 8 or not 0 <= infants <= adults:
        raise ToolError(
            "BAD_ARG",
            f"passenger counts out of range: adults={adults} (1-9), children={children} (0-8), infants={infants} (0-adults)",
        )
    if cabin not in F.CABINS:
        raise ToolError("BAD_ARG", f"cabin must be one of {', '.join(F.CABINS)}, got {cabin!r}")
    if currency not in F.FX_PER_CNY:
        raise ToolError("BAD_ARG", f"unsupported currency {currency!r}")
    if sort not in F.SORTS:
        raise ToolError("BAD_ARG", f"sort must be one of {', '.join(F.SORTS)}, got {sort!r}")
    if not 1 <= max_results <= 50:
        raise ToolError("BAD_ARG", f"max_results must be 1..50, got {max_results}")


def _change_targets(segment_indices: list[int] | None, old_segs: list[dict[str, Any]], now: datetime) -> list[int]:
    targets = sorted(set(segment_indices)) if segment_indices is not None else list(range(len(old_segs)))
    if not targets or any(not 0 <= i < len(old_segs) for i in targets):
        raise ToolError("BAD_ARG", f"segment_indices {segment_indices} out of range 0..{len(old_segs) - 1}")
    for i in targets:
        if F.parse_dt(old_segs[i]["depart_dt"]) <= now:
            raise ToolError("FLIGHT_DEPARTED", f"segment {i} ({old_segs[i]['flight_no']}) has already departed")
    return targets


def _check_in_window(flight_no: str, depart: datetime, now: datetime) -> None:
    if now < depart - timedelta(hours=F.CHECKIN_OPENS_H):
        raise ToolError(
            "CHECK_IN_NOT_OPEN", f"check-in for {flight_no} opens at {iso(depart - timedelta(hours=F.CHECKIN_OPENS_H))}"
        )
    if now > depart - timedelta(minutes=F.CHECKIN_CLOSES_MIN):
        raise ToolError("CHECK_IN_CLOSED", f"check-in for {flight_no} closed 45 minutes before departure")
