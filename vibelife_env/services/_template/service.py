"""template: a to-do list with two tools, the smallest complete service to copy.

Copy this folder to ``vibelife_env/services/<name>/``, rename the class and ``name``,
replace the tables and tools, register one line in :mod:`vibelife_env.services.registry`
and write ``tests/services/test_<name>.py`` (see README.md). The template itself is not
registered, so no environment exposes it.

What every service does, shown here:

* one :class:`~vibelife_env.services.base.Service` subclass; its tables come from
  ``schema.sql`` beside the module (``SCHEMA = schema_from(__file__)``);
* tools are methods marked with :func:`~vibelife_env.services.base.tool`; the JSON schema
  comes from the type hints and the Google-style docstring (every argument described);
  ``read_only=True`` for tools that never write;
* refusals raise :class:`~vibelife_env.services.base.ToolError` with a code of
  :data:`vibelife_env.errors.ERROR_CODES` (argument problems are ``BAD_ARG``, naming the
  argument and what was expected); a failed call changes nothing, the framework rolls
  it back;
* ids come from counters in SQLite (or the world's generator ``self.ctx.rng``), times
  from the world clock (``self.now_utc()``); never the wall clock, ``uuid4`` or ``hash()``;
* no state outside SQLite: anything that must persist between calls is a row.
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool

#: Most items one list_items call returns.
MAX_LIMIT = 100


class TemplateService(Service):
    """A to-do list: add items, list them."""

    name = "template"
    SCHEMA = schema_from(__file__)

    @tool
    def add_item(self, title: str) -> dict[str, Any]:
        """Add an item to the to-do list.

        Args:
            title: What to do, e.g. "Buy milk" (1 to 200 characters).
        """
        text = title.strip()
        if not 1 <= len(text) <= 200:
            raise ToolError("BAD_ARG", f"argument 'title': expected 1 to 200 characters, got {len(text)}")
        item_id = self.mint_id("item_{:06d}", "item_seq", "items", "item_id")
        created = self.now_utc()
        self.execute("INSERT INTO items (item_id, title, created_at) VALUES (?, ?, ?)", (item_id, text, created))
        return {"item_id": item_id, "title": text, "done": False, "created_at": created}

    @tool(read_only=True)
    def list_items(self, done: bool | None = None, limit: int = 20) -> dict[str, Any]:
        """List to-do items, oldest first.

        Args:
            done: Only done (true) or open (false) items; all when omitted.
            limit: Maximum items returned, 1 to 100.
        """
        if not 1 <= limit <= MAX_LIMIT:
            raise ToolError("BAD_ARG", f"argument 'limit': expected 1 to {MAX_LIMIT}, got {limit}")
        sql, params = "SELECT * FROM items", []
        if done is not None:
            sql += " WHERE done = ?"
            params.append(int(done))
        rows = self.query(sql + " ORDER BY created_at, item_id LIMIT ?", [*params, limit])
        return {"items": [{**r, "done": bool(r["done"])} for r in rows], "count": len(rows)}
