"""Stage files parsed once per scoring pass: the ``json`` the release rubric modules see.

Release rubric helpers re-read and re-parse every stage's trace file each time they are
called: the pottery task's ``_strict_tool_pairs`` parses all 25 trace files on each of
~185 calls of a pass, the garage task's ``any_trace`` re-serializes every row on each
call. Within a pass a stage file never changes, so the work is done once:

- ``env.workspace.fs.read_file`` returns the same :class:`StageBytes` object (a ``bytes``
  subclass) for a stage file for the whole pass, and its :meth:`StageBytes.decode` the
  same plain ``str`` for the same arguments;
- the rubric modules' ``json`` (:data:`RUBRIC_JSON`, put in place by :func:`install`)
  parses such an object once per pass (:class:`ParseMemo`) and hands every caller the
  same structure; ``json.dumps`` of that structure or of one of its rows is serialized
  once per pass and set of arguments.

Every other call goes to :mod:`json` unchanged, and outside a scoring pass (no
:func:`parse_scope`) nothing is shared. Sharing gives the same results as parsing afresh
as long as no rubric changes what it parsed in place; none of the public rubrics does
(helpers that add keys copy the row first, ``dict(row)``). :data:`FROZEN` (set
``VIBELIFE_FROZEN_PARSES=1``) hands out structures whose mutating methods raise
:class:`ParsedMutationError` instead, to catch a rubric that would
(``benchmarks/bench_scoring.py --verify`` scores every public bundle that way).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
from collections.abc import Iterator
from contextvars import ContextVar
from types import ModuleType
from typing import Any

#: Debug switch: shared parses are read-only (mutating them raises :class:`ParsedMutationError`).
FROZEN = os.environ.get("VIBELIFE_FROZEN_PARSES", "") not in ("", "0")

_PASS: ContextVar[ParseMemo | None] = ContextVar("vibelife_rubric_pass", default=None)


class ParsedMutationError(TypeError):
    """Rubric code changed a stage-file structure shared by the whole pass (debug mode only)."""


class StageBytes(bytes):
    """A stage file's bytes as ``fs.read_file`` returns them, tied to the pass's :class:`ParseMemo`.

    ``decode`` returns one ``str`` per ``(encoding, errors)``, registered with the memo
    so that ``json.loads`` of it is shared too.
    """

    _memo: ParseMemo
    _texts: dict[tuple[str, str], str]

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        """``bytes.decode``, the same ``str`` object for the same arguments."""
        key = (encoding, errors)
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = bytes.decode(self, encoding, errors)
            self._memo.share(text)
        return text


class ParseMemo:
    """One scoring pass's parses of its stage files (see the module docstring).

    Args:
        frozen: Hand out read-only structures (:data:`FROZEN` by default).

    Attributes:
        parses: Stage files parsed so far in the pass.
    """

    def __init__(self, frozen: bool | None = None) -> None:
        self.frozen = FROZEN if frozen is None else frozen
        self._sources: dict[int, bytes | str] = {}  # id -> the stage bytes or text (kept alive)
        self._parsed: dict[int, Any] = {}  # id(source) -> its structure
        self._shared: dict[int, Any] = {}  # id -> a shared structure or one of its rows
        self._dumped: dict[tuple[int, Any], str] = {}
        self.parses = 0

    def stage_bytes(self, data: bytes) -> StageBytes:
        """``data`` as the :class:`StageBytes` of this pass."""
        out = StageBytes(data)
        out._memo = self
        out._texts = {}
        self.share(out)
        return out

    def share(self, source: bytes | str) -> None:
        """Parse ``source`` at most once in this pass (it is a stage file's bytes or text)."""
        self._sources[id(source)] = source

    def loads(self, s: Any, **kwargs: Any) -> Any:
        """``json.loads``; shared when ``s`` is a stage file's bytes or text and no options are given."""
        if kwargs or self._sources.get(id(s)) is not s:
            return json.loads(s, **kwargs)
        key = id(s)
        if key not in self._parsed:
            value = json.loads(self._sources[key])
            self.parses += 1
            if self.frozen:
                value = freeze(value)
            self._parsed[key] = value
            self._shared[id(value)] = value
            if isinstance(value, list):
                self._shared.update((id(row), row) for row in value)
        return self._parsed[key]

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        """``json.dumps``; serialized once per pass for a shared structure or row and the same options."""
        if self._shared.get(id(obj)) is not obj:
            return json.dumps(obj, **kwargs)
        try:
            key = (id(obj), tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:  # unhashable options
            return json.dumps(obj, **kwargs)
        text = self._dumped.get(key)
        if text is None:
            text = self._dumped[key] = json.dumps(obj, **kwargs)
        return text


@contextlib.contextmanager
def parse_scope(memo: ParseMemo) -> Iterator[None]:
    """Run rubric code with ``memo`` as the pass whose stage files :data:`RUBRIC_JSON` shares."""
    token = _PASS.set(memo)
    try:
        yield
    finally:
        _PASS.reset(token)


def _loads(s: Any, **kwargs: Any) -> Any:
    memo = _PASS.get()
    return json.loads(s, **kwargs) if memo is None else memo.loads(s, **kwargs)


def _dumps(obj: Any, **kwargs: Any) -> str:
    memo = _PASS.get()
    return json.dumps(obj, **kwargs) if memo is None else memo.dumps(obj, **kwargs)


class _RubricJSON(ModuleType):
    """:mod:`json` with a shared ``loads`` and ``dumps`` (every other name is the real module's)."""

    loads = staticmethod(_loads)
    dumps = staticmethod(_dumps)

    def __getattr__(self, name: str) -> Any:
        return getattr(json, name)


#: The ``json`` of the release rubric modules.
RUBRIC_JSON = _RubricJSON("json", json.__doc__)


def install(module: ModuleType) -> None:
    """Give ``module`` :data:`RUBRIC_JSON` as its ``json`` (when it imported :mod:`json` as ``json``)."""
    if getattr(module, "json", None) is json:
        module.json = RUBRIC_JSON  # type: ignore[attr-defined]


# ------------------------------------------------------------------ debug mode
def _refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise ParsedMutationError("a rubric changed a parsed stage file in place; parses are shared within a scoring pass")


class FrozenList(list[Any]):
    """A list whose mutating methods raise :class:`ParsedMutationError` (copies are plain lists)."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return copy.deepcopy(list(self), memo)


class FrozenDict(dict[Any, Any]):
    """A dict whose mutating methods raise :class:`ParsedMutationError` (copies are plain dicts)."""

    __setitem__ = __delitem__ = __ior__ = _refuse
    pop = popitem = clear = update = setdefault = _refuse

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return copy.deepcopy(dict(self), memo)


def freeze(value: Any) -> Any:
    """``value`` with every list and dict replaced by its read-only kind."""
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return FrozenList(freeze(v) for v in value)
    return value
