"""notification_hub service."""

from vibelife_env.services.notification_hub.service import NotificationHubService

__all__ = ["NotificationHubService"]
