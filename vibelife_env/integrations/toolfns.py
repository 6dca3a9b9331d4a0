"""A task's tools as Python callables with real signatures and Google-style docstrings.

Libraries that derive a tool schema from a Python function (TRL's ``environment_factory``,
``transformers.utils.get_json_schema``, MCP's ``MCPServer.add_tool``) need one function per
tool, with type hints and an ``Args:`` section. :func:`tool_function` builds it from the
tool's OpenAI schema (itself generated from the service method's hints and docstring), so
nothing is written by hand and the two can never disagree:

>>> from vibelife_env.integrations.toolfns import tool_function
>>> schema = {"type": "function", "function": {"name": "email__read_email",
...     "description": "Read one email in full.",
...     "parameters": {"type": "object", "required": ["email_id"],
...                    "properties": {"email_id": {"type": "string", "description": "The email's id."}}}}}
>>> fn = tool_function(schema, lambda self, name, args: (name, args))
>>> import inspect; str(inspect.signature(fn))
'(self, email_id: str) -> str'
>>> print(fn.__doc__)
Read one email in full.
<BLANKLINE>
Args:
    email_id: The email's id.
<BLANKLINE>
Returns:
    The tool's result as JSON text; failures are {"error": ..., "code": ...} objects.
>>> fn(None, email_id="7")
('email__read_email', {'email_id': '7'})

JSON Schema → hints: ``string``/``integer``/``number``/``boolean`` → ``str``/``int``/
``float``/``bool``; ``enum`` → ``Literal[...]``; ``anyOf [X, null]`` → ``X | None``;
``array`` → ``list[...]``; ``object`` → ``dict`` (its properties are spelled out in the
argument's description); ``$ref`` is resolved against ``$defs``.
"""

from __future__ import annotations

import inspect
import json
import keyword
import types
from collections.abc import Callable
from typing import Any, Literal, Union

_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}

RETURNS_DOC = 'The tool\'s result as JSON text; failures are {"error": ..., "code": ...} objects.'


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return {**defs.get(ref.split("/")[-1], {}), **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def json_type_hint(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """The Python type hint for one JSON Schema (see the module docstring)."""
    defs = defs or {}
    schema = _resolve(schema, defs)
    if "enum" in schema and schema["enum"] and all(isinstance(v, (str, int, float, bool)) for v in schema["enum"]):
        return Literal[tuple(schema["enum"])]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            members = [json_type_hint(s, defs) for s in schema[key]]
            unique = list(dict.fromkeys(members))
            return unique[0] if len(unique) == 1 else Union[tuple(unique)]  # noqa: UP007
    kind = schema.get("type")
    if isinstance(kind, list):
        members = [json_type_hint({**schema, "type": k}, defs) for k in kind]
        return Union[tuple(dict.fromkeys(members))]  # noqa: UP007
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        items = schema.get("items")
        return types.GenericAlias(list, (json_type_hint(items, defs),)) if isinstance(items, dict) and items else list
    if kind == "object":
        return dict
    return Any


def _describe(name: str, schema: dict[str, Any], defs: dict[str, Any]) -> str:
    schema = _resolve(schema, defs)
    text = " ".join(str(schema.get("description") or name.replace("_", " ")).split())
    props = schema.get("properties")
    if not props:
        for sub in (schema.get("items"), *(schema.get("anyOf") or ())):
            if isinstance(sub, dict):
                sub = _resolve(sub, defs)
                props = props or sub.get("properties")
    if props:
        text += " Fields: " + json.dumps(props, ensure_ascii=False, separators=(",", ":"))
    if schema.get("default") is not None and "default" not in text.lower():
        text += f" (default: {json.dumps(schema['default'], ensure_ascii=False)})"
    return text


def tool_docstring(schema: dict[str, Any]) -> str:
    """A Google-style docstring for an OpenAI tool schema."""
    fn = schema["function"]
    params = fn.get("parameters") or {}
    defs = params.get("$defs", {})
    lines = [" ".join(str(fn.get("description") or fn["name"]).split("\n\n")[0].split())]
    rest = str(fn.get("description") or "").split("\n\n")[1:]
    if rest:
        lines += ["", *(" ".join(p.split()) for p in rest)]
    props = params.get("properties") or {}
    if props:
        lines += ["", "Args:"]
        lines += [f"    {name}: {_describe(name, sub, defs)}" for name, sub in props.items()]
    lines += ["", "Returns:", f"    {RETURNS_DOC}"]
    return "\n".join(lines)


def tool_signature(schema: dict[str, Any], *, method: bool = True) -> inspect.Signature:
    """The signature (with ``self`` first when ``method``) for an OpenAI tool schema.

    Required parameters come first, in schema order; optional ones are keyword arguments
    defaulting to their schema default (``None`` when it has none).

    Raises:
        ValueError: a parameter name is not a Python identifier.
    """
    params = schema["function"].get("parameters") or {}
    defs = params.get("$defs", {})
    required = set(params.get("required") or ())
    props = params.get("properties") or {}
    out = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] if method else []
    ordered = [n for n in props if n in required] + [n for n in props if n not in required]
    for name in ordered:
        if not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"tool {schema['function']['name']}: parameter {name!r} is not a Python identifier")
        hint = json_type_hint(props[name], defs)
        if name in required:
            out.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=hint))
        else:
            default = _resolve(props[name], defs).get("default")
            if default is None and hint is not Any and hint is not type(None):
                hint = hint | None
            out.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=hint, default=default))
    return inspect.Signature(out, return_annotation=str)


def tool_function(schema: dict[str, Any], dispatch: Callable[[Any, str, dict[str, Any]], Any]) -> Callable[..., Any]:
    """A method ``(self, **arguments)`` that calls ``dispatch(self, tool_name, arguments)``.

    Its ``__name__`` is the tool name, its ``__signature__``/``__annotations__`` come from
    :func:`tool_signature` and its ``__doc__`` from :func:`tool_docstring`. Keyword arguments
    left at their default are not passed on, so the service applies its own defaults.
    """
    name = schema["function"]["name"]
    sig = tool_signature(schema)
    defaults = {p.name: p.default for p in sig.parameters.values() if p.default is not inspect.Parameter.empty}

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(self, *args, **kwargs)
        arguments = {k: v for k, v in bound.arguments.items() if k != "self"}
        arguments = {k: v for k, v in arguments.items() if not (k in defaults and v is defaults[k] and k not in kwargs)}
        return dispatch(self, name, arguments)

    call.__name__ = call.__qualname__ = name
    call.__signature__ = sig  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in list(sig.parameters.values())[1:]} | {"return": str}
    call.__doc__ = tool_docstring(schema)
    return call
