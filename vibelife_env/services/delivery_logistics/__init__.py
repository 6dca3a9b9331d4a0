"""delivery_logistics service."""

from vibelife_env.services.delivery_logistics.service import DeliveryLogisticsService

__all__ = ["DeliveryLogisticsService"]
