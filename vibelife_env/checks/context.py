"""The read-only view a check sees.

A :class:`CheckContext` wraps a sandboxed view of the world (:meth:`World.sandbox`: every
service inside a savepoint that is rolled back, workspace and generator restored, when the
checks are done) or a fork, so no check can change the episode's world, whatever tools it
calls. It exposes:

- services: ``ctx.call("email", "get_emails", folder="Sent")`` and read-only SQL
  ``ctx.sql("flight_booking", "SELECT ...")``;
- workspace files: ``ctx.file("ledger.md")``, ``ctx.files``;
- the agent's conduct: ``ctx.reply(stage)``, ``ctx.trace(stage)``, ``ctx.calls()``;
- sent mail: ``ctx.sent_mail()``;
- and, for the public release's rubric modules, the attribute shape they use:
  ``ctx.email_mock.call_tool(...)``, ``ctx.workspace.fs.read_file(...)``, and the stage
  reply/trace files ``/terrarium/agent_responses/stage_N.txt`` and
  ``/terrarium/agent_traces/stage_N.json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from vibelife_env.services.registry import canonical_name
from vibelife_env.services.tooling import ToolProvider
from vibelife_env.workspace import normalize_path
from vibelife_env.world import World

#: The email service quotes the original below this line in replies and forwards.
QUOTE_MARKER = "--- Original Message ---"
_RESPONSE = re.compile(r"^/?terrarium/agent_responses/stage_(\d+)\.txt$")
_TRACE = re.compile(r"^/?terrarium/agent_traces/stage_(\d+)\.json$")


@dataclass
class EpisodeRecord:
    """What the agent said and did, per stage (owned by the env, copied for checks)."""

    replies: dict[int, list[str]] = field(default_factory=dict)
    traces: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    #: per stage, the number of trace rows when each reply closed its turn (turn bounds)
    marks: dict[int, list[int]] = field(default_factory=dict)

    def add_reply(self, stage: int, text: str) -> None:
        self.replies.setdefault(stage, []).append(text)
        self.marks.setdefault(stage, []).append(len(self.traces.get(stage, [])))

    def add_call(self, stage: int, entry: dict[str, Any]) -> None:
        self.traces.setdefault(stage, []).append(entry)

    def copy(self) -> EpisodeRecord:
        return EpisodeRecord(
            {k: list(v) for k, v in self.replies.items()},
            {k: list(v) for k, v in self.traces.items()},
            {k: list(v) for k, v in self.marks.items()},
        )


class _FS:
    """``env.workspace.fs`` of the public rubrics: bytes in, FileNotFoundError when absent."""

    def __init__(self, ctx: CheckContext) -> None:
        self._ctx = ctx

    def _text(self, path: str) -> str | None:
        p = str(path).strip()
        runtime = self._ctx.release_runtime
        if m := _RESPONSE.match(p):
            stage = int(m.group(1))
            if not self._ctx.stage_written(stage):
                return None
            return runtime.response_text(self._ctx, stage) if runtime else self._ctx.reply(stage)
        if m := _TRACE.match(p):
            stage = int(m.group(1))
            if not self._ctx.stage_written(stage):
                return None
            rows = runtime.trace_rows(self._ctx, stage) if runtime else self._ctx.trace(stage)
            return json.dumps(rows, ensure_ascii=False, indent=2, default=str)
        return self._ctx.world.workspace.read(p)

    def read_file(self, path: str) -> bytes:
        text = self._text(path)
        if text is None:
            raise FileNotFoundError(path)
        return text.encode("utf-8")

    def exists(self, path: str) -> bool:
        return self._text(path) is not None

    def list_files(self, directory: str = ".") -> list[str]:
        return sorted(self._ctx.world.workspace.files)


class _TableRows:
    """``cap.state.<table>``: a table's rows as dicts (the test-double surface some rubrics read)."""

    def __init__(self, service: Any) -> None:
        self._service = service

    def __getattr__(self, table: str) -> list[dict[str, Any]]:
        if table.startswith("_"):
            raise AttributeError(table)
        names = {r["name"] for r in self._service.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if table not in names:
            raise AttributeError(f"no table {table!r}")
        return self._service.query(f'SELECT * FROM "{table}"')


class _Capability:
    """A service as the release rubrics see it: ``call_tool``, ``call_tool_async`` and ``state``."""

    def __init__(self, provider: ToolProvider) -> None:
        self._provider = provider
        self.state = _TableRows(provider)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._provider, name)


class _WorkspaceView:
    def __init__(self, ctx: CheckContext) -> None:
        self.fs = _FS(ctx)


class CheckContext:
    """Read-only view for checks; see the module docstring.

    Args:
        world: A fork of the episode's world (the context may use it freely).
        record: Copy of the agent's replies and tool traces.
        stage: The stage being scored (``None`` for end tiers).
        personas: Persona names of the task (multi-agent).
    """

    def __init__(
        self,
        world: World,
        record: EpisodeRecord,
        stage: int | None = None,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self.world = world
        self.record = record
        self.stage = stage
        self.workspace = _WorkspaceView(self)
        self._on_close = on_close

    def close(self) -> None:
        """Release the world view (undoes anything the checks did to it)."""
        if self._on_close is not None:
            self._on_close()
            self._on_close = None
        #: set for public-release rubrics: shapes reply and trace files as its runner did
        self.release_runtime: Any = None

    def stage_written(self, stage: int) -> bool:
        """True when the stage's reply/trace files exist: the stage has closed (or is closing)."""
        if self.stage is not None:
            return stage <= self.stage
        known = self.release_runtime is not None and stage in self.release_runtime.visible
        return known or stage in self.record.replies or stage in self.record.traces

    # ----------------------------------------------------------------- services
    @property
    def now(self) -> datetime:
        """World time when the checks run."""
        return self.world.clock.now()

    def has(self, service: str) -> bool:
        """True when the task enables ``service``."""
        return canonical_name(service) in self.world.services

    def call(self, service: str, tool: str, **args: Any) -> Any:
        """Call a service tool on the fork; returns its result or error object."""
        provider = self.world.provider(service)
        if provider is None:
            raise KeyError(f"service {service!r} is not enabled in this task")
        return provider.call(tool, args)

    def sql(self, service: str, query: str, params: tuple | list = ()) -> list[dict[str, Any]]:
        """Run a read-only SQL query against a service's tables."""
        svc = self.world.services[canonical_name(service)]
        svc.conn.execute("PRAGMA query_only = ON")
        try:
            return svc.query(query, params)
        finally:
            svc.conn.execute("PRAGMA query_only = OFF")

    def __contains__(self, name: object) -> bool:
        """``"email_mock" in env``: the release runtime's capability test."""
        return isinstance(name, str) and (name == "workspace" or self.has(name))

    def __iter__(self):
        """Capability names, as the release runtime lists them (``<service>_mock``, ``workspace``)."""
        return iter([*(f"{n}_mock" for n in self.world.services), "workspace"])

    def __getattr__(self, name: str) -> ToolProvider:
        """``ctx.email_mock`` / ``ctx.email``: the service, for ``call_tool``."""
        if name.startswith("_"):
            raise AttributeError(name)
        provider = self.world.provider(name) if name != "workspace" else None
        if provider is None:
            raise AttributeError(f"no service {name!r} in this task")
        return _Capability(provider)  # type: ignore[return-value]

    # ---------------------------------------------------------------- workspace
    @property
    def files(self) -> MappingProxyType[str, str]:
        """Workspace files, canonical path → text (read-only mapping)."""
        return MappingProxyType(self.world.workspace.files)

    def file(self, path: str) -> str:
        """A workspace file's text, ``""`` when absent."""
        return self.world.workspace.read(path) or ""

    def file_exists(self, path: str) -> bool:
        """True when the workspace has ``path``."""
        try:
            return normalize_path(path) in self.world.workspace.files
        except Exception:
            return False

    # ---------------------------------------------------------------- conduct
    def reply(self, stage: int) -> str:
        """All reply text of one stage, turns joined by blank lines."""
        return "\n\n".join(self.record.replies.get(stage, []))

    def replies_until(self, stage: int) -> str:
        """All reply text of stages ``<= stage``."""
        return "\n\n".join(self.reply(s) for s in sorted(self.record.replies) if s <= stage)

    def trace(self, stage: int) -> list[dict[str, Any]]:
        """Tool calls of one stage: ``{name, server, tool, args, ok, result}``."""
        return list(self.record.traces.get(stage, []))

    def calls(self, name: str | None = None, ok: bool | None = None) -> list[dict[str, Any]]:
        """All tool calls of the episode so far, optionally filtered by full name and success."""
        out = [c for s in sorted(self.record.traces) for c in self.record.traces[s]]
        if name is not None:
            out = [c for c in out if c["name"] == name]
        if ok is not None:
            out = [c for c in out if c["ok"] is ok]
        return out

    def first_call_stage(self, name: str, ok: bool = True) -> int | None:
        """The first stage in which the agent successfully called ``name``."""
        for s in sorted(self.record.traces):
            if any(c["name"] == name and c["ok"] is ok for c in self.record.traces[s]):
                return s
        return None

    def sent_mail(self) -> list[dict[str, Any]]:
        """Messages in the email service's Sent folder.

        Each is ``{id, to, cc, bcc, subject, body, own_body, date}``; ``own_body`` is the text
        the agent wrote, without the quoted original of a reply or forward.
        """
        if not self.has("email"):
            return []
        rows = self.sql(
            "email",
            "SELECT m.* FROM messages m JOIN folders f ON f.id = m.folder_id WHERE f.name = 'Sent' ORDER BY m.id",
        )
        out = []
        for r in rows:
            out.append(
                {
                    "id": r["id"],
                    "to": _addr_list(r.get("to_addr_json")),
                    "cc": _addr_list(r.get("cc_addr_json")),
                    "bcc": _addr_list(r.get("bcc_addr_json")),
                    "subject": r.get("subject") or "",
                    "body": (r.get("body_text") or "") + "\n" + (r.get("body_html") or ""),
                    "own_body": (r.get("body_text") or "").split(QUOTE_MARKER, 1)[0],
                    "date": r.get("date"),
                }
            )
        return out


def _addr_list(raw: Any) -> list[str]:
    if not raw:
        return []
    try:
        value = json.loads(raw)
    except (TypeError, json.JSONDecodeError):
        return [a.strip().lower() for a in str(raw).split(",") if a.strip()]
    return [str(a).strip().lower() for a in value] if isinstance(value, list) else [str(value).lower()]
