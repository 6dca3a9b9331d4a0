"""review_platform service."""

from vibelife_env.services.review_platform.service import ReviewPlatformService

__all__ = ["ReviewPlatformService"]
