"""The rubric runtime a release bundle's modules expect, built over our check context.

Release rubrics receive the runner's ``env`` and read, besides the services
(``env.<server>_mock.call_tool``) and the workspace (``env.workspace.fs``):

- ``/terrarium/agent_responses/stage_N.txt``: the stage's turn replies, each cut at
  20 000 characters, empty ones dropped, joined by ``"\\n---\\n"``;
- ``/terrarium/agent_traces/stage_N.json``: the stage's tool calls, in the row shape the
  bundle's runner writes (one row per call, or a ``tool_call`` and a ``tool_result`` row;
  the keys differ per runner: :mod:`vibelife_env.release.trace`); absent for the
  runners that write none;
- one runner instead builds a namespace: ``ctx.turn_log`` (one entry per event, the
  batch's reply and calls on its first event), async ``ctx.fs`` and async service
  managers under alias names, with a few tool-name aliases for notion.

Only the turns the runner has are written: those the timeline's visible events open,
each paired with the id of the event that opened it (what our record notes per turn,
:class:`~vibelife_env.checks.context.Opened`). The release has no wake-ups, so a turn
the assistant scheduled for itself (``assistant__schedule_wakeup``) is in no stage file
and no ``turn_log``: neither its reply nor its calls; what those calls changed in the
world is there for the rubrics as any change is.

:class:`ReleaseRuntime` holds what the shapes need (the profile and the task's visible
event ids per stage) and produces them from an :class:`EpisodeRecord`; the ``env`` object
itself is :class:`vibelife_env.release.rubric_env.RubricEnv`. Tool names are our
agent-facing ``<service>__<tool>``; the rubric helpers match a service by substring and a
tool by the part after ``__``, which that spelling satisfies.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from vibelife_env.release.trace import trace_rows
from vibelife_env.services.registry import canonical_name

if TYPE_CHECKING:
    from vibelife_env.checks.context import EpisodeRecord, Opened
    from vibelife_env.release.profile import ReleaseProfile
    from vibelife_env.release.rubric_env import RubricEnv
    from vibelife_env.task.loader import Task

MAX_STAGE_RESPONSE_CHARS = 20_000
RESPONSE_SEPARATOR = "\n---\n"
CONTAINER_WORKSPACE = "/terrarium/openclaw/workspace"


def _limit(text: str) -> str:
    if len(text) <= MAX_STAGE_RESPONSE_CHARS:
        return text
    return text[:MAX_STAGE_RESPONSE_CHARS] + f"\n\n[TRUNCATED: response exceeded {MAX_STAGE_RESPONSE_CHARS} chars]"


@dataclass(frozen=True)
class _Turn:
    stage: int
    event_id: str
    merged: tuple[str, ...]
    reply: str
    calls: list[dict[str, Any]]


@dataclass(frozen=True)
class _Rendered:
    """A stage file's text and the stage record it was rendered from (held, so identity checks are safe)."""

    replies: tuple[str, ...]
    marks: tuple[int, ...]
    opened: tuple[Opened | None, ...]
    calls: tuple[dict[str, Any], ...]
    text: str

    def matches(
        self,
        replies: tuple[str, ...],
        marks: tuple[int, ...],
        opened: tuple[Opened | None, ...],
        calls: tuple[dict[str, Any], ...],
    ) -> bool:
        return (
            self.replies == replies
            and self.marks == marks
            and self.opened == opened
            and len(self.calls) == len(calls)
            and all(a is b for a, b in zip(self.calls, calls, strict=True))
        )


@dataclass
class ReleaseRuntime:
    """Per-task facts for shaping the episode record the way the release runner wrote it.

    It also keeps the last rendered text of each stage file (:meth:`stage_file`): a closed
    stage's record never changes, so later scoring passes reuse it instead of serializing
    every earlier stage's trace again.
    """

    profile: ReleaseProfile
    visible: dict[int, list[tuple[str, tuple[str, ...]]]] = field(default_factory=dict)
    mutations: dict[int, list[str]] = field(default_factory=dict)
    service_aliases: dict[str, str] = field(default_factory=dict)
    tool_aliases: dict[str, str] = field(default_factory=dict)
    arg_moves: dict[str, tuple[str, str]] = field(default_factory=dict)
    _rendered: dict[tuple[str, int], _Rendered] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def for_task(cls, task: Task) -> ReleaseRuntime:
        """Collect the visible event ids per stage and the namespace aliases of ``task``.

        Raises:
            ValueError: ``task`` is not a release bundle (it has no ``task.py``).
        """
        if task.release is None:
            raise ValueError(f"task {task.id} is not a release bundle (no task.py)")
        runtime = cls(task.release)
        for stage in task.stages:
            runtime.visible[stage.index] = [(e.id, tuple(e.merged)) for e in stage.events if e.opens_turn]
            runtime.mutations[stage.index] = [e.id for e in stage.events if not e.opens_turn]
        if task.release.namespace_context:
            runtime.service_aliases, runtime.tool_aliases, runtime.arg_moves = _namespace_aliases(
                task.release.task_py.read_text(encoding="utf-8")
            )
        return runtime

    # ------------------------------------------------------------------ turns
    def turns(self, record: EpisodeRecord, stage: int) -> list[_Turn]:
        """The stage's closed turns the runner has: event, reply and the calls made in that turn.

        Each turn carries the id of the event that opened it; wake-up turns are left out
        (see the module docstring). A record that does not say what opened its turns
        (built by hand) pairs them with the stage's visible events in order.
        """
        replies = record.replies.get(stage, [])
        marks = record.marks.get(stage, [])
        opened = record.opened.get(stage, [])
        rows = record.traces.get(stage, [])
        events = self.visible.get(stage, [])
        merged_of = dict(events)
        out: list[_Turn] = []
        start = 0
        for i, reply in enumerate(replies):
            end = marks[i] if i < len(marks) else len(rows)
            calls, start = list(rows[start:end]), end
            how = opened[i] if i < len(opened) else None
            if how is not None and how.wakeup:
                continue
            if how is not None:
                event_id, merged = how.event_id, merged_of.get(how.event_id, ())
            else:
                n = len(out)
                event_id, merged = events[n] if n < len(events) else (f"turn_{n}", ())
            out.append(_Turn(stage, event_id, merged, reply, calls))
        return out

    def response_text(self, record: EpisodeRecord, stage: int) -> str:
        """``stage_N.txt`` as the runner writes it."""
        return RESPONSE_SEPARATOR.join(_limit(t.reply) for t in self.turns(record, stage) if t.reply)

    @property
    def writes_traces(self) -> bool:
        """True when the runner writes ``stage_N.json`` at all."""
        return self.profile.trace is not None

    def trace_rows(self, record: EpisodeRecord, stage: int) -> list[dict[str, Any]]:
        """``stage_N.json`` rows in the runner's shape (none for a runner that writes no trace)."""
        shape = self.profile.trace
        if shape is None:
            return []
        return [
            row
            for turn in self.turns(record, stage)
            for call in turn.calls
            for row in trace_rows(shape, turn.event_id, call)
        ]

    def stage_file(self, record: EpisodeRecord, kind: str, stage: int) -> str:
        """The text of ``stage_N.txt`` (``kind="response"``) or ``stage_N.json`` (``kind="trace"``).

        Reused from an earlier call when the stage's replies, turn marks, opening events
        and call records (compared by identity) are the ones it was rendered from;
        rendered otherwise.

        Raises:
            ValueError: unknown ``kind``.
        """
        if kind not in ("response", "trace"):
            raise ValueError(f"kind must be 'response' or 'trace', got {kind!r}")
        replies = tuple(record.replies.get(stage, ()))
        marks = tuple(record.marks.get(stage, ()))
        opened = tuple(record.opened.get(stage, ()))
        calls = tuple(record.traces.get(stage, ()))
        hit = self._rendered.get((kind, stage))
        if hit is not None and hit.matches(replies, marks, opened, calls):
            return hit.text
        text = self.response_text(record, stage) if kind == "response" else json_text(self.trace_rows(record, stage))
        self._rendered[(kind, stage)] = _Rendered(replies, marks, opened, calls, text)
        return text

    def turn_log(self, record: EpisodeRecord, until: int | None = None) -> list[dict[str, Any]]:
        """``ctx.turn_log`` of the namespace-style runner, up to stage ``until`` (``None``: all)."""
        log: list[dict[str, Any]] = []
        for stage in sorted(set(record.replies) | set(self.visible)):
            if until is not None and stage > until:
                break
            for turn in self.turns(record, stage):
                calls = [
                    {
                        "id": c.get("id"),
                        "name": c["name"],
                        "input": c.get("args") or {},
                        "result": c.get("result"),
                        "succeeded": bool(c.get("ok")),
                    }
                    for c in turn.calls
                ]
                log.append({"event_id": turn.event_id, "response": turn.reply, "tool_calls": calls, "stage": stage})
                log.extend(
                    {"event_id": m, "response": "", "tool_calls": [], "write_response": False, "stage": stage}
                    for m in turn.merged
                )
        return log

    def namespace(self, env: RubricEnv) -> SimpleNamespace:
        """The namespace context one runner passes to its rubrics instead of ``env``."""
        ctx = env.context
        fs = _AsyncFS(env.workspace.fs)
        space = SimpleNamespace(
            env=env,
            fs=fs,
            filesystem=fs,
            workspace=env.workspace,
            container_workspace=CONTAINER_WORKSPACE,
            turn_log=self.turn_log(ctx.record, ctx.stage),
            snapshots={},
        )
        for alias, service in self.service_aliases.items():
            provider = ctx.world.provider(service)
            if provider is not None:
                setattr(space, alias, _AsyncTools(provider, self.tool_aliases, self.arg_moves))
        return space


class _AsyncFS:
    """``ctx.fs`` of the namespace-style runner: async, text out, ``False`` on bad paths."""

    def __init__(self, fs: Any) -> None:
        self._fs = fs

    async def exists(self, path: str) -> bool:
        return bool(self._fs.exists(path))

    async def read_file(self, path: str) -> str:
        return self._fs.read_file(path).decode("utf-8", errors="replace")


class _AsyncTools:
    """An async tool manager with the runner's tool-name and argument aliases."""

    def __init__(self, provider: Any, tools: dict[str, str], moves: dict[str, tuple[str, str]]) -> None:
        self._provider = provider
        self._tools = tools
        self._moves = moves

    async def call_tool(self, tool: str, **args: Any) -> Any:
        if tool in self._moves:
            src, dst = self._moves[tool]
            if src in args and dst not in args:
                args[dst] = args.pop(src)
        return self._provider.call(self._tools.get(tool, tool), args)


def _namespace_aliases(source: str) -> tuple[dict[str, str], dict[str, str], dict[str, tuple[str, str]]]:
    """Service attribute aliases, tool renames and argument moves of the namespace runner.

    Read from ``_make_context``'s literal ``{alias: "<service>_mock"}`` map and from the
    ``if tool == "a": tool = "b"`` chain (with ``args["y"] = args.pop("x")`` moves) of its
    tool manager class.
    """
    tree = ast.parse(source)
    services: dict[str, str] = {}
    tools: dict[str, str] = {}
    moves: dict[str, tuple[str, str]] = {}
    for func in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_make_context"):
        for node in ast.walk(func):
            if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys):
                for k, v in zip(node.keys, node.values, strict=False):
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Constant) and str(v.value).endswith("_mock"):
                        services[str(k.value)] = canonical_name(str(v.value))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)):
            continue
        test = node.test
        if not (
            isinstance(test.left, ast.Name)
            and test.left.id == "tool"
            and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.comparators[0], ast.Constant)
        ):
            continue
        name = str(test.comparators[0].value)
        for stmt in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id == "tool"
                and isinstance(stmt.value, ast.Constant)
            ):
                tools[name] = str(stmt.value.value)
            if (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.targets[0], ast.Subscript)
                and isinstance(stmt.targets[0].slice, ast.Constant)
                and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Attribute)
                and stmt.value.func.attr == "pop"
                and stmt.value.args
                and isinstance(stmt.value.args[0], ast.Constant)
            ):
                moves[name] = (str(stmt.value.args[0].value), str(stmt.targets[0].slice.value))
    return services, tools, moves


def json_text(rows: list[dict[str, Any]]) -> str:
    """The trace file's text (indented JSON, as the runner writes it)."""
    return json.dumps(rows, ensure_ascii=False, indent=2, default=str)
