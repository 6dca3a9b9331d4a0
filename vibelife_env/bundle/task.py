"""Load a task bundle directory into a validated :class:`~vibelife_env.task.loader.Task`.

Layout (the public release's): ``task.toml``, ``event.yaml``,
``envs/<service>/<env_name>/init.sql`` (or ``init.yaml`` with ``{table: [rows]}``),
``mutations/``, ``workspace/``, ``rubrics/``; our own bundles may add ``checks.py`` and
``oracle.py``. Every problem raises :class:`TaskLoadError` naming the file and field.

This loader sits above the task, checks and release layers: it reads the release profile,
replays the timeline as the release runner does, and gives the task its check loader.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pydantic

from vibelife_env.bundle.checks import load_checks
from vibelife_env.clock import get_zone
from vibelife_env.errors import TaskLoadError
from vibelife_env.release import ReleaseProfile, is_release_bundle, load_profile, prepare_stages
from vibelife_env.services.registry import SERVICES, canonical_name
from vibelife_env.task.loader import Task, read_yaml
from vibelife_env.task.models import (
    OP_TAGS,
    Event,
    ScriptOp,
    SqlFileOp,
    Stage,
    TaskMeta,
    WorkspaceFileOp,
    WorkspacePathOp,
)
from vibelife_env.workspace import Workspace


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise TaskLoadError(path, "", "missing task.toml")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TaskLoadError(path, "", f"invalid TOML: {exc}") from None


def _meta_from_toml(root: Path, data: dict[str, Any]) -> TaskMeta:
    md, sc = data.get("metadata", {}), data.get("scenario", {})
    deps, scoring = data.get("dependencies", {}), data.get("scoring", {})
    rt, own = data.get("runtime", {}), data.get("vibelife", {})
    raw = {
        "name": md.get("name") or root.name,
        "domain": md.get("category") or md.get("domain") or root.parent.name,
        "title": md.get("title_en") or md.get("title") or md.get("title_zh") or "",
        "summary": md.get("summary_en") or md.get("summary") or md.get("description") or "",
        "difficulty": md.get("difficulty", ""),
        "language": md.get("language", []),
        "timezone": sc.get("timezone", "UTC"),
        "start_date": str(sc["start_date"]) if "start_date" in sc else None,
        "end_date": str(sc["end_date"]) if "end_date" in sc else None,
        "stage_count": sc.get("stage_count"),
        "servers": deps.get("servers", []),
        "envs": deps.get("envs", {}),
        "scoring_mode": scoring.get("mode", "flat_pool"),
        "declared_total_weight": scoring.get("total_weight"),
        "declared_check_count": scoring.get("checker_count"),
        "events_file": rt.get("events", "event.yaml"),
        "workspace_dir": rt.get("workspace", "workspace"),
        "env_root": rt.get("env_root", "envs"),
        "rubrics_dir": rt.get("rubrics", "rubrics"),
        "mutations_dir": rt.get("mutations", "mutations"),
        **own,
    }
    try:
        meta = TaskMeta.model_validate(raw)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        raise TaskLoadError(root / "task.toml", ".".join(map(str, err["loc"])), err["msg"]) from None
    try:
        get_zone(meta.timezone)
    except ValueError as exc:
        raise TaskLoadError(root / "task.toml", "scenario.timezone", str(exc)) from None
    return meta


def _load_events(root: Path, meta: TaskMeta, services: list[str], release: ReleaseProfile | None = None) -> list[Stage]:
    path = root / meta.events_file
    if not path.is_file():
        raise TaskLoadError(path, "", "missing event timeline")
    data = read_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("stages"), dict):
        raise TaskLoadError(path, "stages", "expected a mapping 'stages: {<n>: [events]}'")
    raw_stages = data["stages"]
    if release is not None:  # replay order, rendering and skips of the release runner
        try:
            raw_stages = prepare_stages(
                release, raw_stages, meta.start_date, meta.timezone, _rubric_stage_count(root, meta, release)
            )
        except (TypeError, ValueError) as exc:
            raise TaskLoadError(path, "stages", f"cannot replay as the release runner does: {exc}") from None
    stages: list[Stage] = []
    seen: set[str] = set()
    for key, raw_events in raw_stages.items():
        try:
            index = int(key)
        except (TypeError, ValueError):
            raise TaskLoadError(path, f"stages.{key}", "stage keys must be integers") from None
        if not isinstance(raw_events, list):
            raise TaskLoadError(path, f"stages.{key}", "expected a list of events")
        events = []
        for i, raw in enumerate(raw_events):
            field_path = f"stages.{key}[{i}]"
            if not isinstance(raw, dict):
                raise TaskLoadError(path, field_path, "expected a mapping")
            try:
                event = Event.model_validate({**raw, "stage": index})
            except pydantic.ValidationError as exc:
                err = exc.errors()[0]
                loc = _format_loc(err["loc"])
                raise TaskLoadError(path, f"{field_path}{loc}", err["msg"]) from None
            if event.id in seen:
                raise TaskLoadError(path, f"{field_path}.id", f"duplicate event id {event.id!r}")
            seen.add(event.id)
            _check_ops(root, path, field_path, event, services)
            events.append(event)
        if release is None:
            events.sort(key=lambda e: e.time)  # stable: same-time events keep file order
        stages.append(Stage(index=index, events=tuple(events)))
    stages.sort(key=lambda s: s.index)
    return stages


def _format_loc(loc: tuple[Any, ...]) -> str:
    """``('apply', 0, 'row', 'op')`` → ``.apply[0].op`` (union tags dropped)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part not in OP_TAGS and not str(part).startswith(("function-", "union")):
            out += f".{part}"
    return out


def _rubric_stage_count(root: Path, meta: TaskMeta, release: ReleaseProfile) -> int:
    """Highest ``rubrics/stage_N.py`` + 1 when the runner counts stages from rubrics, else 0."""
    if not release.stages_from_rubrics:
        return 0
    found = [int(p.stem.split("_", 1)[1]) for p in (root / meta.rubrics_dir).glob("stage_*.py") if p.stem[6:].isdigit()]
    return max(found) + 1 if found else 0


def _check_ops(root: Path, path: Path, field_path: str, event: Event, services: list[str]) -> None:
    for j, op in enumerate(event.apply):
        where = f"{field_path}.apply[{j}]"
        server = getattr(op, "server", None)
        if server is not None and canonical_name(server) not in services:
            raise TaskLoadError(path, f"{where}.server", f"service {server!r} is not enabled in task.toml dependencies")
        files = []
        if isinstance(op, SqlFileOp):
            files.append(op.sql_file)
        elif isinstance(op, WorkspaceFileOp) and op.workspace_file.source:
            files.append(op.workspace_file.source)
        elif isinstance(op, WorkspacePathOp):
            files.append(op.source_file)
        elif isinstance(op, ScriptOp) and ":" in op.script:
            files.append(op.script.partition(":")[0])
        for f in files:
            if not (root / f).is_file():
                raise TaskLoadError(path, where, f"file {f!r} does not exist in the bundle")
    if event.facts is not None and ":" in event.facts and not (root / event.facts.partition(":")[0]).is_file():
        raise TaskLoadError(
            path, f"{field_path}.facts", f"file {event.facts.partition(':')[0]!r} does not exist in the bundle"
        )
    for j, pc in enumerate(event.postconditions):
        if pc.server is not None and canonical_name(pc.server) not in services:
            raise TaskLoadError(
                path, f"{field_path}.postconditions[{j}].server", f"service {pc.server!r} is not enabled"
            )


def _load_seeds(root: Path, meta: TaskMeta) -> dict[str, list[tuple[Path, str]]]:
    seeds: dict[str, list[tuple[Path, str]]] = {}
    for i, raw in enumerate(meta.servers):
        name = canonical_name(raw)
        if name not in SERVICES:
            raise TaskLoadError(
                root / "task.toml",
                f"dependencies.servers[{i}]",
                f"unknown service {raw!r}; known: {', '.join(SERVICES)}",
            )
        env_name = meta.envs.get(raw) or meta.envs.get(name) or meta.name
        env_dir = root / meta.env_root / name / env_name
        files: list[tuple[Path, str]] = []
        for candidate, kind in (("init.sql", "sql"), ("init.yaml", "yaml")):
            if (env_dir / candidate).is_file():
                files.append((env_dir / candidate, kind))
        seeds[name] = files
    return seeds


def load_task(path: str | Path) -> Task:
    """Load and validate a bundle directory.

    Raises:
        TaskLoadError: the bundle is malformed (message names the file and field).
    """
    root = Path(path).resolve()
    if not root.is_dir():
        raise TaskLoadError(root, "", "task bundle directory does not exist")
    meta = _meta_from_toml(root, _read_toml(root / "task.toml"))
    seeds = _load_seeds(root, meta)
    release = load_profile(root, meta.start_date, meta.timezone) if is_release_bundle(root) else None
    stages = _load_events(root, meta, list(seeds), release)
    if not any(e.opens_turn for s in stages for e in s.events):
        raise TaskLoadError(root / meta.events_file, "stages", "the timeline has no turn-opening event")
    try:
        files = Workspace.from_directory(root / meta.workspace_dir)
    except UnicodeDecodeError as exc:
        raise TaskLoadError(root / meta.workspace_dir, "", str(exc.reason)) from None
    return Task(
        root=root, meta=meta, stages=stages, workspace_files=files, seeds=seeds, release=release, load_suite=load_checks
    )


_CACHE: dict[tuple[str, float], Task] = {}


def load_task_cached(path: str | Path) -> Task:
    """:func:`load_task`, memoized per process on the path and ``event.yaml``'s mtime."""
    root = Path(path).resolve()
    try:
        stamp = max((root / f).stat().st_mtime for f in ("task.toml", "event.yaml") if (root / f).exists())
    except ValueError:
        stamp = 0.0
    key = (str(root), stamp)
    if key not in _CACHE:
        _CACHE[key] = load_task(root)
    return _CACHE[key]
