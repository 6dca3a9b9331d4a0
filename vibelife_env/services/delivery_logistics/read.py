"""Readers of the delivery-logistics service (parcels; see :mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def shipments(db: Reader, user: str) -> list[dict[str, Any]]:
    """The user's shipments (``shipments`` rows: ``tracking_no``, ``status``, ``eta_date``...), in
    the order they were created."""
    return db.sql("delivery_logistics", "SELECT * FROM shipments WHERE user_id = ? ORDER BY rowid", (user,))


def live_shipments(db: Reader, user: str) -> list[dict[str, Any]]:
    """The user's shipments still under way (not cancelled or returned), in the order they were
    created: each ``shipments`` row with the courier's planned delivery window as ``time_window``
    (``None`` when none is planned)."""
    return db.sql(
        "delivery_logistics",
        "SELECT s.*, p.time_window FROM shipments s LEFT JOIN _courier_plan p ON p.shipment_id = s.shipment_id "
        "WHERE s.user_id = ? AND s.status NOT IN ('cancelled', 'returned') ORDER BY s.rowid",
        (user,),
    )


def parcel(db: Reader, *, tracking_no: str | None = None, shipment_id: str | None = None) -> dict[str, Any] | None:
    """The shipment with this tracking number (or this shipment id): its ``shipments`` row, or ``None``."""
    if tracking_no is not None:
        rows = db.sql("delivery_logistics", "SELECT * FROM shipments WHERE tracking_no = ?", (tracking_no,))
    else:
        rows = db.sql("delivery_logistics", "SELECT * FROM shipments WHERE shipment_id = ?", (shipment_id,))
    return rows[0] if rows else None


def window(db: Reader, shipment_id: str) -> str | None:
    """The courier's planned delivery window of the shipment (``"18:00-21:00"``), or ``None``."""
    rows = db.sql("delivery_logistics", "SELECT time_window FROM _courier_plan WHERE shipment_id = ?", (shipment_id,))
    return rows[0]["time_window"] if rows else None


def tickets(db: Reader, tracking_no: str | None = None) -> list[dict[str, Any]]:
    """Issue tickets (``issue_tickets`` rows: ``issue_type``...; on the shipment with this tracking
    number), in the order they were opened."""
    if tracking_no is None:
        return db.sql("delivery_logistics", "SELECT * FROM issue_tickets ORDER BY rowid")
    return db.sql(
        "delivery_logistics",
        "SELECT i.* FROM issue_tickets i JOIN shipments s ON s.shipment_id = i.shipment_id WHERE s.tracking_no = ? "
        "ORDER BY i.rowid",
        (tracking_no,),
    )
