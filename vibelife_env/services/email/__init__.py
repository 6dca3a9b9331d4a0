"""email service."""

from vibelife_env.services.email.service import EmailService

__all__ = ["EmailService"]
