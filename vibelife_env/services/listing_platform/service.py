"""listing_platform: a classified-listings marketplace (链家/贝壳/58/闲鱼 style).

Tool surface: the public ``listing_platform_mock`` spec (15 tools). Listings are
rentals (``rent``, price = monthly rent), houses for sale (``sale_house``), used cars
(``used_car``) and secondhand goods (``secondhand``); prices are integer fen.
Ids come from ``_counters`` (``lst_%08d``, ``viw_%06d``, ``con_%06d``, ``sub_%06d``);
timestamps are the virtual clock's, ISO-8601 with offset.

Semantics: search shows active listings only; delisted listings can still be read,
saved and unsaved but cannot be contacted or viewed. Viewings must be booked for a
future time and cannot be cancelled twice or after they took place; an owner-checked
``delist`` refuses other users' listings.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``BAD_CATEGORY``,
``BAD_DATE``, ``BAD_PRICE``).
"""

from __future__ import annotations

import json
from datetime import datetime as _datetime
from typing import Any

from vibelife_env.clock import parse_time
from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import contains_pattern, loads, parse_json_arg

CATEGORIES = ("rent", "sale_house", "used_car", "secondhand")
SORTS = {
    "price_asc": "price_minor ASC, listing_id ASC",
    "price_desc": "price_minor DESC, listing_id ASC",
    "area_desc": "area_sqm DESC, listing_id ASC",
    "newest": "listed_at DESC, listing_id DESC",
}
SUMMARY_FIELDS = (
    "listing_id",
    "category",
    "title",
    "city",
    "district",
    "community",
    "price_minor",
    "area_sqm",
    "rooms",
    "metro",
    "agent_id",
    "status",
    "listed_at",
)


class ListingPlatformService(Service):
    """Listing search and detail, agents, favourites, viewings, self-listing, market stats, saved searches."""

    name = "listing_platform"
    SCHEMA = schema_from(__file__)

    # ----------------------------------------------------------------- listings
    @tool(read_only=True)
    def search_listings(
        self,
        category: str,
        city: str | None = None,
        district: str | None = None,
        min_price_minor: int | None = None,
        max_price_minor: int | None = None,
        min_rooms: int | None = None,
        max_rooms: int | None = None,
        keyword: str | None = None,
        sort: str | None = None,
        limit: int = 20,
    ) -> list[dict[str, Any]]:
        """Search active listings of one category; returns listing summaries.

        Prices are fen (¥1 = 100): monthly rent for ``rent``, total price otherwise.

        Args:
            category: One of rent, sale_house, used_car, secondhand.
            city: Exact city as stored, e.g. "上海".
            district: Exact district as stored, e.g. "静安区".
            min_price_minor: Lowest price in fen (inclusive).
            max_price_minor: Highest price in fen (inclusive).
            min_rooms: Fewest bedrooms.
            max_rooms: Most bedrooms.
            keyword: Substring matched against title, community and description.
            sort: One of newest (default), price_asc, price_desc, area_desc.
            limit: Maximum results, 1 to 200 (default 20).
        """
        _check_category(category)
        if sort is not None and sort not in SORTS:
            raise ToolError("BAD_ARG", f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        if limit < 1:
            raise ToolError("BAD_ARG", f"limit must be at least 1, got {limit}")
        sql = "SELECT * FROM listings WHERE category = ? AND status = 'active'"
        params: list[Any] = [category]
        for clause, value in (
            ("city = ?", city),
            ("district = ?", district),
            ("price_minor >= ?", min_price_minor),
            ("price_minor <= ?", max_price_minor),
            ("rooms >= ?", min_rooms),
            ("rooms <= ?", max_rooms),
        ):
            if value is not None and value != "":
                sql += f" AND {clause}"
                params.append(value)
        if keyword:
            like = contains_pattern("keyword", keyword)
            sql += " AND (title LIKE ? ESCAPE '\\' OR community LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\')"
            params += [like, like, like]
        sql += f" ORDER BY {SORTS[sort or 'newest']} LIMIT ?"
        params.append(min(limit, 200))
        return [_summary(r) for r in self.query(sql, params)]

    @tool(read_only=True)
    def get_listing(self, listing_id: str) -> dict[str, Any]:
        """Summary of one listing: price (fen), area, rooms, metro, agent_id, status.

        Args:
            listing_id: The listing id.
        """
        return _summary(self._listing(listing_id))

    @tool(read_only=True)
    def get_listing_detail(self, listing_id: str) -> dict[str, Any]:
        """Full listing: summary plus attributes, photo captions, description, owner and the agent's profile.

        Args:
            listing_id: The listing id.
        """
        row = self._listing(listing_id)
        return {**_detail(row), "agent": self._agent_or_none(row["agent_id"])}

    @tool
    def post_listing(
        self,
        user_id: str,
        category: str,
        title: str,
        price_minor: int,
        city: str,
        district: str | None = None,
        community: str | None = None,
        area_sqm: float | None = None,
        rooms: int | None = None,
        metro: str | None = None,
        description: str | None = None,
        attrs: dict[str, Any] | None = None,
        photos: list[str] | None = None,
    ) -> dict[str, Any]:
        """Publish a listing owned by the user (no agent); returns the listing detail.

        Args:
            user_id: The owner.
            category: One of rent, sale_house, used_car, secondhand.
            title: Listing headline.
            price_minor: Positive price in fen: monthly rent for rent, total price otherwise.
            city: City.
            district: District.
            community: Community / estate name.
            area_sqm: Floor area in square metres.
            rooms: Number of bedrooms.
            metro: Nearest metro line and station.
            description: Free text description.
            attrs: Free-form attributes, e.g. {"floor": "6/18", "orientation": "south"}.
            photos: Photo captions (text).
        """
        if not user_id.strip():
            raise ToolError("BAD_ARG", "user_id must not be empty")
        _check_category(category)
        if not title.strip():
            raise ToolError("BAD_ARG", "title must not be empty")
        if not city.strip():
            raise ToolError("BAD_ARG", "city must not be empty")
        if price_minor <= 0:
            raise ToolError("BAD_ARG", f"price_minor must be a positive number of fen, got {price_minor}")
        if area_sqm is not None and area_sqm <= 0:
            raise ToolError("BAD_ARG", f"area_sqm must be positive, got {area_sqm}")
        if rooms is not None and rooms < 0:
            raise ToolError("BAD_ARG", f"rooms must not be negative, got {rooms}")
        listing_id = self.mint_id("lst_{:08d}", "listing_seq", "listings", "listing_id")
        self.insert_rows(
            "listings",
            [
                {
                    "listing_id": listing_id,
                    "category": category,
                    "title": title,
                    "city": city,
                    "district": district,
                    "community": community,
                    "price_minor": price_minor,
                    "area_sqm": area_sqm,
                    "rooms": rooms,
                    "metro": metro,
                    "attrs_json": json.dumps(attrs or {}, ensure_ascii=False),
                    "description": description,
                    "photos_json": json.dumps(photos or [], ensure_ascii=False),
                    "agent_id": None,
                    "owner_user_id": user_id,
                    "status": "active",
                    "listed_at": self.now_iso(),
                }
            ],
        )
        return _detail(self._listing(listing_id))

    @tool
    def delist(self, listing_id: str, user_id: str | None = None) -> dict[str, Any]:
        """Take a listing off the market (status delisted); with user_id only the owner may do so.

        Args:
            listing_id: The listing to delist.
            user_id: The acting user; must be the listing's owner when given.
        """
        row = self._listing(listing_id)
        if user_id is not None and row["owner_user_id"] != user_id:
            raise ToolError("NOT_OWNER", f"user {user_id!r} does not own listing {listing_id!r}")
        self.execute("UPDATE listings SET status = 'delisted' WHERE listing_id = ?", (listing_id,))
        return {"listing_id": listing_id, "status": "delisted"}

    # ------------------------------------------------------------------- agents
    @tool(read_only=True)
    def get_agent(self, agent_id: str) -> dict[str, Any]:
        """A listing agent's profile: name, agency, phone, rating (0-5), deals_count, service_area.

        Args:
            agent_id: The agent id (from a listing's agent_id).
        """
        agent = self._agent_or_none(agent_id)
        if agent is None:
            raise ToolError("AGENT_NOT_FOUND", f"no agent {agent_id!r}")
        return agent

    @tool
    def contact_agent(self, user_id: str, listing_id: str, message: str) -> dict[str, Any]:
        """Send a message to the agent of an active listing; records the contact and returns the agent profile.

        Args:
            user_id: The user writing.
            listing_id: The listing asked about.
            message: The message text.
        """
        if not user_id.strip():
            raise ToolError("BAD_ARG", "user_id must not be empty")
        if not message.strip():
            raise ToolError("BAD_ARG", "message must not be empty")
        row = self._active_listing(listing_id)
        contact_id = self.mint_id("con_{:06d}", "contact_seq", "contacts", "contact_id")
        created = self.now_iso()
        self.execute(
            "INSERT INTO contacts VALUES (?, ?, ?, ?, ?, ?)",
            (contact_id, user_id, listing_id, row["agent_id"], message, created),
        )
        return {
            "contact_id": contact_id,
            "listing_id": listing_id,
            "agent_id": row["agent_id"],
            "agent": self._agent_or_none(row["agent_id"]),
            "message": message,
            "created_at": created,
            "status": "sent",
        }

    # -------------------------------------------------------------------- saved
    @tool
    def save_listing(self, user_id: str, listing_id: str) -> dict[str, Any]:
        """Add a listing to the user's favourites.

        Args:
            user_id: The user.
            listing_id: The listing to save.
        """
        if not user_id.strip():
            raise ToolError("BAD_ARG", "user_id must not be empty")
        self._listing(listing_id)
        if self._is_saved(user_id, listing_id):
            raise ToolError("ALREADY_SAVED", f"listing {listing_id!r} is already saved by {user_id!r}")
        saved_at = self.now_iso()
        self.execute("INSERT INTO saved_listings VALUES (?, ?, ?)", (user_id, listing_id, saved_at))
        return {"user_id": user_id, "listing_id": listing_id, "saved_at": saved_at, "status": "saved"}

    @tool
    def unsave_listing(self, user_id: str, listing_id: str) -> dict[str, Any]:
        """Remove a listing from the user's favourites.

        Args:
            user_id: The user.
            listing_id: The saved listing.
        """
        if not self._is_saved(user_id, listing_id):
            raise ToolError("NOT_SAVED", f"listing {listing_id!r} is not saved by {user_id!r}")
        self.execute("DELETE FROM saved_listings WHERE user_id = ? AND listing_id = ?", (user_id, listing_id))
        return {"user_id": user_id, "listing_id": listing_id, "status": "unsaved"}

    @tool(read_only=True)
    def list_saved(self, user_id: str) -> list[dict[str, Any]]:
        """The user's saved listings (summaries with saved_at), oldest saved first.

        Args:
            user_id: The user.
        """
        rows = self.query(
            "SELECT l.*, s.saved_at AS saved_at_ FROM saved_listings s JOIN listings l ON l.listing_id = s.listing_id "
            "WHERE s.user_id = ? ORDER BY s.saved_at, s.rowid",
            (user_id,),
        )
        return [{**_summary(r), "saved_at": r["saved_at_"]} for r in rows]

    # ----------------------------------------------------------------- viewings
    @tool
    def schedule_viewing(self, user_id: str, listing_id: str, datetime: str) -> dict[str, Any]:
        """Book a viewing of an active listing with its agent at a future time.

        Args:
            user_id: The user viewing.
            listing_id: The listing to view.
            datetime: ISO-8601 time with offset, e.g. 2026-05-23T15:00:00+08:00 (no offset = local time).
        """
        if not user_id.strip():
            raise ToolError("BAD_ARG", "user_id must not be empty")
        when = self._parse_when(datetime)
        row = self._active_listing(listing_id)
        if when <= self.now():
            raise ToolError("BAD_ARG", f"viewing time {datetime} is not in the future (now {self.now_iso()})")
        viewing_id = self.mint_id("viw_{:06d}", "viewing_seq", "viewings", "viewing_id")
        created = self.now_iso()
        self.execute(
            "INSERT INTO viewings VALUES (?, ?, ?, ?, ?, 'scheduled', ?)",
            (viewing_id, user_id, listing_id, row["agent_id"], datetime, created),
        )
        return {
            "viewing_id": viewing_id,
            "user_id": user_id,
            "listing_id": listing_id,
            "agent_id": row["agent_id"],
            "scheduled_at": datetime,
            "status": "scheduled",
            "created_at": created,
        }

    @tool(read_only=True)
    def list_viewings(self, user_id: str) -> list[dict[str, Any]]:
        """The user's viewings (scheduled and cancelled) with listing title and community, earliest first.

        Args:
            user_id: The user.
        """
        rows = self.query(
            "SELECT v.viewing_id, v.listing_id, l.title AS listing_title, l.community AS listing_community, "
            "v.agent_id, v.scheduled_at, v.status, v.created_at FROM viewings v "
            "LEFT JOIN listings l ON l.listing_id = v.listing_id WHERE v.user_id = ? ORDER BY v.viewing_id",
            (user_id,),
        )
        rows.sort(key=lambda r: self._sort_time(r["scheduled_at"]))
        return rows

    @tool
    def cancel_viewing(self, viewing_id: str) -> dict[str, Any]:
        """Cancel a scheduled viewing that has not happened yet.

        Args:
            viewing_id: The viewing id, e.g. ``viw_000001``.
        """
        row = self.require(
            "SELECT * FROM viewings WHERE viewing_id = ?",
            (viewing_id,),
            "VIEWING_NOT_FOUND",
            f"no viewing {viewing_id!r}",
        )
        if row["status"] == "cancelled":
            raise ToolError("BAD_ARG", f"viewing {viewing_id!r} is already cancelled")
        if self._sort_time(row["scheduled_at"]) < self.now().timestamp():
            raise ToolError("BAD_ARG", f"viewing {viewing_id!r} at {row['scheduled_at']} has already taken place")
        self.execute("UPDATE viewings SET status = 'cancelled' WHERE viewing_id = ?", (viewing_id,))
        return {"viewing_id": viewing_id, "status": "cancelled"}

    # ------------------------------------------------------------ market, alerts
    @tool(read_only=True)
    def get_market_stats(self, area_or_community: str) -> list[dict[str, Any]]:
        """Transaction statistics for an area or community: exact area match, else substring match.

        Each row has avg_price_minor (fen), unit (per_month, total or per_sqm), sample_size and period.

        Args:
            area_or_community: Area, district or community name, e.g. "静安区".
        """
        if not area_or_community.strip():
            raise ToolError("BAD_ARG", "area_or_community must not be empty")
        rows = self.query(
            "SELECT * FROM market_stats WHERE area = ? ORDER BY category, period DESC, stat_id", (area_or_community,)
        )
        if not rows:
            rows = self.query(
                "SELECT * FROM market_stats WHERE area LIKE ? ESCAPE '\\' ORDER BY area, category, period DESC, stat_id",
                (contains_pattern("area_or_community", area_or_community),),
            )
        if not rows:
            raise ToolError("STATS_NOT_FOUND", f"no market stats for {area_or_community!r}")
        return rows

    @tool
    def subscribe_search(self, user_id: str, query_json: str) -> dict[str, Any]:
        """Save a search so the user hears about new matches.

        Args:
            user_id: The user.
            query_json: JSON text of the criteria (search_listings arguments), e.g. {"category":"rent","district":"静安区","max_price_minor":1200000}.
        """
        if not user_id.strip():
            raise ToolError("BAD_ARG", "user_id must not be empty")
        query = parse_json_arg("query_json", query_json)
        if isinstance(query, dict) and "category" in query:
            _check_category(str(query["category"]))
        sub_id = self.mint_id("sub_{:06d}", "subscription_seq", "search_subscriptions", "subscription_id")
        created = self.now_iso()
        self.execute("INSERT INTO search_subscriptions VALUES (?, ?, ?, ?)", (sub_id, user_id, query_json, created))
        return {"subscription_id": sub_id, "user_id": user_id, "query": query, "created_at": created}

    # ------------------------------------------------------------------ helpers
    def _listing(self, listing_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM listings WHERE listing_id = ?",
            (listing_id,),
            "LISTING_NOT_FOUND",
            f"no listing {listing_id!r}",
        )

    def _active_listing(self, listing_id: str) -> dict[str, Any]:
        row = self._listing(listing_id)
        if row["status"] != "active":
            raise ToolError("LISTING_DELISTED", f"listing {listing_id!r} is delisted")
        return row

    def _agent_or_none(self, agent_id: str | None) -> dict[str, Any] | None:
        if not agent_id:
            return None
        return self.query_one(
            "SELECT agent_id, name, agency, phone, rating, deals_count, service_area FROM agents WHERE agent_id = ?",
            (agent_id,),
        )

    def _is_saved(self, user_id: str, listing_id: str) -> bool:
        return (
            self.query_one("SELECT 1 FROM saved_listings WHERE user_id = ? AND listing_id = ?", (user_id, listing_id))
            is not None
        )

    def _parse_when(self, value: str) -> _datetime:
        try:
            return parse_time(value, self.now().tzinfo)
        except ValueError:
            raise ToolError(
                "BAD_ARG", f"datetime must be ISO-8601, e.g. 2026-05-23T15:00:00+08:00, got {value!r}"
            ) from None

    def _sort_time(self, value: str) -> float:
        try:
            return parse_time(value, self.now().tzinfo).timestamp()
        except ValueError:
            return float("-inf")


def _check_category(category: str) -> None:
    if category not in CATEGORIES:
        raise ToolError("BAD_ARG", f"category must be one of {', '.join(CATEGORIES)}, got {category!r}")


def _summary(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in SUMMARY_FIELDS}


def _detail(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **_summary(row),
        "attrs": loads(row["attrs_json"], {}),
        "photos": loads(row["photos_json"], []),
        "description": row["description"],
        "owner_user_id": row["owner_user_id"],
    }
