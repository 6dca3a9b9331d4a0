"""The service registry: one line per service, imported lazily by ``module:Class``.

Adding a service touches its own folder, one line here and its test file: copy
``services/_template/`` (a complete two-tool service, deliberately not registered) and
follow its README, or ``docs/services.md``.
"""

from __future__ import annotations

import importlib
from functools import cache

from vibelife_env.services.base import Service

SERVICES: dict[str, str] = {
    "email": "vibelife_env.services.email:EmailService",
    "calendar": "vibelife_env.services.calendar:CalendarService",
    "notion": "vibelife_env.services.notion:NotionService",
    "notification_hub": "vibelife_env.services.notification_hub:NotificationHubService",
    "banking": "vibelife_env.services.banking:BankingService",
    "brokerage": "vibelife_env.services.brokerage:BrokerageService",
    "credit_card": "vibelife_env.services.credit_card:CreditCardService",
    "flight_booking": "vibelife_env.services.flight_booking:FlightBookingService",
    "hotel_booking": "vibelife_env.services.hotel_booking:HotelBookingService",
    "rail_booking": "vibelife_env.services.rail_booking:RailBookingService",
    "car_rental": "vibelife_env.services.car_rental:CarRentalService",
    "maps": "vibelife_env.services.maps:MapsService",
    "weather": "vibelife_env.services.weather:WeatherService",
    "visa_and_advisory": "vibelife_env.services.visa_and_advisory:VisaAndAdvisoryService",
    "ecommerce": "vibelife_env.services.ecommerce:EcommerceService",
    "delivery_logistics": "vibelife_env.services.delivery_logistics:DeliveryLogisticsService",
    "listing_platform": "vibelife_env.services.listing_platform:ListingPlatformService",
    "review_platform": "vibelife_env.services.review_platform:ReviewPlatformService",
    "content_platform": "vibelife_env.services.content_platform:ContentPlatformService",
    "legal_search": "vibelife_env.services.legal_search:LegalSearchService",
    "job_board": "vibelife_env.services.job_board:JobBoardService",
    "health_tracker": "vibelife_env.services.health_tracker:HealthTrackerService",
}


def canonical_name(name: str) -> str:
    """Accept ``email``, ``email_mock`` or ``email-mock``; return ``email``."""
    key = name.strip().replace("-", "_")
    return key.removesuffix("_mock")


def available_services() -> list[str]:
    """Names of the services whose implementation is importable."""
    out = []
    for name in SERVICES:
        try:
            service_class(name)
        except (ImportError, AttributeError):
            continue
        out.append(name)
    return out


@cache
def service_class(name: str) -> type[Service]:
    """The class implementing a service.

    Raises:
        KeyError: no service of that name (the message lists the known ones).
    """
    key = canonical_name(name)
    if key not in SERVICES:
        raise KeyError(f"unknown service {name!r}; known: {', '.join(sorted(SERVICES))}")
    module_name, _, class_name = SERVICES[key].partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, Service)):
        raise TypeError(f"{SERVICES[key]} is not a Service subclass")
    return cls
