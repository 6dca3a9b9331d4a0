"""maps service."""

from vibelife_env.services.maps.service import MapsService

__all__ = ["MapsService"]
