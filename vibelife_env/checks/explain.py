"""Why a check failed: the first condition that was false, with the values it saw.

A check is ordinary Python (``return quarantined(ctx, ids) and warned and not paid(ctx)``).
When one fails, :func:`explain` runs it once more, on the same read-only view, as an
*instrumented copy*: the function's own source, parsed, with every ``and``/``or``/``not``,
comparison, call, ``if`` test, local assignment and ``return`` rewritten into a hook that
evaluates it exactly as Python would (same order, same short-circuits, same values) and
records what it saw. The recording then answers: which operand of the returned ``and``
was false, what a comparison compared, which ``if`` led to a ``return False``, what a
local was assigned from. A failing call into another function of the project is
explained the same way, a few levels deep, and a :class:`~vibelife_env.checks.verdict.Verdict`
(what library predicates return) gives its own reason. So every check written with the
check library explains itself; nobody writes reasons into each check by hand.

Example::

    `state.quarantined(ctx, [self.message_id])` is false: <fee@scam.example> is in INBOX, not in Spam

Checks are read-only and deterministic, so the second run sees what the first saw; the
explanation never changes a verdict (it runs after the verdict is frozen), and anything
it cannot instrument (a lambda spread over lines, a generator, source not on disk) falls
back to a plainer reason rather than failing.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import contextvars
import dataclasses
import functools
import inspect
import textwrap
import types
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

from vibelife_env.checks.verdict import Verdict, reason_of

#: How deep :func:`explain` follows a failing call into the project's own functions.
MAX_DEPTH = 3

#: The longest reason :func:`explain` returns (characters).
MAX_REASON = 900

_ROOTS = (Path(__file__).resolve().parents[2],)  # the checkout: vibelife_env/ and tasks/

_COMPS = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)

#: Builtins whose one argument an explanation looks into.
_WRAPPERS = frozenset({"bool", "len", "any", "all", "sum", "list", "set", "tuple", "sorted", "max", "min"})


# --------------------------------------------------------------------------- values
def short(value: Any, limit: int = 120) -> str:
    """A compact, deterministic rendering of a value for a reason."""
    text = _render(value, limit)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _render(value: Any, limit: int) -> str:
    if isinstance(value, Verdict):
        return f"{value.passed}" + (f" ({value.reason})" if value.reason else "")
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else repr(value[: limit - 20]) + f"… ({len(value)} chars)"
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
        if not items:
            return "nothing (empty)"
        shown = ", ".join(_render(v, 60) for v in items[:3])
        more = f", … ({len(items)} in all)" if len(items) > 3 else ""
        return f"[{shown}{more}]"
    if isinstance(value, dict):
        if not value:
            return "{} (empty)"
        parts = [f"{k}: {_render(v, 40)}" for k, v in list(value.items())[:4]]
        return "{" + ", ".join(parts) + (", …" if len(value) > 4 else "") + "}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [f"{f.name}={_render(getattr(value, f.name), 30)}" for f in dataclasses.fields(value)[:4]]
        return f"{type(value).__name__}({', '.join(fields)})"
    if type(value).__name__ == "CheckContext":
        return "ctx"
    if callable(value):
        return getattr(value, "__qualname__", type(value).__name__)
    text = repr(value)
    return text if " at 0x" not in text else f"<{type(value).__name__}>"


# ----------------------------------------------------------------------- recording
@dataclasses.dataclass
class _Node:
    kind: str  # and, or, not, cmp, call, ret, test, let, leaf
    src: str
    children: tuple[int, ...] = ()
    name: str = ""  # let: the local assigned; items: "for" for a loop's iterable
    args: tuple[str, ...] = ()  # call: the source of each positional argument


class _Recorder:
    """What one instrumented run saw: the last value per node, and per-node detail."""

    def __init__(self) -> None:
        self.values: dict[int, Any] = {}
        self.extra: dict[int, Any] = {}
        self.bound: dict[str, int] = {}  # local name -> node of the expression it was last assigned
        self.last_return: int | None = None
        self.last_test: int | None = None


_CURRENT: contextvars.ContextVar[_Recorder | None] = contextvars.ContextVar("vibelife_explain", default=None)


class _Hooks:
    """What the instrumented code calls (``__vl__.v(...)``); each records into the current
    recorder and returns its value unchanged, so Python's own ``and``/``or``/comparison
    chains keep their order and short-circuits (no lambdas: scopes and ``:=`` stay as written)."""

    @staticmethod
    def _rec() -> _Recorder:
        rec = _CURRENT.get()
        if rec is None:  # the instrumented copy only ever runs inside explain()
            rec = _Recorder()
        return rec

    def v(self, k: int, value: Any) -> Any:
        self._rec().values[k] = value
        return value

    def part(self, k: int, i: int, kid: int, value: Any) -> Any:
        """Operand ``i`` of the ``and``/``or`` node ``k``: the last one recorded is the one that decided it."""
        rec = self._rec()
        rec.values[kid] = value
        rec.extra[k] = i
        return value

    def call(self, k: int, func: Any, /, *args: Any, **kwargs: Any) -> Any:
        value = func(*args, **kwargs)
        rec = self._rec()
        rec.values[k] = value
        rec.extra[k] = (func, args, kwargs)
        return value

    def items(self, k: int, iterable: Any) -> list[Any]:
        value = list(iterable)
        # a set iterates in a per-process order: the reason shows it sorted (determinism)
        self._rec().values[k] = sorted(value, key=repr) if isinstance(iterable, (set, frozenset)) else value
        return value

    def ret(self, k: int, kid: int, value: Any) -> Any:
        rec = self._rec()
        rec.values[kid] = rec.values[k] = value
        rec.last_return = k
        return value

    def test(self, k: int, kid: int, value: Any) -> Any:
        rec = self._rec()
        rec.values[kid] = value
        rec.last_test = k
        return value

    def let(self, k: int, name: str, kid: int, value: Any) -> Any:
        rec = self._rec()
        rec.values[kid] = value
        rec.bound[name] = kid
        return value


_HOOKS = _Hooks()
_HOOK_NAME = "__vl__"


# ---------------------------------------------------------------------- instrumenting
class _Unsupported(Exception):
    """The function uses a construct the instrumented copy cannot reproduce faithfully."""


class _Instrument(ast.NodeTransformer):
    """Rewrites one function body; see the module docstring. Node ids index :attr:`nodes`."""

    def __init__(self) -> None:
        self.nodes: list[_Node] = []

    def _new(self, kind: str, src: ast.AST | str, **fields: Any) -> int:
        self.nodes.append(_Node(kind, src if isinstance(src, str) else ast.unparse(src), **fields))
        return len(self.nodes) - 1

    @staticmethod
    def _hook(name: str, *args: ast.expr, keywords: list[ast.keyword] | None = None) -> ast.Call:
        return ast.Call(
            func=ast.Attribute(value=ast.Name(id=_HOOK_NAME, ctx=ast.Load()), attr=name, ctx=ast.Load()),
            args=list(args),
            keywords=keywords or [],
        )

    def _count(self, comp: ast.GeneratorExp | ast.ListComp | ast.SetComp | ast.DictComp) -> int:
        """Record the items a comprehension's first ``for`` iterates over; the node id."""
        first = comp.generators[0]
        kid = self._new("items", first.iter)
        first.iter = self._hook("items", ast.Constant(kid), first.iter)
        return kid

    # ------------------------------------------------------------ expressions
    def expr(self, node: ast.expr) -> tuple[ast.expr, int]:
        """The instrumented form of an expression in an explainable position, and its node id."""
        src = ast.unparse(node)
        if isinstance(node, ast.BoolOp):
            kind = "and" if isinstance(node.op, ast.And) else "or"
            parts = [self.expr(v) for v in node.values]
            k = self._new(kind, src, children=tuple(i for _, i in parts))
            values: list[ast.expr] = [
                self._hook("part", ast.Constant(k), ast.Constant(i), ast.Constant(kid), e)
                for i, (e, kid) in enumerate(parts)
            ]
            return self._hook("v", ast.Constant(k), ast.BoolOp(op=node.op, values=values)), k
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner, kid = self.expr(node.operand)
            k = self._new("not", src, children=(kid,))
            operand = self._hook("v", ast.Constant(kid), inner)
            return self._hook("v", ast.Constant(k), ast.UnaryOp(op=ast.Not(), operand=operand)), k
        if isinstance(node, ast.Compare):
            parts = [self.leaf(x) for x in (node.left, *node.comparators)]
            k = self._new("cmp", src, children=tuple(i for _, i in parts))
            hooked: list[ast.expr] = [self._hook("v", ast.Constant(kid), e) for e, kid in parts]
            compare = ast.Compare(left=hooked[0], ops=node.ops, comparators=hooked[1:])
            return self._hook("v", ast.Constant(k), compare), k
        if isinstance(node, ast.IfExp):
            test, kt = self.expr(node.test)
            body, kb = self.expr(node.body)
            orelse, ko = self.expr(node.orelse)
            k = self._new("ifexp", src, children=(kt, kb, ko))
            wrapped = ast.IfExp(
                test=self._hook("v", ast.Constant(kt), test),
                body=self._hook("v", ast.Constant(kb), body),
                orelse=self._hook("v", ast.Constant(ko), orelse),
            )
            return self._hook("v", ast.Constant(k), wrapped), k
        return self.leaf(node)

    def leaf(self, node: ast.expr) -> tuple[ast.expr, int]:
        """A value recorded by its parent; a call is recorded with its function and arguments.

        The one argument of ``bool``/``len``/``any``/``all``/... is instrumented too (a call
        there is recorded, a generator's source is counted), so the reason can say what they
        were given; so is the value of a ``name := value``, which binds the name.
        """
        src = ast.unparse(node)
        if isinstance(node, ast.NamedExpr):
            value, kid = self.expr(node.value)
            k = self._new("let", src, children=(kid,), name=node.target.id)
            bound = self._hook("let", ast.Constant(k), ast.Constant(node.target.id), ast.Constant(kid), value)
            return ast.NamedExpr(target=node.target, value=bound), kid
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id == "super"):
            args = list(node.args)
            arg_src = tuple(ast.unparse(a) for a in args)
            kids: tuple[int, ...] = ()
            if isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS and len(args) == 1 and not node.keywords:
                arg = args[0]
                if isinstance(arg, _COMPS):
                    kids = (self._count(arg),)
                elif not isinstance(arg, ast.Starred):
                    inner, kid = self.expr(arg)
                    args[0] = self._hook("v", ast.Constant(kid), inner)
                    kids = (kid,)
            k = self._new("call", src, children=kids, args=arg_src)
            return self._hook("call", ast.Constant(k), node.func, *args, keywords=node.keywords), k
        if isinstance(node, _COMPS):
            kid = self._count(node)
            return node, self._new("leaf", src, children=(kid,))
        return node, self._new("leaf", src)

    # ------------------------------------------------------------ statements
    def visit_Return(self, node: ast.Return) -> ast.AST:
        if node.value is None:
            return node
        src = ast.unparse(node.value)
        value, kid = self.expr(node.value)
        k = self._new("ret", src, children=(kid,))
        return ast.Return(value=self._hook("ret", ast.Constant(k), ast.Constant(kid), value))

    def visit_If(self, node: ast.If) -> ast.AST:
        src = ast.unparse(node.test)
        test, kid = self.expr(node.test)
        k = self._new("test", src, children=(kid,))
        node.test = self._hook("test", ast.Constant(k), ast.Constant(kid), test)
        node.body = [self.visit(s) for s in node.body]
        node.orelse = [self.visit(s) for s in node.orelse]
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        kid = self._new("items", node.iter, name="for")
        node.iter = self._hook("items", ast.Constant(kid), node.iter)
        node.body = [self.visit(s) for s in node.body]
        node.orelse = [self.visit(s) for s in node.orelse]
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            src = ast.unparse(node.value)
            value, kid = self.expr(node.value)
            k = self._new("let", src, children=(kid,), name=name)
            node.value = self._hook("let", ast.Constant(k), ast.Constant(name), ast.Constant(kid), value)
        return node

    # nested scopes keep their own code untouched
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node


@dataclasses.dataclass(frozen=True)
class _Compiled:
    code: types.CodeType
    nodes: tuple[_Node, ...]
    name: str


def _function_node(code: types.CodeType) -> ast.FunctionDef:
    try:
        lines, _ = inspect.getsourcelines(code)
    except (OSError, TypeError):
        raise _Unsupported("no source") from None
    src = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(src)
    except SyntaxError:
        raise _Unsupported("source does not parse alone") from None
    if tree.body and isinstance(tree.body[0], ast.FunctionDef) and tree.body[0].name == code.co_name:
        fdef = tree.body[0]
        fdef.decorator_list = []
        return fdef
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if code.co_name == "<lambda>" and len(lambdas) == 1:
        lam = lambdas[0]
        return ast.FunctionDef(
            name="_lambda_", args=lam.args, body=[ast.Return(value=lam.body)], decorator_list=[], returns=None
        )
    raise _Unsupported("function not found in its source")


def _check_supported(fdef: ast.FunctionDef) -> None:
    for node in ast.walk(fdef):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)):
            raise _Unsupported(type(node).__name__)
        if isinstance(node, ast.Name) and node.id.startswith("__") and not node.id.endswith("__"):
            raise _Unsupported("a private name (mangled in its class)")


@functools.lru_cache(maxsize=4096)
def _compile(code: types.CodeType) -> _Compiled | None:
    """The instrumented copy of a function's code (cached per code object); ``None`` when unsupported."""
    try:
        fdef = _function_node(code)
        _check_supported(fdef)
        tool = _Instrument()
        fdef.body = [tool.visit(s) for s in fdef.body]
        params = [*code.co_freevars, _HOOK_NAME]
        outer = ast.FunctionDef(
            name="__vl_outer__",
            args=ast.arguments(
                posonlyargs=[],
                args=[ast.arg(arg=p) for p in params],
                vararg=None,
                kwonlyargs=[],
                kw_defaults=[],
                kwarg=None,
                defaults=[],
            ),
            body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
            decorator_list=[],
            returns=None,
        )
        module = ast.Module(body=[outer], type_ignores=[])
        ast.fix_missing_locations(module)
        compiled = compile(module, code.co_filename, "exec")
    except (_Unsupported, SyntaxError, ValueError, TypeError):
        return None
    outer_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in outer_code.co_consts if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    if not set(inner.co_freevars) <= {*code.co_freevars, _HOOK_NAME}:
        return None
    return _Compiled(inner, tuple(tool.nodes), fdef.name)


def _instrumented(fn: Callable[..., Any]) -> tuple[Callable[..., Any], tuple[_Node, ...]] | None:
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType) or inspect.iscoroutinefunction(fn) or inspect.isgeneratorfunction(fn):
        return None
    compiled = _compile(code)
    if compiled is None:
        return None
    cells = dict(zip(code.co_freevars, fn.__closure__ or (), strict=True))
    cells[_HOOK_NAME] = types.CellType(_HOOKS)
    closure = tuple(cells[name] for name in compiled.code.co_freevars)
    copy = types.FunctionType(compiled.code, fn.__globals__, compiled.name, fn.__defaults__, closure)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy, compiled.nodes


# ------------------------------------------------------------------------ explaining
def _unwrap(func: Any, args: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """A plain function and its arguments for a bound method or a ``functools.partial``."""
    if isinstance(func, functools.partial):
        return _unwrap(func.func, (*func.args, *args))
    if isinstance(func, types.MethodType):
        return func.__func__, (func.__self__, *args)
    return func, args


def _ours(func: Any) -> bool:
    """True for a function defined in the project's files (only those are followed)."""
    code = getattr(func, "__code__", None)
    if not isinstance(code, types.CodeType):
        return False
    path = Path(code.co_filename)
    return any(root in path.parents for root in _ROOTS)


_BUILTINS = tuple(getattr(builtins, name) for name in sorted(_WRAPPERS))


def _constant(src: str) -> bool:
    """True for the source of a literal (``None``, ``3``, ``'x'``): not worth repeating in a reason."""
    try:
        ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _word(value: bool) -> str:
    return "true" if value else "false"


class _Explainer:
    def __init__(self, nodes: tuple[_Node, ...], rec: _Recorder, depth: int) -> None:
        self.nodes, self.rec, self.depth = nodes, rec, depth
        self.following: set[int] = set()
        self.loops = [i for i, n in enumerate(nodes) if n.kind == "items" and n.name == "for"]

    def value(self, k: int) -> Any:
        return self.rec.values.get(k)

    def describe(self, k: int, want: bool) -> str:
        """Why node ``k`` has the truth value ``want``."""
        node = self.nodes[k]
        value = self.value(k)
        if node.kind in ("ret", "test", "let"):
            return self.describe(node.children[0], want)
        if node.kind == "not":
            return self.describe(node.children[0], not want)
        if node.kind in ("and", "or"):
            evaluated = node.children[: self.rec.extra.get(k, len(node.children) - 1) + 1]
            conj = node.kind == "and"
            if want != conj:  # an and that failed, or an or that held: the operand that decided it
                return self.describe(evaluated[-1], want)
            if len(evaluated) == 1:
                return self.describe(evaluated[0], want)
            joined = "; ".join(self.describe(c, want) for c in evaluated)
            return ("all hold: " if conj else "none holds: ") + joined
        if node.kind == "cmp":
            return self.compare(k, want)
        if node.kind == "ifexp":
            test, body, orelse = node.children
            held = bool(self.value(test))
            branch = body if held else orelse
            what = self.nodes[branch].src
            shown = f"it gives {what}" if _constant(what) else f"`{what}` = {short(value)}"
            return f"{shown}, as " + self.describe(test, held)
        if node.kind == "call":
            return self.call(k, want)
        if node.kind == "items":
            return f"`{node.src}` gave {short(value)}"
        if node.kind == "leaf" and node.children:
            over = node.children[0]
            return f"`{node.src}` = {short(value)}, over `{self.nodes[over].src}` = {short(self.value(over))}"
        if node.kind == "leaf":
            bound = self.rec.bound.get(node.src)
            if bound is not None and bound not in self.following:
                target = self.nodes[bound]
                if target.kind == "leaf":
                    return f"`{node.src}` = {short(value)}"
                self.following.add(bound)  # a local assigned from itself (ok = ok and ...) is followed once
                return f"`{node.src}` is {_word(want)}: " + self.describe(bound, want)
            return f"`{node.src}` = {short(value)}"
        return f"`{node.src}` = {short(value)}"

    def compare(self, k: int, want: bool) -> str:
        node = self.nodes[k]
        kids = [c for c in node.children if c in self.rec.values]
        shown = [c for c in kids if not _constant(self.nodes[c].src)]
        if len(node.children) == 2 and self.nodes[node.children[1]].src == "None" and shown:
            left = node.children[0]
            bound = self.rec.bound.get(self.nodes[left].src)
            why = ""
            if self.nodes[left].kind == "call":
                inner = self.follow(left, self.value(left) is not None)
                why = f" ← {inner}" if inner else ""
            elif bound is not None and bound not in self.following and self.nodes[bound].kind == "call":
                self.following.add(bound)
                why = ": " + self.describe(bound, self.value(left) is not None)
            if self.value(left) is None:
                return f"`{self.nodes[left].src}` is None{why}"
            return f"`{self.nodes[left].src}` = {short(self.value(left))}{why}"
        parts = [f"`{self.nodes[c].src}` = {short(self.value(c))}" for c in shown]
        return f"`{node.src}` is {_word(want)}" + (": " + ", ".join(parts) if parts else "")

    def follow(self, k: int, want: bool) -> str | None:
        """Why the call node ``k`` gave a value of truth ``want``: its own reason, or its
        explanation when it is one of the project's functions (``None``: neither)."""
        value = self.value(k)
        own = reason_of(value)
        if own:
            return own
        detail = self.rec.extra.get(k)
        if detail is not None and self.depth < MAX_DEPTH:
            func, args = _unwrap(detail[0], detail[1])
            if _ours(func):
                return _explain_call(func, args, detail[2], want, self.depth + 1)
        return None

    def call(self, k: int, want: bool) -> str:
        node, value = self.nodes[k], self.value(k)
        detail = self.rec.extra.get(k)
        if node.children and detail is not None and detail[0] in _BUILTINS:
            kid = node.children[0]
            return f"`{node.src}` is {_word(want)}: " + self.describe(kid, bool(self.value(kid)))
        head = f"`{node.src}` is {_word(want)}" + (self.arguments(node, detail[1]) if detail is not None else "")
        inner = self.follow(k, want)
        if inner:
            return f"{head}: {inner}" if reason_of(value) else f"{head} ← {inner}"
        if isinstance(value, (bool, Verdict)) or value is None:
            return head if value is not None else f"{head}: it gave None"
        return f"{head}: it gave {short(value)}"

    @staticmethod
    def arguments(node: _Node, values: tuple[Any, ...]) -> str:
        """`` (`reply` = 'Noted.')``: the values of the arguments a reason should show."""
        shown = []
        for src, value in zip(node.args, values, strict=False):
            if _constant(src) or src in ("ctx", "self") or callable(value) or type(value).__name__ == "CheckContext":
                continue
            if isinstance(value, (str, int, float, list, tuple, set, frozenset, dict, date)) or value is None:
                shown.append(f"`{src}` = {short(value, 80)}")
        return f" (with {', '.join(shown[:2])})" if shown else ""

    def root(self) -> str | None:
        k = self.rec.last_return
        if k is None:
            return None
        want = bool(self.value(k))
        ret = self.nodes[k]
        expr = self.nodes[ret.children[0]]
        if expr.kind == "leaf" and expr.src in ("False", "None", "True", "[]", "0", "''", '""'):
            test = self.rec.last_test
            loops = [f"`{self.nodes[i].src}` gave {short(self.value(i))}" for i in self.loops if i in self.rec.values]
            if test is None:
                return f"it returns {expr.src}" + (" after looping: " + "; ".join(loops) if loops else "")
            node = self.nodes[test]
            held = bool(self.value(node.children[0]))
            return f"it returns {expr.src} after `if {node.src}` ({_word(held)}): " + self.describe(test, held)
        return self.describe(k, want)


def _explain_call(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], want: bool, depth: int
) -> str | None:
    made = _instrumented(func)
    if made is None:
        return None
    copy, nodes = made
    rec = _Recorder()
    token = _CURRENT.set(rec)
    try:
        value = copy(*args, **kwargs)
        if inspect.iscoroutine(value):  # an async check (a release rubric): run it as scoring does
            value = asyncio.run(value)
    except Exception as exc:  # the explanation must never break scoring: say what went wrong instead
        return f"explaining {getattr(func, '__qualname__', func)} raised {type(exc).__name__}: {exc}"
    finally:
        _CURRENT.reset(token)
    if bool(value) != want:
        return None  # the run disagrees (not deterministic?): no explanation rather than a wrong one
    text = _Explainer(nodes, rec, depth).root()
    if text is None:
        return None
    name = getattr(func, "__name__", "")
    return text if depth == 0 or name in ("", "<lambda>") else f"in {name}: {text}"


def explain(fn: Callable[..., Any], *args: Any) -> str:
    """Why ``fn(*args)`` is false, in words with the values seen (``""``: cannot tell).

    ``fn`` is run again, instrumented (see the module docstring); it must be a read-only,
    deterministic predicate, as checks are.
    """
    target = getattr(fn, "__explain__", None)  # a wrapper names what to read instead (release rubrics)
    if target is not None:
        fn, args = target(*args)
    func, full = _unwrap(fn, args)
    try:
        text = _explain_call(func, full, {}, False, 0) or ""
    except Exception:  # a guard: explaining must never break scoring (the gates count what stays unexplained)
        text = ""
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"
