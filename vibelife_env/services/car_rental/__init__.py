"""car_rental service."""

from vibelife_env.services.car_rental.service import CarRentalService

__all__ = ["CarRentalService"]
