"""The ``env`` a public-release rubric receives, built over our :class:`CheckContext`.

Release rubrics are functions ``check(env)`` written against the runner's environment
object. :class:`RubricEnv` gives them that shape and nothing else:

- services as capabilities: ``env.email_mock.call_tool("get_emails", folder="INBOX")``,
  ``await env.calendar_mock.call_tool_async(...)``, ``env.email_mock.state.<table>``
  (rows as dicts); ``"email_mock" in env``; ``for name in env`` lists ``<service>_mock``
  and ``workspace``;
- the workspace as ``env.workspace.fs``: ``read_file(path) -> bytes`` (raises
  :class:`FileNotFoundError`), ``exists(path)`` (files and directories, as ``test -e``),
  ``list_dir(path)`` (the names in a directory, as ``ls -1`` prints them; raises
  :class:`FileNotFoundError` for a missing directory), ``list_files()``; any workspace
  spelling of a path works (``/terrarium/openclaw/workspace/x.md``, ``/workspace/x.md``,
  ``x.md``);
- the files the runner writes when a stage closes: ``/terrarium/agent_responses/stage_N.txt``
  and ``/terrarium/agent_traces/stage_N.json``, shaped as that bundle's runner shapes them
  (:class:`~vibelife_env.release.runtime.ReleaseRuntime`; no trace files for a runner
  that writes none), or plainly (replies joined, call records as JSON) for a bundle
  without a runner;
- on each service, besides its tools, ``query_table(table)``: every row of one of its
  tables (the rubrics' first way to read a table the tools do not expose; the runner's
  capabilities answer the same query from the service's database file);
- plain attribute storage: some rubrics cache their own results on ``env``.

One :class:`RubricEnv` exists per check context (one scoring pass), shared by every rubric
of the pass, as the runner shares its ``env``. The record is frozen while a pass runs, so
each stage file is looked up at most once per pass, and a runtime renders it at most once
per episode (a closed stage never changes). Rubric helpers that re-read and re-parse every
trace file for every check cost little more: the pass's stage files are parsed once and
shared (:mod:`vibelife_env.release.parsed`), and the rubric packages' pure text helpers
are memoized (:mod:`vibelife_env.release.purity`); :data:`SHARING` turns both off.

The check loader wraps each rubric function with :func:`rubric_binder`; checks never
import this module at import time (the release layer sits above them).
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable, Coroutine, Iterator
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from vibelife_env.checks.context import CheckContext
from vibelife_env.errors import ToolError
from vibelife_env.release.parsed import ParseMemo, install, parse_scope
from vibelife_env.release.purity import PackageMemos
from vibelife_env.release.runtime import ReleaseRuntime, json_text
from vibelife_env.services.base import Service
from vibelife_env.services.registry import canonical_name
from vibelife_env.workspace import normalize_path

if TYPE_CHECKING:
    from vibelife_env.task.loader import Task

_RESPONSE = re.compile(r"^/?terrarium/agent_responses/stage_(\d+)\.txt$")
_TRACE = re.compile(r"^/?terrarium/agent_traces/stage_(\d+)\.json$")
#: The runner's stage-file directories: kind of file and file-name suffix.
_STAGE_DIRS = {"/terrarium/agent_responses": ("response", ".txt"), "/terrarium/agent_traces": ("trace", ".json")}

#: Share stage-file parses within a pass and memoize pure rubric helpers (set ``False``
#: before the bundles load to score without, e.g. to compare results).
SHARING = True
#: A release rubric: ``check(env)`` (or ``check(namespace)``), sync or async.
RubricFn = Callable[[Any], Any]


class RubricFS:
    """``env.workspace.fs`` of the release rubrics: bytes out, :class:`FileNotFoundError` when absent."""

    def __init__(self, env: RubricEnv) -> None:
        self._env = env

    def _bytes(self, path: str) -> bytes | None:
        p = str(path).strip()
        if m := _RESPONSE.match(p):
            return self._env.stage_file("response", int(m.group(1)))
        if m := _TRACE.match(p):
            return self._env.stage_file("trace", int(m.group(1)))
        text = self._env.context.world.workspace.read(p)
        return None if text is None else text.encode("utf-8")

    def read_file(self, path: str) -> bytes:
        """The file's bytes.

        Raises:
            FileNotFoundError: no such workspace file, or the stage has not closed yet.
        """
        data = self._bytes(path)
        if data is None:
            raise FileNotFoundError(path)
        return data

    def exists(self, path: str) -> bool:
        """True for a file :meth:`read_file` can read and for a directory (``test -e``)."""
        return self._bytes(path) is not None or self._names(path) is not None

    def list_dir(self, path: str) -> list[str]:
        """The names of the files and directories in directory ``path``, sorted as ``ls -1``
        prints them (a file's own path for a file).

        Raises:
            FileNotFoundError: no such directory or file.
        """
        names = self._names(path)
        if names is None:
            if self._bytes(path) is None:
                raise FileNotFoundError(path)
            return [str(path)]
        return names

    def _names(self, path: str) -> list[str] | None:
        """The entries of directory ``path``, or ``None`` when it is not a directory."""
        p = "/" + str(path).strip().strip("/")
        if p in _STAGE_DIRS:
            kind, suffix = _STAGE_DIRS[p]
            stages = self._env.written_stages(kind)
            return None if stages is None else sorted(f"stage_{s}{suffix}" for s in stages)
        try:
            base = normalize_path(str(path))
        except ToolError:
            return None
        files = self._env.context.world.workspace.files
        if base == ".":
            return sorted({key.split("/", 1)[0] for key in files})
        prefix = base + "/"
        names = {key[len(prefix) :].split("/", 1)[0] for key in files if key.startswith(prefix)}
        return sorted(names) if names else None

    def list_files(self, directory: str = ".") -> list[str]:
        """Every workspace file (canonical relative paths, sorted); ``directory`` is ignored."""
        return sorted(self._env.context.world.workspace.files)


class RubricWorkspace:
    """``env.workspace``: holds :class:`RubricFS` as ``fs``."""

    def __init__(self, fs: RubricFS) -> None:
        self.fs = fs


class TableRows:
    """``capability.state.<table>``: a table's rows as dicts (the test-double surface some rubrics read)."""

    def __init__(self, service: Service) -> None:
        self._service = service

    def __getattr__(self, table: str) -> list[dict[str, Any]]:
        if table.startswith("_"):
            raise AttributeError(table)
        names = {r["name"] for r in self._service.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if table not in names:
            raise AttributeError(f"no table {table!r}")
        return self._service.query(f'SELECT * FROM "{table}"')


class Capability:
    """A service as the release rubrics see it: ``call_tool``, ``call_tool_async``, ``state``
    and every other attribute of the service."""

    def __init__(self, service: Service) -> None:
        self._provider = service
        self.state = TableRows(service)

    def query_table(self, table: str) -> list[dict[str, Any]]:
        """Every row of ``table`` as a dict; ``[]`` when the service has no such table
        (the runner's container query answers an SQL error with no rows)."""
        names = {r["name"] for r in self._provider.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if table not in names:
            return []
        return self._provider.query(f'SELECT * FROM "{table}"')

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._provider, name)


class RubricEnv:
    """The release runner's ``env`` over one :class:`CheckContext`; see the module docstring.

    Args:
        ctx: The context of the scoring pass.
        runtime: The bundle's runner facts (trace shape, visible events); ``None`` for a
            bundle with ``rubrics/`` but no runner, whose stage files are written plainly.
    """

    workspace: RubricWorkspace

    def __init__(self, ctx: CheckContext, runtime: ReleaseRuntime | None = None) -> None:
        self._ctx = ctx
        self._runtime = runtime
        self._caps: dict[str, Capability] = {}
        self._stage_files: dict[tuple[str, int], bytes | None] = {}
        self._space: SimpleNamespace | None = None
        self.parses = ParseMemo()
        self.workspace = RubricWorkspace(RubricFS(self))

    @classmethod
    def of(cls, ctx: CheckContext, runtime: ReleaseRuntime | None = None) -> RubricEnv:
        """The pass's one ``env`` for ``ctx`` and ``runtime`` (built on first use, kept in ``ctx.memo``)."""
        key = (cls, id(runtime))
        env = ctx.memo.get(key)
        if env is None:
            env = ctx.memo[key] = cls(ctx, runtime)
        return env

    @property
    def context(self) -> CheckContext:
        """The check context this ``env`` is built over."""
        return self._ctx

    @property
    def runtime(self) -> ReleaseRuntime | None:
        """The bundle's runner facts, or ``None``."""
        return self._runtime

    # ---------------------------------------------------------------- stage files
    def stage_written(self, stage: int) -> bool:
        """True when the runner would have written the stage's reply and trace files: the
        stage has closed (or is the one being scored)."""
        ctx = self._ctx
        if ctx.stage is not None:
            return stage <= ctx.stage
        if self._runtime is not None and stage in self._runtime.visible:
            return True
        return stage in ctx.record.replies or stage in ctx.record.traces

    def stage_file(self, kind: str, stage: int) -> bytes | None:
        """The bytes of ``stage_N.txt`` (``kind="response"``) or ``stage_N.json`` (``"trace"``);
        ``None`` before the stage is written. Looked up once per pass (and, with a
        runtime, rendered once per episode: see :meth:`ReleaseRuntime.stage_file`).

        Raises:
            ValueError: unknown ``kind``.
        """
        if kind not in ("response", "trace"):
            raise ValueError(f"kind must be 'response' or 'trace', got {kind!r}")
        key = (kind, stage)
        if key not in self._stage_files:
            written = self.stage_written(stage) and (kind == "response" or self.writes_traces)
            text = self._render(kind, stage) if written else None
            data = None if text is None else text.encode("utf-8")
            self._stage_files[key] = self.parses.stage_bytes(data) if data is not None and SHARING else data
        return self._stage_files[key]

    @property
    def writes_traces(self) -> bool:
        """False for a bundle whose runner writes no ``stage_N.json`` (there is no trace directory)."""
        return self._runtime is None or self._runtime.writes_traces

    def written_stages(self, kind: str) -> list[int] | None:
        """The stages whose ``kind`` file exists now, or ``None`` when the runner writes no such files."""
        if kind == "trace" and not self.writes_traces:
            return None
        ctx = self._ctx
        known = set(ctx.record.replies) | set(ctx.record.traces)
        if self._runtime is not None:
            known |= set(self._runtime.visible)
        if ctx.stage is not None:
            known |= set(range(ctx.stage + 1))
        return sorted(s for s in known if self.stage_written(s))

    def _render(self, kind: str, stage: int) -> str:
        if self._runtime is not None:
            return self._runtime.stage_file(self._ctx.record, kind, stage)
        return self._ctx.reply(stage) if kind == "response" else json_text(self._ctx.trace(stage))

    def namespace(self) -> SimpleNamespace:
        """The namespace one runner passes instead of ``env`` (built once per pass).

        Raises:
            ValueError: this ``env`` has no runtime.
        """
        if self._runtime is None:
            raise ValueError("the namespace form needs the bundle's runtime")
        if self._space is None:
            self._space = self._runtime.namespace(self)
        return self._space

    # --------------------------------------------------------------- capabilities
    def __contains__(self, name: object) -> bool:
        """``"email_mock" in env``: the runner's capability test."""
        return isinstance(name, str) and (name == "workspace" or self._ctx.has(name))

    def __iter__(self) -> Iterator[str]:
        """Capability names as the runner lists them: ``<service>_mock`` for each service, then ``workspace``."""
        return iter([*(f"{n}_mock" for n in self._ctx.world.services), "workspace"])

    def __getattr__(self, name: str) -> Capability:
        """``env.email_mock`` (or ``env.email``): the service as a :class:`Capability`."""
        if name.startswith("_"):
            raise AttributeError(name)
        service = canonical_name(name)
        provider = self._ctx.world.services.get(service)
        if provider is None:
            raise AttributeError(f"no service {name!r} in this task")
        if service not in self._caps:
            self._caps[service] = Capability(provider)
        return self._caps[service]


def bind_rubric(fn: RubricFn, runtime: ReleaseRuntime | None) -> Callable[[CheckContext], Any]:
    """A check function that runs the release rubric ``fn`` on the pass's :class:`RubricEnv`
    (or, for the namespace-style runner, on its namespace), with the pass's stage files
    parsed once (:mod:`vibelife_env.release.parsed`; installed in ``fn``'s package)."""
    namespace = runtime is not None and runtime.profile.namespace_context
    _install(fn)

    def check(ctx: CheckContext) -> Any:
        env = RubricEnv.of(ctx, runtime)
        with parse_scope(env.parses):
            value = fn(env.namespace() if namespace else env)
        return _scoped(env.parses, value) if inspect.iscoroutine(value) else value

    check.__name__ = getattr(fn, "__name__", "check")
    check.__doc__ = getattr(fn, "__doc__", None)
    check.__wrapped__ = fn  # type: ignore[attr-defined]

    def explained(ctx: CheckContext) -> tuple[RubricFn, tuple[Any, ...]]:  # what explain() reads: the rubric
        env = RubricEnv.of(ctx, runtime)
        return fn, (env.namespace() if namespace else env,)

    check.__explain__ = explained  # type: ignore[attr-defined]
    return check


async def _scoped(memo: ParseMemo, coro: Coroutine[Any, Any, Any]) -> Any:
    """An async rubric's coroutine, run (later, by the scorer) within its pass's parse scope."""
    with parse_scope(memo):
        return await coro


#: The memoized pure helpers of each rubric package (by package name).
_PURE: dict[str, PackageMemos] = {}


def _install(fn: RubricFn) -> None:
    """Give every loaded module of ``fn``'s package the rubric ``json`` and memoize its pure
    helpers (:mod:`vibelife_env.release.parsed`, :mod:`vibelife_env.release.purity`)."""
    package = str(getattr(fn, "__module__", "") or "").rpartition(".")[0]
    if not package or not SHARING:
        return
    modules = [
        m for n, m in list(sys.modules.items()) if m is not None and (n == package or n.startswith(package + "."))
    ]
    for module in modules:
        install(module)
    _PURE.setdefault(package, PackageMemos()).install(modules)


def rubric_binder(task: Task) -> Callable[[RubricFn], Callable[[CheckContext], Any]]:
    """How the check loader wraps each rubric function of ``task``: over the bundle's
    runtime when it ships a runner (``task.py``), plainly otherwise."""
    runtime = ReleaseRuntime.for_task(task) if task.release is not None else None
    return lambda fn: bind_rubric(fn, runtime)
