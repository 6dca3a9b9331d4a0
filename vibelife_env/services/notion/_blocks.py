"""Block specs, rich-text runs and database column schemas as agents write them (notion service)."""

from __future__ import annotations

from typing import Any

from vibelife_env.errors import ToolError
from vibelife_env.services.notion import _rows as R

BLOCK_TYPES = frozenset(
    [
        "paragraph",
        "heading_1",
        "heading_2",
        "heading_3",
        "bulleted_list_item",
        "numbered_list_item",
        "to_do",
        "toggle",
        "quote",
        "callout",
        "divider",
        "code",
        "child_page",
        "child_database",
        "table",
        "table_row",
        "column_list",
        "column",
        "synced_block",
        "image",
        "video",
        "file",
        "pdf",
        "bookmark",
        "embed",
        "equation",
        "table_of_contents",
        "link_to_page",
        "link_preview",
        "template",
        "breadcrumb",
        "unsupported",
    ]
)


def block_spec(spec: Any) -> tuple[str, dict[str, Any], list[Any]]:
    """(type, content, nested children) of an agent block spec."""
    if not isinstance(spec, dict):
        raise ToolError("BAD_ARG", f"each block must be an object, got {spec!r}")
    btype = spec.get("type")
    if btype is None:
        keys = [k for k in spec if k in BLOCK_TYPES]
        if len(keys) != 1:
            raise ToolError("BAD_ARG", f"block.type is required: {spec!r}")
        btype = keys[0]
    if not isinstance(btype, str) or btype not in BLOCK_TYPES:
        raise ToolError("BAD_ARG", f"block.type must be a block type name such as 'paragraph', got {btype!r}")
    raw = spec.get(btype)
    if raw is None:
        raw = {k: v for k, v in spec.items() if k not in ("type", "object", "children")}
    content = content_of(raw)
    nested = spec.get("children") or content.pop("children", None) or []
    if not isinstance(nested, list):
        raise ToolError("BAD_ARG", f"children of a {btype} block must be a list")
    return btype, content, nested


def content_of(raw: Any) -> dict[str, Any]:
    """Block content: a plain string or ``{"text": str}`` becomes rich_text; runs gain plain_text."""
    if isinstance(raw, str):
        return {"rich_text": R.rich_text(raw)}
    if not isinstance(raw, dict):
        raise ToolError("BAD_ARG", f"block content must be an object, got {raw!r}")
    content = dict(raw)
    if "rich_text" not in content and isinstance(content.get("text"), str):
        content["rich_text"] = R.rich_text(content.pop("text"))
    if "rich_text" in content:
        if not isinstance(content["rich_text"], list):
            raise ToolError("BAD_ARG", "rich_text must be an array of rich-text objects")
        content["rich_text"] = runs_of(content["rich_text"])
    return content


def runs_of(runs: list[Any]) -> list[Any]:
    """Rich-text runs with ``type`` and ``plain_text`` filled in, as the Notion API returns them."""
    out = []
    for run in runs:
        if isinstance(run, dict) and isinstance(run.get("text"), dict):
            run = {"type": "text", **run}
            run.setdefault("plain_text", str(run["text"].get("content") or ""))
        elif isinstance(run, str):
            run = R.rich_text(run)[0] if run else None
        if run is not None:
            out.append(run)
    return out


def schema_of(properties: dict[str, Any]) -> dict[str, Any]:
    """Column schema with ``id``, ``name`` and ``type`` filled in (``{"title": {}}`` -> type title)."""
    schema = {}
    for name, value in properties.items():
        if not isinstance(value, dict):
            raise ToolError("BAD_ARG", f"column {name!r} must be an object like {{'rich_text': {{}}}}")
        col = dict(value)
        if "type" not in col:
            keys = [k for k in col if k not in ("id", "name", "description")]
            if len(keys) != 1:
                raise ToolError("BAD_ARG", f"column {name!r} needs a type, e.g. {{'number': {{}}}}")
            col["type"] = keys[0]
        col.setdefault("id", name)
        col.setdefault("name", name)
        schema[name] = col
    return schema
