"""One vocabulary of error codes: declared once, upper-case, and the only codes a tool can return."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import vibelife_env
from vibelife_env.errors import ERROR_CODES, MAX_MESSAGE_CHARS, ToolError

PACKAGE = Path(vibelife_env.__file__).parent
#: Every module whose tools can refuse a call.
SOURCES = [*sorted((PACKAGE / "services").rglob("*.py")), PACKAGE / "workspace.py"]
CODE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
#: Code expressions that pass on a code already checked when its ToolError was built.
RELAYED = {"exc.code", "str(result['code'])"}


def test_the_vocabulary_is_upper_snake_case_with_a_meaning_each():
    for code, meaning in ERROR_CODES.items():
        assert CODE.match(code), code
        assert meaning.strip() and "\n" not in meaning, code


def test_tool_error_refuses_codes_outside_the_vocabulary():
    with pytest.raises(ValueError, match="unknown error code 'seat_unavailable'"):
        ToolError("seat_unavailable", "lower-case codes are gone")
    assert ToolError("SEAT_UNAVAILABLE", "ok").as_result() == {"error": "ok", "code": "SEAT_UNAVAILABLE"}


def test_tool_error_messages_are_bounded_and_keep_both_ends():
    msg = ToolError("BAD_ARG", "argument 'q': got '" + "x" * 10_000_000 + "'; try again").message
    assert len(msg) <= MAX_MESSAGE_CHARS
    assert msg.startswith("argument 'q'") and msg.endswith("try again") and "characters omitted" in msg


def _name(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _code_arg(call: ast.Call) -> ast.expr | None:
    """The code a ``ToolError(...)`` or ``self.require(...)`` call passes, if it is one."""
    name = _name(call.func)
    if name == "ToolError" and call.args:
        return call.args[0]
    if name == "require" and len(call.args) >= 3:
        return call.args[2]
    return None


def _codes_in(path: Path) -> tuple[list[tuple[str, int]], list[str]]:
    """(code, line) of every literal code in a module, and every code the scan cannot read.

    A code is a literal at a ``ToolError``/``require`` call or in an ``{"error", "code"}``
    result, or a parameter of a helper that passes it on; then the helper's default and
    the literals its callers pass for that parameter are codes too.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []
    opaque: list[str] = []
    relays: dict[str, tuple[list[str], set[str]]] = {}  # helper -> (its parameters, those that are codes)

    def take(node: ast.expr, where: str, allowed: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.value, node.lineno))
        elif not (isinstance(node, ast.Name) and node.id in allowed) and ast.unparse(node) not in RELAYED:
            opaque.append(f"{path.name}:{node.lineno} {where} {ast.unparse(node)}")

    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        names = [a.arg for a in func.args.args]
        codes = {
            arg.id
            for call in ast.walk(func)
            if isinstance(call, ast.Call) and isinstance(arg := _code_arg(call), ast.Name) and arg.id in names
        }
        relays[func.name] = (names, codes)
        defaults = dict(zip(names[len(names) - len(func.args.defaults) :], func.args.defaults, strict=True))
        for param in codes & set(defaults):
            take(defaults[param], f"default of {func.name}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):  # {"error": ..., "code": "X"} results
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            if "error" in keys and "code" in keys:
                take(node.values[keys.index("code")], "result")
        if not isinstance(node, ast.Call):
            continue
        code = _code_arg(node)
        if code is not None:
            take(code, _name(node.func) or "", allowed=set().union(*(c for _, c in relays.values())))
        names, codes = relays.get(_name(node.func) or "", ([], set()))
        if codes:
            offset = 1 if names[:1] == ["self"] else 0
            for i, arg in enumerate(node.args):
                if offset + i < len(names) and names[offset + i] in codes:
                    take(arg, f"{_name(node.func)}()", allowed=codes)
            for kw in node.keywords:
                if kw.arg in codes:
                    take(kw.value, f"{_name(node.func)}({kw.arg}=)", allowed=codes)
    return found, opaque


def test_every_code_a_service_can_raise_is_in_the_vocabulary():
    unknown, opaque, seen = [], [], set()
    for path in SOURCES:
        found, hidden = _codes_in(path)
        opaque += hidden
        for code, line in found:
            seen.add(code)
            if code not in ERROR_CODES:
                unknown.append(f"{path.relative_to(PACKAGE)}:{line} {code}")
    assert not unknown, f"codes outside vibelife_env.errors.ERROR_CODES: {unknown}"
    assert not opaque, f"codes the scan cannot read (pass a literal or a *code parameter): {opaque}"
    assert {"BAD_ARG", "SEAT_UNAVAILABLE", "INVENTORY_GONE", "INSUFFICIENT_FUNDS"} <= seen


def test_docs_services_md_lists_the_vocabulary():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "services.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| `([A-Z0-9_]+)` \| (.+) \|$", doc, flags=re.M))
    assert table == ERROR_CODES, "docs/services.md is stale: its error-code table must match ERROR_CODES"
