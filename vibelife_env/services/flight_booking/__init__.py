"""flight_booking service."""

from vibelife_env.services.flight_booking.service import FlightBookingService

__all__ = ["FlightBookingService"]
