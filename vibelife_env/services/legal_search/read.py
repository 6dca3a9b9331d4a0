"""Readers of the legal-search corpus (statutes, their articles, judgments; see
:mod:`vibelife_env.services.read`)."""

from __future__ import annotations

from typing import Any

from vibelife_env.services.read import Reader


def statutes(db: Reader) -> list[dict[str, Any]]:
    """Every statute (``statutes`` rows: ``statute_id``, ``name``, ``issuer``, ``status``: ``现行有效``
    when in force...), in the order they were stored."""
    return db.sql("legal_search", "SELECT * FROM statutes ORDER BY rowid")


def articles(db: Reader) -> list[dict[str, Any]]:
    """Every statute article (``statute_articles`` rows: ``article_id``, ``statute_id``,
    ``heading``...), in the order they were stored."""
    return db.sql("legal_search", "SELECT * FROM statute_articles ORDER BY rowid")


def cases(db: Reader) -> list[dict[str, Any]]:
    """Every judgment (``cases`` rows: ``case_id``, ``case_type``, ``keywords``, ``outcome``...),
    in the order they were stored."""
    return db.sql("legal_search", "SELECT * FROM cases ORDER BY rowid")


def judgments(db: Reader) -> list[dict[str, Any]]:
    """Every judgment of a known court, in the order they were stored: each ``cases`` row with its
    court's ``region``."""
    return db.sql(
        "legal_search", "SELECT c.*, ct.region FROM cases c JOIN courts ct ON ct.court_id = c.court_id ORDER BY c.rowid"
    )


def saved_cases(db: Reader) -> set[str]:
    """The ids of the cases saved in the user's library."""
    return {r["case_id"] for r in db.sql("legal_search", "SELECT case_id FROM saved_cases")}
