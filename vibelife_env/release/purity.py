"""Memoize the pure text helpers of release rubric modules.

Rubric helpers normalize the same few tool names hundreds of thousands of times per
scoring pass: the pottery task's ``_normalized_tool_name`` runs a regex over both rows of
every call in every trace file, on each of ~185 calls of ``_strict_tool_pairs`` in one
pass. A function whose result can only depend on its arguments may instead be called once
per distinct argument tuple.

:func:`pure_functions` reads a module's source with :mod:`ast` and keeps its module-level
functions that

- read no name but their parameters and locals, a few builtins (:data:`BUILTINS`),
  :mod:`re` (only the attributes in :data:`RE_NAMES`), module-level constants (bound once,
  never by ``global``, to a literal, a tuple or frozenset of literals, or an
  ``re.compile`` pattern) and other functions of the module that qualify;
- hold no ``global``, ``nonlocal``, nested ``def``/``class``, ``import``, ``with``,
  ``del``, ``yield``/``await`` or ``*`` unpacking, touch no dunder attribute and no
  attribute of a module function; have no decorator and only constant defaults;
- do enough work to be worth a lookup: they loop or use a regular expression (or call a
  function that does); and are not recursive (a wrapper frame per level would halve the
  nesting depth they handle before Python's recursion limit).

So such a function can only compute from its arguments and objects it creates, whatever
methods it calls on them. :class:`PackageMemos` rebinds those functions, in every module
of a rubric package, to a :func:`pure_memo` wrapper. A call whose arguments are all
``str`` (together at most :data:`MAX_CHARS` characters), ``int``, ``bool`` or ``None``
is looked up by argument values and types, and its result is kept if immutable (those
types, ``float``, tuples and frozensets of them); every other call goes to the function
unchanged. A pure function called with equal immutable arguments returns equal values,
so the checks see the same results.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Iterable
from types import FunctionType, ModuleType
from typing import Any

#: Builtins a pure helper may call or read.
BUILTINS = frozenset(
    {
        "str", "int", "float", "bool", "len", "min", "max", "abs", "round", "sorted", "reversed", "tuple",
        "list", "dict", "set", "frozenset", "any", "all", "isinstance", "enumerate", "zip", "range", "map",
        "filter", "sum", "repr", "ord", "chr", "divmod", "format", "ValueError", "TypeError", "Exception",
        "True", "False", "None",
    }
)  # fmt: skip
#: Attributes of :mod:`re` a pure helper may use.
RE_NAMES = frozenset(
    {"sub", "subn", "match", "search", "fullmatch", "findall", "finditer", "split", "escape", "compile"}
    | {"I", "IGNORECASE", "S", "DOTALL", "M", "MULTILINE", "X", "VERBOSE", "U", "UNICODE", "A", "ASCII"}
)
_SCALARS = (str, int, float, bool, type(None))
#: Argument types a call is cached for (not ``float``: ``0.0 == -0.0`` but they print apart).
_KEYS = (str, int, bool, type(None))
#: Results a :func:`pure_memo` keeps, and the longest total string arguments it caches.
MAX_ENTRIES = 65_536
MAX_CHARS = 512
_FORBIDDEN = (
    ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.FunctionDef, ast.AsyncFunctionDef,
    ast.ClassDef, ast.With, ast.AsyncWith, ast.Import, ast.ImportFrom, ast.Delete, ast.Starred,
)  # fmt: skip


def _immutable(value: Any) -> bool:
    if isinstance(value, _SCALARS):
        return True
    if isinstance(value, (tuple, frozenset)):
        return all(_immutable(v) for v in value)
    return False


def _constants(tree: ast.Module, namespace: dict[str, Any]) -> tuple[set[str], set[str], set[str]]:
    """Module-level names bound once: immutable constants, compiled patterns, and the ``re`` module."""
    bound: dict[str, int] = {}
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    bound[n.id] = bound.get(n.id, 0) + 1
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] = bound.get(node.name, 0) + 1
    for rebinding in ast.walk(tree):  # a name some function rebinds is no constant
        if isinstance(rebinding, (ast.Global, ast.Nonlocal)):
            for name in rebinding.names:
                bound[name] = bound.get(name, 0) + 2
    constants: set[str] = set()
    patterns: set[str] = set()
    for name, count in bound.items():
        value = namespace.get(name, inspect.Parameter.empty)
        if count != 1 or value is inspect.Parameter.empty:
            continue
        if isinstance(value, re.Pattern):
            patterns.add(name)
        elif _immutable(value):
            constants.add(name)
    modules = {n for n, v in namespace.items() if v is re and n not in bound}
    return constants, patterns, modules


def _plain(fn: Any, func: ast.FunctionDef) -> bool:
    """``fn`` is the undecorated function ``func`` defines, with constant defaults only."""
    if not isinstance(fn, FunctionType) or func.decorator_list:
        return False
    if fn.__name__ != func.name or fn.__code__.co_firstlineno != func.lineno:
        return False
    defaults = (*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values())
    return all(_immutable(d) for d in defaults)


def _locals(func: ast.FunctionDef) -> set[str]:
    args = func.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    for node in ast.walk(ast.Module(body=func.body, type_ignores=[])):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


class _Reader:
    """Decides whether one function body is pure (see the module docstring)."""

    def __init__(self, functions: set[str], constants: set[str], patterns: set[str], re_names: set[str]) -> None:
        self.functions = functions
        self.constants = constants
        self.patterns = patterns
        self.re_names = re_names

    def check(self, func: ast.FunctionDef, fn: Any) -> tuple[bool, set[str], bool]:
        """``(pure, module functions it calls, worth caching)`` for ``func`` (bound as ``fn``)."""
        impure: tuple[bool, set[str], bool] = (False, set(), False)
        body = ast.Module(body=func.body, type_ignores=[])
        if not _plain(fn, func) or any(isinstance(n, _FORBIDDEN) for n in ast.walk(body)):
            return impure
        local = _locals(func)
        objects = {id(n.value) for n in ast.walk(body) if isinstance(n, ast.Attribute)}
        calls: set[str] = set()
        costly = False
        for node in ast.walk(body):
            if isinstance(node, (ast.For, ast.While, ast.comprehension)):
                costly = True
            elif isinstance(node, ast.Attribute):
                base = node.value.id if isinstance(node.value, ast.Name) and node.value.id not in local else None
                if node.attr.startswith("__") or base in self.functions:
                    return impure
                if base in self.re_names and node.attr not in RE_NAMES:
                    return impure
                costly = costly or base in self.re_names or base in self.patterns
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
                if node.id in self.functions:
                    calls.add(node.id)
                elif node.id in self.re_names or node.id in self.patterns:
                    if id(node) not in objects:  # only as ``re.sub(...)`` or ``_PATTERN.search(...)``
                        return impure
                elif node.id not in self.constants and node.id not in BUILTINS:
                    return impure
        return True, calls, costly


def pure_functions(module: ModuleType) -> set[str]:
    """Names of ``module``'s functions that may be memoized (see the module docstring)."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return set()
    namespace = vars(module)
    constants, patterns, re_names = _constants(tree, namespace)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    reader = _Reader(set(defs), constants, patterns, re_names)
    facts = {name: reader.check(func, namespace.get(name)) for name, func in defs.items()}
    pure = {name for name, (ok, _, _) in facts.items() if ok}
    changed = True
    while changed:  # a function is pure only if everything it calls is
        changed = False
        for name in list(pure):
            if not facts[name][1] <= pure:
                pure.discard(name)
                changed = True
    worth = {name for name in pure if facts[name][2] or any(facts[c][2] for c in facts[name][1])}
    return {name for name in worth if not _recursive(name, {n: f[1] for n, f in facts.items()})}


def _recursive(name: str, calls: dict[str, set[str]]) -> bool:
    """``name`` can call itself (directly or through other module functions)."""
    seen: set[str] = set()
    todo = list(calls.get(name, ()))
    while todo:
        callee = todo.pop()
        if callee == name:
            return True
        if callee not in seen:
            seen.add(callee)
            todo.extend(calls.get(callee, ()))
    return False


def pure_memo(fn: Callable[..., Any], max_entries: int = MAX_ENTRIES, max_chars: int = MAX_CHARS) -> Callable[..., Any]:
    """``fn`` (a pure function) called once per distinct tuple of small immutable scalar arguments.

    The wrapper keeps ``fn`` as ``__wrapped__`` and its results as ``cache``; the cache is
    cleared when it holds ``max_entries`` results, and calls whose string arguments are
    longer than ``max_chars`` in total go to ``fn`` uncached.
    """
    cache: dict[Any, Any] = {}

    def keep(key: Any, value: Any) -> Any:
        if _immutable(value):
            if len(cache) >= max_entries:
                cache.clear()
            cache[key] = value
        return value

    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            return fn(*args, **kwargs)
        if len(args) == 1 and type(args[0]) is str:  # the common case: one short text
            if len(args[0]) > max_chars:
                return fn(*args)
            key: Any = args[0]
        else:
            chars = 0
            for a in args:
                kind = type(a)
                if kind is str:
                    chars += len(a)
                elif kind not in _KEYS:
                    return fn(*args)
            if chars > max_chars:
                return fn(*args)
            key = (*args, *map(type, args))
        try:
            return cache[key]
        except KeyError:
            return keep(key, fn(*args))

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    call.__name__ = getattr(fn, "__name__", "pure")
    call.__qualname__ = getattr(fn, "__qualname__", call.__name__)
    call.__doc__ = getattr(fn, "__doc__", None)
    call.__module__ = getattr(fn, "__module__", __name__)
    call.cache = cache  # type: ignore[attr-defined]
    return call


class PackageMemos:
    """The memoized pure functions of one rubric package, put in place as its modules load."""

    def __init__(self) -> None:
        self._memos: dict[int, Callable[..., Any]] = {}
        self._seen: set[str] = set()

    @property
    def memos(self) -> dict[str, Callable[..., Any]]:
        """The memoized functions by qualified name."""
        return {f"{m.__module__}.{m.__name__}": m for m in self._memos.values()}

    def install(self, modules: Iterable[ModuleType]) -> None:
        """Memoize the pure functions of the modules not seen yet and rebind them in those
        modules (``from ._helpers import *`` copies a helper into each tier module)."""
        new = [m for m in modules if m.__name__ not in self._seen]
        for module in new:
            namespace = vars(module)
            for name in pure_functions(module):
                fn = namespace[name]
                if isinstance(fn, FunctionType) and fn.__module__ == module.__name__:
                    self._memos.setdefault(id(fn), pure_memo(fn))
        for module in new:
            namespace = vars(module)
            for name, value in list(namespace.items()):
                memo = self._memos.get(id(value))
                if memo is not None and memo.__wrapped__ is value:  # type: ignore[attr-defined]
                    namespace[name] = memo
            self._seen.add(module.__name__)
