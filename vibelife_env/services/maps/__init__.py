"""maps service; :func:`surface_trip` and :data:`TORTUOSITY` measure trips as it does."""

from vibelife_env.services.maps._geo import TORTUOSITY
from vibelife_env.services.maps.service import MapsService, surface_trip

__all__ = ["TORTUOSITY", "MapsService", "surface_trip"]
