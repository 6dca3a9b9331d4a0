"""Seeded fuzzing of tools: arguments drawn from each tool's JSON schema, plus hostile values.

The conformance check every provider must pass, whatever an agent (or a Python caller)
sends: no exception escapes, a failed call changes nothing, and every error result has
a code of the vocabulary and a short message free of Python internals.

>>> import random
>>> fuzzer = ArgumentFuzzer(random.Random(0), strings=["pnr_1"])
>>> schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
>>> isinstance(fuzzer.arguments(schema), (dict, list, str, type(None)))
True

All randomness comes from the ``random.Random`` passed in; nothing reads global state.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vibelife_env.errors import ERROR_CODES
from vibelife_env.services.arguments import short_repr

#: Longest acceptable error message in a fuzzed result.
MAX_FUZZ_MESSAGE_CHARS = 500

#: Text that betrays a raw Python or SQLite exception in an agent-facing message.
LEAK_PATTERN = re.compile(
    r"Traceback|sqlite3|unhashable|pydantic|Python int|pattern too complex|object has no attribute|"
    r"\b(?:[A-Z][a-z]+)+(?:Error|Exception)\b"
)


def _circular_dict() -> dict[str, Any]:
    loop: dict[str, Any] = {"a": 1}
    loop["self"] = loop
    return loop


def _circular_list() -> list[Any]:
    loop: list[Any] = [1]
    loop.append(loop)
    return loop


def _nested(depth: int, as_list: bool) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value] if as_list else {"k": value}
    return value


def hostile_values() -> list[Any]:
    """Values no tool should choke on; built once (the big ones are shared objects)."""
    return [
        10**4999,  # 5,000 digits
        2**63,
        -(2**63) - 1,
        2**64,
        float("nan"),
        float("inf"),
        -1e308,
        "x" * 10_000_000,  # 10 MB
        "%" * 60_000,  # a LIKE pattern SQLite calls too complex
        "%_" * 2_000,
        _nested(2_000, as_list=False),
        _nested(2_000, as_list=True),
        _circular_dict(),
        _circular_list(),
        {1, 2},
        b"bytes",
        bytearray(b"ba"),
        {1: "non-string key"},
        "\ud83d",
        "half \udfff surrogate",
        {"k": "\ud83d"},
        [],
        {},
        [[]],
        {"a": {"b": [1, {"c": None}]}},
        True,
        None,
        0,
        -1,
        3.5,
        "",
        " ",
        "'; DROP TABLE users; --",
        "%",
        "\x00",
        "line\nbreak",
        "🙂 émoji ✓",
        "2026-13-45",
        "0000-00-00T99:99:99",
        "2026-05-01",
        "2026-05-01T10:00:00+08:00",
        object(),
    ]


_EXTREME_STRINGS = [
    "x" * 10_000_000,
    "%" * 60_000,
    "_%" * 30_000,
    "é" * 300_000,
    "a" * 1_000_001,
    "\ud83d",
    "\udc00 tail",
    "",
    " \t\n ",
    "\x00",
    "%",
    "_",
    "\\",
    "'",
    '"',
    "NULL",
    "null",
    "-1",
    "1e999",
    "9" * 5000,
    "2026-02-30",
    "2026-05-01T25:61:00",
    "9999-12-31T23:59:59+14:00",
    "0001-01-01",
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-14:00",
    "9999-12-31",
    "T",
    "🙂" * 100,
]


#: Argument names that hold a date or a time.
_DATE_NAME = re.compile(r"date|time|_at$|since|until|check_in|check_out|^start|^end|_from$|_to$|^day|dob|deadline")
_DATES = [
    "2026-04-17",
    "2026-04-18",
    "2026-05-01",
    "2026-05-08",
    "2026-04-17T09:30:00+08:00",
    "2026-04-20T10:00:00+08:00",
    "2026-05-01T08:00:00",
    "2026-05-01T12:00:00Z",
    "2026-04-16",
    "2025-12-31",
    "0001-01-01",
    "0001-01-01T00:00:00+14:00",
    "0001-01-02T00:00:00",
    "9999-12-31",
    "9999-12-31T23:59:59-14:00",
    "9999-12-30T12:00:00",
    "1900-01-01",
    "2200-12-31T23:00:00+08:00",
    "2026-02-29",
    "2026-04-17T24:00:00",
    "tomorrow",
    "17/04/2026",
]


class ArgumentFuzzer:
    """Draw argument objects for a tool from its JSON schema, mixed with hostile values.

    Args:
        rng: The only source of randomness.
        strings: Realistic strings to draw from (ids, names, dates seen in the world), so
            that fuzzed calls also reach the code behind the "not found" checks.
        columns: Realistic strings by column name; an argument named like a column
            (``card_id``, ``pnr``) draws from it.
        hostile_rate: Chance that a value is replaced by one of :func:`hostile_values`.
        extreme_rate: Chance that a value is an extreme one of the schema's own type
            (huge integers, 10 MB strings, LIKE wildcards, impossible dates...).
    """

    def __init__(
        self,
        rng: random.Random,
        strings: Sequence[str] = (),
        columns: dict[str, list[str]] | None = None,
        hostile_rate: float = 0.05,
        extreme_rate: float = 0.1,
    ) -> None:
        self.rng = rng
        self.strings = list(strings) or ["x"]
        self.columns = columns or {}
        self.hostile = hostile_values()
        self.hostile_rate = hostile_rate
        self.extreme_rate = extreme_rate

    # ------------------------------------------------------------- whole calls
    def mutate(self, parameters: dict[str, Any], good: dict[str, Any]) -> dict[str, Any]:
        """Arguments that worked once, with one argument changed, dropped or added."""
        args = dict(good)
        props: dict[str, Any] = parameters.get("properties", {})
        defs = parameters.get("$defs", {})
        roll = self.rng.random()
        if roll < 0.1 and args:
            del args[self.rng.choice(sorted(args))]
        elif props:
            name = self.rng.choice(sorted(props))
            schema = props[name]
            if roll < 0.55:
                args[name] = self._extreme(schema, defs)
            elif roll < 0.65:
                args[name] = self.rng.choice(self.hostile)
            else:
                args[name] = self.value(schema, defs, 0, name)
        return args

    def arguments(self, parameters: dict[str, Any]) -> Any:
        """One argument object (occasionally not an object at all) for a tool's ``parameters``."""
        roll = self.rng.random()
        if roll < 0.03:
            return self.rng.choice([None, [], "not an object", 7, _circular_dict(), {1: 2}, {"\ud83d": 1}])
        defs = parameters.get("$defs", {})
        args = self._object(parameters, defs, depth=0)
        if roll < 0.10 and args:
            del args[self.rng.choice(sorted(args))]
        elif roll < 0.16:
            args[self.rng.choice(["unexpected", "x" * 300, "\ud83d", "__class__"])] = self._scalar()
        return args

    # ------------------------------------------------------------------ values
    def value(self, schema: dict[str, Any], defs: dict[str, Any], depth: int = 0, name: str = "") -> Any:
        """A value for ``schema`` (the argument ``name``): usually fitting, sometimes extreme or hostile."""
        roll = self.rng.random()
        if roll < self.hostile_rate:
            return self.rng.choice(self.hostile)
        if roll < self.hostile_rate + self.extreme_rate:
            return self._extreme(schema, defs)
        if "$ref" in schema:
            return self.value(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs, depth, name)
        if "anyOf" in schema:
            options = [o for o in schema["anyOf"] if o.get("type") != "null"] or schema["anyOf"]
            return self.value(self.rng.choice(options), defs, depth, name)
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        kind = schema.get("type")
        if kind == "null":
            return None
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "integer":
            return self.rng.choice([0, 1, 1, 2, 3, 5, 10, 20, 100, -1, 9, 50, 10_000, 10**12])
        if kind == "number":
            return self.rng.choice([0.0, 1.5, 10.0, 99.99, -3.0, 121.47, 31.23, 1e9])
        if kind == "string":
            return self._string(schema, name)
        if kind == "array":
            if depth > 4:
                return []
            items = schema.get("items", {})
            return [self.value(items, defs, depth + 1, name) for _ in range(self.rng.choice([0, 1, 1, 2, 3]))]
        if kind == "object":
            return self._object(schema, defs, depth + 1)
        return self._scalar()

    def _object(self, schema: dict[str, Any], defs: dict[str, Any], depth: int) -> dict[str, Any]:
        props: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if name in required or self.rng.random() < 0.4:
                out[name] = self.value(sub, defs, depth, name)
        extra = schema.get("additionalProperties")
        if not props and depth < 6:
            keys = _keys_of(schema) or ["type", "text", "name", "id"]
            for _ in range(self.rng.choice([0, 1, 2, 3, 4])):
                key = self.rng.choice(keys) if self.rng.random() < 0.85 else self._string({})
                if isinstance(extra, dict) and extra:
                    out[key] = self.value(extra, defs, depth + 1, key)
                else:
                    out[key] = self._free(depth + 1, key, keys)
        return out

    def _free(self, depth: int, name: str, keys: list[str]) -> Any:
        """A value of any JSON type (for free-form objects), shaped like their neighbours."""
        roll = self.rng.random()
        if roll < 0.05:
            return self.rng.choice(self.hostile)
        if roll < 0.35:
            return self._string({}, name)
        if roll < 0.5:
            return self.rng.choice([0, 1, 2, 7, -1, 3.5, 100, 10**6, 2**63 - 1])
        if roll < 0.6:
            return self.rng.choice([True, False, None])
        if depth > 5:
            return "leaf"
        if roll < 0.75:
            return [self._free(depth + 1, name, keys) for _ in range(self.rng.choice([0, 1, 2]))]
        return {self.rng.choice(keys): self._free(depth + 1, name, keys) for _ in range(self.rng.choice([1, 1, 2, 3]))}

    def _extreme(self, schema: dict[str, Any], defs: dict[str, Any]) -> Any:
        """A value of the schema's own type at the edge of what is sane."""
        if "$ref" in schema:
            return self._extreme(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs)
        if "anyOf" in schema:
            return self._extreme(self.rng.choice(schema["anyOf"]), defs)
        kind = schema.get("type")
        if kind == "integer":
            return self.rng.choice([2**63 - 1, -(2**63), 2**63, 10**4999, -(10**30), 2**31, -1, 0])
        if kind == "number":
            return self.rng.choice([1e308, -1e308, 5e-324, float("inf"), 2**63, 10**4999])
        if kind == "string":
            return self.rng.choice(_EXTREME_STRINGS)
        if kind == "array":
            item = self.value(schema.get("items", {}), defs, 5)
            return self.rng.choice([[item] * 5000, [item, item], [None], [[item]]])
        if kind == "object":
            out = self._object(schema, defs, 5)
            out[self.rng.choice(["extra", "%", "\ud83d", "x" * 200])] = self.rng.choice(self.hostile)
            return out
        return self.rng.choice(self.hostile)

    def _string(self, schema: dict[str, Any], name: str = "") -> str:
        if _DATE_NAME.search(name) and self.rng.random() < 0.6:
            return self.rng.choice(_DATES)
        known = self.columns.get(name) or self.columns.get(name.rsplit("_", 1)[-1] if "_" in name else "")
        if known and self.rng.random() < 0.6:
            return self.rng.choice(known)
        words = re.findall(r"[A-Za-z][A-Za-z0-9_:\-]+", str(schema.get("description", "")))
        roll = self.rng.random()
        if words and roll < 0.3:
            word = self.rng.choice(words)
            return word.upper() if self.rng.random() < 0.3 else word
        if roll < 0.85:
            return self.rng.choice(self.strings)
        return self.rng.choice(["", "2026-05-01", "2026-05-01T10:00:00+08:00", "a@b.example", "Tokyo", "100"])

    def _scalar(self) -> Any:
        return self.rng.choice([None, 1, "x", True, 2.5, [], {}])


def _keys_of(schema: dict[str, Any]) -> list[str]:
    """Identifier-like words of a schema's description (the keys a free-form object takes)."""
    words = re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*\b", str(schema.get("description", "")))
    return sorted({w for w in words if len(w) > 2})


def harvest_strings(rows: Iterable[dict[str, Any]], limit: int = 400, rng: random.Random | None = None) -> list[str]:
    """Short distinct strings from database rows, sorted (then sampled with ``rng``)."""
    found = sorted({v for row in rows for v in row.values() if isinstance(v, str) and 0 < len(v) <= 60})
    if rng is not None and len(found) > limit:
        return rng.sample(found, limit)
    return found[:limit]


def result_problems(result: Any) -> list[str]:
    """What is wrong with a tool result, from the conformance rules; ``[]`` when nothing."""
    problems = []
    try:
        json.dumps(result, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        problems.append(f"result is not JSON-encodable text ({type(exc).__name__})")
    if not (isinstance(result, dict) and "error" in result and "code" in result):
        return problems
    code, message = result["code"], result["error"]
    if code not in ERROR_CODES:
        problems.append(f"code {code!r} is not in the vocabulary")
    if code == "INTERNAL_ERROR":
        problems.append(f"internal error: {message}")
    elif not isinstance(message, str) or len(message) > MAX_FUZZ_MESSAGE_CHARS:
        problems.append(f"message of {len(str(message))} characters is too long")
    elif LEAK_PATTERN.search(message):
        problems.append(f"message leaks Python internals: {message[:200]!r}")
    return problems


def is_error(result: Any) -> bool:
    """True for ``{"error": ..., "code": ...}`` results."""
    return isinstance(result, dict) and "error" in result and "code" in result


@dataclass
class FuzzReport:
    """What a fuzzing run saw.

    Attributes:
        calls: Tool calls made.
        errors: Calls that returned an error result.
        codes: How often each error code came back.
        problems: One line per broken rule (empty when the tools conform).
    """

    calls: int = 0
    errors: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def world_values(world: Any, rng: random.Random, limit: int = 400) -> tuple[list[str], dict[str, list[str]]]:
    """Realistic strings (ids, names, dates) from every table of a world's services.

    Returns:
        A sample of all short strings, and the short strings of each column name.
    """
    rows: list[dict[str, Any]] = []
    for name in sorted(world.services):
        svc = world.services[name]
        tables = [r["name"] for r in svc.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for table in tables:
            rows.extend(svc.query(f'SELECT * FROM "{table}" LIMIT 50'))
    columns: dict[str, set[str]] = {}
    for row in rows:
        for key, value in row.items():
            if isinstance(value, str) and 0 < len(value) <= 60:
                columns.setdefault(key, set()).add(value)
    return harvest_strings(rows, limit, rng), {k: sorted(v) for k, v in sorted(columns.items())}


def fuzz_world(
    world: Any, rng: random.Random, calls: int, tools: Sequence[str] | None = None, **fuzzer_options: float
) -> FuzzReport:
    """Call the world's tools ``calls`` times with fuzzed arguments and check every rule.

    Args:
        world: A :class:`vibelife_env.world.World` (anything with ``call``, ``digest``,
            ``tool_schemas`` and ``services``).
        rng: The only source of randomness.
        calls: How many calls to make.
        tools: Agent-facing tool names to fuzz; by default every tool of the world's
            services and of the workspace.
        **fuzzer_options: ``hostile_rate`` and ``extreme_rate`` of :class:`ArgumentFuzzer`.

    Returns:
        The report; ``report.problems`` lists every broken rule.
    """
    schemas = {s["function"]["name"]: s["function"]["parameters"] for s in world.tool_schemas()}
    if tools is None:
        providers = (*world.services, "workspace")
        tools = [n for n in schemas if n.split("__", 1)[0] in providers]
    names = sorted(tools)
    strings, columns = world_values(world, rng)
    fuzzer = ArgumentFuzzer(rng, strings, columns, **fuzzer_options)
    report = FuzzReport()
    digest = world.digest()
    worked: dict[str, list[dict[str, Any]]] = {}
    for _ in range(calls):
        name = rng.choice(names)
        if worked.get(name) and rng.random() < 0.5:
            args = fuzzer.mutate(schemas[name], rng.choice(worked[name]))
        else:
            args = fuzzer.arguments(schemas[name])
        report.calls += 1
        try:
            result = world.call(name, args)
        except Exception as exc:  # the rule under test: nothing may escape
            report.problems.append(f"{name}: raised {type(exc).__name__}: {str(exc)[:200]} (args {short_repr(args)})")
            digest = world.digest()
            continue
        report.problems.extend(f"{name}: {p} (args {short_repr(args)})" for p in result_problems(result))
        try:
            after = world.digest()
        except Exception as exc:  # state no digest can read is itself a broken rule
            report.problems.append(f"{name}: the world cannot be digested after the call ({type(exc).__name__})")
            return report
        if not is_error(result) and isinstance(args, dict) and len(worked.setdefault(name, [])) < 30:
            worked[name].append(args)
        if is_error(result):
            report.errors += 1
            report.codes[str(result["code"])] += 1
            if after != digest:
                report.problems.append(f"{name}: a failed call changed the world (args {short_repr(args)})")
        digest = after
    return report
