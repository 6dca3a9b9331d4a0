"""Argument shapes of hotel_booking tools (TypedDicts become JSON-schema objects)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from typing_extensions import TypedDict


class GuestProfile(TypedDict):
    """Guest identity and the account that owns the reservation."""

    first_name: Annotated[str, Field(description="Guest given/first name.")]
    last_name: Annotated[str, Field(description="Guest family/last name.")]
    email: Annotated[str, Field(description="Guest contact email address.")]
    phone: Annotated[str, Field(description="Guest contact phone number.")]
    user_id: Annotated[str, Field(description="Stable user_id that owns and can list this reservation.")]
