"""A task: a bundle loaded by :mod:`vibelife_env.bundle`, or an instance a family generates.

:class:`Task` sits in the task layer, below checks and release: it holds what they produce
(its ``suite``, or the ``load_suite`` its loader gave it, and its ``release`` profile)
without importing them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

from vibelife_env.clock import VirtualClock, get_zone
from vibelife_env.errors import TaskLoadError
from vibelife_env.services.base import ServiceContext
from vibelife_env.services.registry import service_class
from vibelife_env.task.models import Event, Stage, TaskMeta
from vibelife_env.task.modules import bundle_callable

if TYPE_CHECKING:
    from vibelife_env.checks.base import CheckSuite
    from vibelife_env.release import ReleaseProfile


@dataclass
class Task:
    """A loaded bundle, or a task generated in memory (a scenario-family instance).

    Heavy derived data (seeded images, checks) is built once, lazily. A bundle reads its
    seeds, checks and oracle from files under ``root``; a generated task carries them:
    ``seed_sql`` (SQL per service, after any seed files), ``suite`` (its checks),
    ``oracle`` (``(Oracle, ABLATIONS, VARIANTS)``) and ``callables`` (the functions its
    script mutations and event facts name).
    """

    root: Path
    meta: TaskMeta
    stages: list[Stage]
    workspace_files: dict[str, str]
    seeds: dict[str, list[tuple[Path, str]]] = field(repr=False)
    release: ReleaseProfile | None = field(default=None, repr=False)
    seed_sql: dict[str, list[str]] = field(default_factory=dict, repr=False)
    suite: CheckSuite | None = field(default=None, repr=False)
    oracle: tuple[type, dict[str, type], dict[str, type]] | None = field(default=None, repr=False)
    callables: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    footprints: dict[str, Any] = field(default_factory=dict, repr=False)  # a family instance's probes (probes.base)
    load_suite: Callable[[Task], CheckSuite] | None = field(default=None, repr=False)

    @property
    def id(self) -> str:
        """``<domain>/<name>``."""
        return f"{self.meta.domain}/{self.meta.name}"

    @property
    def services(self) -> list[str]:
        """Enabled services, canonical names, in declaration order."""
        return list(self.seeds)

    @property
    def events(self) -> list[Event]:
        """All events in dispatch order."""
        return [e for s in self.stages for e in s.events]

    @cached_property
    def start_time(self) -> datetime:
        """The clock's start: the first event's time (or the scenario start date)."""
        events = self.events
        if events:
            return events[0].time
        zone = get_zone(self.meta.timezone)
        return datetime.fromisoformat(self.meta.start_date or "2026-01-01").replace(tzinfo=zone)

    @cached_property
    def images(self) -> dict[str, bytes]:
        """Each service's database after schema + seed, serialized once and copied per reset.

        Raises:
            TaskLoadError: a seed file does not apply (names the file and the SQL error).
        """
        clock = VirtualClock(self.start_time, get_zone(self.meta.timezone))
        out: dict[str, bytes] = {}
        for name, files in self.seeds.items():
            svc = service_class(name)(ServiceContext(clock, np.random.default_rng(0)))
            for path, kind in files:
                try:
                    if kind == "sql":
                        svc.load_sql(path.read_text(encoding="utf-8"))
                    else:
                        rows = read_yaml(path)
                        if not isinstance(rows, dict):
                            raise TaskLoadError(path, "", "expected a mapping of table name to a list of rows")
                        for table, table_rows in rows.items():
                            svc.insert_rows(table, table_rows or [])
                except TaskLoadError:
                    raise
                except Exception as exc:
                    raise TaskLoadError(path, "", f"seed does not apply to service {name!r}: {exc}") from exc
            for i, script in enumerate(self.seed_sql.get(name, [])):
                try:
                    svc.load_sql(script)
                except Exception as exc:
                    raise TaskLoadError(self.root, f"seed_sql.{name}[{i}]", f"seed does not apply: {exc}") from exc
            svc.after_seed()
            out[name] = svc.serialize()
        return out

    @cached_property
    def checks(self) -> CheckSuite:
        """The task's checks: a generated task's ``suite``, else what its loader reads
        (``checks.py`` and/or ``rubrics/``, see :func:`vibelife_env.bundle.checks.load_checks`).

        Raises:
            TaskLoadError: neither (a task built by hand without checks).
        """
        if self.suite is not None:
            return self.suite
        if self.load_suite is None:
            raise TaskLoadError(self.root, "checks", "the task has no checks and no loader for them")
        return self.load_suite(self)

    def oracle_path(self) -> Path | None:
        """``oracle.py`` when the bundle ships one (``None`` for a generated task)."""
        if self.oracle is not None:
            return None
        p = self.root / "oracle.py"
        return p if p.is_file() else None

    @property
    def has_oracle(self) -> bool:
        """True when the task has a reference policy (``oracle.py`` or a generated one)."""
        return self.oracle is not None or self.oracle_path() is not None

    def resolve(self, ref: str) -> Callable[..., Any]:
        """The function a script mutation or event ``facts`` names: one of ``callables``, or
        ``"<file>.py:<function>"`` of the bundle.

        Raises:
            MutationError: no such function.
        """
        if ref in self.callables:
            return self.callables[ref]
        return bundle_callable(self.root, ref)


def read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        raise TaskLoadError(path, where, f"invalid YAML: {getattr(exc, 'problem', exc)}") from None
