"""What the adversarial baselines know: values harvested from observations, and tool
arguments filled from them.

:class:`Seen` collects ids, dates, datetimes, amounts, addresses, phone numbers, places,
names and flight numbers from every event and tool result an agent observes;
:class:`ArgumentFiller` fills a tool's JSON-schema parameters from it (ids for ``*_id``,
seen dates for date parameters, amounts for money, addresses for recipients, a short text
otherwise). Both are deterministic given the ``random.Random`` they are handed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
from typing import Any

from vibelife_env.actions import tool_result

__all__ = ["FLIGHT_NUMBER", "ID_KEY", "MONEY_KEY", "ArgumentFiller", "Seen", "money_in", "params_of"]

_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_DATETIME = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?(?:[+-]\d{2}:\d{2}|Z)?")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"\+\d[\d -]{6,16}\d")
_AMOUNT = re.compile(
    r"(?<![\w.,-])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?(?:CNY|RMB|USD|EUR|JPY|GBP|yuan|元)|"
    r"(?:CNY|RMB|USD|EUR|JPY|GBP|¥|\$|€)\s?\d[\d,]*(?:\.\d+)?|(?<![\w.,-])\d{1,3}(?:,\d{3})+(?:\.\d+)?"
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s{_MONTH}(?!\w)|\b{_MONTH}\s(\d{{1,2}})(?:st|nd|rd|th)?\b")
_CODE = re.compile(r"\b[A-Z]{3}\b")
_PLACE = re.compile(r"[^\W\d][\w' .,-]{1,38}")
FLIGHT_NUMBER = re.compile(r"\b[A-Z][A-Z0-9]\d{2,4}\b")
_TICK = re.compile(r"`([^`\s]{2,60})`")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}\b")
_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")
_SMALL = re.compile(r"(?<![\w.,:-])[1-9](?![\w.,:-])")
MONEY_KEY = re.compile(r"amount|price|fare|fee|cost|balance|minor|subtotal|grand_total|total_(?:price|amount|cost)")
ID_KEY = re.compile(r"(?:^|_)(?:id|ids|ref|pnr|no)$")
_POOL_LIMIT = 400


def params_of(schema: dict[str, Any]) -> dict[str, Any]:
    return schema["function"].get("parameters") or {}


def money_in(text: str) -> float | None:
    digits = re.sub(r"[^\d.]", "", text)
    try:
        return float(digits)
    except ValueError:
        return None


class _Pool(dict[str, None]):
    """An ordered set, most recent last, that forgets its oldest entries past a limit."""

    def add(self, value: Any) -> None:
        text = str(value).strip()
        if not text or len(text) > 200:
            return
        self.pop(text, None)
        self[text] = None
        if len(self) > _POOL_LIMIT:
            del self[next(iter(self))]

    def recent(self, n: int) -> list[str]:
        """The ``n`` most recently seen values, oldest first."""
        return list(self)[-n:] if n > 0 else []


class Seen:
    """Everything an adversary has harvested: values by JSON key, and typed pools from text.

    Attributes:
        by_key: Scalar values by the JSON key they appeared under (``email_id``, ``pnr``...).
        ids: Values of id-like keys (``*_id``, ``id``, ``pnr``, ``*_ref``, ``*_no``), flight
            numbers and back-quoted identifiers.
        offers: ``(service, id_key) -> {id: (epoch, price)}`` for result rows that carry an id
            and a price; ``epoch`` is the agent's turn count when the row was seen.
        texts: Every event and tool-result text, in order (the raw material of copies).
    """

    def __init__(self) -> None:
        self.by_key: dict[str, _Pool] = {}
        self.ids, self.dates, self.datetimes, self.emails = _Pool(), _Pool(), _Pool(), _Pool()
        self.phones, self.amounts, self.codes, self.names = _Pool(), _Pool(), _Pool(), _Pool()
        self.words, self.small, self.files, self.workspace_emails = _Pool(), _Pool(), _Pool(), _Pool()
        self.offers: dict[tuple[str, str], dict[str, tuple[int, float]]] = {}
        self.epoch = 0
        self.texts: list[str] = []
        self.year: int | None = None

    def key(self, name: str) -> _Pool:
        """The pool of values seen under JSON key ``name`` (empty when never seen)."""
        return self.by_key.get(name, _Pool())

    def text(self, text: str) -> None:
        """Harvest a free text (an event, a file, a mail body)."""
        if not text:
            return
        for pool, pattern in (
            (self.datetimes, _DATETIME),
            (self.dates, _DATE),
            (self.emails, _EMAIL),
            (self.phones, _PHONE),
            (self.amounts, _AMOUNT),
            (self.codes, _CODE),
            (self.names, _NAME),
            (self.words, _WORD),
            (self.small, _SMALL),
        ):
            for match in pattern.findall(text):
                pool.add(match)
        for match in [*FLIGHT_NUMBER.findall(text), *_TICK.findall(text)]:
            self.ids.add(match)
        if self.year is not None:
            for day, month, month2, day2 in _DAY_MONTH.findall(text):
                number = int(day or day2)
                if 1 <= number <= 31:
                    self.dates.add(
                        f"{self.year:04d}-{_MONTHS.index((month or month2)[:3].lower()) + 1:02d}-{number:02d}"
                    )

    def result(self, tool: str, content: str, args: dict[str, Any] | None = None) -> Any:
        """Harvest one tool result; ``args`` of a successful call count as seen too. Returns the parsed JSON."""
        self.texts.append(f"[{tool}] {content}")
        value = tool_result(content)
        if value is content:  # not JSON
            self.text(content)
            return content
        if isinstance(value, dict) and "error" in value and "code" in value:
            return value
        if args and _fruitful(value):
            self._walk(args, tool.partition("__")[0], None)
        self._walk(value, tool.partition("__")[0], None)
        if tool == "workspace__list_files" and isinstance(value, dict):
            for f in value.get("files", ()):
                self.files.add(f.get("path", ""))
        if tool == "workspace__read_file" and isinstance(value, dict):
            for match in _EMAIL.findall(str(value.get("content", ""))):
                self.workspace_emails.add(match)
        return value

    def _walk(self, value: Any, service: str, key: str | None, depth: int = 0) -> None:
        if depth > 12:
            return
        if isinstance(value, dict):
            self._offer(value, service)
            for k, v in value.items():
                self._walk(v, service, str(k), depth + 1)
        elif isinstance(value, list):
            for v in value[:200]:
                self._walk(v, service, key, depth + 1)
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            if key is not None:
                self.by_key.setdefault(key, _Pool()).add(value)
                if ID_KEY.search(key) and value != "":
                    self.ids.add(value)
                if isinstance(value, (int, float)) and MONEY_KEY.search(key) and value > 0:
                    self.amounts.add(f"{value:g}")
            if isinstance(value, str):
                self.text(value)

    def _offer(self, row: dict[str, Any], service: str) -> None:
        """Remember a result row that has an id and a price (the spender's shopping list)."""
        price = max((float(v) for k, v in _flat_numbers(row) if MONEY_KEY.search(k)), default=None)
        if price is None:
            return
        for k, v in row.items():
            if isinstance(v, (str, int)) and not isinstance(v, bool) and k.endswith("_id") and v != "":
                self.offers.setdefault((service, k), {})[str(v)] = (self.epoch, price)


def _fruitful(value: Any) -> bool:
    """False for an empty answer (``[]``, or an object whose lists are all empty)."""
    if isinstance(value, list):
        return bool(value)
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        return not lists or any(lists)
    return True


def _flat_numbers(row: Any, key: str = "", depth: int = 0) -> Iterator[tuple[str, float]]:
    if depth > 3:
        return
    if isinstance(row, dict):
        for k, v in row.items():
            yield from _flat_numbers(v, str(k), depth + 1)
    elif isinstance(row, list):
        for v in row[:20]:
            yield from _flat_numbers(v, key, depth + 1)
    elif isinstance(row, (int, float)) and not isinstance(row, bool):
        yield key, row


_DATE_PARAM = re.compile(
    r"date|check_in|check_out|since|until|day|^start$|^end$|time_min|time_max|_at$|^at$|depart|when"
)
_EMAIL_PARAM = re.compile(r"email|^to$|^cc$|^bcc$|recipient|address$")
_PLACE_PARAM = re.compile(r"origin|dest|city|geo|airport|station|location|country|nationality|from$")
_COUNT_PARAM = re.compile(r"guests|adults|passengers|qty|quantity|count|seats|rooms|pax|people")
_INDEX_PARAM = re.compile(r"idx|index|page")
_FIRST_NAME = re.compile(r"first_name|given_name")
_LAST_NAME = re.compile(r"last_name|family_name|surname")
_PAIRS = (
    ("check_in", "check_out"),
    ("new_check_in", "new_check_out"),
    ("start", "end"),
    ("start_date", "end_date"),
    ("since", "until"),
    ("time_min", "time_max"),
)
_MISSING = object()


class ArgumentFiller:
    """Fill a tool's required arguments from what an adversary has seen.

    A parameter takes a value seen under the same JSON key when there is one; otherwise, by
    its name and type: ids for ``*_id``, seen dates for date/time parameters, seen amounts
    for numbers, seen addresses for mail parameters, seen names and codes for places and
    people, an option its description names (``CARD``, ``"PVG"``), a short text for any
    other string. A required parameter that cannot be filled makes the whole tool
    unfillable (``None``).

    Attributes:
        now: The observation's ``time``; dates after it are preferred.
        focus: Harvest of the current event; its places come first.
        recent: Take the most recent same-key value instead of a random one.
    """

    def __init__(self, seen: Seen, rng: random.Random) -> None:
        self.seen = seen
        self.rng = rng
        self.now = ""
        self.focus = Seen()
        self.recent = False
        self.text = "OK"

    def fill(self, schema: dict[str, Any], overrides: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Arguments for every required parameter of an OpenAI function schema, or ``None``."""
        params = params_of(schema)
        defs = params.get("$defs", {})
        args = self._object(params, defs, 0, overrides or {})
        if args is _MISSING:
            return None
        assert isinstance(args, dict)
        for lo, hi in _PAIRS:
            if isinstance(args.get(lo), str) and isinstance(args.get(hi), str) and args[lo] >= args[hi]:
                later = [d for d in self._dates(hi) if d > args[lo]]
                if not later:
                    return None
                args[hi] = later[0]
        return args

    def _object(self, schema: dict[str, Any], defs: dict[str, Any], depth: int, overrides: dict[str, Any]) -> Any:
        out: dict[str, Any] = {}
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name in overrides:
                out[name] = overrides[name]
                continue
            value = self._value(name, props.get(name, {}), defs, depth + 1)
            if value is _MISSING:
                return _MISSING
            out[name] = value
        return out

    def _value(self, name: str, schema: dict[str, Any], defs: dict[str, Any], depth: int) -> Any:
        if depth > 4:
            return _MISSING
        schema = _resolve(schema, defs)
        if schema.get("enum"):
            return schema["enum"][0]
        kind = schema.get("type", "string")
        low = name.lower()
        if kind == "object":
            if schema.get("properties"):
                return self._object(schema, defs, depth, {})
            return self._loose_object(low, str(schema.get("description", "")))
        if kind == "array":
            if low.endswith("_ids"):
                ids = self.ids_for(low[:-1])
                return ids[-5:] if ids else _MISSING
            item = self._value(low.rstrip("s"), schema.get("items", {}), defs, depth + 1)
            return _MISSING if item is _MISSING else [item]
        if kind == "boolean":
            return True
        if kind in ("integer", "number"):
            return self._number(low, kind)
        return self._string(low, str(schema.get("description", "")))

    def _loose_object(self, name: str, description: str) -> dict[str, Any]:
        """An object without declared properties: a notes parent, a payment, a person, or empty."""
        if "parent" in name:
            pages = self.ids_for("page_id")
            return {"type": "page_id", "page_id": pages[-1]} if pages else {"type": "workspace", "workspace": True}
        out: dict[str, Any] = {}
        if "payment" in name or "method" in description:
            out["method"] = (_options(description) or ["CARD"])[0]
        for key, pool in (("name", self.seen.names), ("email", self.seen.emails), ("phone", self.seen.phones)):
            if pool and "payment" not in name:
                out[key] = self._pick(pool)
        return out

    def _pick(self, pool: Iterable[str]) -> str:
        items = list(pool)
        return items[-1] if self.recent else items[self.rng.randrange(len(items))]

    def ids_for(self, name: str) -> list[str]:
        """Candidate ids for a parameter: same key, then keys with the same stem, then any id."""
        same = list(self.seen.key(name))
        if same:
            return same
        stem = name.removesuffix("_id").removesuffix("_ref")
        related = [v for k, pool in self.seen.by_key.items() if stem and stem in k and ID_KEY.search(k) for v in pool]
        alike = [v for v in self.seen.ids if len(stem) >= 3 and stem[:3] in v.lower()]
        return related or alike or list(self.seen.ids)

    def _dates(self, name: str) -> list[str]:
        """Seen dates (or datetimes, for time parameters), the nearest future ones first."""
        wants_time = not re.search(r"date|check_in|check_out|day|since|until", name)
        pool = list(self.seen.datetimes) if wants_time else list(self.seen.dates)
        if not pool:
            pool = [f"{d}T09:00:00" for d in self.seen.dates] if wants_time else [d[:10] for d in self.seen.datetimes]
        later = sorted(d for d in pool if d[:10] > self.now[:10])
        return later or sorted(pool)

    def _string(self, name: str, description: str) -> Any:
        same = list(self.seen.key(name))
        if _DATE_PARAM.search(name):
            same = [d for d in same if d[:10] > self.now[:10] and _DATE.match(d)]
            dates = same or self._dates(name)
            return self._pick(dates) if same else dates[self.rng.randrange(min(len(dates), 4))] if dates else _MISSING
        if ID_KEY.search(name):
            ids = same or self.ids_for(name)
            return self._pick(ids) if ids else _MISSING
        options = _options(description)
        if options and not _PLACE_PARAM.search(name):
            return options[0]
        if same:
            return self._pick(same)
        if _EMAIL_PARAM.search(name):
            return self._pick(self.seen.emails) if self.seen.emails else _MISSING
        if "phone" in name:
            return self._pick(self.seen.phones) if self.seen.phones else _MISSING
        if _FIRST_NAME.search(name) or _LAST_NAME.search(name) or name == "name":
            if not self.seen.names:
                return _MISSING
            parts = self._pick(self.seen.names).split()
            return parts[0] if _FIRST_NAME.search(name) else parts[-1] if _LAST_NAME.search(name) else " ".join(parts)
        if _PLACE_PARAM.search(name):
            places = [v for k, vs in self.seen.by_key.items() if _PLACE_PARAM.search(k) for v in vs]
            near = [*options, *places, *self.focus.codes, *self.focus.words]
            pool = near if near and self.rng.random() < 0.8 else [*self.seen.codes, *self.seen.words]
            shape = _CODE if options and all(_CODE.fullmatch(o) for o in options) else _PLACE
            pool = [p for p in pool if shape.fullmatch(p)] or [*options, *self.seen.codes]
            return pool[self.rng.randrange(len(pool))] if pool else _MISSING
        if "path" in name:
            return self._pick(self.seen.files) if self.seen.files else "notes.md"
        return self.text

    def _number(self, name: str, kind: str) -> Any:
        if _INDEX_PARAM.search(name):
            return 0
        if _COUNT_PARAM.search(name):
            same = [v for v in self.seen.key(name) if v.isdigit()]
            return int(self._pick(same or self.seen.small)) if same or self.seen.small else 1
        values = [v for v in (money_in(a) for a in self.seen.amounts) if v]
        if not values:
            return 1
        value = values[-1] if self.recent else values[self.rng.randrange(len(values))]
        if "minor" in name:
            value *= 100
        return int(value) if kind == "integer" else value


_OPTION = re.compile(r"\"([A-Za-z0-9_]{2,12})\"|\b([A-Z][A-Z_]{1,15})\b(?=\s\([^)]*\)|,\s|\sor\s)")


def _options(description: str) -> list[str]:
    """Values a parameter's description offers: quoted examples and listed capitals ("CARD, POINTS or ...")."""
    return list(dict.fromkeys(a or b for a, b in _OPTION.findall(description)))


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        target = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
        return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"]
            if options:
                return _resolve({**options[0], **{k: v for k, v in schema.items() if k != key}}, defs)
    return schema
