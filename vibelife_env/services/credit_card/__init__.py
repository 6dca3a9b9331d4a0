"""credit_card service."""

from vibelife_env.services.credit_card.service import CreditCardService

__all__ = ["CreditCardService"]
