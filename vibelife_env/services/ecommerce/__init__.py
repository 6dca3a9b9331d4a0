"""ecommerce service."""

from vibelife_env.services.ecommerce.service import EcommerceService

__all__ = ["EcommerceService"]
