"""Readers of the visa-and-advisory service (see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def product(db: Reader, product_id: str) -> dict[str, Any] | None:
    """The visa product ``product_id`` (its ``visa_products`` row: ``form_schema_json``,
    ``processing_time_days``...), or ``None``."""
    rows = db.sql("visa_and_advisory", "SELECT * FROM visa_products WHERE product_id = ?", (product_id,))
    return rows[0] if rows else None


def applications(db: Reader, user: str) -> list[dict[str, Any]]:
    """The user's visa applications (``visa_applications`` rows), oldest first (``created_at``,
    then ``application_id``)."""
    return db.sql(
        "visa_and_advisory",
        "SELECT * FROM visa_applications WHERE user_id = ? ORDER BY created_at, application_id",
        (user,),
    )


def documents(db: Reader, application_id: str) -> list[dict[str, Any]]:
    """The documents uploaded to an application (``application_documents`` rows), in upload order
    (``uploaded_at``, then ``doc_id``)."""
    return db.sql(
        "visa_and_advisory",
        "SELECT * FROM application_documents WHERE application_id = ? ORDER BY uploaded_at, doc_id",
        (application_id,),
    )


def advisory(db: Reader, country_code: str) -> dict[str, Any] | None:
    """The travel advisory for the country (its ``advisories`` row: ``level``...), or ``None``."""
    rows = db.sql("visa_and_advisory", "SELECT * FROM advisories WHERE country_code = ?", (country_code,))
    return rows[0] if rows else None


def advisory_followed(db: Reader, country_code: str) -> bool:
    """Some subscription follows the country's advisory."""
    return bool(
        db.sql("visa_and_advisory", "SELECT 1 FROM advisory_subscriptions WHERE country_code = ?", (country_code,))
    )
