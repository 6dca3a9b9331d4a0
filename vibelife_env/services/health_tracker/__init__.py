"""health_tracker service."""

from vibelife_env.services.health_tracker.service import HealthTrackerService

__all__ = ["HealthTrackerService"]
