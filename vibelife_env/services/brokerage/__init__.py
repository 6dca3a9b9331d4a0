"""brokerage service."""

from vibelife_env.services.brokerage.service import BrokerageService

__all__ = ["BrokerageService"]
