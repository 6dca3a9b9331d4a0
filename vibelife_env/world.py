"""The world: services + workspace + clock + seeded generator + wake-up schedule.

A :class:`WorldSnapshot` is plain data (database images as bytes, the workspace dict,
the clock instant, the generator state, the schedule), so it pickles across processes
and restores exactly: ``World.from_snapshot(w.snapshot()).digest() == w.digest()``, at
any step of an episode.

That holds because no transaction stays open between tool calls: each call, mutation and
scoring pass opens its own savepoint (:meth:`World.atomic`, :meth:`World.sandbox`) and
ends it before control returns to the episode. A snapshot taken while one is open would
miss uncommitted pages (``sqlite3.Connection.serialize`` copies what is committed), so
:meth:`World.snapshot` refuses to run then.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from vibelife_env.clock import VirtualClock, get_zone
from vibelife_env.scheduler import Scheduler, SchedulerState
from vibelife_env.services.base import Service, ServiceContext
from vibelife_env.services.registry import canonical_name, service_class
from vibelife_env.services.tooling import NAME_SEP, ToolProvider
from vibelife_env.workspace import Workspace


@dataclass(frozen=True)
class WorldSnapshot:
    """Everything needed to rebuild a world exactly; picklable."""

    images: dict[str, bytes]
    files: dict[str, str]
    now: datetime
    tz_name: str
    rng_state: Mapping[str, Any]
    applied_keys: frozenset[str] = field(default_factory=frozenset)
    schedule: SchedulerState = field(default_factory=SchedulerState)


@dataclass(frozen=True)
class _PyState:
    """The world's state that lives outside SQLite (restored by hand on rollback)."""

    files: dict[str, str]
    rng: Mapping[str, Any]
    keys: frozenset[str]
    now: datetime
    schedule: SchedulerState


class World:
    """Services, workspace, clock, generator and wake-up schedule of one episode.

    Args:
        images: Seeded database image per service name.
        files: Initial workspace files.
        start: Initial clock instant.
        tz_name: The task's IANA zone.
        seed: Seed of the world's generator (ids, any randomness in services).
    """

    def __init__(
        self, images: dict[str, bytes], files: dict[str, str], start: datetime, tz_name: str = "UTC", seed: int = 0
    ) -> None:
        self.tz_name = tz_name
        self.clock = VirtualClock(start, get_zone(tz_name))
        self.rng = np.random.default_rng(seed)
        self.ctx = ServiceContext(self.clock, self.rng)
        self.services: dict[str, Service] = {
            name: service_class(name)(self.ctx, image) for name, image in images.items()
        }
        self.workspace = Workspace(files)
        self.scheduler = Scheduler(self.clock)
        self.applied_keys: set[str] = set()
        self._depth = 0  # open atomic()/sandbox() scopes

    # ------------------------------------------------------------------ tools
    def provider(self, name: str) -> ToolProvider | None:
        """The service (or the workspace, or the wake-up scheduler) called ``name``; ``None`` when not enabled."""
        if name == "workspace":
            return self.workspace
        if name == Scheduler.name:
            return self.scheduler
        return self.services.get(canonical_name(name))

    def call(self, agent_name: str, args: Any = None, caller: str = "assistant") -> Any:
        """Call ``<service>__<tool>`` as the agent ``caller`` would. Never raises for bad input."""
        service, sep, tool_name = agent_name.partition(NAME_SEP)
        if not sep or not tool_name:
            return {
                "error": f"tool name {agent_name[:80]!r} must look like '<service>{NAME_SEP}<tool>'",
                "code": "UNKNOWN_TOOL",
            }
        provider = self.provider(service)
        if provider is None:
            return {
                "error": f"service {service[:60]!r} is not available in this task; available: "
                f"{', '.join(self.provider_names())}",
                "code": "UNKNOWN_TOOL",
            }
        self.scheduler.caller = caller
        return provider.call(tool_name, args)

    def provider_names(self) -> list[str]:
        """Enabled services, then ``workspace`` and ``assistant`` (the wake-up scheduler)."""
        return [*self.services, "workspace", Scheduler.name]

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every tool the agent can call, OpenAI function format, in a stable order."""
        schemas: list[dict[str, Any]] = []
        for name in self.provider_names():
            provider = self.provider(name)
            assert provider is not None
            schemas.extend(provider.openai_tools())
        return schemas

    # ------------------------------------------------------------ transactions
    def _py_state(self) -> _PyState:
        return _PyState(
            dict(self.workspace.files),
            self.rng.bit_generator.state,
            frozenset(self.applied_keys),
            self.clock.now(),
            self.scheduler.state,
        )

    def _set_py_state(self, state: _PyState) -> None:
        self.workspace.files = dict(state.files)
        self.rng.bit_generator.state = state.rng
        self.applied_keys = set(state.keys)
        self.clock.set(state.now)
        self.scheduler.state = state.schedule

    def _begin(self, name: str) -> _PyState:
        for svc in self.services.values():
            svc.conn.execute(f"SAVEPOINT {name}")
        self._depth += 1
        return self._py_state()

    def _end(self, name: str, state: _PyState, rollback: bool) -> None:
        self._depth -= 1
        for svc in self.services.values():
            if rollback:
                svc.conn.execute(f"ROLLBACK TO {name}")
            svc.conn.execute(f"RELEASE {name}")
        if rollback:
            self._set_py_state(state)

    @contextmanager
    def atomic(self) -> Iterator[World]:
        """All or nothing: if the block raises, every service, the workspace, the generator,
        the clock, the schedule and the idempotency keys are put back as they were.

        Used for timeline mutations, so that a failing one rolls back only itself.
        """
        state = self._begin("vl_atomic")
        try:
            yield self
        except BaseException:
            self._end("vl_atomic", state, rollback=True)
            raise
        self._end("vl_atomic", state, rollback=False)

    def sandbox(self) -> WorldSandbox:
        """Open a throw-away view of this world: everything done through it is undone on close.

        Much cheaper than :meth:`fork` (no database copies): every service opens a
        savepoint that :meth:`WorldSandbox.close` rolls back, and the rest of the state is
        put back as it was. Checks run in one.
        """
        return WorldSandbox(self)

    # -------------------------------------------------------------- snapshots
    def snapshot(self) -> WorldSnapshot:
        """Copy the whole world state (cheap: serialized images, no SQL replay).

        Raises:
            RuntimeError: inside :meth:`atomic` or :meth:`sandbox` (uncommitted state
                cannot be copied exactly).
        """
        if self._depth or any(s.conn.in_transaction for s in self.services.values()):
            raise RuntimeError("cannot snapshot a world inside an open atomic() or sandbox() scope")
        return WorldSnapshot(
            images={n: s.serialize() for n, s in self.services.items()},
            files=dict(self.workspace.files),
            now=self.clock.now(),
            tz_name=self.tz_name,
            rng_state=self.rng.bit_generator.state,
            applied_keys=frozenset(self.applied_keys),
            schedule=self.scheduler.state,
        )

    def restore(self, snap: WorldSnapshot) -> None:
        """Return to a snapshot exactly (services must be the same set).

        Raises:
            ValueError: the snapshot has other services than this world.
            RuntimeError: inside :meth:`atomic` or :meth:`sandbox`.
        """
        if set(snap.images) != set(self.services):
            raise ValueError(f"snapshot services {sorted(snap.images)} differ from world {sorted(self.services)}")
        if self._depth:
            raise RuntimeError("cannot restore a world inside an open atomic() or sandbox() scope")
        for name, image in snap.images.items():
            self.services[name].restore(image)
        self.tz_name = snap.tz_name
        self._set_py_state(_PyState(snap.files, snap.rng_state, snap.applied_keys, snap.now, snap.schedule))

    @classmethod
    def from_snapshot(cls, snap: WorldSnapshot) -> World:
        """A new, independent world equal to the snapshot."""
        world = cls(snap.images, snap.files, snap.now, snap.tz_name)
        world._set_py_state(_PyState(snap.files, snap.rng_state, snap.applied_keys, snap.now, snap.schedule))
        return world

    def fork(self) -> World:
        """An independent copy; changes to either never reach the other."""
        return World.from_snapshot(self.snapshot())

    def digest(self) -> str:
        """SHA-256 over every service's rows, the workspace, the clock, the generator, the
        idempotency keys and the wake-up schedule."""
        h = hashlib.sha256()
        for name in sorted(self.services):
            h.update(name.encode() + self.services[name].digest().encode())
        h.update(self.workspace.digest().encode())
        h.update(self.clock.iso().encode())
        h.update(repr(self.rng.bit_generator.state).encode())
        h.update(repr(sorted(self.applied_keys)).encode())
        h.update(self.scheduler.digest_text().encode())
        return h.hexdigest()


class WorldSandbox:
    """A world opened for read-only use (checks); see :meth:`World.sandbox`."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._state = world._begin("vl_sandbox")
        self.open = True

    def close(self) -> None:
        """Undo everything done since the sandbox opened (idempotent)."""
        if not self.open:
            return
        self.open = False
        self.world._end("vl_sandbox", self._state, rollback=True)

    def __enter__(self) -> World:
        return self.world

    def __exit__(self, *exc: object) -> None:
        self.close()
