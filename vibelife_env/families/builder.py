"""Assemble a task instance in memory: meta, seeds, workspace, timeline, checks, oracle.

A family's ``build`` fills a :class:`TaskBuilder` (directly and through probes) and calls
:meth:`TaskBuilder.task`. The result is the same :class:`~vibelife_env.task.loader.Task`
the bundle loader makes from a folder, so the engine, the gates and every tool treat a
family instance like any own task.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from vibelife_env.checks.base import CheckSet
from vibelife_env.errors import TaskLoadError
from vibelife_env.services.registry import SERVICES, canonical_name
from vibelife_env.task.loader import Task
from vibelife_env.task.models import Event, Stage, TaskMeta


class TaskBuilder:
    """Collects one instance's parts; see the module docstring.

    Args:
        root: The family's folder (the instance's ``Task.root``).
        name: The instance's task name (``<family>-<key>``).
        domain: Its domain.
        title: A one-line title.
        timezone: The task's IANA zone.
        user_name: Whom the assistant serves (the system prompt names them).
    """

    def __init__(self, root: Path, name: str, domain: str, title: str, timezone: str, user_name: str) -> None:
        self.root = root
        self.meta: dict[str, Any] = {
            "name": name,
            "domain": domain,
            "title": title,
            "timezone": timezone,
            "user_name": user_name,
        }
        self.services: list[str] = []
        self.seed_sql: dict[str, list[str]] = {}
        self.files: dict[str, str] = {}
        self.stages: dict[int, list[Event]] = {}
        self.checks = CheckSet()
        self.callables: dict[str, Callable[..., Any]] = {}
        self.oracle: tuple[type, dict[str, type], dict[str, type]] | None = None
        self.footprints: dict[str, Any] = {}  # probe label -> its Footprint (probes.base)

    def use(self, *services: str) -> None:
        """Enable services (idempotent)."""
        for s in services:
            name = canonical_name(s)
            if name not in SERVICES:
                raise TaskLoadError(self.root, "services", f"unknown service {s!r}")
            if name not in self.services:
                self.services.append(name)

    def seed(self, service: str, sql: str) -> None:
        """Add seed SQL for a service (enables it)."""
        self.use(service)
        self.seed_sql.setdefault(canonical_name(service), []).append(sql)

    def file(self, path: str, text: str) -> None:
        """A workspace file the agent starts with."""
        self.files[path] = text

    def callable(self, name: str, fn: Callable[..., Any]) -> str:
        """Register a function a script mutation or event facts names; returns ``name``."""
        if name in self.callables and self.callables[name] is not fn:
            raise ValueError(f"callable {name!r} registered twice")
        self.callables[name] = fn
        return name

    def event(self, stage: int, **fields: Any) -> Event:
        """Add a timeline event to ``stage`` (fields as in ``event.yaml``)."""
        event = Event.model_validate({**fields, "stage": stage})
        self.stages.setdefault(stage, []).append(event)
        return event

    def last_stage(self) -> int:
        """The highest stage index so far (-1 when empty)."""
        return max(self.stages, default=-1)

    def task(self, **meta: Any) -> Task:
        """The finished, validated task.

        Raises:
            TaskLoadError: duplicate event ids, stages out of time order, no turn-opening
                event, or checks naming a stage that does not exist.
        """
        seen: set[str] = set()
        stages = []
        last: datetime | None = None
        for index in sorted(self.stages):
            events = sorted(self.stages[index], key=lambda e: e.time)
            for e in events:
                if e.id in seen:
                    raise TaskLoadError(self.root, f"stages.{index}", f"duplicate event id {e.id!r}")
                seen.add(e.id)
            if last is not None and events and events[0].time < last:
                raise TaskLoadError(self.root, f"stages.{index}", "stage starts before the previous one ends")
            last = events[-1].time if events else last
            stages.append(Stage(index=index, events=tuple(events)))
        if not any(e.opens_turn for s in stages for e in s.events):
            raise TaskLoadError(self.root, "stages", "the timeline has no turn-opening event")
        suite = self.checks.suite()
        indices = {s.index for s in stages}
        for c in suite:
            if c.tier == "stage" and c.stage not in indices:
                raise TaskLoadError(self.root, c.id, f"stage {c.stage} does not exist in the timeline")
        task_meta = TaskMeta.model_validate({**self.meta, "servers": list(self.services), **meta})
        return Task(
            root=self.root,
            meta=task_meta,
            stages=stages,
            workspace_files=dict(self.files),
            seeds={s: [] for s in self.services},
            seed_sql={k: list(v) for k, v in self.seed_sql.items()},
            suite=suite,
            oracle=self.oracle,
            callables=dict(self.callables),
            footprints=dict(self.footprints),
        )
