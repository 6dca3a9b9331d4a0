"""content_platform service."""

from vibelife_env.services.content_platform.service import ContentPlatformService

__all__ = ["ContentPlatformService"]
