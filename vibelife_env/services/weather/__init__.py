"""weather service."""

from vibelife_env.services.weather.service import WeatherService

__all__ = ["WeatherService"]
