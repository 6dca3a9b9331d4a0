"""Argument shapes of flight_booking tools (TypedDicts become JSON-schema objects)."""

from __future__ import annotations

from typing import Annotated, NotRequired

from pydantic import Field
from typing_extensions import TypedDict


class PassengerProfile(TypedDict):
    """One traveller on a booking."""

    type: Annotated[str, Field(description="Passenger type: ADT (adult), CHD (child) or INF (lap infant, no seat).")]
    given_name: Annotated[str, Field(description="Passenger given name(s).")]
    family_name: Annotated[str, Field(description="Passenger family name.")]
    dob: NotRequired[Annotated[str, Field(description="Optional date of birth, YYYY-MM-DD.")]]
    passport_no: NotRequired[Annotated[str, Field(description="Optional passport number.")]]
    nationality: NotRequired[Annotated[str, Field(description="Optional nationality.")]]
    frequent_flyer: NotRequired[Annotated[dict[str, str], Field(description="Optional frequent-flyer details.")]]


class BookingContact(TypedDict):
    """Who the airline contacts about the booking."""

    email: Annotated[str, Field(description="Contact email address.")]
    phone: Annotated[str, Field(description="Contact phone number.")]
    user_id: NotRequired[
        Annotated[str, Field(description="Optional account owning the booking; defaults to the email.")]
    ]


class PaymentDetails(TypedDict):
    """How the booking is paid."""

    method: Annotated[str, Field(description="Payment method: CARD, POINTS or a provider token name.")]
    card_last4: NotRequired[Annotated[str, Field(description="Optional last four card digits.")]]
    token: NotRequired[Annotated[str, Field(description="Optional payment-provider token.")]]


class SeatSelection(TypedDict):
    """A seat picked at booking time."""

    segment_idx: Annotated[int, Field(description="Zero-based itinerary segment index.")]
    pax_idx: Annotated[int, Field(description="Zero-based passenger index.")]
    seat: Annotated[str, Field(description="Seat designator, e.g. 12A.")]


class PreferredSeat(TypedDict):
    """A seat wished for at check-in."""

    pax_idx: Annotated[int, Field(description="Zero-based passenger index.")]
    seat: Annotated[str, Field(description="Preferred seat designator, e.g. 12A.")]
