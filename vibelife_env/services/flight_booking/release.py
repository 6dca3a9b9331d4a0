"""flight_booking under the release profile: what the public release's server code does.

A public-release bundle was written, and its rubrics calibrated, against the release's
shipped ``flight_booking_mock`` server, not against its SPEC prose (which reads like our
service). Where that code makes the world behave differently from ours, a public bundle
gets the code's behaviour (:mod:`vibelife_env.release.world` chooses this class for it;
our own tasks keep :class:`FlightBookingService`, whose tool descriptions state its rules):

- **Holds never lapse.** The release's ``create_booking(hold=True)`` stores a ``HOLD``
  that only a cancel or a change moves; its server has no clock and no expiry. So a hold
  here has no ``hold_expires_at``, never becomes ``EXPIRED`` and can be made up to
  departure (no ``HOLD_NOT_AVAILABLE``); ``create_booking``'s description promises no
  expiry.
- **Flight status on any date.** The release's ``get_flight_status`` finds the flight on
  the date asked, else on any date, and errors only for an unknown flight number; with no
  status row for that date it answers ``SCHEDULED``. Each scheduled time is the flight's
  own when it falls on that date, else that date with the flight's clock time and offset
  (so, as in the release, an overnight flight asked for on its departure date shows its
  arrival clock time on that date). ``last_updated`` without a status row is the world's
  time, where the release puts the wall clock. ``subscribe_flight_status`` accepts the
  same dates (the release checks no flight at all; an unknown number stays
  ``FLIGHT_NOT_FOUND`` here, as ``get_flight_status`` has it).

Everything else, argument checks included, is :class:`FlightBookingService`'s. The
profile is stored in the database image (:mod:`._profile`), so a world restored or forked
from a snapshot keeps it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from vibelife_env.services.base import ToolError, tool
from vibelife_env.services.flight_booking import _bookings as bookings
from vibelife_env.services.flight_booking import _inventory as inventory
from vibelife_env.services.flight_booking import _profile
from vibelife_env.services.flight_booking._pricing import iso
from vibelife_env.services.flight_booking._types import BookingContact, PassengerProfile, PaymentDetails, SeatSelection
from vibelife_env.services.flight_booking.service import FlightBookingService, _check_date


class ReleaseFlightBookingService(FlightBookingService):
    """flight_booking with the public release's semantics (see the module docstring)."""

    profile = _profile.RELEASE

    def sync_clock(self) -> None:
        """Apply swapped aircraft first; holds never lapse."""
        bookings.invalidate_seats(self)

    def hold_expiry(self, segments: list[dict[str, Any]], now: datetime) -> datetime | None:
        """``None``: a hold lasts until it is cancelled or changed."""
        return None

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
        """Book an offer: issue a ticketed PNR, or a free HOLD that keeps its seats until it is cancelled.

        Charges the price guaranteed by price_offer (if still within its 10 minutes), else
        the live price now, plus seat surcharges from get_seat_map. The number of non-infant
        passengers must equal the offer's paying passengers. A HOLD is not ticketed; it stays
        HOLD, keeping its seats, until it is cancelled or changed.

        Args:
            offer_id: Offer id from search_flights or price_offer.
            passengers: Travellers in order {type, given_name, family_name, dob?, passport_no?, ...}.
            contact: {email, phone, user_id?}; the booking belongs to user_id, else to the email.
            payment: {method: "CARD"|"POINTS", card_last4?, token?}.
            seat_selections: Optional seat picks {segment_idx, pax_idx, seat} in the booked cabin.
            hold: True to hold without ticketing instead of issuing tickets.
        """

        return super().create_booking(offer_id, passengers, contact, payment, seat_selections, hold)

    @tool(read_only=True)
    def get_flight_status(self, flight_no: str, date: str) -> dict[str, Any]:
        """Live status of a flight on a date: status, scheduled/actual times, delay, gate, terminal, aircraft.

        Args:
            flight_no: Flight number, e.g. "NH920".
            date: Local departure date, YYYY-MM-DD.
        """

        _check_date("date", date)
        flight = _known_flight(self, flight_no, date)
        fs = inventory.status_row(self, flight_no, date)
        return {
            "flight_no": flight_no,
            "date": date,
            "status": fs["status"] if fs else "SCHEDULED",
            "scheduled_depart": _scheduled_on(date, flight["depart_dt"]),
            "scheduled_arrive": _scheduled_on(date, flight["arrive_dt"]),
            "actual_depart": fs["actual_depart"] if fs else None,
            "actual_arrive": fs["actual_arrive"] if fs else None,
            "delay_min": fs["delay_min"] if fs else 0,
            "gate": fs["gate"] if fs else None,
            "terminal": fs["terminal"] if fs else None,
            "equipment": flight["equipment"],
            "last_updated": fs["last_updated"] if fs else iso(self.now()),
        }

    def require_subscribable(self, flight_no: str, date: str) -> None:
        """Refuse an unknown flight number only: a known flight is subscribed on any date."""
        _known_flight(self, flight_no, date)


def _known_flight(svc: FlightBookingService, flight_no: str, date: str) -> dict[str, Any]:
    """The flight departing on ``date``, else the number's first departure (as the release's
    unordered ``LIMIT 1`` over the ``(flight_no, depart_dt)`` key reads it).

    Raises:
        ToolError: ``FLIGHT_NOT_FOUND``: no flight has that number.
    """
    flight = inventory.flight_row(svc, flight_no, date) or svc.query_one(
        "SELECT * FROM flights WHERE flight_no = ? ORDER BY depart_dt LIMIT 1", (flight_no,)
    )
    if flight is None:
        raise ToolError("FLIGHT_NOT_FOUND", f"no flight {flight_no}")
    return flight


def _scheduled_on(date: str, stamp: str) -> str:
    """``stamp`` when it falls on ``date``, else ``date`` with its clock time and offset."""
    return stamp if stamp[:10] == date else f"{date}T{stamp[11:19]}{stamp[-6:]}"
