"""calendar service."""

from vibelife_env.services.calendar.service import CalendarService

__all__ = ["CalendarService"]
