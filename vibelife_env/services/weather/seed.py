"""Seed statements of the weather service (see :mod:`vibelife_env.services.sql`)."""

from __future__ import annotations

from vibelife_env.services.sql import insert

#: A temperate climate (the ``mild`` profile families give their cities).
MILD = {
    "profile_id": "mild",
    "seasonal_temp_means_json": '{"spring":17,"summer":28,"autumn":19,"winter":7}',
    "precip_freq_json": '{"spring":0.35,"summer":0.45,"autumn":0.3,"winter":0.2}',
    "wind_baseline_kmh": 12,
    "humidity_baseline_pct": 65,
    "aqi_baseline_json": '{"spring":60,"summer":50,"autumn":55,"winter":75}',
    "notes": None,
}


def climate_profile(row: dict[str, object] = MILD) -> str:
    """One climate profile (the ``mild`` one by default) for locations to name."""
    return insert("weather", "climate_profiles", dict(row))
