"""Tools declared by one decorator, with OpenAI function schemas derived from code.

A tool is a method of a :class:`ToolProvider` subclass marked with :func:`tool`. Its JSON
schema comes from the signature's type hints (through a generated pydantic model) and
from the Google-style docstring (through ``docstring-parser``); nothing is written by hand.
The same model validates the agent's arguments, so the schema and the validation can
never disagree.
"""

from __future__ import annotations

import inspect
import logging
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import docstring_parser
import pydantic
from pydantic import BaseModel, ConfigDict, Field

from vibelife_env.errors import ToolError
from vibelife_env.services.arguments import describe_validation_error, screen_arguments, short_repr

logger = logging.getLogger("vibelife_env.services")

_TOOL_MARK = "__vibelife_tool__"

#: Separator between service and tool in agent-facing names (OpenAI names allow no dots).
NAME_SEP = "__"


@dataclass(frozen=True)
class ToolSpec:
    """Everything known about one tool.

    Attributes:
        name: The tool's name inside its service (``get_emails``, ``API-post-search``).
        method: The Python method implementing it.
        description: What the tool does, from the docstring.
        params_model: pydantic model validating the arguments.
        parameters: JSON Schema of the arguments (OpenAI ``parameters`` object).
        read_only: True when the tool never changes state (polling agents use these).
        lookup: True when the tool only looks things up for the agent: it may keep what it
            hands out (offers, price quotes) but changes nothing the user owns, so checks
            count it as a read ("searched before booking") and never as a failed change.
    """

    name: str
    method: Callable[..., Any]
    description: str
    params_model: type[BaseModel]
    parameters: dict[str, Any]
    read_only: bool
    lookup: bool = False

    def openai_schema(self, service: str) -> dict[str, Any]:
        """The tool in OpenAI function-calling format under ``<service>__<name>``."""
        return {
            "type": "function",
            "function": {
                "name": f"{service}{NAME_SEP}{self.name}",
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def tool(
    fn: Callable[..., Any] | None = None, *, name: str | None = None, read_only: bool = False, lookup: bool = False
) -> Any:
    """Mark a method as an agent tool.

    Use bare (``@tool``) or with options (``@tool(name="API-post-search", read_only=True)``;
    ``lookup=True`` for a search that keeps the offers it returns, see :class:`ToolSpec`).
    The method must have type hints for every parameter and a Google-style docstring whose
    ``Args:`` section describes each one; the class fails to define otherwise.
    """

    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        setattr(func, _TOOL_MARK, {"name": name or func.__name__, "read_only": read_only, "lookup": lookup})
        return func

    return mark(fn) if fn is not None else mark


def _strip_titles(schema: Any) -> Any:
    """Drop pydantic's ``title`` keywords (noise for LLMs); keep properties named title."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "title" and isinstance(value, str):
                continue
            if key in ("properties", "$defs") and isinstance(value, dict):
                out[key] = {k: _strip_titles(v) for k, v in value.items()}
            else:
                out[key] = _strip_titles(value)
        return out
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def build_spec(
    owner: type, func: Callable[..., Any], tool_name: str, read_only: bool, lookup: bool = False
) -> ToolSpec:
    """Derive a :class:`ToolSpec` from a method's signature and docstring.

    Raises:
        TypeError: a parameter lacks a type hint or a docstring description.
    """
    where = f"{owner.__name__}.{func.__name__}"
    doc = docstring_parser.parse(inspect.getdoc(func) or "")
    if not doc.short_description:
        raise TypeError(f"tool {where} needs a docstring")
    param_docs = {p.arg_name: (p.description or "").strip() for p in doc.params}
    hints = typing.get_type_hints(func, include_extras=True)
    fields: dict[str, Any] = {}
    for pname, param in list(inspect.signature(func).parameters.items())[1:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {where} may not take *args/**kwargs")
        if pname not in hints:
            raise TypeError(f"tool {where}: parameter {pname!r} has no type hint")
        if not param_docs.get(pname):
            raise TypeError(f"tool {where}: parameter {pname!r} is not described in Args:")
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (hints[pname], Field(default, description=param_docs[pname]))
    model = pydantic.create_model(
        f"{owner.__name__}_{func.__name__}_args",
        __config__=ConfigDict(extra="forbid"),
        **fields,
    )
    parameters = _strip_titles(model.model_json_schema())
    parameters.setdefault("properties", {})
    parameters.setdefault("required", [])
    parameters.pop("additionalProperties", None)
    description = doc.short_description.strip()
    if doc.long_description:
        description += "\n\n" + doc.long_description.strip()
    return ToolSpec(tool_name, func, description, model, parameters, read_only, lookup or read_only)


def internal_error(service: str, tool_name: str, exc: BaseException) -> dict[str, str]:
    """The error result for an unexpected exception inside a tool.

    Names the service, the tool and the exception type only: the exception's text can
    hold Python or SQL internals (and echoes of the arguments), which is no help to an
    agent. The full traceback goes to the ``vibelife_env.services`` logger.
    """
    logger.warning("internal error in %s.%s", service, tool_name, exc_info=exc)
    return {
        "error": f"internal error in {service}.{tool_name} ({type(exc).__name__}); nothing was changed",
        "code": "INTERNAL_ERROR",
    }


def refusal_of(result: Any) -> ToolError | None:
    """The refusal a tool returned as a value (``{"error": ..., "code": ...}``), if any.

    Raises:
        ValueError: the returned code is not in the vocabulary (a bug in the tool).
    """
    if isinstance(result, dict) and "error" in result and "code" in result:
        return ToolError(str(result["code"]), str(result["error"]))
    return None


class ToolProvider:
    """Anything that exposes tools to the agent (services, the workspace).

    Subclasses set ``name`` and mark methods with :func:`tool`; ``tools`` is collected
    once per class.

    Every call is atomic: :meth:`invoke` takes a :meth:`checkpoint` before the tool runs
    and, when the call fails (a :class:`ToolError`, an error result, any exception),
    :meth:`rollback` puts back everything the tool may have changed. A provider that
    keeps state outside SQLite overrides both hooks to cover it.
    """

    name: ClassVar[str] = ""
    tools: ClassVar[dict[str, ToolSpec]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        collected: dict[str, ToolSpec] = {}
        for base in reversed(cls.__mro__[1:]):
            collected.update(getattr(base, "tools", {}))
        for func in list(vars(cls).values()):
            mark = getattr(func, _TOOL_MARK, None)
            if mark is not None:
                collected[mark["name"]] = build_spec(
                    cls, func, mark["name"], mark["read_only"], mark.get("lookup", False)
                )
        cls.tools = collected

    # ------------------------------------------------------------- atomicity hooks
    def checkpoint(self) -> Any:
        """Capture the state a failed call must leave untouched; opaque to the caller.

        The base provider keeps no state of its own and returns ``None``.
        """
        return None

    def rollback(self, saved: Any) -> None:
        """Undo everything done since :meth:`checkpoint` returned ``saved``."""

    def commit(self, saved: Any) -> None:
        """Keep everything done since :meth:`checkpoint` returned ``saved``."""

    def before_call(self) -> None:
        """Hook run inside the checkpoint before every tool (services apply the clock here)."""

    # ------------------------------------------------------------------ calling
    def validate_args(self, spec: ToolSpec, args: Any) -> dict[str, Any]:
        """Validate raw arguments; returns keyword arguments for the method.

        Arguments must be bounded JSON data (see :func:`screen_arguments`) that the
        tool's pydantic model accepts; nothing else reaches the tool.

        Raises:
            ToolError: ``BAD_ARG`` naming the argument that is wrong and what was expected.
        """
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise ToolError("BAD_ARG", f"{spec.name}: arguments must be a JSON object, got {type(args).__name__}")
        screen_arguments(args)
        try:
            model = spec.params_model.model_validate(args)
        except pydantic.ValidationError as exc:
            raise ToolError("BAD_ARG", describe_validation_error(spec.name, exc)) from None
        return {k: getattr(model, k) for k in type(model).model_fields}

    def invoke(self, spec: ToolSpec, kwargs: dict[str, Any]) -> Any:
        """Run the tool method atomically, turning refusals and bugs into error results.

        Returns:
            The tool's result; or ``{"error", "code"}`` after rolling back every change
            the call made (:meth:`rollback`).
        """
        saved = self.checkpoint()
        try:
            self.before_call()
            result = spec.method(self, **kwargs)
            refusal = refusal_of(result)
            if refusal is not None:
                raise refusal
        except ToolError as exc:
            self.rollback(saved)
            return exc.as_result()
        except Exception as exc:  # a bug in a tool must not corrupt the world or crash the run
            self.rollback(saved)
            return internal_error(self.name, spec.name, exc)
        except BaseException:  # KeyboardInterrupt and friends: undo, then let them through
            self.rollback(saved)
            raise
        self.commit(saved)
        return result

    def call(self, tool_name: str, args: Any = None) -> Any:
        """Call a tool by name; never raises for agent mistakes.

        Returns:
            The tool's JSON-able result, or ``{"error": ..., "code": ...}``.
        """
        spec = self.tools.get(tool_name) if isinstance(tool_name, str) else None
        if spec is None:
            return {
                "error": f"unknown tool {short_repr(tool_name)} for service {self.name!r}",
                "code": "UNKNOWN_TOOL",
            }
        try:
            kwargs = self.validate_args(spec, args)
        except ToolError as exc:
            return exc.as_result()
        return self.invoke(spec, kwargs)

    def call_tool(self, tool_name: str, **kwargs: Any) -> Any:
        """Keyword form of :meth:`call` (the shape the public rubrics use)."""
        return self.call(tool_name, kwargs)

    async def call_tool_async(self, tool_name: str, **kwargs: Any) -> Any:
        """Awaitable :meth:`call_tool` for async rubrics (runs inline, no threads)."""
        return self.call(tool_name, kwargs)

    @classmethod
    def openai_tools(cls) -> list[dict[str, Any]]:
        """All tools of this provider in OpenAI function format."""
        return [spec.openai_schema(cls.name) for spec in cls.tools.values()]
