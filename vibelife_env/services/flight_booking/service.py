"""flight_booking: an Amadeus-flavoured flight shop with offers, PNRs, seats and live status.

Tool surface: the public ``flight_booking_mock`` spec (12 tools, lower-case error codes
such as ``offer_not_found``). Semantics on the virtual clock:

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
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.flight_booking import _fares as F
from vibelife_env.services.flight_booking._types import (
    BookingContact,
    PassengerProfile,
    PaymentDetails,
    PreferredSeat,
    SeatSelection,
)

_PNR_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_PAX_TYPES = ("ADT", "CHD", "INF")


class FlightBookingService(Service):
    """Flight search, offers, pricing, PNR lifecycle, seats, check-in and flight status."""

    name = "flight_booking"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------ clock-driven upkeep
    def sync_clock(self) -> None:
        """Apply what the clock and world mutations imply (lapsed holds, swapped aircraft) first."""
        self._expire_holds()
        self._invalidate_seats()

    # ------------------------------------------------------------------ search
    @tool
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
        _check_date("departure_date", departure_date)
        if return_date is not None:
            _check_date("return_date", return_date)
            if return_date < departure_date:
                raise ToolError(
                    "invalid_request", f"return_date {return_date} is before departure_date {departure_date}"
                )
        if not 1 <= adults <= 9 or not 0 <= children <= 8 or not 0 <= infants <= adults:
            raise ToolError(
                "invalid_request",
                f"passenger counts out of range: adults={adults} (1-9), children={children} (0-8), infants={infants} (0-adults)",
            )
        if cabin not in F.CABINS:
            raise ToolError("invalid_request", f"cabin must be one of {', '.join(F.CABINS)}, got {cabin!r}")
        if currency not in F.FX_PER_CNY:
            raise ToolError("invalid_request", f"unsupported currency {currency!r}")
        if sort not in F.SORTS:
            raise ToolError("invalid_request", f"sort must be one of {', '.join(F.SORTS)}, got {sort!r}")
        if not 1 <= max_results <= 50:
            raise ToolError("invalid_request", f"max_results must be 1..50, got {max_results}")
        paid_pax = adults + children
        outbound = self._itineraries(origin, destination, departure_date, cabin, carriers, paid_pax)
        paths: list[list[dict[str, Any]]] = [[o] for o in outbound]
        if return_date is not None:
            inbound = self._itineraries(destination, origin, return_date, cabin, carriers, paid_pax)
            paths = [
                [o, r] for o in outbound for r in inbound if F.parse_dt(r["depart_dt"]) > F.parse_dt(o["arrive_dt"])
            ]
        if non_stop:
            paths = [p for p in paths if all(len(s["legs"]) == 1 for s in p)]
        search_id = f"srch_{self._hex(8)}"
        pax = {"adults": adults, "children": children, "infants": infants}
        offers = [self._make_offer(p, cabin, currency, paid_pax, pax) for p in paths]
        offers.sort(key=_sort_key(sort))
        total = len(offers)
        offers = offers[:max_results]
        now = self.now()
        for off in offers:
            self.execute(
                "INSERT INTO offers (offer_id, created_at, expires_at, payload_json) VALUES (?, ?, ?, ?)",
                (off["offer_id"], _iso(now), off["expires_at"], json.dumps(off.pop("_payload"), ensure_ascii=False)),
            )
        return {"offers": offers, "total": total, "returned": len(offers), "search_id": search_id}

    @tool(read_only=True)
    def get_flight_offer(self, offer_id: str) -> dict[str, Any]:
        """Fetch a previously returned offer in full: segments with fare rules, baggage and fare basis.

        Args:
            offer_id: Offer id from search_flights.
        """
        row = self._offer_row(offer_id)
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
            raise ToolError("offer_not_found", "give exactly one of offer_id or pnr")
        if offer_id:
            payload = json.loads(self._offer_row(offer_id)["payload_json"])
            segments, currency = payload["segments"], payload["currency"]
            if not 0 <= segment_idx < len(segments):
                raise ToolError("offer_not_found", f"offer {offer_id} has no segment {segment_idx}")
        else:
            booking = self._booking_row(str(pnr))
            segments, currency = json.loads(booking["segments_json"]), booking["currency"]
            if not 0 <= segment_idx < len(segments):
                raise ToolError("booking_not_found", f"booking {pnr} has no segment {segment_idx}")
        seg = segments[segment_idx]
        equipment = self._live_equipment(seg)
        taken = self._taken_seats(seg["flight_no"], seg["depart_dt"][:10])
        return {
            "flight_no": seg["flight_no"],
            "equipment": equipment,
            "cabin": seg.get("cabin", "ECONOMY"),
            "cabin_layout": F.seat_map_blocks(equipment, taken, currency),
        }

    # ------------------------------------------------------------------ pricing
    @tool
    def price_offer(self, offer_id: str) -> dict[str, Any]:
        """Re-price an offer against live fare buckets and guarantee that price for 10 minutes.

        The total may differ from what search_flights reported (fare-bucket drift, seat
        depletion). Fails with inventory_gone when a segment no longer has enough seats.

        Args:
            offer_id: Offer id from search_flights.
        """
        row = self._offer_row(offer_id)
        self._require_fresh(row)
        payload = json.loads(row["payload_json"])
        previous = float(payload["total_price"]["amount"])
        new_total = self._live_total(payload)
        now = self.now()
        until = _iso(now + timedelta(minutes=F.PRICE_GUARANTEE_MIN))
        self.execute(
            "UPDATE offers SET priced_price = ?, priced_at = ?, price_guarantee_until = ? WHERE offer_id = ?",
            (new_total, _iso(now), until, offer_id),
        )
        currency = payload["currency"]
        return {
            "offer_id": offer_id,
            "priced_total": {"amount": new_total, "currency": currency},
            "previous_total": {"amount": previous, "currency": currency},
            "price_changed": new_total != previous,
            "change_percent": 0.0 if previous == 0 else round((new_total - previous) / previous * 100, 4),
            "priced_at": _iso(now),
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
        row = self._offer_row(offer_id)
        self._require_fresh(row)
        payload = json.loads(row["payload_json"])
        seated = _validate_passengers(passengers, int(payload.get("paid_pax") or 1))
        if payment.get("card_last4") == "0000":
            raise ToolError("payment_declined_mock", "card ending 0000 was declined by the issuer")
        now = self.now()
        segments = payload["segments"]
        fare = self._guaranteed_or_live(row, payload)
        for seg in segments:
            self._require_bookable(seg, seated)
        seats = self._validate_seats(seat_selections or [], segments, passengers, own_pnr=None)
        currency = payload["currency"]
        seat_fees = round(sum(convert_cny(F.seat_price_cny(eq, s), currency) for _, _, s, eq in seats), 2)
        hold_until = None
        if hold:
            first_departure = F.parse_dt(segments[0]["depart_dt"])
            hold_until = min(now + timedelta(hours=F.HOLD_HOURS), first_departure - timedelta(hours=2))
            if hold_until <= now:
                raise ToolError("hold_not_available", f"{segments[0]['flight_no']} departs too soon to hold")
        for seg in segments:
            self._move_inventory(seg, -seated)
        pnr = self._new_pnr()
        status = "HOLD" if hold else "TICKETED"
        created = _iso(now)
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
        self.execute(
            "INSERT INTO bookings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                pnr,
                contact.get("user_id") or contact.get("email"),
                offer_id,
                status,
                total,
                currency,
                created,
                _dumps(booking_segments),
                _dumps(passengers),
                _dumps(dict(contact)),
                _dumps(history),
            ),
        )
        for seg_idx, pax_idx, seat, _eq in seats:
            self.execute("INSERT INTO seat_assignments VALUES (?, ?, ?, ?, 0, NULL)", (pnr, seg_idx, pax_idx, seat))
        if hold_until is not None:
            self.execute("INSERT INTO booking_holds VALUES (?, ?)", (pnr, _iso(hold_until)))
        tickets = [] if hold else [_ticket_no(pnr, p, s) for p in range(len(passengers)) for s in range(len(segments))]
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
            result["hold_expires_at"] = _iso(hold_until)
        return result

    @tool(read_only=True)
    def get_booking(self, pnr: str) -> dict[str, Any]:
        """Retrieve a booking: status, amount paid, passengers, segments with live status and seats, history.

        Args:
            pnr: The 6-character booking reference.
        """
        row = self._booking_row(pnr)
        seats: dict[int, list[dict[str, Any]]] = {}
        for sa in self.query("SELECT * FROM seat_assignments WHERE pnr = ? ORDER BY segment_idx, pax_idx", (pnr,)):
            seats.setdefault(sa["segment_idx"], []).append(
                {"pax_idx": sa["pax_idx"], "seat": sa["seat"], "checked_in": bool(sa["checked_in"])}
            )
        segments = []
        for s in json.loads(row["segments_json"]):
            fs = self._status_row(s["flight_no"], s["depart_dt"][:10])
            segments.append(
                {
                    "segment_idx": s["segment_idx"],
                    "flight_no": s["flight_no"],
                    "origin": s["origin"],
                    "destination": s.get("dest") or s.get("destination"),
                    "depart_dt": s["depart_dt"],
                    "arrive_dt": s["arrive_dt"],
                    "cabin": s["cabin"],
                    "equipment": self._live_equipment(s),
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
        hold = self.query_one("SELECT expires_at FROM booking_holds WHERE pnr = ?", (pnr,))
        if hold and row["status"] in ("HOLD", "EXPIRED"):
            out["hold_expires_at"] = hold["expires_at"]
        return out

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
        out = []
        for r in window:
            segs = json.loads(r["segments_json"])
            airports = [segs[0]["origin"], *[s.get("dest") or s.get("destination") for s in segs]] if segs else []
            out.append(
                {
                    "pnr": r["pnr"],
                    "status": r["status"],
                    "total_paid": {"amount": r["paid_amount"], "currency": r["currency"]},
                    "first_depart_dt": segs[0]["depart_dt"] if segs else "",
                    "route_summary": "-".join(airports),
                }
            )
        return {
            "bookings": out,
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
        row = self._booking_row(pnr)
        if row["status"] in ("CANCELLED", "EXPIRED"):
            raise ToolError("already_cancelled", f"booking {pnr} is already {row['status']}")
        paid = float(row["paid_amount"])
        segs = json.loads(row["segments_json"])
        rules = self._fare_rules(row)
        if row["status"] == "HOLD":
            refundable, fees, method, refund = True, 0.0, "NONE", 0.0
        elif segs and F.parse_dt(segs[0]["depart_dt"]) <= self.now():
            refundable, fees, method, refund = False, paid, "NONE", 0.0
        elif rules.get("refundable"):
            refundable, fees, method, refund = True, 0.0, "ORIGINAL_FORM", paid
        else:
            change_fee = float(rules.get("change_fee") or convert_cny(900, row["currency"]) / 2)
            fees = round(min(paid * 0.5, change_fee * 2), 2)
            refundable, method, refund = False, "VOUCHER", round(paid - fees, 2)
        seated = _seated_count(json.loads(row["passengers_json"]))
        for s in segs:
            self._move_inventory(s, seated)
        now = _iso(self.now())
        self._append_history(row, "CANCELLED", reason or "", status="CANCELLED")
        currency = row["currency"]
        return {
            "pnr": pnr,
            "status": "CANCELLED",
            "refund": {
                "refundable": refundable,
                "amount": {"amount": refund, "currency": currency},
                "fees_withheld": {"amount": fees, "currency": currency},
                "method": method,
            },
            "cancelled_at": now,
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
        row = self._booking_row(pnr)
        if row["status"] in ("CANCELLED", "EXPIRED"):
            raise ToolError("already_cancelled", f"booking {pnr} is {row['status']} and cannot be changed")
        new_row = self._offer_row(new_offer_id)
        self._require_fresh(new_row)
        rules = self._fare_rules(row)
        if not rules.get("changeable", False):
            raise ToolError("non_changeable_fare", f"the fare of booking {pnr} does not allow changes")
        old_segs = json.loads(row["segments_json"])
        targets = sorted(set(segment_indices)) if segment_indices is not None else list(range(len(old_segs)))
        if not targets or any(not 0 <= i < len(old_segs) for i in targets):
            raise ToolError("invalid_request", f"segment_indices {segment_indices} out of range 0..{len(old_segs) - 1}")
        now = self.now()
        for i in targets:
            if F.parse_dt(old_segs[i]["depart_dt"]) <= now:
                raise ToolError("flight_departed", f"segment {i} ({old_segs[i]['flight_no']}) has already departed")
        passengers = json.loads(row["passengers_json"])
        new_payload = json.loads(new_row["payload_json"])
        seated = _seated_count(passengers)
        if seated != int(new_payload.get("paid_pax") or 1):
            raise ToolError(
                "invalid_passengers",
                f"offer {new_offer_id} is priced for {new_payload.get('paid_pax')} seated passengers, booking has {seated}",
            )
        new_price = self._guaranteed_or_live(new_row, new_payload)
        if new_payload["currency"] != row["currency"]:
            new_price = round(convert_between(new_price, new_payload["currency"], row["currency"]), 2)
        for i in targets:
            self._move_inventory(old_segs[i], seated)
        for ns in new_payload["segments"]:
            self._require_bookable(ns, seated)
            self._move_inventory(ns, -seated)
        paid = float(row["paid_amount"])
        fare_diff = round(new_price - paid * len(targets) / len(old_segs), 2)
        change_fee = 0.0 if row["status"] == "HOLD" else float(rules.get("change_fee") or 0)
        # splice: new segments go where the first replaced one was; keep other seats, re-indexed
        new_list: list[dict[str, Any]] = []
        index_map: dict[int, int] = {}
        for i, s in enumerate(old_segs):
            if i == targets[0]:
                for ns in new_payload["segments"]:
                    new_list.append(
                        {
                            "flight_no": ns["flight_no"],
                            "origin": ns["origin"],
                            "dest": ns["destination"],
                            "depart_dt": ns["depart_dt"],
                            "arrive_dt": ns["arrive_dt"],
                            "cabin": ns["cabin"],
                            "equipment": ns.get("equipment", ""),
                            "_new": True,
                        }
                    )
            if i not in targets:
                index_map[i] = len(new_list)
                new_list.append(dict(s))
        for j, s in enumerate(new_list):
            s["segment_idx"] = j
        kept = self.query("SELECT * FROM seat_assignments WHERE pnr = ?", (pnr,))
        self.execute("DELETE FROM seat_assignments WHERE pnr = ?", (pnr,))
        for sa in kept:
            if sa["segment_idx"] in index_map:
                self.execute(
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
        new_ids = [s["segment_idx"] for s in new_list if s.pop("_new", False)]
        status = "HOLD" if row["status"] == "HOLD" else "CHANGED"
        self.execute(
            "UPDATE bookings SET offer_id = ?, paid_amount = ?, segments_json = ? WHERE pnr = ?",
            (new_offer_id, round(paid + fare_diff + change_fee, 2), _dumps(new_list), pnr),
        )
        self._append_history(
            self._booking_row(pnr), "CHANGED", f"new_offer={new_offer_id} diff={fare_diff}", status=status
        )
        currency = row["currency"]
        return {
            "pnr": pnr,
            "status": status,
            "fare_difference": {"amount": fare_diff, "currency": currency},
            "change_fee": {"amount": change_fee, "currency": currency},
            "new_segments": [
                {k: s[k] for k in ("segment_idx", "flight_no", "depart_dt", "arrive_dt", "cabin")}
                for s in new_list
                if s["segment_idx"] in new_ids
            ],
            "changed_at": _iso(now),
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
        row = self._booking_row(pnr)
        if row["status"] not in ("TICKETED", "CHANGED"):
            raise ToolError(
                "booking_not_ticketed", f"booking {pnr} is {row['status']}; only ticketed bookings check in"
            )
        segs = json.loads(row["segments_json"])
        if not 0 <= segment_idx < len(segs):
            raise ToolError("booking_not_found", f"booking {pnr} has no segment {segment_idx}")
        seg = segs[segment_idx]
        date = seg["depart_dt"][:10]
        fs = self._status_row(seg["flight_no"], date)
        if fs and str(fs["status"]).upper() == "CANCELLED":
            raise ToolError("flight_cancelled", f"{seg['flight_no']} on {date} is cancelled")
        now, depart = self.now(), F.parse_dt(seg["depart_dt"])
        if now < depart - timedelta(hours=F.CHECKIN_OPENS_H):
            raise ToolError(
                "check_in_not_open",
                f"check-in for {seg['flight_no']} opens at {_iso(depart - timedelta(hours=F.CHECKIN_OPENS_H))}",
            )
        if now > depart - timedelta(minutes=F.CHECKIN_CLOSES_MIN):
            raise ToolError("check_in_closed", f"check-in for {seg['flight_no']} closed 45 minutes before departure")
        passengers = json.loads(row["passengers_json"])
        targets = pax_indices if pax_indices is not None else list(range(len(passengers)))
        for px in targets:
            if not 0 <= px < len(passengers):
                raise ToolError("invalid_request", f"pax_idx {px} out of range 0..{len(passengers) - 1}")
        prefs = {int(p["pax_idx"]): p["seat"].strip().upper() for p in preferred_seats or []}
        existing = {
            r["pax_idx"]: r
            for r in self.query("SELECT * FROM seat_assignments WHERE pnr = ? AND segment_idx = ?", (pnr, segment_idx))
        }
        equipment, cabin = self._live_equipment(seg), seg.get("cabin", "ECONOMY")
        taken = self._taken_seats(seg["flight_no"], date, exclude_pnr=pnr)
        mine = {r["seat"] for p, r in existing.items() if p not in targets}
        out = []
        for px in targets:
            if px in existing and existing[px]["boarding_pass_id"]:
                raise ToolError("already_checked_in", f"passenger {px} is already checked in on segment {segment_idx}")
            seat: str | None = None
            if str(passengers[px].get("type", "ADT")).upper() != "INF":
                if px in prefs:
                    seat = prefs[px]
                    self._check_seat(seat, equipment, cabin, taken | mine, seg["flight_no"])
                elif px in existing:
                    seat = existing[px]["seat"]
                else:
                    seat = next((s for s in F.ordered_seats(equipment, cabin) if s not in taken | mine), None)
                    if seat is None:
                        raise ToolError("seat_unavailable", f"no free {cabin} seat left on {seg['flight_no']}")
                mine.add(seat)
            bp = f"BP{self._hex(8).upper()}"
            self.execute(
                "INSERT INTO seat_assignments VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT(pnr, segment_idx, pax_idx) "
                "DO UPDATE SET seat = excluded.seat, checked_in = 1, boarding_pass_id = excluded.boarding_pass_id",
                (pnr, segment_idx, px, seat or "", bp),
            )
            out.append({"pax_idx": px, "seat": seat, "boarding_pass_id": bp})
        self._append_history(row, "CHECKED_IN", f"segment={segment_idx} pax={targets}")
        return {
            "pnr": pnr,
            "segment_idx": segment_idx,
            "checked_in": out,
            "boarding_time": _iso(depart - timedelta(minutes=40)),
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
        flight = self._flight_row(flight_no, date)
        fs = self._status_row(flight_no, date)
        if flight is None:
            flight = self.query_one(
                "SELECT * FROM flights WHERE flight_no = ? ORDER BY depart_dt LIMIT 1", (flight_no,)
            )
            if flight is None or fs is None:
                raise ToolError("flight_not_found", f"no flight {flight_no} on {date}")
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
            "last_updated": fs["last_updated"] if fs else _iso(self.now()),
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
            raise ToolError("invalid_sink", f"sink must be one of {', '.join(F.SINKS)}, got {sink!r}")
        if sink == "webhook" and not webhook_url:
            raise ToolError("invalid_sink", "sink 'webhook' needs a webhook_url")
        _check_date("date", date)
        if self._flight_row(flight_no, date) is None and self._status_row(flight_no, date) is None:
            raise ToolError("flight_not_found", f"no flight {flight_no} on {date}")
        sub_id = f"sub_{self._hex(10)}"
        created = _iso(self.now())
        self.execute(
            "INSERT INTO status_subscriptions VALUES (?, ?, ?, ?, ?, ?)",
            (sub_id, flight_no, date, sink, webhook_url, created),
        )
        return {"sub_id": sub_id, "flight_no": flight_no, "date": date, "created_at": created}

    # ------------------------------------------------------------------ internals
    def _itineraries(
        self, origin: str, dest: str, date: str, cabin: str, carriers: list[str] | None, seats: int
    ) -> list[dict[str, Any]]:
        """Direct and one-stop paths departing ``origin`` on ``date`` that can seat ``seats``."""
        now = self.now()
        wanted = {c.upper() for c in carriers} if carriers else None

        def leg(row: dict[str, Any]) -> dict[str, Any] | None:
            if wanted and row["carrier"].upper() not in wanted and row["flight_no"][:2].upper() not in wanted:
                return None
            if F.parse_dt(row["depart_dt"]) <= now:
                return None
            fs = self._status_row(row["flight_no"], row["depart_dt"][:10])
            if fs and str(fs["status"]).upper() == "CANCELLED":
                return None
            bucket = self._bucket(row["flight_no"], row["depart_dt"][:10], cabin)
            if bucket is None or bucket["seats_remaining"] < seats:
                return None
            return {**row, "price": float(bucket["price"]), "seats_remaining": int(bucket["seats_remaining"])}

        paths = []
        firsts = self.query(
            "SELECT * FROM flights WHERE origin = ? AND substr(depart_dt, 1, 10) = ? ORDER BY depart_dt, flight_no",
            (origin, date),
        )
        for first_row in firsts:
            first = leg(first_row)
            if first is None:
                continue
            if first["dest"] == dest:
                paths.append([first])
                continue
            for second_row in self.query(
                "SELECT * FROM flights WHERE origin = ? AND dest = ? ORDER BY depart_dt, flight_no",
                (first["dest"], dest),
            ):
                gap = F.minutes_between(first["arrive_dt"], second_row["depart_dt"])
                if F.MIN_CONNECTION_MIN <= gap <= F.MAX_CONNECTION_MIN and (second := leg(second_row)):
                    paths.append([first, second])
        paths.sort(
            key=lambda p: (F.parse_dt(p[0]["depart_dt"]), F.parse_dt(p[-1]["arrive_dt"]), [x["flight_no"] for x in p])
        )
        return [
            {
                "origin": p[0]["origin"],
                "dest": p[-1]["dest"],
                "depart_dt": p[0]["depart_dt"],
                "arrive_dt": p[-1]["arrive_dt"],
                "legs": p,
            }
            for p in paths
        ]

    def _make_offer(
        self, slices: list[dict[str, Any]], cabin: str, currency: str, paid_pax: int, pax: dict[str, int]
    ) -> dict[str, Any]:
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
        now = self.now()
        offer_id = f"ofr_{self._hex(14)}"
        payload = {
            "total_price": {"amount": total, "currency": currency},
            "fare_breakdown": {
                "base": base,
                "taxes": taxes,
                "fees": round(total - base - taxes, 2),
                "currency": currency,
            },
            "segments": segments,
            "validating_carrier": legs[0]["carrier"],
            "ticketing_deadline": _iso(now + timedelta(minutes=F.TICKETING_DEADLINE_MIN)),
            "paid_pax": paid_pax,
            "pax": pax,
            "cabin": cabin,
            "currency": currency,
        }
        return {
            "offer_id": offer_id,
            "total_price": {"amount": total, "currency": currency},
            "validating_carrier": legs[0]["carrier"],
            "itinerary": {
                "slices": [
                    {
                        "origin": s["origin"],
                        "destination": s["dest"],
                        "depart_dt": s["depart_dt"],
                        "arrive_dt": s["arrive_dt"],
                        "duration_min": F.minutes_between(s["depart_dt"], s["arrive_dt"]),
                        "stops": len(s["legs"]) - 1,
                        "segments": [
                            {
                                "flight_no": x["flight_no"],
                                "cabin": cabin,
                                "depart_dt": x["depart_dt"],
                                "arrive_dt": x["arrive_dt"],
                            }
                            for x in s["legs"]
                        ],
                    }
                    for s in slices
                ]
            },
            "seats_remaining_hint": min(leg["seats_remaining"] for leg in legs),
            "expires_at": _iso(now + timedelta(minutes=F.OFFER_TTL_MIN)),
            "_payload": payload,
        }

    def _live_total(self, payload: dict[str, Any]) -> float:
        """Current total of an offer from the live buckets; inventory_gone when seats are short."""
        seats = int(payload.get("paid_pax") or 1)
        per_pax = 0.0
        for seg in payload["segments"]:
            date = seg["depart_dt"][:10]
            bucket = self._bucket(seg["flight_no"], date, seg["cabin"])
            if bucket is None or bucket["seats_remaining"] < seats:
                raise ToolError(
                    "inventory_gone", f"{seg['flight_no']} {seg['cabin']} on {date} has fewer than {seats} seats left"
                )
            flight = self._flight_row(seg["flight_no"], date)
            src = flight["currency"] if flight else payload["currency"]
            per_pax += convert_between(float(bucket["price"]), src, payload["currency"])
        return round(per_pax * seats, 2)

    def _guaranteed_or_live(self, offer: dict[str, Any], payload: dict[str, Any]) -> float:
        until = offer.get("price_guarantee_until")
        if offer.get("priced_price") is not None and until and F.parse_dt(until) >= self.now():
            return float(offer["priced_price"])
        return self._live_total(payload)

    def _require_fresh(self, offer: dict[str, Any]) -> None:
        if F.parse_dt(offer["expires_at"]) < self.now():
            raise ToolError(
                "offer_expired", f"offer {offer['offer_id']} expired at {offer['expires_at']}; search again"
            )

    def _require_bookable(self, seg: dict[str, Any], seats: int) -> None:
        date = seg["depart_dt"][:10]
        if F.parse_dt(seg["depart_dt"]) <= self.now():
            raise ToolError("flight_departed", f"{seg['flight_no']} on {date} has already departed")
        fs = self._status_row(seg["flight_no"], date)
        if fs and str(fs["status"]).upper() == "CANCELLED":
            raise ToolError("flight_cancelled", f"{seg['flight_no']} on {date} is cancelled")
        bucket = self._bucket(seg["flight_no"], date, seg["cabin"])
        if bucket is None or bucket["seats_remaining"] < seats:
            raise ToolError("inventory_gone", f"{seg['flight_no']} {seg['cabin']} on {date}: not enough seats")

    def _move_inventory(self, seg: dict[str, Any], delta: int) -> None:
        self.execute(
            "UPDATE fare_buckets SET seats_remaining = MAX(0, seats_remaining + ?) WHERE flight_no = ? AND date = ? AND cabin = ?",
            (delta, seg["flight_no"], seg["depart_dt"][:10], seg["cabin"]),
        )

    def _validate_seats(
        self,
        selections: list[SeatSelection],
        segments: list[dict[str, Any]],
        passengers: list[PassengerProfile],
        own_pnr: str | None,
    ) -> list[tuple[int, int, str, str]]:
        out: list[tuple[int, int, str, str]] = []
        used: set[tuple[int, str]] = set()
        placed: set[tuple[int, int]] = set()
        for sel in selections:
            seg_idx, pax_idx, seat = int(sel["segment_idx"]), int(sel["pax_idx"]), sel["seat"].strip().upper()
            if not 0 <= seg_idx < len(segments):
                raise ToolError("seat_unavailable", f"segment {seg_idx} out of range 0..{len(segments) - 1}")
            if not 0 <= pax_idx < len(passengers) or str(passengers[pax_idx].get("type", "")).upper() == "INF":
                raise ToolError("seat_unavailable", f"pax_idx {pax_idx} is not a seated passenger")
            if (seg_idx, seat) in used or (seg_idx, pax_idx) in placed:
                raise ToolError(
                    "seat_unavailable", f"duplicate seat selection {seat} / pax {pax_idx} on segment {seg_idx}"
                )
            used.add((seg_idx, seat))
            placed.add((seg_idx, pax_idx))
            seg = segments[seg_idx]
            equipment = self._live_equipment(seg)
            taken = self._taken_seats(seg["flight_no"], seg["depart_dt"][:10], exclude_pnr=own_pnr)
            self._check_seat(seat, equipment, seg["cabin"], taken, seg["flight_no"])
            out.append((seg_idx, pax_idx, seat, equipment))
        return out

    @staticmethod
    def _check_seat(seat: str, equipment: str, cabin: str, taken: set[str], flight_no: str) -> None:
        block = F.seat_cabin(equipment, seat)
        if block is None:
            raise ToolError("seat_unavailable", f"seat {seat} does not exist on {flight_no} ({equipment})")
        if not F.cabin_matches(cabin, block):
            raise ToolError("seat_unavailable", f"seat {seat} is in {block}, the booking is {cabin}")
        if seat in taken:
            raise ToolError("seat_unavailable", f"seat {seat} on {flight_no} is already taken")

    def _taken_seats(self, flight_no: str, date: str, exclude_pnr: str | None = None) -> set[str]:
        taken = set()
        for r in self.query(
            "SELECT sa.seat, sa.segment_idx, b.pnr, b.segments_json FROM seat_assignments sa JOIN bookings b ON b.pnr = sa.pnr "
            f"WHERE b.status IN {F.LIVE_STATUSES!r} AND sa.seat != ''"
        ):
            if r["pnr"] == exclude_pnr:
                continue
            for s in json.loads(r["segments_json"]):
                if s["segment_idx"] == r["segment_idx"] and s["flight_no"] == flight_no and s["depart_dt"][:10] == date:
                    taken.add(r["seat"])
        return taken

    def _expire_holds(self) -> None:
        now = self.now()
        for h in self.query(
            "SELECT b.*, h.expires_at FROM booking_holds h JOIN bookings b ON b.pnr = h.pnr WHERE b.status = 'HOLD'"
        ):
            if F.parse_dt(h["expires_at"]) > now:
                continue
            seated = _seated_count(json.loads(h["passengers_json"]))
            for s in json.loads(h["segments_json"]):
                self._move_inventory(s, seated)
            self._append_history(
                h, "EXPIRED", f"hold lapsed at {h['expires_at']}", status="EXPIRED", at=h["expires_at"]
            )

    def _invalidate_seats(self) -> None:
        rows = self.query(
            "SELECT sa.*, b.segments_json FROM seat_assignments sa JOIN bookings b ON b.pnr = sa.pnr "
            f"WHERE b.status IN {F.LIVE_STATUSES!r} AND sa.seat != '' ORDER BY sa.pnr, sa.segment_idx, sa.pax_idx"
        )
        for r in rows:
            segs = json.loads(r["segments_json"])
            if not 0 <= r["segment_idx"] < len(segs):
                continue
            seg = segs[r["segment_idx"]]
            equipment = self._live_equipment(seg)
            block = F.seat_cabin(equipment, r["seat"])
            if block is not None and F.cabin_matches(seg.get("cabin", "ECONOMY"), block):
                continue
            self.execute(
                "DELETE FROM seat_assignments WHERE pnr = ? AND segment_idx = ? AND pax_idx = ?",
                (r["pnr"], r["segment_idx"], r["pax_idx"]),
            )
            detail = (
                f"seat {r['seat']} of passenger {r['pax_idx']} on {seg['flight_no']} no longer exists "
                f"after the aircraft change to {equipment}; a new seat is needed"
            )
            self._append_history(self._booking_row(r["pnr"]), "SEAT_INVALIDATED", detail)
            self.execute(
                "INSERT INTO notifications (created_at, channel, payload_json) VALUES (?, 'system', ?)",
                (
                    _iso(self.now()),
                    _dumps(
                        {
                            "pnr": r["pnr"],
                            "flight_no": seg["flight_no"],
                            "event": "SEAT_INVALIDATED",
                            "seat": r["seat"],
                            "equipment": equipment,
                        }
                    ),
                ),
            )

    def _append_history(
        self, row: dict[str, Any], event: str, detail: str, status: str | None = None, at: str | None = None
    ) -> None:
        history = json.loads(row["history_json"] or "[]")
        history.append({"at": at or _iso(self.now()), "event": event, "detail": detail})
        self.execute(
            "UPDATE bookings SET history_json = ?, status = ? WHERE pnr = ?",
            (_dumps(history), status or row["status"], row["pnr"]),
        )

    def _fare_rules(self, booking: dict[str, Any]) -> dict[str, Any]:
        offer = self.query_one("SELECT payload_json FROM offers WHERE offer_id = ?", (booking["offer_id"],))
        if offer:
            segs = json.loads(offer["payload_json"]).get("segments") or [{}]
            if segs[0].get("fare_rules"):
                return segs[0]["fare_rules"]
        segs = json.loads(booking["segments_json"])
        rules = F.fare_rules_for(segs[0]["cabin"] if segs else "ECONOMY")
        return {**rules, "change_fee": round(convert_cny(rules["change_fee"], booking["currency"]), 2)}

    def _live_equipment(self, seg: dict[str, Any]) -> str:
        flight = self._flight_row(seg["flight_no"], seg["depart_dt"][:10])
        return flight["equipment"] if flight else seg.get("equipment") or "738"

    def _flight_row(self, flight_no: str, date: str) -> dict[str, Any] | None:
        return self.query_one(
            "SELECT * FROM flights WHERE flight_no = ? AND substr(depart_dt, 1, 10) = ?", (flight_no, date)
        )

    def _status_row(self, flight_no: str, date: str) -> dict[str, Any] | None:
        return self.query_one("SELECT * FROM flight_status WHERE flight_no = ? AND date = ?", (flight_no, date))

    def _bucket(self, flight_no: str, date: str, cabin: str) -> dict[str, Any] | None:
        return self.query_one(
            "SELECT * FROM fare_buckets WHERE flight_no = ? AND date = ? AND cabin = ?", (flight_no, date, cabin)
        )

    def _offer_row(self, offer_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM offers WHERE offer_id = ?", (offer_id,), "offer_not_found", f"no offer {offer_id!r}"
        )

    def _booking_row(self, pnr: str) -> dict[str, Any]:
        return self.require("SELECT * FROM bookings WHERE pnr = ?", (pnr,), "booking_not_found", f"no booking {pnr!r}")

    def _hex(self, n: int) -> str:
        return "".join("0123456789abcdef"[int(d)] for d in self.ctx.rng.integers(0, 16, size=n))

    def _new_pnr(self) -> str:
        while True:
            pnr = "".join(_PNR_ALPHABET[int(i)] for i in self.ctx.rng.integers(0, len(_PNR_ALPHABET), size=6))
            if self.query_one("SELECT 1 FROM bookings WHERE pnr = ?", (pnr,)) is None:
                return pnr


# ---------------------------------------------------------------------- helpers
def convert_cny(amount: float, currency: str) -> float:
    return F.convert(amount, "CNY", currency if currency in F.FX_PER_CNY else "CNY")


def convert_between(amount: float, src: str, dst: str) -> float:
    if src not in F.FX_PER_CNY or dst not in F.FX_PER_CNY:
        return float(amount)
    return F.convert(amount, src, dst)


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="seconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _check_date(name: str, value: str) -> None:
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise ToolError("invalid_request", f"{name} must be YYYY-MM-DD, got {value!r}") from None


def _seated_count(passengers: list[dict[str, Any]]) -> int:
    return max(1, sum(1 for p in passengers if str(p.get("type", "ADT")).upper() != "INF"))


def _validate_passengers(passengers: list[PassengerProfile], paid_pax: int) -> int:
    if not passengers:
        raise ToolError("invalid_passengers", "at least one passenger is required")
    for i, p in enumerate(passengers):
        if str(p["type"]).upper() not in _PAX_TYPES:
            raise ToolError("invalid_passengers", f"passenger {i} has type {p['type']!r}; use ADT, CHD or INF")
        if not p["given_name"].strip() or not p["family_name"].strip():
            raise ToolError("invalid_passengers", f"passenger {i} needs a given and family name")
    seated = sum(1 for p in passengers if p["type"].upper() != "INF")
    infants = len(passengers) - seated
    adults = sum(1 for p in passengers if p["type"].upper() == "ADT")
    if seated != paid_pax:
        raise ToolError("invalid_passengers", f"the offer is priced for {paid_pax} seated passengers, got {seated}")
    if infants > adults:
        raise ToolError("invalid_passengers", f"{infants} lap infants need as many adults, got {adults}")
    return seated


def _ticket_no(pnr: str, pax_idx: int, seg_idx: int) -> str:
    digits = "".join(c for c in hashlib.sha256(f"{pnr}|{pax_idx}|{seg_idx}".encode()).hexdigest() if c.isdigit())
    return "172-" + (digits * 2)[:9]


def _sort_key(sort: str) -> Any:
    if sort == "duration_asc":
        return lambda o: (sum(s["duration_min"] for s in o["itinerary"]["slices"]), o["total_price"]["amount"])
    if sort == "depart_asc":
        return lambda o: (F.parse_dt(o["itinerary"]["slices"][0]["depart_dt"]), o["total_price"]["amount"])
    return lambda o: (o["total_price"]["amount"], F.parse_dt(o["itinerary"]["slices"][0]["depart_dt"]))
