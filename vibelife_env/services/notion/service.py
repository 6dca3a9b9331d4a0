"""notion: a Notion-style workspace of pages, databases (whose rows are pages), blocks,
comments and users, under the Notion API's ``API-*`` operation names.

Tool surface: the public ``notion_mock`` spec (19 tools). Ids are dashed-UUID-shaped,
derived from the ``counters`` table (kinds ``page``, ``block``, ``database``, ``comment``,
``discussion``), and any id argument is accepted with or without dashes. Writes are stamped
with the virtual clock (``YYYY-MM-DDTHH:MM:SS.000Z``). Lists use Notion's envelope with
working ``start_cursor``/``next_cursor`` pagination. Stored JSON (properties, block content)
is returned verbatim; agent-written rich text gains ``plain_text`` like the real API.

Deliberate choices: ``API-post-search`` matches page titles, page property text and database
titles (not block text, not database rows), newest edit first. The reference ships
``API-create-a-database``, ``API-retrieve-a-database``, ``API-update-a-database``,
``API-create-a-comment``, ``API-retrieve-a-comment``, ``API-get-user`` and ``API-get-users``
as ``NOT_IMPL`` stubs; here they work on the same tables.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``BAD_PARENT``,
``BAD_PROPERTY``, ``BAD_BLOCK_TYPE``).

Where the release is lenient: ``API-patch-page`` and ``API-update-a-block`` with nothing to
change return ``BAD_ARG`` naming the arguments that would change something; the release
"succeeds", only bumping ``last_edited_time``, which an agent would read as a saved edit.
"""

from __future__ import annotations

import hashlib
from datetime import UTC
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import dumps, loads
from vibelife_env.services.notion import _rows as R
from vibelife_env.services.notion._blocks import BLOCK_TYPES, block_spec, content_of, runs_of, schema_of
from vibelife_env.services.notion._query import matches, paginate, property_value, sort_pages

MAX_PAGE = 100
RichText = str | list[dict[str, Any]]


class NotionService(Service):
    """Pages, databases and their rows, blocks, comments and users of one Notion workspace."""

    name = "notion"
    SCHEMA = schema_from(__file__)

    # -------------------------------------------------------------------- pages
    @tool(name="API-post-page")
    def post_page(
        self,
        parent: dict[str, Any],
        properties: dict[str, Any] | None = None,
        icon: dict[str, Any] | None = None,
        cover: dict[str, Any] | None = None,
        children: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Create a page, or a database row when the parent is a database; returns the new page object.

        Args:
            parent: ``{"type":"page_id","page_id":"..."}``, ``{"type":"database_id","database_id":"..."}`` or ``{"type":"workspace","workspace":true}``.
            properties: Notion property map, e.g. ``{"title": {"title": [{"type":"text","text":{"content":"Trip plan"}}]}}``; for a database row, the row's column values.
            icon: Icon object, e.g. ``{"type":"emoji","emoji":"📌"}``.
            cover: Cover object, e.g. ``{"type":"external","external":{"url":"..."}}``.
            children: Block specs appended to the new page in order (see API-patch-block-children).
        """
        properties = properties or {}
        kind, target = self._parent(parent)
        now = self._stamp()
        page_id = self._new_id("page")
        if kind == "database_id":
            self.execute(
                "INSERT INTO database_rows (row_id, database_id, properties_json, created_time, last_edited_time, "
                "archived) VALUES (?, ?, ?, ?, ?, 0)",
                (page_id, target, dumps(properties), now, now),
            )
        else:
            self.execute(
                "INSERT INTO pages (page_id, parent_type, parent_id, title, archived, created_time, "
                "last_edited_time, properties_json, icon, cover) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)",
                (
                    page_id,
                    kind,
                    target,
                    R.extract_title(properties),
                    now,
                    now,
                    dumps(properties),
                    None if icon is None else dumps(icon),
                    None if cover is None else dumps(cover),
                ),
            )
        if children:
            self._append(page_id, True, children, None, now)
        return self._page(page_id)

    @tool(name="API-retrieve-a-page", read_only=True)
    def retrieve_page(self, page_id: str) -> dict[str, Any]:
        """Return a page object (parent, properties, timestamps, archived flag, url); database rows too.

        Args:
            page_id: The page or database-row id (dashes optional).
        """
        return self._page(page_id)

    @tool(name="API-patch-page")
    def patch_page(
        self,
        page_id: str,
        properties: dict[str, Any] | None = None,
        icon: dict[str, Any] | None = None,
        cover: dict[str, Any] | None = None,
        archived: bool | None = None,
        in_trash: bool | None = None,
    ) -> dict[str, Any]:
        """Update a page's properties, icon or cover, or archive/restore it; returns the updated page.

        Properties merge into the existing ones; a property set to null is removed. An archived
        page must be restored (``archived=false``) before its content can change.

        Args:
            page_id: The page or database-row id.
            properties: Property values to set, keyed by property name.
            icon: New icon object.
            cover: New cover object.
            archived: true archives (soft-deletes) the page, false restores it.
            in_trash: Same as ``archived``.
        """
        pid = R.normalize_id(page_id)
        row, table = self._page_row(pid)
        if all(v is None for v in (properties, icon, cover, archived, in_trash)):
            raise ToolError(
                "BAD_ARG", "nothing to update: give at least one of properties, icon, cover, archived, in_trash"
            )
        flag = bool(row["archived"])
        for value in (archived, in_trash):
            if value is not None:
                flag = value
        edits_content = properties is not None or icon is not None or cover is not None
        if edits_content and flag:
            raise ToolError("BAD_ARG", f"page {page_id!r} is archived; restore it with archived=false to edit it")
        merged = loads(row["properties_json"], {})
        if not isinstance(merged, dict):
            merged = {}
        for key, value in (properties or {}).items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        now = self._stamp()
        if table == "database_rows":
            self.execute(
                "UPDATE database_rows SET properties_json = ?, archived = ?, last_edited_time = ? WHERE row_id = ?",
                (dumps(merged), int(flag), now, pid),
            )
        else:
            self.execute(
                "UPDATE pages SET properties_json = ?, title = ?, archived = ?, icon = ?, cover = ?, "
                "last_edited_time = ? WHERE page_id = ?",
                (
                    dumps(merged),
                    R.extract_title(merged) or row["title"],
                    int(flag),
                    row["icon"] if icon is None else dumps(icon),
                    row["cover"] if cover is None else dumps(cover),
                    now,
                    pid,
                ),
            )
        return self._page(pid)

    @tool(name="API-retrieve-a-page-property", read_only=True)
    def retrieve_page_property(self, page_id: str, property_id: str) -> Any:
        """Return one property value of a page or database row.

        Args:
            page_id: The page or database-row id.
            property_id: The property name (e.g. ``title``, ``Status``; case-insensitive) or its ``id``.
        """
        if not property_id:
            raise ToolError("BAD_ARG", "property_id is required")
        props = self._page(page_id)["properties"]
        value = property_value(props, property_id)
        if value is None and property_id not in props:
            value = next((v for v in props.values() if isinstance(v, dict) and v.get("id") == property_id), None)
            if value is None:
                raise ToolError(
                    "BAD_ARG",
                    f"page {page_id!r} has no property {property_id!r}; it has {', '.join(props) or 'none'}",
                )
        return value

    # ------------------------------------------------------------------- blocks
    @tool(name="API-get-block-children", read_only=True)
    def get_block_children(
        self, block_id: str, page_size: int = 10000, start_cursor: str | None = None
    ) -> dict[str, Any]:
        """List the direct children of a page or block, top to bottom (archived blocks hidden).

        Args:
            block_id: A page id (its top-level blocks) or a block id (its nested blocks).
            page_size: Maximum blocks returned (default 10000, i.e. everything).
            start_cursor: ``next_cursor`` of a previous call, to continue from there.
        """
        if page_size < 1:
            raise ToolError("BAD_ARG", f"page_size must be >= 1, got {page_size}")
        bid = R.normalize_id(block_id)
        self._container(bid)
        rows = self.query(
            "SELECT * FROM blocks WHERE (parent_page_id = ? OR parent_block_id = ?) AND archived = 0 "
            "ORDER BY position, block_id",
            (bid, bid),
        )
        chunk, cursor = paginate([R.block_object(r) for r in rows], start_cursor, page_size)
        return R.list_envelope(chunk, "block", cursor)

    @tool(name="API-patch-block-children")
    def patch_block_children(
        self, block_id: str, children: list[dict[str, Any]], after: str | None = None
    ) -> dict[str, Any]:
        """Append blocks to a page or block; returns the list of the new top-level blocks.

        Each child is a block spec such as
        ``{"type":"paragraph","paragraph":{"rich_text":[{"type":"text","text":{"content":"Hi"}}]}}``;
        a spec's ``children`` (top level or inside its content) are created nested under it.

        Args:
            block_id: The page or block receiving the children.
            children: Non-empty list of block specs, in order.
            after: Insert right after this existing child block instead of at the end.
        """
        if not children:
            raise ToolError("BAD_ARG", "children must be a non-empty array of block specs")
        bid = R.normalize_id(block_id)
        is_page = self._container(bid, writable=True)
        return R.list_envelope(self._append(bid, is_page, children, after, self._stamp()), "block", None)

    @tool(name="API-retrieve-a-block", read_only=True)
    def retrieve_block(self, block_id: str) -> dict[str, Any]:
        """Return one block (archived ones included, flagged ``archived``).

        Args:
            block_id: The block id.
        """
        return R.block_object(self._block_row(block_id))

    @tool(name="API-update-a-block")
    def update_block(
        self,
        block_id: str,
        paragraph: dict[str, Any] | None = None,
        heading_1: dict[str, Any] | None = None,
        heading_2: dict[str, Any] | None = None,
        heading_3: dict[str, Any] | None = None,
        bulleted_list_item: dict[str, Any] | None = None,
        numbered_list_item: dict[str, Any] | None = None,
        to_do: dict[str, Any] | None = None,
        toggle: dict[str, Any] | None = None,
        quote: dict[str, Any] | None = None,
        callout: dict[str, Any] | None = None,
        code: dict[str, Any] | None = None,
        archived: bool | None = None,
        type: str | None = None,
    ) -> dict[str, Any]:
        """Update a block's content, type or archived flag; returns the updated block.

        Pass the new content under the block's own type key, e.g.
        ``paragraph={"rich_text":[{"type":"text","text":{"content":"new"}}]}``; given keys replace
        the old ones. To change the type, pass ``type`` and the content under the new type key.

        Args:
            block_id: The block to update.
            paragraph: Content for a paragraph block.
            heading_1: Content for a heading_1 block.
            heading_2: Content for a heading_2 block.
            heading_3: Content for a heading_3 block.
            bulleted_list_item: Content for a bulleted_list_item block.
            numbered_list_item: Content for a numbered_list_item block.
            to_do: Content for a to_do block (``rich_text``, ``checked``).
            toggle: Content for a toggle block.
            quote: Content for a quote block.
            callout: Content for a callout block.
            code: Content for a code block (``rich_text``, ``language``).
            archived: true archives the block, false restores it.
            type: New block type.
        """
        row = self._block_row(block_id)
        payloads = {
            key: value
            for key, value in (
                ("paragraph", paragraph),
                ("heading_1", heading_1),
                ("heading_2", heading_2),
                ("heading_3", heading_3),
                ("bulleted_list_item", bulleted_list_item),
                ("numbered_list_item", numbered_list_item),
                ("to_do", to_do),
                ("toggle", toggle),
                ("quote", quote),
                ("callout", callout),
                ("code", code),
            )
            if value is not None
        }
        if not payloads and archived is None and type is None:
            raise ToolError(
                "BAD_ARG",
                f"nothing to update: give the content under the block's type key ({row['type']}=...), "
                "a new type, or archived",
            )
        new_type = row["type"]
        if type is not None:
            if type not in BLOCK_TYPES:
                raise ToolError("BAD_ARG", f"unknown block type {type!r}")
            new_type = type
        flag = bool(row["archived"]) if archived is None else archived
        if flag and (payloads or type is not None):
            raise ToolError("BAD_ARG", f"block {block_id!r} is archived; restore it with archived=false to edit it")
        content = loads(row["content_json"], {})
        for key, value in payloads.items():
            if key not in (new_type, row["type"]):
                raise ToolError(
                    "BAD_ARG",
                    f"block {block_id!r} is a {new_type}; pass its content as {new_type}=..., not {key}=...",
                )
            base = content if isinstance(content, dict) else {}
            update = content_of(value)
            if "rich_text" in update:  # new text supersedes a seeded plain ``text`` field
                base = {k: v for k, v in base.items() if k != "text"}
            content = {**base, **update}
        self.execute(
            "UPDATE blocks SET type = ?, content_json = ?, archived = ?, last_edited_time = ? WHERE block_id = ?",
            (new_type, dumps(content), int(flag), self._stamp(), row["block_id"]),
        )
        return self.retrieve_block(row["block_id"])

    @tool(name="API-delete-a-block")
    def delete_block(self, block_id: str) -> dict[str, Any]:
        """Archive (soft-delete) a block: it stays retrievable but leaves child listings. Returns the block.

        Args:
            block_id: The block to delete.
        """
        row = self._block_row(block_id)
        self.execute(
            "UPDATE blocks SET archived = 1, last_edited_time = ? WHERE block_id = ?",
            (self._stamp(), row["block_id"]),
        )
        return self.retrieve_block(row["block_id"])

    # ---------------------------------------------------------------- databases
    @tool(name="API-post-database-query", read_only=True)
    def query_database(
        self,
        database_id: str,
        filter: dict[str, Any] | None = None,
        sorts: list[dict[str, Any]] | None = None,
        page_size: int = 100,
        start_cursor: str | None = None,
    ) -> dict[str, Any]:
        """Query a database's rows (as page objects), oldest first unless sorted.

        Filters: ``{"property":"Status","select":{"equals":"Done"}}``; text types (title, rich_text,
        select, status, url, email, phone_number) support equals, does_not_equal, contains,
        does_not_contain, starts_with, ends_with, is_empty, is_not_empty; ``number`` supports
        equals/greater_than/less_than/..._or_equal_to; ``checkbox`` equals; ``date`` equals/before/
        after/on_or_before/on_or_after; ``multi_select`` contains; combine with ``and``/``or``.

        Args:
            database_id: The database id.
            filter: A Notion filter object (see above).
            sorts: List of ``{"property": name, "direction": "ascending"|"descending"}`` or ``{"timestamp": "created_time"|"last_edited_time", "direction": ...}``.
            page_size: Rows per page (1 to 100, default 100).
            start_cursor: ``next_cursor`` of a previous call, to continue from there.
        """
        if page_size < 1:
            raise ToolError("BAD_ARG", f"page_size must be >= 1, got {page_size}")
        did = self._database_row(database_id)["database_id"]
        rows = self.query("SELECT * FROM database_rows WHERE database_id = ? AND archived = 0", (did,))
        rows.sort(key=lambda r: (R.instant_key(r["created_time"]), r["row_id"]))
        pages = [R.row_page_object(r) for r in rows]
        if filter:
            pages = [p for p in pages if matches(p, filter)]
        if sorts:
            pages = sort_pages(pages, sorts)
        chunk, cursor = paginate(pages, start_cursor, min(page_size, MAX_PAGE))
        return R.list_envelope(chunk, "page_or_database", cursor)

    @tool(name="API-create-a-database")
    def create_database(
        self,
        parent: dict[str, Any] | None = None,
        title: RichText | None = None,
        properties: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Create a database under a page (or the workspace); returns the database object.

        Args:
            parent: ``{"type":"page_id","page_id":"..."}`` or ``{"type":"workspace","workspace":true}``.
            title: The database title, plain text or a rich-text array.
            properties: Column schema, e.g. ``{"Name": {"title": {}}, "Amount": {"number": {}}}``; needs one title column (default ``Name``).
        """
        if parent is None:
            raise ToolError("BAD_ARG", "parent is required")
        kind, target = self._parent(parent, allow_database=False)
        schema = schema_of(properties if properties is not None else {"Name": {"title": {}}})
        if not any(v.get("type") == "title" for v in schema.values()):
            raise ToolError("BAD_ARG", "properties needs exactly one title column, e.g. {'Name': {'title': {}}}")
        text = R.plain_text(R.as_rich_text(title or "")).strip()
        now = self._stamp()
        database_id = self._new_id("database")
        self.execute(
            "INSERT INTO databases (database_id, parent_type, parent_id, title, schema_json, archived, "
            "created_time, last_edited_time) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
            (database_id, kind, target, text, dumps(schema), now, now),
        )
        if kind == "page_id":
            self._append(target, True, [{"type": "child_database", "child_database": {"title": text}}], None, now)
        return self.retrieve_database(database_id)

    @tool(name="API-retrieve-a-database", read_only=True)
    def retrieve_database(self, database_id: str | None = None) -> dict[str, Any]:
        """Return a database object: title, column schema (``properties``), parent, timestamps.

        Args:
            database_id: The database id.
        """
        if not database_id:
            raise ToolError("BAD_ARG", "database_id is required")
        return R.database_object(self._database_row(database_id))

    @tool(name="API-update-a-database")
    def update_database(
        self,
        database_id: str | None = None,
        title: RichText | None = None,
        properties: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Rename a database or change its columns; returns the updated database.

        Args:
            database_id: The database id.
            title: New title, plain text or a rich-text array.
            properties: Columns to add or replace, keyed by name; a column set to null is removed.
        """
        if not database_id:
            raise ToolError("BAD_ARG", "database_id is required")
        row = self._database_row(database_id)
        if title is None and properties is None:
            raise ToolError("BAD_ARG", "give title or properties")
        schema = loads(row["schema_json"], {})
        if not isinstance(schema, dict):
            schema = {}
        if properties:
            removals = {k for k, v in properties.items() if v is None}
            schema = {k: v for k, v in schema.items() if k not in removals}
            schema.update(schema_of({k: v for k, v in properties.items() if v is not None}))
        text = row["title"] if title is None else R.plain_text(R.as_rich_text(title)).strip()
        self.execute(
            "UPDATE databases SET title = ?, schema_json = ?, last_edited_time = ? WHERE database_id = ?",
            (text, dumps(schema), self._stamp(), row["database_id"]),
        )
        return self.retrieve_database(row["database_id"])

    # ------------------------------------------------------------------- search
    @tool(name="API-post-search", read_only=True)
    def search(
        self,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        sort: dict[str, Any] | None = None,
        page_size: int = 100,
        start_cursor: str | None = None,
    ) -> dict[str, Any]:
        """Search pages and databases whose title (or, for pages, property text) contains ``query``.

        Case-insensitive; archived objects are excluded; newest edit first by default. Database
        rows are not searched: read them with API-post-database-query.

        Args:
            query: Text to look for; empty or omitted returns everything.
            filter: ``{"value":"page"}`` or ``{"value":"database"}`` to return one kind only.
            sort: ``{"direction":"ascending"|"descending","timestamp":"last_edited_time"|"created_time"}``.
            page_size: Results per page (1 to 100, default 100).
            start_cursor: ``next_cursor`` of a previous call, to continue from there.
        """
        kinds = {"page", "database"}
        if filter:
            value = filter.get("value")
            if not isinstance(value, str) or value not in kinds:
                raise ToolError("BAD_ARG", f"filter.value must be 'page' or 'database', got {value!r}")
            kinds = {value}
        stamp, desc = "last_edited_time", True
        if sort:
            stamp = sort.get("timestamp", "last_edited_time")
            direction = sort.get("direction", "descending")
            if not isinstance(stamp, str) or not isinstance(direction, str):
                raise ToolError("BAD_ARG", f"sort timestamp and direction must be strings: {sort!r}")
            if stamp not in ("last_edited_time", "created_time") or direction not in ("ascending", "descending"):
                raise ToolError(
                    "BAD_ARG", f"sort needs timestamp last_edited_time/created_time and a direction: {sort!r}"
                )
            desc = direction == "descending"
        needle = (query or "").strip().lower()
        found: list[dict[str, Any]] = []
        if "page" in kinds:
            for r in self.query("SELECT * FROM pages WHERE archived = 0 ORDER BY page_id"):
                if not needle or needle in r["title"].lower() or needle in r["properties_json"].lower():
                    found.append(R.page_object(r))
        if "database" in kinds:
            for r in self.query("SELECT * FROM databases WHERE archived = 0 ORDER BY database_id"):
                if not needle or needle in r["title"].lower():
                    found.append(R.database_object(r))
        found.sort(key=lambda o: o["id"])
        found.sort(key=lambda o: R.instant_key(o[stamp]), reverse=desc)
        chunk, cursor = paginate(found, start_cursor, max(1, min(page_size, MAX_PAGE)))
        return R.list_envelope(chunk, "page_or_database", cursor)

    # -------------------------------------------------------------------- users
    @tool(name="API-get-self", read_only=True)
    def get_self(self) -> dict[str, Any]:
        """Return the bot user this integration acts as (Notion's ``GET /v1/users/me``)."""
        row = self.query_one("SELECT * FROM users WHERE type = 'bot' ORDER BY user_id LIMIT 1") or self.query_one(
            "SELECT * FROM users ORDER BY user_id LIMIT 1"
        )
        if row is None:
            raise ToolError("USER_NOT_FOUND", "no user exists in this workspace")
        return {**R.user_object(row), "bot": {"owner": {"type": "user"}}}

    @tool(name="API-get-user", read_only=True)
    def get_user(self, user_id: str | None = None) -> dict[str, Any]:
        """Return one workspace member or bot.

        Args:
            user_id: The user id.
        """
        if not user_id:
            raise ToolError("BAD_ARG", "user_id is required")
        return R.user_object(self._user_row(user_id))

    @tool(name="API-get-users", read_only=True)
    def get_users(self) -> dict[str, Any]:
        """List every user (people and bots) of the workspace, by id."""
        rows = self.query("SELECT * FROM users ORDER BY user_id")
        return R.list_envelope([R.user_object(r) for r in rows], "user", None)

    # ----------------------------------------------------------------- comments
    @tool(name="API-create-a-comment")
    def create_comment(
        self,
        parent: dict[str, Any] | None = None,
        discussion_id: str | None = None,
        rich_text: RichText | None = None,
    ) -> dict[str, Any]:
        """Comment on a page (new discussion) or reply in an existing discussion; returns the comment.

        Args:
            parent: ``{"page_id": "..."}`` to start a new discussion on that page.
            discussion_id: Reply in this existing discussion instead of giving ``parent``.
            rich_text: The comment, plain text or a rich-text array.
        """
        runs = runs_of(R.as_rich_text(rich_text or ""))
        if not R.plain_text(runs).strip():
            raise ToolError("BAD_ARG", "rich_text must contain some text")
        if discussion_id:
            thread = self.require(
                "SELECT parent_page_id FROM comments WHERE discussion_id = ? LIMIT 1",
                (discussion_id,),
                "BAD_ARG",
                f"no discussion {discussion_id!r}",
            )
            page_id, discussion = thread["parent_page_id"], discussion_id
        elif parent is not None:
            raw = parent.get("page_id")
            if not raw:
                raise ToolError("BAD_ARG", f"parent must be {{'page_id': ...}}, got {parent!r}")
            page_id = R.normalize_id(str(raw))
            self._page_row(page_id, code="BAD_ARG")
            discussion = self._new_id("discussion")
        else:
            raise ToolError("BAD_ARG", "give parent (a page) or discussion_id")
        me = self.query_one("SELECT user_id FROM users ORDER BY type = 'bot' DESC, user_id LIMIT 1")
        comment_id = self._new_id("comment")
        self.execute(
            "INSERT INTO comments (comment_id, parent_page_id, discussion_id, content_json, created_by, created_time) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (comment_id, page_id, discussion, dumps({"rich_text": runs}), me and me["user_id"], self._stamp()),
        )
        return R.comment_object(self.query_one("SELECT * FROM comments WHERE comment_id = ?", (comment_id,)) or {})

    @tool(name="API-retrieve-a-comment", read_only=True)
    def retrieve_comments(self, block_id: str | None = None) -> dict[str, Any]:
        """List the comments on a page, oldest first.

        Args:
            block_id: The page (or database-row) id whose comments to list.
        """
        if not block_id:
            raise ToolError("BAD_ARG", "block_id is required")
        bid = R.normalize_id(block_id)
        self._container(bid, code="BLOCK_NOT_FOUND")
        rows = self.query("SELECT * FROM comments WHERE parent_page_id = ?", (bid,))
        rows.sort(key=lambda r: (R.instant_key(r["created_time"]), r["comment_id"]))
        return R.list_envelope([R.comment_object(r) for r in rows], "comment", None)

    # ------------------------------------------------------------------ helpers
    def _stamp(self) -> str:
        return self.now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def _new_id(self, kind: str) -> str:
        """A dashed-UUID-shaped id from the ``counters`` sequence of ``kind``, unused anywhere."""
        while True:
            digest = hashlib.sha256(f"{kind}:{self.next_seq(kind, 'counters')}".encode()).hexdigest()
            new = f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-8{digest[17:20]}-{digest[20:32]}"
            if not self._exists(new):
                return new

    def _exists(self, object_id: str) -> bool:
        return any(
            self.query_one(f"SELECT 1 FROM {table} WHERE {col} = ?", (object_id,))
            for table, col in (
                ("pages", "page_id"),
                ("database_rows", "row_id"),
                ("blocks", "block_id"),
                ("databases", "database_id"),
                ("comments", "comment_id"),
            )
        )

    def _page_row(self, pid: str, code: str = "PAGE_NOT_FOUND") -> tuple[dict[str, Any], str]:
        row = self.query_one("SELECT * FROM pages WHERE page_id = ?", (pid,))
        if row is not None:
            return row, "pages"
        row = self.query_one("SELECT * FROM database_rows WHERE row_id = ?", (pid,))
        if row is not None:
            return row, "database_rows"
        raise ToolError(code, f"page not found: {pid!r}")

    def _page(self, page_id: str) -> dict[str, Any]:
        row, table = self._page_row(R.normalize_id(page_id))
        return R.page_object(row) if table == "pages" else R.row_page_object(row)

    def _block_row(self, block_id: str) -> dict[str, Any]:
        bid = R.normalize_id(block_id)
        return self.require(
            "SELECT * FROM blocks WHERE block_id = ?", (bid,), "BLOCK_NOT_FOUND", f"block not found: {block_id!r}"
        )

    def _database_row(self, database_id: str) -> dict[str, Any]:
        did = R.normalize_id(database_id)
        return self.require(
            "SELECT * FROM databases WHERE database_id = ?",
            (did,),
            "DATABASE_NOT_FOUND",
            f"database not found: {database_id!r}",
        )

    def _user_row(self, user_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM users WHERE user_id = ?", (user_id,), "USER_NOT_FOUND", f"user not found: {user_id!r}"
        )

    def _container(self, bid: str, writable: bool = False, code: str = "PAGE_NOT_FOUND") -> bool:
        """Resolve a page, database row or block that can hold blocks; True when it is a page."""
        for sql, is_page in (
            ("SELECT archived FROM pages WHERE page_id = ?", True),
            ("SELECT archived FROM database_rows WHERE row_id = ?", True),
            ("SELECT archived FROM blocks WHERE block_id = ?", False),
        ):
            row = self.query_one(sql, (bid,))
            if row is not None:
                if writable and row["archived"]:
                    raise ToolError("BAD_ARG", f"{bid!r} is archived; restore it before adding blocks")
                return is_page
        raise ToolError(code, f"no page or block {bid!r}")

    def _parent(self, parent: dict[str, Any], allow_database: bool = True) -> tuple[str, str]:
        """Validate a ``parent`` object; returns (parent_type, parent_id)."""
        kinds = ("page_id", "database_id", "workspace") if allow_database else ("page_id", "workspace")
        kind = parent.get("type") or next((k for k in kinds if k in parent), None)
        if not isinstance(kind, str) or kind not in kinds:
            raise ToolError("BAD_ARG", f"parent type must be one of {', '.join(kinds)}, got {parent!r}")
        if kind == "workspace":
            ws = self.query_one("SELECT workspace_id FROM workspaces ORDER BY rowid LIMIT 1")
            return kind, ws["workspace_id"] if ws else "workspace"
        raw = parent.get(kind)
        if not raw or not isinstance(raw, str):
            raise ToolError("BAD_ARG", f"parent.{kind} is required")
        target = R.normalize_id(raw)
        if kind == "database_id":
            row = self.query_one("SELECT archived FROM databases WHERE database_id = ?", (target,))
        else:
            row = self.query_one("SELECT archived FROM pages WHERE page_id = ?", (target,)) or self.query_one(
                "SELECT archived FROM database_rows WHERE row_id = ?", (target,)
            )
        if row is None:
            raise ToolError("BAD_ARG", f"parent {kind.removesuffix('_id')} not found: {raw!r}")
        if row["archived"]:
            raise ToolError("BAD_ARG", f"parent {kind.removesuffix('_id')} {raw!r} is archived")
        return kind, target

    def _append(
        self, parent_id: str, is_page: bool, specs: list[dict[str, Any]], after: str | None, now: str
    ) -> list[dict[str, Any]]:
        """Insert block specs (recursively) under a parent; returns the new top-level blocks."""
        col = "parent_page_id" if is_page else "parent_block_id"
        if after:
            anchor = self.query_one(
                f"SELECT position FROM blocks WHERE block_id = ? AND {col} = ? AND archived = 0",
                (R.normalize_id(after), parent_id),
            )
            if anchor is None:
                raise ToolError("BAD_ARG", f"after {after!r} is not a child block of {parent_id!r}")
            position = int(anchor["position"]) + 1
            self.execute(
                f"UPDATE blocks SET position = position + ? WHERE {col} = ? AND position >= ?",
                (len(specs), parent_id, position),
            )
        else:
            top = self.query_one(f"SELECT COALESCE(MAX(position), -1) AS p FROM blocks WHERE {col} = ?", (parent_id,))
            position = int(top["p"] if top else -1) + 1
        inserted = []
        for offset, spec in enumerate(specs):
            inserted.append(self._insert_block(spec, parent_id, is_page, position + offset, now))
        if is_page:
            self.execute("UPDATE pages SET last_edited_time = ? WHERE page_id = ?", (now, parent_id))
            self.execute("UPDATE database_rows SET last_edited_time = ? WHERE row_id = ?", (now, parent_id))
        else:
            self.execute(
                "UPDATE blocks SET has_children = 1, last_edited_time = ? WHERE block_id = ?", (now, parent_id)
            )
        return inserted

    def _insert_block(self, spec: Any, parent_id: str, is_page: bool, position: int, now: str) -> dict[str, Any]:
        btype, content, nested = block_spec(spec)
        block_id = self._new_id("block")
        self.execute(
            "INSERT INTO blocks (block_id, parent_block_id, parent_page_id, type, content_json, has_children, "
            "archived, position, created_time, last_edited_time) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
            (
                block_id,
                None if is_page else parent_id,
                parent_id if is_page else None,
                btype,
                dumps(content),
                int(bool(nested)),
                position,
                now,
                now,
            ),
        )
        for pos, child in enumerate(nested):
            self._insert_block(child, block_id, False, pos, now)
        return R.block_object(self._block_row(block_id))
