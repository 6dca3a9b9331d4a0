"""visa_and_advisory service."""

from vibelife_env.services.visa_and_advisory.service import VisaAndAdvisoryService

__all__ = ["VisaAndAdvisoryService"]
