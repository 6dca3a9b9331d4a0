"""template service: the minimal complete service to copy (see README.md)."""

from vibelife_env.services._template.service import TemplateService

__all__ = ["TemplateService"]
