"""banking service."""

from vibelife_env.services.banking.service import BankingService

__all__ = ["BankingService"]
