"""listing_platform service."""

from vibelife_env.services.listing_platform.service import ListingPlatformService

__all__ = ["ListingPlatformService"]
