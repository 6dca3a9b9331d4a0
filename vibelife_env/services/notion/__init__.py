"""notion service."""

from vibelife_env.services.notion.service import NotionService

__all__ = ["NotionService"]
