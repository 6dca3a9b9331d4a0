"""review_platform: a Dianping-style merchant review and booking platform.

Tool surface: the public ``review_platform_mock`` spec (14 tools). Merchants are
discovered by category (restaurant, venue, vet, home_service), read with their reviews,
group-buy deals and Q&A, reserved (party size bounded by the merchant's
``max_party_size``, an attached deal must be active, belong to the merchant and still be
valid on the reservation date) and saved.

Money is integer minor units (fen). Ratings are stored as INTEGER tenths and surfaced as
1.0-5.0 floats. Ids come from ``_counters`` (``rev_%08d``, ``resv_%06d``, ``qa_%06d``);
new timestamps are ISO-8601 UTC with ``Z`` from the virtual clock. Reservation datetimes
are local wall-clock ``YYYY-MM-DDTHH:MM:SS``.

Writing a review updates the merchant's aggregate: seeds often carry a platform-wide
``review_count`` larger than the reviews stored here, so the new review is folded into
that aggregate (or into the stored reviews when they outnumber it). A merchant's summary never
shows fewer reviews than ``list_reviews`` returns: its ``review_count`` is the larger of the two.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``BAD_CATEGORY``,
``BAD_RATING``, ``BAD_DATE``).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import check_year

CATEGORIES = ("restaurant", "venue", "vet", "home_service")
PRICE_BANDS = ("$", "$$", "$$$", "$$$$")
SORTS = {
    "rating": "rating_tenths DESC, review_count DESC",
    "price_asc": "avg_price_minor ASC",
    "price_desc": "avg_price_minor DESC",
    "review_count": "review_count DESC",
}
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


class ReviewPlatformService(Service):
    """Merchant discovery, reviews, group-buy deals, reservations, Q&A and saved merchants."""

    name = "review_platform"
    SCHEMA = schema_from(__file__)

    # ---------------------------------------------------------------- merchants
    @tool(read_only=True)
    def search_merchants(
        self,
        category: str,
        city: str | None = None,
        area: str | None = None,
        min_rating: float | None = None,
        price_band: str | None = None,
        sort: str = "rating",
        limit: int = 20,
    ) -> list[dict[str, Any]]:
        """Search merchants of one category, returning compact summaries.

        Summaries carry rating (1.0-5.0), review_count, avg_price_minor (fen per person),
        price_band, has_private_room, max_party_size and tags. Ties are broken by merchant_id.

        Args:
            category: One of restaurant, venue, vet, home_service.
            city: Only merchants in this city (exact match, e.g. 上海).
            area: Only merchants in this district (exact match, e.g. 浦东新区).
            min_rating: Minimum rating on the 1.0-5.0 scale.
            price_band: Only this price band: $, $$, $$$ or $$$$.
            sort: rating (best first, then most reviewed), price_asc, price_desc or review_count.
            limit: Maximum results (default 20, capped at 100).
        """
        _check_category(category)
        if price_band is not None and price_band not in PRICE_BANDS:
            raise ToolError("BAD_ARG", f"price_band must be one of {', '.join(PRICE_BANDS)}, got {price_band!r}")
        if sort not in SORTS:
            raise ToolError("BAD_ARG", f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        if min_rating is not None and not 0 <= min_rating <= 5:
            raise ToolError("BAD_ARG", f"min_rating must be between 1.0 and 5.0, got {min_rating}")
        limit = _clamp_limit(limit, 100)
        sql = f"SELECT *, {_listed()} FROM merchants WHERE category = ?"
        params: list[Any] = [category]
        for column, value in (("city", city), ("area", area), ("price_band", price_band)):
            if value:
                sql += f" AND {column} = ?"
                params.append(value)
        if min_rating is not None:
            sql += " AND rating_tenths >= ?"
            params.append(round(min_rating * 10))
        sql += f" ORDER BY {SORTS[sort]}, merchant_id ASC LIMIT ?"
        params.append(limit)
        return [_merchant_summary(r) for r in self.query(sql, params)]

    @tool(read_only=True)
    def get_merchant(self, merchant_id: str) -> dict[str, Any]:
        """Return one merchant in full: the summary fields plus address, phone and opening hours.

        Args:
            merchant_id: The merchant id, e.g. ``mer_venue_0001``.
        """
        row = self._merchant_row(merchant_id)
        return {**_merchant_summary(row), "address": row["address"], "phone": row["phone"], "hours": row["hours"]}

    @tool(read_only=True)
    def get_recommendations(self, category: str, area: str | None = None, limit: int = 5) -> list[dict[str, Any]]:
        """Top-rated merchants of a category, best rating first, then most reviewed.

        Args:
            category: One of restaurant, venue, vet, home_service.
            area: Only merchants in this district (exact match).
            limit: Maximum results (default 5, capped at 50).
        """
        _check_category(category)
        limit = _clamp_limit(limit, 50)
        sql = f"SELECT *, {_listed()} FROM merchants WHERE category = ?"
        params: list[Any] = [category]
        if area:
            sql += " AND area = ?"
            params.append(area)
        sql += " ORDER BY rating_tenths DESC, review_count DESC, merchant_id ASC LIMIT ?"
        params.append(limit)
        return [_merchant_summary(r) for r in self.query(sql, params)]

    # ------------------------------------------------------------------ reviews
    @tool(read_only=True)
    def list_reviews(self, merchant_id: str, limit: int = 20) -> list[dict[str, Any]]:
        """List a merchant's reviews, newest first.

        Each review has rating (integer 1-5), body, image_captions (list of photo
        captions), user_id and created_at.

        Args:
            merchant_id: The merchant whose reviews to list.
            limit: Maximum results (default 20, capped at 200).
        """
        self._merchant_row(merchant_id)
        limit = _clamp_limit(limit, 200)
        rows = self.query("SELECT * FROM reviews WHERE merchant_id = ?", (merchant_id,))
        rows.sort(key=lambda r: (_instant(r["created_at"]), r["review_id"]), reverse=True)
        return [_review(r) for r in rows[:limit]]

    @tool
    def write_review(
        self,
        user_id: str,
        merchant_id: str,
        rating: int,
        body: str,
        image_captions: list[str] | None = None,
    ) -> dict[str, Any]:
        """Post a review and update the merchant's aggregate rating and review count.

        Args:
            user_id: The reviewing user.
            merchant_id: The merchant being reviewed.
            rating: Integer star rating from 1 to 5.
            body: The review text (required).
            image_captions: Optional captions of attached photos (晒图).
        """
        _require_text("user_id", user_id)
        if not 1 <= rating <= 5:
            raise ToolError("BAD_ARG", f"rating must be an integer from 1 to 5, got {rating}")
        _require_text("body", body)
        merchant = self._merchant_row(merchant_id)
        agg = self.query_one(
            "SELECT COUNT(*) AS n, COALESCE(SUM(rating), 0) AS total FROM reviews WHERE merchant_id = ?",
            (merchant_id,),
        ) or {"n": 0, "total": 0}
        if merchant["review_count"] >= agg["n"]:
            base_n, base_tenths = merchant["review_count"], merchant["rating_tenths"] * merchant["review_count"]
        else:
            base_n, base_tenths = agg["n"], agg["total"] * 10
        new_n = base_n + 1
        new_tenths = int((base_tenths + rating * 10) / new_n + 0.5)
        review_id = self.mint_id("rev_{:08d}", "review_seq", "reviews", "review_id", alias="review")
        created_at = self.now_utc()
        captions = json.dumps([c for c in image_captions or [] if c], ensure_ascii=False)
        self.execute(
            "INSERT INTO reviews VALUES (?, ?, ?, ?, ?, ?, ?)",
            (review_id, merchant_id, user_id, rating, body, captions, created_at),
        )
        self.execute(
            "UPDATE merchants SET rating_tenths = ?, review_count = ? WHERE merchant_id = ?",
            (new_tenths, new_n, merchant_id),
        )
        return {
            "review_id": review_id,
            "merchant_id": merchant_id,
            "user_id": user_id,
            "rating": rating,
            "created_at": created_at,
            "merchant_new_rating": round(new_tenths / 10, 1),
            "merchant_review_count": new_n,
        }

    # -------------------------------------------------------------------- deals
    @tool(read_only=True)
    def list_merchant_deals(self, merchant_id: str) -> list[dict[str, Any]]:
        """List a merchant's group-buy deals (团购), by deal id.

        Prices are fen: price_minor is the deal price, list_price_minor the original;
        serves is the number of people covered; status is active, sold_out or expired.

        Args:
            merchant_id: The merchant whose deals to list.
        """
        self._merchant_row(merchant_id)
        rows = self.query("SELECT * FROM deals WHERE merchant_id = ? ORDER BY deal_id ASC", (merchant_id,))
        return [_deal(r) for r in rows]

    @tool(read_only=True)
    def get_deal(self, deal_id: str) -> dict[str, Any]:
        """Return one group-buy deal.

        Args:
            deal_id: The deal id, e.g. ``deal_00000005``.
        """
        return _deal(self._deal_row(deal_id))

    # ------------------------------------------------------------- reservations
    @tool
    def reserve(
        self,
        user_id: str,
        merchant_id: str,
        datetime: str,
        party_size: int,
        deal_id: str | None = None,
    ) -> dict[str, Any]:
        """Book a table or venue reservation; returns the confirmed reservation.

        The time must be in the future; party_size may not exceed the merchant's
        max_party_size (when it has one). An attached deal must belong to the merchant,
        be active and be valid on the reservation date.

        Args:
            user_id: The booking user.
            merchant_id: The merchant to reserve at.
            datetime: Local time, ISO ``YYYY-MM-DDTHH:MM[:SS]``.
            party_size: Number of people, a positive integer.
            deal_id: Optional group-buy deal to redeem with the reservation.
        """
        _require_text("user_id", user_id)
        if party_size < 1:
            raise ToolError("BAD_ARG", f"party_size must be a positive integer, got {party_size}")
        when = self._parse_local(datetime)
        merchant = self._merchant_row(merchant_id)
        if when <= self.now().replace(tzinfo=None):
            raise ToolError("BAD_ARG", f"datetime {datetime!r} is not in the future")
        max_party = merchant["max_party_size"]
        if max_party and party_size > max_party:
            raise ToolError(
                "PARTY_SIZE_EXCEEDED",
                f"party_size {party_size} exceeds {merchant_id}'s maximum of {max_party}",
            )
        if deal_id is not None:
            deal = self._deal_row(deal_id)
            if deal["merchant_id"] != merchant_id:
                raise ToolError("DEAL_UNAVAILABLE", f"deal {deal_id!r} does not belong to merchant {merchant_id!r}")
            if deal["status"] != "active":
                raise ToolError("DEAL_UNAVAILABLE", f"deal {deal_id!r} is {deal['status']}, not active")
            if deal["valid_until"] and when.date().isoformat() > deal["valid_until"][:10]:
                raise ToolError("DEAL_UNAVAILABLE", f"deal {deal_id!r} is only valid until {deal['valid_until']}")
        reservation_id = self.mint_id(
            "resv_{:06d}", "reservation_seq", "reservations", "reservation_id", alias="reservation"
        )
        created_at = self.now_utc()
        slot = when.strftime("%Y-%m-%dT%H:%M:%S")
        self.execute(
            "INSERT INTO reservations VALUES (?, ?, ?, ?, ?, ?, 'confirmed', ?)",
            (reservation_id, user_id, merchant_id, slot, party_size, deal_id, created_at),
        )
        return {
            "reservation_id": reservation_id,
            "user_id": user_id,
            "merchant_id": merchant_id,
            "merchant_name": merchant["name"],
            "datetime": slot,
            "party_size": party_size,
            "deal_id": deal_id,
            "status": "confirmed",
            "created_at": created_at,
        }

    @tool(read_only=True)
    def list_reservations(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's reservations, latest reservation time first, with merchant_name and status.

        Args:
            user_id: The user whose reservations to list.
        """
        _require_text("user_id", user_id)
        return self.query(
            "SELECT r.reservation_id, r.user_id, r.merchant_id, m.name AS merchant_name, r.datetime, "
            "r.party_size, r.deal_id, r.status, r.created_at FROM reservations r "
            "JOIN merchants m ON m.merchant_id = r.merchant_id WHERE r.user_id = ? "
            "ORDER BY r.datetime DESC, r.reservation_id DESC",
            (user_id,),
        )

    @tool
    def cancel_reservation(self, reservation_id: str) -> dict[str, Any]:
        """Cancel a reservation (idempotent: an already-cancelled one stays cancelled).

        Args:
            reservation_id: The reservation id, e.g. ``resv_000003``.
        """
        self.require(
            "SELECT 1 FROM reservations WHERE reservation_id = ?",
            (reservation_id,),
            "RESERVATION_NOT_FOUND",
            f"no reservation {reservation_id!r}",
        )
        self.execute(
            "UPDATE reservations SET status = 'cancelled' WHERE reservation_id = ? AND status != 'cancelled'",
            (reservation_id,),
        )
        return {"reservation_id": reservation_id, "status": "cancelled"}

    # ---------------------------------------------------------------------- Q&A
    @tool(read_only=True)
    def get_merchant_qa(self, merchant_id: str) -> list[dict[str, Any]]:
        """List a merchant's Q&A entries, newest first; answer and answered_by are null until answered.

        Args:
            merchant_id: The merchant whose Q&A to read.
        """
        self._merchant_row(merchant_id)
        rows = self.query(
            "SELECT qa_id, merchant_id, user_id, question, answer, answered_by, created_at "
            "FROM merchant_qa WHERE merchant_id = ?",
            (merchant_id,),
        )
        rows.sort(key=lambda r: (_instant(r["created_at"]), r["qa_id"]), reverse=True)
        return rows

    @tool
    def ask_question(self, user_id: str, merchant_id: str, body: str) -> dict[str, Any]:
        """Post a question to a merchant's Q&A; the merchant answers later.

        Args:
            user_id: The asking user.
            merchant_id: The merchant to ask.
            body: The question text.
        """
        _require_text("user_id", user_id)
        _require_text("body", body)
        self._merchant_row(merchant_id)
        qa_id = self.mint_id("qa_{:06d}", "qa_seq", "merchant_qa", "qa_id", alias="qa")
        created_at = self.now_utc()
        self.execute(
            "INSERT INTO merchant_qa VALUES (?, ?, ?, ?, NULL, NULL, ?)",
            (qa_id, merchant_id, user_id, body, created_at),
        )
        return {
            "qa_id": qa_id,
            "merchant_id": merchant_id,
            "user_id": user_id,
            "question": body,
            "answer": None,
            "answered_by": None,
            "created_at": created_at,
        }

    # ------------------------------------------------------------ saved merchants
    @tool
    def save_merchant(self, user_id: str, merchant_id: str) -> dict[str, Any]:
        """Save (收藏) a merchant for a user (idempotent: keeps the first saved_at).

        Args:
            user_id: The saving user.
            merchant_id: The merchant to save.
        """
        _require_text("user_id", user_id)
        self._merchant_row(merchant_id)
        self.execute("INSERT OR IGNORE INTO saved_merchants VALUES (?, ?, ?)", (user_id, merchant_id, self.now_utc()))
        row = self.query_one(
            "SELECT saved_at FROM saved_merchants WHERE user_id = ? AND merchant_id = ?", (user_id, merchant_id)
        ) or {"saved_at": None}
        return {"user_id": user_id, "merchant_id": merchant_id, "saved": True, "saved_at": row["saved_at"]}

    @tool(read_only=True)
    def list_saved_merchants(self, user_id: str) -> list[dict[str, Any]]:
        """List the merchants a user saved, most recently saved first, as summaries with saved_at.

        Args:
            user_id: The user whose saved merchants to list.
        """
        _require_text("user_id", user_id)
        rows = self.query(
            f"SELECT m.*, {_listed('m')}, s.saved_at FROM saved_merchants s "
            "JOIN merchants m ON m.merchant_id = s.merchant_id "
            "WHERE s.user_id = ? ORDER BY s.saved_at DESC, m.merchant_id ASC",
            (user_id,),
        )
        return [{**_merchant_summary(r), "saved_at": r["saved_at"]} for r in rows]

    # ------------------------------------------------------------------ helpers
    def _merchant_row(self, merchant_id: str) -> dict[str, Any]:
        return self.require(
            f"SELECT *, {_listed()} FROM merchants WHERE merchant_id = ?",
            (merchant_id,),
            "MERCHANT_NOT_FOUND",
            f"no merchant {merchant_id!r}",
        )

    def _deal_row(self, deal_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM deals WHERE deal_id = ?", (deal_id,), "DEAL_NOT_FOUND", f"no deal {deal_id!r}"
        )

    def _parse_local(self, raw: str) -> datetime:
        """A reservation time as naive local wall-clock time (aware input is converted)."""
        text = raw.strip()
        if not _DATETIME.match(text):
            raise ToolError("BAD_ARG", f"datetime must be ISO YYYY-MM-DDTHH:MM[:SS], got {raw!r}")
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ToolError("BAD_ARG", f"datetime {raw!r} is not a valid date and time") from None
        check_year("datetime", parsed)
        if parsed.tzinfo is not None:
            parsed = parsed.astimezone(self.now().tzinfo).replace(tzinfo=None)
        return parsed.replace(microsecond=0)


def _check_category(category: str) -> None:
    if category not in CATEGORIES:
        raise ToolError("BAD_ARG", f"category must be one of {', '.join(CATEGORIES)}, got {category!r}")


def _clamp_limit(limit: int, cap: int) -> int:
    if limit < 1:
        raise ToolError("BAD_ARG", f"limit must be at least 1, got {limit}")
    return min(limit, cap)


def _require_text(name: str, value: str) -> None:
    if not value or not value.strip():
        raise ToolError("BAD_ARG", f"{name} must not be empty")


def _instant(raw: Any) -> float:
    """Sort key for a stored timestamp (mixed ``Z`` / ``+08:00`` / naive-UTC strings)."""
    try:
        parsed = datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _str_list(raw: Any) -> list[str]:
    """Tags/captions stored either as a JSON array or as comma-separated text."""
    if raw in (None, ""):
        return []
    text = str(raw).strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, list):
            return [str(v) for v in value if v not in (None, "")]
    return [t.strip() for t in text.split(",") if t.strip()]


def _listed(merchants: str = "merchants") -> str:
    """The SQL column ``n_listed``: the reviews stored for a row of ``merchants`` (the table or its
    alias), for a count that agrees with ``list_reviews``."""
    return f"(SELECT COUNT(*) FROM reviews v WHERE v.merchant_id = {merchants}.merchant_id) AS n_listed"


def _merchant_summary(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "merchant_id": row["merchant_id"],
        "name": row["name"],
        "category": row["category"],
        "city": row["city"],
        "area": row["area"],
        "rating": round(int(row["rating_tenths"]) / 10, 1),
        "review_count": max(int(row["review_count"]), int(row.get("n_listed") or 0)),
        "avg_price_minor": int(row["avg_price_minor"]),
        "price_band": row["price_band"],
        "has_private_room": bool(row["has_private_room"]),
        "max_party_size": int(row["max_party_size"]),
        "tags": _str_list(row["tags"]),
    }


def _review(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "review_id": row["review_id"],
        "merchant_id": row["merchant_id"],
        "user_id": row["user_id"],
        "rating": int(row["rating"]),
        "body": row["body"],
        "image_captions": _str_list(row["image_captions"]),
        "created_at": row["created_at"],
    }


def _deal(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "deal_id": row["deal_id"],
        "merchant_id": row["merchant_id"],
        "title": row["title"],
        "description": row["description"],
        "price_minor": int(row["price_minor"]),
        "list_price_minor": int(row["list_price_minor"]),
        "serves": int(row["serves"]),
        "valid_until": row["valid_until"],
        "status": row["status"],
    }
