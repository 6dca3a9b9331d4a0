"""Readers of the ecommerce service (see :mod:`vibelife_env.services.read`).

Prices and totals are in minor units (fen) as stored.
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def orders(db: Reader, user: str | None = None) -> list[dict[str, Any]]:
    """Every order (``orders`` rows; of the user ``user``) in any status, oldest first
    (``placed_at``, then ``order_id``)."""
    if user is None:
        return db.sql("ecommerce", "SELECT * FROM orders ORDER BY placed_at, order_id")
    return db.sql("ecommerce", "SELECT * FROM orders WHERE user_id = ? ORDER BY placed_at, order_id", (user,))


def order(db: Reader, order_id: str) -> dict[str, Any] | None:
    """The order ``order_id`` (its ``orders`` row: ``status``, ``total_minor``, ``placed_at``...), or ``None``."""
    rows = db.sql("ecommerce", "SELECT * FROM orders WHERE order_id = ?", (order_id,))
    return rows[0] if rows else None


def items(db: Reader, order_id: str | None = None) -> list[dict[str, Any]]:
    """The lines (``order_items`` rows) of the order ``order_id`` (``None``: of every order), in
    the order they were stored."""
    if order_id is None:
        return db.sql("ecommerce", "SELECT * FROM order_items ORDER BY rowid")
    return db.sql("ecommerce", "SELECT * FROM order_items WHERE order_id = ? ORDER BY rowid", (order_id,))


def cart(db: Reader, user: str) -> list[dict[str, Any]]:
    """The lines in the user's cart (``cart_items`` rows), in the order they were added."""
    return db.sql("ecommerce", "SELECT * FROM cart_items WHERE user_id = ? ORDER BY rowid", (user,))


def refunds(db: Reader, order_id: str) -> list[dict[str, Any]]:
    """The refunds opened on the order ``order_id`` (``refunds`` rows), in the order they were opened."""
    return db.sql("ecommerce", "SELECT * FROM refunds WHERE order_id = ? ORDER BY rowid", (order_id,))


def products(db: Reader) -> list[dict[str, Any]]:
    """The catalogue (``products`` rows), in the order it was stored."""
    return db.sql("ecommerce", "SELECT * FROM products ORDER BY rowid")


def skus(db: Reader, product_id: str | None = None) -> list[dict[str, Any]]:
    """The SKUs (``skus`` rows; of the product ``product_id``), in the order they were stored."""
    if product_id is None:
        return db.sql("ecommerce", "SELECT * FROM skus ORDER BY rowid")
    return db.sql("ecommerce", "SELECT * FROM skus WHERE product_id = ? ORDER BY rowid", (product_id,))


def sku(db: Reader, sku_id: str) -> dict[str, Any] | None:
    """The SKU ``sku_id`` (its ``skus`` row), or ``None``."""
    rows = db.sql("ecommerce", "SELECT * FROM skus WHERE sku_id = ?", (sku_id,))
    return rows[0] if rows else None


def sold_out(db: Reader) -> set[str]:
    """The ids of the SKUs whose stock is zero."""
    return {r["sku_id"] for r in db.sql("ecommerce", "SELECT sku_id FROM stocks WHERE quantity = 0")}
