"""Validated models of a task bundle: metadata, events, mutation operations.

The field names are those of the public release's ``task.toml`` and ``event.yaml``; both
``type:`` and ``kind:`` spell an event's kind. Unknown keys are rejected so that a typo
fails at load time with the file and field named, not silently at run time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

#: Event kinds that open an agent turn.
TURN_KINDS = ("user_message", "world", "notification", "cron_fire", "policy_update")
EVENT_KINDS = (*TURN_KINDS, "mutation")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# --------------------------------------------------------------------------- operations
class SqlFileOp(_Strict):
    """Run a SQL file of the bundle against a service."""

    server: str
    sql_file: str


class SqlOp(_Strict):
    """Run inline SQL against a service."""

    server: str
    sql: str


class RowOp(_Strict):
    """Insert, update, upsert or delete rows of one table."""

    server: str
    table: str
    op: Literal["insert", "update", "upsert", "delete"]
    values: dict[str, Any] | list[dict[str, Any]] | None = None
    set: dict[str, Any] | None = None
    where: dict[str, Any] | None = None
    conflict_keys: list[str] | None = None

    @model_validator(mode="after")
    def _shape(self) -> RowOp:
        need = {
            "insert": ("values",),
            "update": ("set", "where"),
            "upsert": ("values", "conflict_keys"),
            "delete": ("where",),
        }
        missing = [f for f in need[self.op] if getattr(self, f) in (None, {}, [])]
        if missing:
            raise ValueError(f"op {self.op!r} needs {', '.join(missing)}")
        return self


class ToolCallOp(_Strict):
    """Call a service tool as the world (not the agent); an error result aborts."""

    server: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class ScriptOp(_Strict):
    """Run a function of the bundle that changes the world, resolving its targets from state.

    ``script: "world.py:swap_outbound_aircraft"`` names a ``.py`` file of the bundle and a
    function in it; it is called as ``fn(ctx, **args)`` with a
    :class:`~vibelife_env.checks.context.CheckContext` over the live world (read with
    ``ctx.sql``; write through ``ctx.world``), inside the mutation's transaction. This is
    how a mutation addresses a *role* ("the outbound flight the user booked") instead of
    the oracle's pick: the function finds the entity when the mutation fires.
    """

    script: str
    args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("script")
    @classmethod
    def _target(cls, value: str) -> str:
        return check_callable_ref(value)


def check_callable_ref(value: str) -> str:
    """Validate ``"<file>.py:<function>"`` (a bundle file and a function in it), or the plain
    name of a function a generated task carries in its ``callables``."""
    path, sep, name = value.partition(":")
    if sep and path.endswith(".py") and name.isidentifier():
        return value
    if not sep and all(part.isidentifier() for part in value.split(".")):
        return value
    raise ValueError(f"expected '<file>.py:<function>' or a function name, got {value!r}")


class WorkspaceFileSpec(_Strict):
    source: str | None = None
    content: str | None = None
    destination: str

    @model_validator(mode="after")
    def _one_source(self) -> WorkspaceFileSpec:
        if (self.source is None) == (self.content is None):
            raise ValueError("give exactly one of 'source' or 'content'")
        return self


class WorkspaceFileOp(_Strict):
    """Copy a bundle file (or inline content) into the workspace."""

    workspace_file: WorkspaceFileSpec


class WorkspacePathOp(_Strict):
    """The release's alternate spelling: ``source_file`` → ``workspace_path``."""

    source_file: str
    workspace_path: str


_OP_KEYS = {
    "sql_file": "sql_file",
    "sql": "sql",
    "table": "row",
    "op": "row",
    "tool": "tool",
    "workspace_file": "workspace_file",
    "source_file": "workspace_path",
    "script": "script",
}
#: Tags of the operation union (they appear in pydantic error locations and are dropped there).
OP_TAGS = frozenset(_OP_KEYS.values())


def _op_kind(value: Any) -> str | None:
    """Pick the operation model by its distinctive key (an unknown shape gets a clear error)."""
    if not isinstance(value, dict):
        return None
    for key, tag in _OP_KEYS.items():
        if key in value:
            return tag
    return None


MutationOp = Annotated[
    Annotated[SqlFileOp, Tag("sql_file")]
    | Annotated[SqlOp, Tag("sql")]
    | Annotated[RowOp, Tag("row")]
    | Annotated[ToolCallOp, Tag("tool")]
    | Annotated[WorkspaceFileOp, Tag("workspace_file")]
    | Annotated[WorkspacePathOp, Tag("workspace_path")]
    | Annotated[ScriptOp, Tag("script")],
    Discriminator(
        _op_kind,
        custom_error_type="unknown_operation",
        custom_error_message="an operation needs one of: sql_file, sql, table+op, tool, workspace_file, source_file, script",
    ),
]


class Postcondition(_Strict):
    """A fact that must hold after a mutation, read through a tool, a table or a file."""

    server: str | None = None
    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    table: str | None = None
    where: dict[str, Any] = Field(default_factory=dict)
    workspace_path: str | None = None
    contains: list[str] = Field(default_factory=list)
    not_contains: list[str] = Field(default_factory=list)
    equals: Any = None
    expect: dict[str, Any] | list[Any] | None = None
    sha256: str | None = None

    @model_validator(mode="after")
    def _target(self) -> Postcondition:
        if self.workspace_path is None and (self.server is None or (self.tool is None and self.table is None)):
            raise ValueError("a postcondition names a workspace_path, or a server with a tool or a table")
        return self


# ------------------------------------------------------------------------------ events
class Event(_Strict):
    """One timeline event. ``kind`` (or ``type``) decides whether it opens a turn."""

    id: str
    time: datetime
    kind: Literal["user_message", "world", "notification", "cron_fire", "policy_update", "mutation"]
    stage: int = 0
    body: str = ""
    title: str | None = None
    source: str | None = None
    sender: str | None = Field(default=None, alias="from")
    to: str | None = None
    channel: str | None = None
    trigger: str | None = None
    target: str | None = None
    silent: bool = False
    apply: list[MutationOp] = Field(default_factory=list)
    postconditions: list[Postcondition] = Field(default_factory=list)
    idempotency_key: str | None = None
    abort_stage: bool = False
    rendered: str | None = None
    merged: list[str] = Field(default_factory=list)
    #: ``"<file>.py:<function>"`` returning a mapping; ``body`` is rendered with it
    #: (``str.format_map``) when the event fires, so the text names what the world holds
    #: then (the train the user booked), not what the author expected.
    facts: str | None = None

    @field_validator("facts")
    @classmethod
    def _facts_ref(cls, value: str | None) -> str | None:
        return None if value is None else check_callable_ref(value)

    @model_validator(mode="before")
    @classmethod
    def _kind_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and "type" in data:
            data = dict(data)
            kind = data.pop("type")
            if "kind" in data and data["kind"] != kind:
                raise ValueError(f"'type' ({kind!r}) and 'kind' ({data['kind']!r}) disagree")
            data["kind"] = kind
        return data

    @field_validator("time")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("time needs a UTC offset, e.g. 2026-04-17T09:00:00+08:00")
        return value

    @property
    def opens_turn(self) -> bool:
        """True for every kind but ``mutation``."""
        return self.kind != "mutation"


class Stage(_Strict):
    """A checkpoint: its events in time order; its checks run when it closes."""

    index: int
    events: tuple[Event, ...]


# ---------------------------------------------------------------------------- metadata
class TaskMeta(_Strict):
    """What ``task.toml`` says, flattened."""

    name: str
    domain: str
    title: str = ""
    summary: str = ""
    difficulty: str = ""
    language: list[str] = Field(default_factory=list)
    timezone: str = "UTC"
    start_date: str | None = None
    end_date: str | None = None
    stage_count: int | None = None
    servers: list[str] = Field(default_factory=list)
    envs: dict[str, str] = Field(default_factory=dict)
    scoring_mode: str = "flat_pool"
    declared_total_weight: float | None = None
    declared_check_count: int | None = None
    events_file: str = "event.yaml"
    workspace_dir: str = "workspace"
    env_root: str = "envs"
    rubrics_dir: str = "rubrics"
    mutations_dir: str = "mutations"
    user_name: str = ""
    personas: list[str] = Field(default_factory=list)
    system_prompt: str = ""
    max_tool_calls_per_turn: int = 40
    max_tool_calls_per_episode: int = 2000
