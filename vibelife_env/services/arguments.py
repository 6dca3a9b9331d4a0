"""Screening of raw tool arguments: only bounded JSON data reaches a tool.

Agents send JSON, but the environment is also driven from Python (oracles, rubrics,
tests), where anything can arrive: integers SQLite cannot store, ``set`` or ``bytes``
values, circular or absurdly deep structures, strings with lone surrogates that break
UTF-8 encoding later. :func:`screen_arguments` walks the arguments once, without
recursion, and refuses such input with ``BAD_ARG`` naming the argument, before the
pydantic model sees it. :func:`describe_validation_error` turns a pydantic error into a
bounded message; :func:`short_repr` echoes a value without ever printing all of it.
"""

from __future__ import annotations

import math
import numbers
import reprlib
from typing import Any

import pydantic

from vibelife_env.errors import ToolError

#: Integers must fit SQLite's signed 64-bit INTEGER.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
#: Longest string accepted in any argument (a workspace file is at most 200,000 characters).
MAX_STRING_CHARS = 1_000_000
#: Deepest nesting of arrays and objects inside one call's arguments.
MAX_DEPTH = 32
#: Most values (scalars and containers) in one call's arguments.
MAX_VALUES = 100_000
#: Problems listed in one validation message (the rest are counted).
MAX_PROBLEMS = 3

_JSON_TYPES = "JSON data (object, array, string, number, boolean or null)"


class _ShortRepr(reprlib.Repr):
    """``reprlib`` limits, plus integers too large to print."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 2
        self.maxstring = 40
        self.maxother = 40
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = self.maxfrozenset = 4

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 64:
            return f"<integer of about {int(x.bit_length() * 0.30103) + 1} digits>"
        return repr(x)

    def repr_str(self, x: str, level: int) -> str:
        if len(x) > self.maxstring:
            shown = repr(x[: self.maxstring - 10])[:-1]
            return f"{shown}…' ({len(x)} characters)"
        return repr(x)


_REPR = _ShortRepr()


def short_repr(value: Any) -> str:
    """A bounded ``repr`` (a few dozen characters) safe for any value, even circular ones."""
    try:
        return _REPR.repr(value)
    except Exception as exc:  # a hostile __repr__; say what it was instead
        return f"<{type(value).__name__} (unprintable: {type(exc).__name__})>"


def _where(path: tuple[str | int, ...]) -> str:
    name = str(path[0])
    for part in path[1:]:
        name += f"[{part}]" if isinstance(part, int) else f".{part}"
    return name if len(name) <= 80 else name[:77] + "..."


def _check_text(text: str, path: tuple[str | int, ...], what: str) -> None:
    if len(text) > MAX_STRING_CHARS:
        raise ToolError(
            "BAD_ARG", f"argument {_where(path)!r}: {what} of {len(text)} characters exceeds {MAX_STRING_CHARS}"
        )
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ToolError(
                "BAD_ARG",
                f"argument {_where(path)!r}: {what} holds a lone surrogate code point at index {exc.start} "
                "(not valid Unicode text); send UTF-8 text",
            ) from None


def _check_scalar(value: Any, path: tuple[str | int, ...]) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, numbers.Integral):  # numpy integers from Python callers too
        if not INT_MIN <= int(value) <= INT_MAX:
            raise ToolError(
                "BAD_ARG",
                f"argument {_where(path)!r}: {short_repr(value)} is out of range (a 64-bit integer is expected)",
            )
    elif isinstance(value, numbers.Real):
        if not math.isfinite(float(value)):
            raise ToolError("BAD_ARG", f"argument {_where(path)!r}: expected a finite number, got {value!r}")
    elif isinstance(value, str):
        _check_text(value, path, "string")
    else:
        raise ToolError("BAD_ARG", f"argument {_where(path)!r}: expected {_JSON_TYPES}, got {type(value).__name__}")


def screen_arguments(args: dict[Any, Any]) -> None:
    """Refuse arguments that are not bounded JSON data.

    Checks, without recursion: every key is a string, values are JSON types (tuples pass
    as arrays, numpy numbers as numbers), integers fit 64 bits, floats are finite, strings are valid Unicode and at
    most :data:`MAX_STRING_CHARS` long, nesting is at most :data:`MAX_DEPTH` deep, there
    are at most :data:`MAX_VALUES` values and no container contains itself.

    Raises:
        ToolError: ``BAD_ARG`` naming the first offending argument (with its path inside
            the argument, e.g. ``passengers[0].given_name``).
    """
    stack: list[tuple[Any, tuple[str | int, ...], int] | int] = []
    for key, value in args.items():
        if not isinstance(key, str):
            raise ToolError("BAD_ARG", f"argument names must be strings, got {short_repr(key)}")
        _check_text(key, (key[:40],), "the argument name")
        stack.append((value, (key,), 1))
    stack.reverse()
    on_path: set[int] = set()
    seen = 0
    while stack:
        item = stack.pop()
        if isinstance(item, int):  # leaving a container
            on_path.discard(item)
            continue
        value, path, depth = item
        seen += 1
        if seen > MAX_VALUES:
            raise ToolError("BAD_ARG", f"arguments hold more than {MAX_VALUES} values; send less data")
        if not isinstance(value, (dict, list, tuple)):
            _check_scalar(value, path)
            continue
        if depth > MAX_DEPTH:
            raise ToolError("BAD_ARG", f"argument {_where(path)!r}: nested deeper than {MAX_DEPTH} levels")
        if id(value) in on_path:
            raise ToolError("BAD_ARG", f"argument {_where(path)!r}: contains itself (a circular reference)")
        on_path.add(id(value))
        stack.append(id(value))
        if isinstance(value, dict):
            children: list[tuple[Any, tuple[str | int, ...], int]] = []
            for key, child in value.items():
                if not isinstance(key, str):
                    raise ToolError(
                        "BAD_ARG", f"argument {_where(path)!r}: object keys must be strings, got {short_repr(key)}"
                    )
                _check_text(key, (*path, key[:40]), "a key")
                children.append((child, (*path, key), depth + 1))
        else:
            children = [(child, (*path, i), depth + 1) for i, child in enumerate(value)]
        stack.extend(reversed(children))


def describe_validation_error(tool_name: str, exc: pydantic.ValidationError) -> str:
    """One clause per problem (at most :data:`MAX_PROBLEMS`), naming the argument and what was expected."""
    errors = exc.errors(include_url=False, include_context=False)
    parts = []
    for err in errors[:MAX_PROBLEMS]:
        loc = _where(tuple(err["loc"])) if err["loc"] else "arguments"
        if err["type"] == "missing":
            parts.append(f"missing required argument {loc!r}")
        elif err["type"] == "extra_forbidden":
            parts.append(f"unexpected argument {loc!r}")
        else:
            parts.append(f"argument {loc!r}: {err['msg']} (got {short_repr(err.get('input'))})")
    if len(errors) > MAX_PROBLEMS:
        parts.append(f"and {len(errors) - MAX_PROBLEMS} more problems")
    return f"{tool_name}: " + "; ".join(parts)
