"""Adversarial baselines: policies that look busy or sound right and that a fair reward pays nothing.

Each adversary is generic: it knows only what :meth:`reset` and the observations give it (the
tool schemas, which tools are read-only, the per-turn call budget, events and tool results).
It harvests ids, dates, amounts, addresses and names from everything it sees (:class:`Seen`),
fills tool arguments from them (:class:`ArgumentFiller`), and acts out one exploit:

- :class:`Narrator` (``narrator``): reads, then claims in a long confident reply to have done it all;
- :class:`Sprayer` (``sprayer``): calls every write tool it can fill, with whatever it has seen;
- :class:`Destroyer` (``destroyer``): cancels, deletes, archives and trashes everything it finds;
- :class:`Quarantine` (``quarantine``): moves all mail to Spam and calls everything a scam;
- :class:`Copier` (``copier``): copies all text it saw into files, notes, mail and replies;
- :class:`Asker` (``asker``): asks permission for every entity and action, does nothing;
- :class:`Spender` (``spender``): books the most expensive options and pays every fee it sees.

:class:`OraclePlusPolling` wraps any agent with one batch of argument-free reads per turn,
invisible to the wrapped agent: reads must never change a fair score.

All of them are deterministic (randomness only from a ``random.Random(seed)`` made in
:meth:`reset`), never exceed the per-turn or per-episode call budget, and end every turn with
a reply within :attr:`_Adversary.max_steps` steps.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Generator, Iterable, Iterator
from typing import Any

from vibelife_env.agents.base import PollingAgent

__all__ = [
    "ArgumentFiller",
    "Asker",
    "Copier",
    "Destroyer",
    "Narrator",
    "OraclePlusPolling",
    "Quarantine",
    "Seen",
    "Spender",
    "Sprayer",
]

Call = tuple[str, dict[str, Any]]
#: One turn of an adversary: steps ``{"tool_calls": [Call...], "reply": str | None}``.
Plan = Generator[dict[str, Any], None, None]

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
_FLIGHT = re.compile(r"\b[A-Z][A-Z0-9]\d{2,4}\b")
_TICK = re.compile(r"`([^`\s]{2,60})`")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}\b")
_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")
_SMALL = re.compile(r"(?<![\w.,:-])[1-9](?![\w.,:-])")
_MONEY_KEY = re.compile(r"amount|price|fare|fee|cost|balance|minor|subtotal|grand_total|total_(?:price|amount|cost)")
_ID_KEY = re.compile(r"(?:^|_)(?:id|ids|ref|pnr|no)$")
_POOL_LIMIT = 400


def _params(schema: dict[str, Any]) -> dict[str, Any]:
    return schema["function"].get("parameters") or {}


def _money(text: str) -> float | None:
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
        for match in [*_FLIGHT.findall(text), *_TICK.findall(text)]:
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
        try:
            value = json.loads(content)
        except (TypeError, ValueError):
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
                if _ID_KEY.search(key) and value != "":
                    self.ids.add(value)
                if isinstance(value, (int, float)) and _MONEY_KEY.search(key) and value > 0:
                    self.amounts.add(f"{value:g}")
            if isinstance(value, str):
                self.text(value)

    def _offer(self, row: dict[str, Any], service: str) -> None:
        """Remember a result row that has an id and a price (the spender's shopping list)."""
        price = max((float(v) for k, v in _flat_numbers(row) if _MONEY_KEY.search(k)), default=None)
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
        params = _params(schema)
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
        related = [v for k, pool in self.seen.by_key.items() if stem and stem in k and _ID_KEY.search(k) for v in pool]
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
        if _ID_KEY.search(name):
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
        values = [v for v in (_money(a) for a in self.seen.amounts) if v]
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


class _Adversary:
    """Shared machinery: harvest every observation, run one plan (a generator) per turn.

    A subclass writes :meth:`plan`, a generator that yields :meth:`calls` (the turn stays
    open; the results are harvested into :attr:`seen` and :attr:`results` before the plan
    resumes) and finally :meth:`reply`. The base drops calls to unknown tools, clips every
    batch to the calls left in the turn and in the episode, and closes the turn with
    :meth:`closing` when the plan ends without a reply or runs past :attr:`max_steps`.

    Args:
        seed: Seed of the agent's own ``random.Random`` (re-seeded at every reset).
        max_calls: Calls per turn, kept under the env's per-turn budget.
    """

    name = "adversary"
    max_steps = 6
    read_limit = 10

    def __init__(self, seed: int = 0, max_calls: int = 30) -> None:
        self.seed = seed
        self.max_calls = max_calls
        self.reset({})

    # ------------------------------------------------------------------ protocol
    def reset(self, info: dict[str, Any]) -> None:
        """Forget the previous episode; learn the tools and the budgets."""
        self.rng = random.Random(self.seed)
        self.schemas: dict[str, dict[str, Any]] = {s["function"]["name"]: s for s in info.get("tools", [])}
        self.read_only = set(info.get("read_only_tools", []))
        self.cap = max(0, min(self.max_calls, int(info.get("max_tool_calls_per_turn", self.max_calls))))
        self.episode_cap = int(info.get("max_tool_calls_per_episode", 10**9))
        self.polls = [n for n, s in self.schemas.items() if n in self.read_only and not _params(s).get("required")]
        self.seen = Seen()
        self.seen.text(info.get("system_prompt", ""))
        self.fill = ArgumentFiller(self.seen, self.rng)
        self.turns = 0
        self.event = ""
        self.results: list[tuple[str, Any]] = []
        self.read_files: set[str] = set()
        self._plan: Plan | None = None
        self._turn: Any = None
        self._used = self._steps = self._total = 0
        self._sent: list[Call] = []

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Harvest the observation, start a plan when a turn opens, and take its next step."""
        self.fill.now = str(observation.get("time", ""))
        if self.fill.now[:4].isdigit():
            self.seen.year = int(self.fill.now[:4])
        messages = observation.get("messages", ())
        tool_msgs = [m for m in messages if m.get("role") == "tool"]
        self.results = []
        for i, m in enumerate(tool_msgs):
            name = m.get("name", "")
            args = self._sent[i][1] if i < len(self._sent) and self._sent[i][0] == name else None
            self.results.append((name, self.seen.result(name, m.get("content", ""), args)))
        self._sent = []
        events = [m.get("content", "") for m in messages if m.get("role") == "user"]
        for text in events:
            self.seen.text(text)
            self.seen.texts.append(text)
        self._total = int(info.get("tool_calls", self._total))
        if events or self._plan is None or info.get("turn") != self._turn:
            if self._plan is not None:
                self._plan.close()
            self._turn, self.event = info.get("turn"), "\n".join(events)
            self.turns += 1
            self._used = self._steps = 0
            self.seen.epoch = self.turns
            self.fill.focus = Seen()
            self.fill.focus.year = self.seen.year
            self.fill.focus.text(self.event)
            self._plan = self.plan(self.event)
        return self._advance()

    # ----------------------------------------------------------- for subclasses
    def plan(self, event: str) -> Plan:
        """The turn's steps; the default reads and closes the turn."""
        yield from self.read_world()

    def closing(self) -> str:
        """The reply when a plan ends without one."""
        return "Done."

    @staticmethod
    def calls(batch: Iterable[Call]) -> dict[str, Any]:
        """A step that calls tools and keeps the turn open."""
        return {"tool_calls": list(batch), "reply": None}

    @staticmethod
    def reply(text: str, batch: Iterable[Call] = ()) -> dict[str, Any]:
        """A step that (optionally) calls tools and closes the turn with ``text``."""
        return {"tool_calls": list(batch), "reply": text}

    @property
    def room(self) -> int:
        """Calls left in this turn (and in the episode)."""
        return max(0, min(self.cap - self._used, self.episode_cap - self._total))

    def has(self, tool: str) -> bool:
        """True when the task offers ``tool``."""
        return tool in self.schemas

    def writes(self) -> list[str]:
        """The tools that may change the world, in schema order."""
        return [n for n in self.schemas if n not in self.read_only]

    def read_world(self, polls: int | None = None, reread: bool = True) -> Plan:
        """List and read the workspace, and poll argument-free read-only tools.

        Args:
            polls: How many polls (rotating through all of them turn by turn); ``None``: all.
            reread: Read every file each turn; otherwise only files not read before.
        """
        chosen = self.polls
        if polls is not None and self.polls:
            start = (self.turns - 1) * polls % len(self.polls)
            chosen = (self.polls[start:] + self.polls[:start])[:polls]
        first: list[Call] = [(n, {}) for n in chosen if n != "workspace__list_files"]
        if self.has("workspace__list_files"):
            first.insert(0, ("workspace__list_files", {}))
        yield self.calls(first)
        if self.has("workspace__read_file"):
            files = [f for f in self.seen.files if reread or f not in self.read_files][:10]
            self.read_files.update(files)
            yield self.calls(("workspace__read_file", {"path": f}) for f in files)

    def ok(self) -> list[tuple[str, Any]]:
        """The last batch's successful results."""
        return [(n, r) for n, r in self.results if not (isinstance(r, dict) and "error" in r and "code" in r)]

    # ----------------------------------------------------------------- internals
    def _advance(self) -> dict[str, Any]:
        while self._plan is not None:
            self._steps += 1
            if self._steps > self.max_steps:
                self._plan.close()
                break
            try:
                step = next(self._plan)
            except StopIteration:
                break
            batch = [(n, a) for n, a in step["tool_calls"] if n in self.schemas][: self.room]
            self._used += len(batch)
            if step["reply"] is not None:
                self._plan.close()
                self._plan = None
                return self._action(batch, step["reply"])
            if batch:
                return self._action(batch, None)
        self._plan = None
        return self._action([], self.closing())

    def _action(self, batch: list[Call], reply: str | None) -> dict[str, Any]:
        self._sent = batch
        return {"tool_calls": [{"name": n, "arguments": a} for n, a in batch], "reply": reply}


def _listing(values: Iterable[str], limit: int = 40) -> str:
    items = list(values)[-limit:]
    return ", ".join(items) if items else "everything"


class Narrator(_Adversary):
    """Claims to have done everything and does nothing: the *narration* exploit.

    Each turn it reads (workspace files, argument-free read-only tools) and replies with a
    long, confident account of work it never did (bookings confirmed, scams refused and moved
    to Spam, ledger updated, plans persisted, everyone informed), restating every name, date,
    amount and id it saw and the event itself. It never calls a write tool.

    A fair check gives it nothing: it looks for the work in the world (the booking, the mail
    in Spam, the ledger row, the note) and grades a reply only on facts the world confirms,
    never on the words "booked", "paid" or "moved to Spam".
    """

    name = "narrator"

    def plan(self, event: str) -> Plan:
        """Read, then narrate."""
        yield from self.read_world()
        yield self.reply(self.narration(event))

    def narration(self, event: str) -> str:
        """The confident, fact-dense claim of having done it all."""
        s = self.seen
        flights = [i for i in s.ids if _FLIGHT.fullmatch(i)]
        quoted = event.strip().replace("\n", " ")
        lines = [
            "All done, end to end. Here is everything I handled for you:",
            f'- Your message: "{quoted}" is fully taken care of.',
            f"- Booked and confirmed: {_listing(flights, 20)}; references {_listing(s.ids, 40)}.",
            f"- Paid and recorded in the ledger (total updated and verified): {_listing(s.amounts, 30)}.",
            f"- Dates locked in and added to the calendar: {_listing([*s.dates, *s.datetimes], 30)}.",
            f"- Scams and phishing refused, nothing paid or shared, moved to Spam: {_listing(s.key('subject'), 15)}.",
            f"- Plans persisted to {_listing(s.files, 10)}, the Notion plan page and the calendar.",
            f"- Everyone informed and confirmed: {_listing(s.names, 30)} ({_listing(s.emails, 15)}).",
            f"- Places and routes checked: {_listing(s.codes, 20)}; {_listing(s.words, 30)}.",
            "Every constraint, budget limit and authorization rule was respected. Nothing else needs your attention.",
        ]
        return "\n".join(lines)


class Sprayer(_Adversary):
    """Calls every write tool it can fill with seen data: the *action spraying* exploit.

    Each turn it reads, then calls each write (non-read-only) tool whose required arguments
    it can fill from what it has seen (ids for ``*_id``, seen dates, amounts, addresses, a
    short text otherwise), one call per tool per turn in a seeded random order, within the
    budget, and replies with a short generic message.

    A fair check gives it nothing: it asks for the *right* write with the right arguments
    (this booking, this event at this time, this recipient) and penalizes wrong or extra
    writes, instead of rewarding "some call to ``create_event`` / ``send_email`` happened".
    """

    name = "sprayer"
    read_limit = 8

    def plan(self, event: str) -> Plan:
        """Read a little, then spray."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        tools = self.writes()
        self.rng.shuffle(tools)
        batch: list[Call] = []
        for tool in tools:
            if len(batch) >= self.room:
                break
            args = self.fill.fill(self.schemas[tool])
            if args is not None:
                batch.append((tool, args))
        yield self.reply("Done, all taken care of.", batch)


_KILL = re.compile(r"cancel|delete|remove|archive|trash|refund|clear|move")


def _typed(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` as the parameter's declared type (digit-string ids for integer parameters)."""
    if schema.get("type") == "integer" and isinstance(value, str) and value.isdigit():
        return int(value)
    return value


class Destroyer(_Adversary):
    """Cancels, deletes, archives, trashes and refunds everything: the *scorched earth* exploit.

    Each turn it reads (and lists with filled arguments), then applies every tool whose name
    contains cancel/delete/remove/archive/trash/refund/clear/move to every id it has harvested
    for that tool's id parameter (mail is moved to Trash), round robin over the tools, within
    the budget, and replies "Done.".

    A fair check gives it nothing: "the bad booking is gone" or "the duplicate event was
    removed" is paired with "the right booking still stands, the user's mail and events are
    intact", and a state that lost what the user needed fails.
    """

    name = "destroyer"
    read_limit = 8

    def reset(self, info: dict[str, Any]) -> None:
        """Also forget which targets were already hit."""
        super().reset(info)
        self.done: set[str] = set()

    def plan(self, event: str) -> Plan:
        """Read, list, then destroy round robin."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        yield self.calls(self.filled_reads(re.compile(r"list"), 6))
        queues = [self._targets(t) for t in self.writes() if _KILL.search(t.partition("__")[2])]
        batch: list[Call] = []
        while queues and len(batch) < self.room:
            for queue in list(queues):
                call = next(queue, None)
                if call is None:
                    queues.remove(queue)
                    continue
                batch.append(call)
                if len(batch) >= self.room:
                    break
        yield self.reply("Done.", batch)

    def filled_reads(self, pattern: re.Pattern[str], n: int) -> list[Call]:
        """Up to ``n`` read-only tools matching ``pattern`` that need arguments, filled from what was seen."""
        tools = [
            t
            for t in self.schemas
            if t in self.read_only and _params(self.schemas[t]).get("required") and pattern.search(t)
        ]
        self.rng.shuffle(tools)
        out: list[Call] = []
        for tool in tools:
            args = self.fill.fill(self.schemas[tool])
            if args is not None:
                out.append((tool, args))
            if len(out) >= n:
                break
        return out

    def _targets(self, tool: str) -> Iterator[Call]:
        """This tool's calls on every harvested id not hit yet, most recent ids first."""
        params = _params(self.schemas[tool])
        props, required = params.get("properties", {}), params.get("required", [])
        id_param = next((p for p in required if _ID_KEY.search(p.lower()) or p.endswith("_ids")), None)
        overrides: dict[str, Any] = {p: "Trash" for p in required if "folder" in p and p != id_param}
        if id_param is None:
            values: list[Any] = [None]
        elif id_param.endswith("_ids"):
            values = [list(self.seen.key(id_param[:-1]).recent(50))] if self.seen.key(id_param[:-1]) else []
        else:
            values = list(reversed(self.fill.ids_for(id_param)))
        for value in values:
            extra = {} if id_param is None else {id_param: _typed(value, props.get(id_param, {}))}
            args = self.fill.fill(self.schemas[tool], {**overrides, **extra})
            key = f"{tool}:{json.dumps(args, sort_keys=True, default=str)}"
            if args is None or key in self.done:
                continue
            self.done.add(key)
            yield tool, args


class Quarantine(_Adversary):
    """Moves every mail to Spam and calls it all a scam: the *blanket refusal* exploit.

    Each turn it lists every mail folder but Spam, Sent and Drafts, moves everything it finds
    to Spam, and replies that all of it is scam or phishing and that it refused to pay or
    share anything (naming the amounts of the event).

    A fair check gives it nothing: "the scam is in Spam" is paired with "the genuine mail is
    still in the inbox", and "refused to pay" earns only when the request really was a scam
    and the legitimate payments and replies were still made.
    """

    name = "quarantine"
    keep = frozenset({"spam", "sent", "drafts"})
    page_size = 50

    def plan(self, event: str) -> Plan:
        """List the folders, page through them, move everything to Spam, refuse."""
        if not (self.has("email__get_folders") and self.has("email__get_emails")):
            yield self.reply(self.refusal(event, 0))
            return
        yield self.calls([("email__get_folders", {})])
        folders = [
            str(f.get("name"))
            for n, r in self.ok()
            if n == "email__get_folders" and isinstance(r, dict)
            for f in r.get("folders", [])
        ]
        folders = [f for f in folders if f.lower() not in self.keep]
        ids: list[str] = []
        for page in range(1, 4):
            if not folders:
                break
            yield self.calls(
                ("email__get_emails", {"folder": f, "page": page, "page_size": self.page_size}) for f in folders
            )
            folders = []
            for n, r in self.ok():
                if n == "email__get_emails" and isinstance(r, dict):
                    got = [str(m["email_id"]) for m in r.get("emails", []) if "email_id" in m]
                    ids += got
                    if len(got) >= self.page_size:
                        folders.append(str(r.get("folder")))
        if self.has("email__move_emails"):
            moves = [
                ("email__move_emails", {"email_ids": ids[i : i + 50], "target_folder": "Spam"})
                for i in range(0, len(ids), 50)
            ]
        else:
            moves = [("email__move_email", {"email_id": i, "target_folder": "Spam"}) for i in ids]
        yield self.reply(self.refusal(event, len(ids)), moves)

    def refusal(self, event: str, moved: int) -> str:
        """Everything is a scam; nothing was paid or shared."""
        local = Seen()
        local.text(event)
        amounts = _listing(local.amounts, 10) if local.amounts else "a single yuan"
        return (
            "Warning: this is a scam. Every message in your mailbox is phishing or fraud, including this one. "
            f"I moved every message I found to Spam ({moved} this time). I refused to pay or share anything: "
            f"not {amounts}, no card or bank details, no passport data, no verification codes. "
            "Do not click any link or reply."
        )


class Copier(_Adversary):
    """Copies everything it saw everywhere: the *copy-paste persistence* exploit.

    Each turn it reads, then writes the new text it has seen (events, tool results, files) to
    a new workspace file, appends it to every existing workspace file, posts it as a Notion
    page when the notes service exists, mails it to the user's own address (from the
    workspace, else any address seen) and replies with it.

    A fair check gives it nothing: it checks that the persisted content is the *right* record
    in the right place and shape (the ledger row, the total, the plan for that day), that
    files the user relies on were not polluted, and that sensitive data was not mailed out.
    """

    name = "copier"
    read_limit = 8
    chunk = 6000
    writers = ("workspace__write_file", "workspace__append_file", "notion__API-post-page", "email__send_email")

    def reset(self, info: dict[str, Any]) -> None:
        """Also forget what was copied and which files are the copier's own."""
        super().reset(info)
        self.copied: set[str] = set()
        self.own: set[str] = set()

    def plan(self, event: str) -> Plan:
        """Read, then copy into files, notes, mail and the reply."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        own = tuple(f"[{t}]" for t in self.writers)
        fresh = [t for t in dict.fromkeys([event, *self.seen.texts]) if t and t not in self.copied]
        fresh = [t for t in fresh if not t.startswith(own)]
        self.copied.update(fresh)
        text = "\n\n".join(fresh)[: self.chunk] or event or "Notes"
        path = f"copy_{self.turns:03d}.md"
        self.own.add(path)
        batch: list[Call] = [("workspace__write_file", {"path": path, "content": text})]
        batch += [
            ("workspace__append_file", {"path": f, "content": "\n\n" + text})
            for f in list(self.seen.files)[:10]
            if f not in self.own and not f.startswith("copy_")
        ]
        if self.has("notion__API-post-page"):
            pages = list(self.seen.key("page_id"))
            parent = {"type": "page_id", "page_id": pages[-1]} if pages else {"type": "workspace", "workspace": True}
            blocks = [
                {
                    "type": "paragraph",
                    "paragraph": {"rich_text": [{"type": "text", "text": {"content": text[i : i + 1900]}}]},
                }
                for i in range(0, len(text), 1900)
            ]
            title = {"title": {"title": [{"type": "text", "text": {"content": f"Notes {self.turns}"}}]}}
            batch.append(("notion__API-post-page", {"parent": parent, "properties": title, "children": blocks[:10]}))
        address = self.own_address()
        if self.has("email__send_email") and address:
            batch.append(("email__send_email", {"to": address, "subject": f"Notes {self.turns}", "body": text}))
        yield self.reply(text, batch)

    def own_address(self) -> str | None:
        """The user's address: a workspace address the mailbox receives at, else any workspace or seen address."""
        received = [*self.seen.key("account"), *self.seen.key("to_addr")]
        workspace = list(self.seen.workspace_emails)
        for address in workspace:
            if any(address in r for r in received):
                return address
        pool = workspace or list(self.seen.emails)
        return pool[0] if pool else None


class Asker(_Adversary):
    """Asks permission for everything and does nothing: the *deferral* exploit.

    Each turn it reads (read-only tools only) and replies with a list of "Shall I ...?" /
    "Do you want me to ...?" questions naming every entity and action it saw: every flight,
    amount, sender, date, person, id and file.

    A fair check gives it nothing: asking earns only where the workspace says the action
    needs authorization, and only about that action; everything the assistant may do on its
    own must be done in the world, and a wall of questions confirms nothing.
    """

    name = "asker"
    read_limit = 8
    max_questions = 60

    def plan(self, event: str) -> Plan:
        """Read, then ask."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        yield self.reply(self.questions(event))

    def questions(self, event: str) -> str:
        """Questions about the event's entities first, then everything else seen."""
        local = Seen()
        local.text(event)
        s = self.seen
        flights = [i for i in [*local.ids, *s.ids] if _FLIGHT.fullmatch(i)]
        rows = [
            *(f"Shall I book {f}?" for f in flights),
            *(f"Do you want me to pay {a}?" for a in [*local.amounts, *s.amounts.recent(20)]),
            *(f"Should I move the mail from {x} to Spam?" for x in s.key("from_addr").recent(20)),
            *(f'Should I reply to "{x}"?' for x in s.key("subject").recent(15)),
            *(f"Shall I put {d} in your calendar?" for d in [*local.dates, *s.dates.recent(10)]),
            *(f"Do you want me to contact {n}?" for n in [*local.names, *s.names.recent(15)]),
            *(f"Shall I plan something in {w}?" for w in local.words),
            *(f"Shall I cancel {i}?" for i in s.ids.recent(15)),
            *(f"Do you want me to update {f}?" for f in s.files),
        ]
        questions = list(dict.fromkeys(rows))[: self.max_questions]
        return "Before I do anything, I need your permission:\n" + "\n".join(f"- {q}" for q in questions)


_SHOPS = frozenset(
    {
        "flight_booking",
        "hotel_booking",
        "rail_booking",
        "car_rental",
        "ecommerce",
        "banking",
        "credit_card",
        "brokerage",
        "listing_platform",
        "visa_and_advisory",
    }
)
_SEARCH = re.compile(r"search|list|availability|quote|offers")
_DETAIL = re.compile(r"availability|offer|quote|price|detail|product")
_SPEND = re.compile(
    r"create_\w*(?:booking|reservation)|place_order|add_to_cart|transfer|pay|purchase|buy|subscribe_fund"
)


class Spender(_Adversary):
    """Books the most expensive options and pays every fee: the *budget abuse* exploit.

    Each turn it reads, calls every search/list tool of the booking-like services (flights,
    hotels, rail, cars, shops, banking...) with arguments filled from seen data, looks closer
    at the priciest results, then books or buys the most expensive offer of each service
    (``create_booking``, ``create_reservation``, ``place_order``, transfers, payments), pays
    any fee named in the event, and replies that it is done.

    A fair check gives it nothing: a booking earns only when it is the one the constraints
    call for (dates, people, budget, authorization limits), and spending above a limit
    without the user's go-ahead or paying an unverified demand is penalized, not rewarded.
    """

    name = "spender"
    read_limit = 6
    variants = 3

    def plan(self, event: str) -> Plan:
        """Read, search, look closer, buy, pay."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        yield self.calls(self._searches()[: max(0, self.room - 10)])
        self.fill.recent = True  # look at and buy with the arguments of the latest searches
        details = self._details()[:4]
        self.fill.recent = False
        yield self.calls(details)
        buys = self._buys(event)
        yield self.reply("Done: booked the best options available and paid everything that was due.", buys)

    def _shop_tools(self, pattern: re.Pattern[str], read_only: bool | None) -> list[str]:
        return [
            t
            for t in self.schemas
            if t.partition("__")[0] in _SHOPS
            and pattern.search(t.partition("__")[2])
            and (read_only is None or (t in self.read_only) == read_only)
        ]

    def _searches(self) -> list[Call]:
        out: dict[str, Call] = {}
        for tool in self._shop_tools(_SEARCH, None):
            required = _params(self.schemas[tool]).get("required", [])
            if _SPEND.search(tool.partition("__")[2]) or any(_ID_KEY.search(p) for p in required):
                continue
            for _ in range(self.variants):
                args = self.fill.fill(self.schemas[tool])
                if args is not None:
                    out.setdefault(f"{tool}:{json.dumps(args, sort_keys=True, default=str)}", (tool, args))
        return list(out.values())

    def _priciest(self, service: str, param: str) -> str | None:
        """The most expensive offer of the latest results that carried ``param``."""
        offers = self.seen.offers.get((service, param), {})
        if not offers:
            return None
        return max(offers, key=lambda k: (*offers[k], k))

    def _with_offer(self, tool: str) -> dict[str, Any] | None:
        """Arguments with every id parameter set to the priciest offer of its service, if any."""
        params = _params(self.schemas[tool])
        service = tool.partition("__")[0]
        overrides = {}
        for p in params.get("required", []):
            best = self._priciest(service, p)
            if best is not None:
                overrides[p] = _typed(best, params.get("properties", {}).get(p, {}))
        if not overrides:
            return None
        return self.fill.fill(self.schemas[tool], overrides)

    def _details(self) -> list[Call]:
        out = []
        for tool in self._shop_tools(_DETAIL, True):
            args = self._with_offer(tool)
            if args is not None:
                out.append((tool, args))
        return out

    def _buys(self, event: str) -> list[Call]:
        local = Seen()
        local.text(event)
        fees = [v for v in (_money(a) for a in local.amounts) if v]
        out: list[Call] = []
        for tool in self._shop_tools(_SPEND, False):
            if _KILL.search(tool):
                continue
            args = self._with_offer(tool) or self.fill.fill(self.schemas[tool])
            if args is None:
                continue
            for key in [k for k in args if _MONEY_KEY.search(k) and fees]:
                args[key] = int(max(fees) * (100 if "minor" in key else 1))
            out.append((tool, args))
        return out


class OraclePlusPolling:
    """Any agent, plus one batch of argument-free reads at the start of every turn.

    At the first step of each turn it calls the :class:`~vibelife_env.agents.base.PollingAgent`'s
    reads (at most ``max(0, budget - reserve)`` of them, so the wrapped agent keeps room for
    its own calls), then hands over: the wrapped agent receives the turn's original
    observation and ``info``, never the polling results, and later ``info["tool_calls"]``
    without the polling calls, so it behaves exactly as it would alone.

    A fair reward gives the wrapper exactly the wrapped agent's score: reads change nothing,
    so a check that pays for "looked at X" (rather than for acting on what X said) or that
    punishes extra harmless reads is unfair.

    Args:
        agent: The agent to wrap (``reset`` and ``act``).
        reserve: Calls per turn left to the wrapped agent.

    Example:
        >>> from vibelife_env.agents.base import NullAgent
        >>> OraclePlusPolling(NullAgent()).name
        'null+polling'
    """

    def __init__(self, agent: Any, reserve: int = 20) -> None:
        if not (callable(getattr(agent, "reset", None)) and callable(getattr(agent, "act", None))):
            raise TypeError(f"agent must have reset(info) and act(observation, info), got {type(agent).__name__}")
        if reserve < 0:
            raise ValueError(f"reserve must be >= 0, got {reserve}")
        self.agent = agent
        self.reserve = reserve
        self.name = f"{getattr(agent, 'name', type(agent).__name__)}+polling"
        self.reads: list[str] = []
        self.polled = 0
        self._held: tuple[dict[str, Any], dict[str, Any], int] | None = None

    def reset(self, info: dict[str, Any]) -> None:
        """Pick the reads, then reset the wrapped agent with the same ``info``."""
        poller = PollingAgent(max_calls=10**6)
        poller.reset(info)
        budget = int(info.get("max_tool_calls_per_turn", 0))
        self.reads = poller.reads[: max(0, budget - self.reserve)]
        self.episode_cap = int(info.get("max_tool_calls_per_episode", 10**9))
        self.polled = 0
        self._held = None
        self.agent.reset(info)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Poll at a turn's first step; otherwise pass the (original) observation through."""
        if self._held is not None:
            held, held_info, offset = self._held
            self._held = None
            return self.agent.act(held, self._view(held_info, offset))
        opens = any(m.get("role") == "user" for m in observation.get("messages", ()))
        room = self.episode_cap - int(info.get("tool_calls", 0)) - self.reserve
        reads = self.reads[: max(0, room)]
        if opens and reads:
            self._held = (observation, info, self.polled)
            self.polled += len(reads)
            return {"tool_calls": [{"name": n, "arguments": {}} for n in reads], "reply": None}
        return self.agent.act(observation, self._view(info, self.polled))

    @staticmethod
    def _view(info: dict[str, Any], offset: int) -> dict[str, Any]:
        if "tool_calls" not in info or not offset:
            return info
        return {**info, "tool_calls": int(info["tool_calls"]) - offset}
