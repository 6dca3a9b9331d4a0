"""hotel_booking service."""

from vibelife_env.services.hotel_booking.service import HotelBookingService

__all__ = ["HotelBookingService"]
