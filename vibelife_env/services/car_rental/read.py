"""Readers of the car-rental service (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def _one(db: Reader, table: str, key: str, value: str) -> dict[str, Any] | None:
    rows = db.sql("car_rental", f"SELECT * FROM {table} WHERE {key} = ?", (value,))
    return rows[0] if rows else None


def bookings(db: Reader) -> list[dict[str, Any]]:
    """Every rental booking (``bookings`` rows, any status), oldest first (``created_at``, then
    ``booking_ref``)."""
    return db.sql("car_rental", "SELECT * FROM bookings ORDER BY created_at, booking_ref")


def booking(db: Reader, booking_ref: str) -> dict[str, Any] | None:
    """The booking ``booking_ref`` (its ``bookings`` row), or ``None``."""
    return _one(db, "bookings", "booking_ref", booking_ref)


def offers(db: Reader) -> list[dict[str, Any]]:
    """The rental catalogue (``rental_offers`` rows), in the order it was stored."""
    return db.sql("car_rental", "SELECT * FROM rental_offers ORDER BY rowid")


def offer(db: Reader, offer_id: str) -> dict[str, Any] | None:
    """The offer ``offer_id`` (its ``rental_offers`` row: ``vehicle_id``, ``daily_price``,
    ``pickup_at``, ``pickup_location_id``, ``energy_policy_json``...), or ``None``."""
    return _one(db, "rental_offers", "offer_id", offer_id)


def vehicle(db: Reader, vehicle_id: str) -> dict[str, Any] | None:
    """The vehicle ``vehicle_id`` (its ``vehicles`` row), or ``None``."""
    return _one(db, "vehicles", "vehicle_id", vehicle_id)


def location(db: Reader, location_id: str) -> dict[str, Any] | None:
    """The rental desk ``location_id`` (its ``rental_locations`` row: ``lat``, ``lng``, ``city``...),
    or ``None``."""
    return _one(db, "rental_locations", "location_id", location_id)


def plans(db: Reader) -> list[dict[str, Any]]:
    """The insurance plans (``insurance_plans`` rows), in the order they were stored."""
    return db.sql("car_rental", "SELECT * FROM insurance_plans ORDER BY rowid")


def plan(db: Reader, plan_id: str) -> dict[str, Any] | None:
    """The insurance plan ``plan_id`` (its ``insurance_plans`` row), or ``None``."""
    return _one(db, "insurance_plans", "plan_id", plan_id)


def policy(db: Reader, policy_id: str) -> dict[str, Any] | None:
    """The road policy ``policy_id`` (its ``road_policy`` row: ``detail_json``...), or ``None``."""
    return _one(db, "road_policy", "policy_id", policy_id)


def incidents(db: Reader, booking_ref: str) -> list[dict[str, Any]]:
    """The incident reports filed on the booking ``booking_ref`` (``incident_reports`` rows), in
    the order they were filed."""
    return db.sql("car_rental", "SELECT * FROM incident_reports WHERE booking_ref = ? ORDER BY rowid", (booking_ref,))
