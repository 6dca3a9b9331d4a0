"""Database-query filters and sorts, and cursor pagination, for the notion service.

Filters follow Notion's JSON shape: ``{"and": [...]}`` / ``{"or": [...]}`` combinators
(nestable), property conditions ``{"property": "Status", "<type>": {"<op>": value}}`` and
timestamp conditions ``{"timestamp": "created_time", "created_time": {"after": ...}}``.
Property values may be Notion-shaped (``{"select": {"name": ...}}``) or the bare scalars
some seeds store. Unsupported types or operators raise ``BAD_ARG`` rather than being
silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vibelife_env.errors import ToolError
from vibelife_env.services.notion._rows import instant_key, value_text

TEXT_TYPES = ("rich_text", "title", "text", "url", "email", "phone_number", "select", "status")
TEXT_OPS = ("equals", "does_not_equal", "contains", "does_not_contain", "starts_with", "ends_with")
NUMBER_OPS = (
    "equals",
    "does_not_equal",
    "greater_than",
    "less_than",
    "greater_than_or_equal_to",
    "less_than_or_equal_to",
)
DATE_OPS = ("equals", "before", "after", "on_or_before", "on_or_after")
TIMESTAMPS = ("created_time", "last_edited_time")


def matches(page: dict[str, Any], filt: dict[str, Any]) -> bool:
    """Whether a page object (with ``properties``) satisfies a Notion filter."""
    if "and" in filt or "or" in filt:
        key = "and" if "and" in filt else "or"
        subs = filt[key]
        if not isinstance(subs, list) or not all(isinstance(s, dict) for s in subs):
            raise ToolError("BAD_ARG", f"filter.{key} must be a list of filter objects")
        results = (matches(page, sub) for sub in subs)
        return all(results) if key == "and" else any(results)
    if "timestamp" in filt:
        ts = filt["timestamp"]
        if ts not in TIMESTAMPS or not isinstance(filt.get(ts), dict):
            raise ToolError("BAD_ARG", f"timestamp filter needs timestamp in {TIMESTAMPS} and a {ts!r} condition")
        return _date_match(page.get(ts), filt[ts])
    name = filt.get("property")
    if not isinstance(name, str) or not name:
        raise ToolError("BAD_ARG", f"filter needs 'property' (or 'and'/'or'/'timestamp'), got {filt!r}")
    value = property_value(page.get("properties") or {}, name)
    kinds = [k for k in filt if k != "property"]
    if len(kinds) != 1 or not isinstance(filt[kinds[0]], dict):
        raise ToolError("BAD_ARG", f"filter on {name!r} needs exactly one '<type>': {{op: value}} condition")
    kind, cond = kinds[0], filt[kinds[0]]
    if kind in TEXT_TYPES:
        return _text_match(value_text(value), cond, name)
    if kind == "number":
        return _number_match(value, cond, name)
    if kind == "checkbox":
        return _checkbox_match(value, cond, name)
    if kind in ("date", *TIMESTAMPS):
        return _date_match(value_text(value), cond)
    if kind == "multi_select":
        return _multi_match(value, cond, name)
    raise ToolError("BAD_ARG", f"unsupported filter type {kind!r} on property {name!r}")


def property_value(properties: dict[str, Any], name: str) -> Any:
    """A property by exact name, else by case-insensitive name."""
    if name in properties:
        return properties[name]
    low = name.lower()
    for key, value in properties.items():
        if key.lower() == low:
            return value
    return None


def _op(cond: dict[str, Any], ops: tuple[str, ...], name: str) -> tuple[str, Any]:
    for op in (*ops, "is_empty", "is_not_empty"):
        if op in cond:
            return op, cond[op]
    raise ToolError("BAD_ARG", f"filter on {name!r}: unsupported condition {cond!r}; use one of {', '.join(ops)}")


def _text_match(text: str, cond: dict[str, Any], name: str) -> bool:
    op, want = _op(cond, TEXT_OPS, name)
    if op == "is_empty":
        return (text == "") == bool(want)
    if op == "is_not_empty":
        return (text != "") == bool(want)
    target = str(want)
    checks: dict[str, Callable[[], bool]] = {
        "equals": lambda: text == target,
        "does_not_equal": lambda: text != target,
        "contains": lambda: target.lower() in text.lower(),
        "does_not_contain": lambda: target.lower() not in text.lower(),
        "starts_with": lambda: text.lower().startswith(target.lower()),
        "ends_with": lambda: text.lower().endswith(target.lower()),
    }
    return checks[op]()


def _number(value: Any) -> float | None:
    if isinstance(value, dict):
        value = value.get("number")
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _number_match(value: Any, cond: dict[str, Any], name: str) -> bool:
    op, want = _op(cond, NUMBER_OPS, name)
    num = _number(value)
    if op == "is_empty":
        return (num is None) == bool(want)
    if op == "is_not_empty":
        return (num is not None) == bool(want)
    target = _number(want)
    if target is None:
        raise ToolError("BAD_ARG", f"filter on {name!r}: {op} needs a number, got {want!r}")
    if num is None:
        return op == "does_not_equal"
    return {
        "equals": num == target,
        "does_not_equal": num != target,
        "greater_than": num > target,
        "less_than": num < target,
        "greater_than_or_equal_to": num >= target,
        "less_than_or_equal_to": num <= target,
    }[op]


def _checkbox_match(value: Any, cond: dict[str, Any], name: str) -> bool:
    got = bool(value.get("checkbox")) if isinstance(value, dict) else bool(value)
    if "equals" in cond:
        return got == bool(cond["equals"])
    if "does_not_equal" in cond:
        return got != bool(cond["does_not_equal"])
    raise ToolError("BAD_ARG", f"filter on {name!r}: checkbox supports equals or does_not_equal")


def _date_match(text: Any, cond: dict[str, Any]) -> bool:
    op, want = _op(cond, DATE_OPS, "date")
    text = str(text or "")
    if op == "is_empty":
        return (text == "") == bool(want)
    if op == "is_not_empty":
        return (text != "") == bool(want)
    if not text:
        return False
    target = str(want)
    if len(target) == 10:  # a bare date compares calendar days
        got, target = text[:10], target
    else:
        got, target = instant_key(text), instant_key(target)
    return {
        "equals": got == target,
        "before": got < target,
        "after": got > target,
        "on_or_before": got <= target,
        "on_or_after": got >= target,
    }[op]


def _multi_match(value: Any, cond: dict[str, Any], name: str) -> bool:
    if isinstance(value, dict):
        value = value.get("multi_select", [])
    items = value if isinstance(value, list) else ([] if value in (None, "") else [value])
    names = {(i.get("name") if isinstance(i, dict) else str(i)) for i in items}
    if "contains" in cond:
        return str(cond["contains"]) in names
    if "does_not_contain" in cond:
        return str(cond["does_not_contain"]) not in names
    if "is_empty" in cond:
        return (not names) == bool(cond["is_empty"])
    if "is_not_empty" in cond:
        return bool(names) == bool(cond["is_not_empty"])
    raise ToolError("BAD_ARG", f"filter on {name!r}: multi_select supports contains, does_not_contain, is_empty")


# ------------------------------------------------------------------ sorting
def _sort_value(value: Any) -> tuple[int, Any] | None:
    """(rank, value) so numbers and strings never compare; ``None`` when empty."""
    if isinstance(value, dict):
        if isinstance(value.get("number"), (int, float)) and not isinstance(value.get("number"), bool):
            return (0, value["number"])
        if "checkbox" in value:
            return (0, int(bool(value["checkbox"])))
    elif isinstance(value, bool):
        return (0, int(value))
    elif isinstance(value, (int, float)):
        return (0, value)
    text = value_text(value)
    return (1, text) if text != "" else None


def _timestamp_key(ts: str) -> Callable[[dict[str, Any]], str]:
    """Sort key of pages by their ``ts`` timestamp (see :func:`instant_key`)."""
    return lambda page: instant_key(page.get(ts))


def sort_pages(pages: list[dict[str, Any]], sorts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Apply Notion sorts (first = most significant); empty values always sort last."""
    for spec in reversed(sorts):
        direction = spec.get("direction", "ascending")
        if direction not in ("ascending", "descending"):
            raise ToolError("BAD_ARG", f"sort direction must be ascending or descending, got {direction!r}")
        desc = direction == "descending"
        if "timestamp" in spec:
            ts = spec["timestamp"]
            if ts not in TIMESTAMPS:
                raise ToolError("BAD_ARG", f"sort timestamp must be one of {TIMESTAMPS}, got {ts!r}")
            pages = sorted(pages, key=_timestamp_key(ts), reverse=desc)
        elif isinstance(spec.get("property"), str):
            name = spec["property"]
            keyed = [(p, _sort_value(property_value(p.get("properties") or {}, name))) for p in pages]
            present = sorted([(p, k) for p, k in keyed if k is not None], key=lambda kv: kv[1], reverse=desc)
            pages = [p for p, _ in present] + [p for p, k in keyed if k is None]
        else:
            raise ToolError("BAD_ARG", f"each sort needs 'property' or 'timestamp', got {spec!r}")
    return pages


def paginate(
    items: list[dict[str, Any]], start_cursor: str | None, page_size: int
) -> tuple[list[dict[str, Any]], str | None]:
    """One page of ``items`` starting at the item whose id is ``start_cursor``; returns (page, next_cursor)."""
    start = 0
    if start_cursor:
        ids = [item.get("id") for item in items]
        if start_cursor not in ids:
            raise ToolError("BAD_ARG", f"start_cursor {start_cursor!r} is not a cursor of this listing")
        start = ids.index(start_cursor)
    chunk = items[start : start + page_size]
    rest = items[start + page_size : start + page_size + 1]
    return chunk, (rest[0]["id"] if rest else None)
