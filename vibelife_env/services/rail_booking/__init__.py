"""rail_booking service."""

from vibelife_env.services.rail_booking.service import RailBookingService

__all__ = ["RailBookingService"]
