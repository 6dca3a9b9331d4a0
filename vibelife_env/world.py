"""The world: services + workspace + clock + seeded generator, with exact snapshots.

A :class:`WorldSnapshot` is plain data (database images as bytes, the workspace dict,
the clock instant, the generator state), so it pickles across processes and restores
exactly: ``World.from_snapshot(w.snapshot()).digest() == w.digest()``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from vibelife_env.clock import VirtualClock, get_zone
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
    rng_state: dict[str, Any]
    applied_keys: frozenset[str] = field(default_factory=frozenset)


class World:
    """Services, workspace and clock of one episode.

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
        self.applied_keys: set[str] = set()
        self._start: tuple[dict[str, str], datetime] | None = None

    # ------------------------------------------------------------- rewinding
    def mark_start(self) -> None:
        """Remember the current state as the episode start, for :meth:`rewind`.

        Every service opens a savepoint, so a rewind is a rollback: the databases keep
        their parsed schemas and prepared statements, and the next episode's tool calls
        run warm instead of re-reading a deserialized image.
        """
        for svc in self.services.values():
            svc.conn.execute("SAVEPOINT vl_episode")
        self._start = (dict(self.workspace.files), self.clock.now())

    def rewind(self, seed: int) -> bool:
        """Return to the state saved by :meth:`mark_start`, with a fresh generator.

        Returns:
            False when there is no start to return to (never marked, or a :meth:`restore`
            replaced the databases since); the caller then builds a new world.
        """
        if self._start is None:
            return False
        for svc in self.services.values():
            svc.conn.execute("ROLLBACK TO vl_episode")
        files, now = self._start
        self.workspace.files = dict(files)
        self.clock.set(now)
        self.rng.bit_generator.state = np.random.default_rng(seed).bit_generator.state
        self.applied_keys = set()
        return True

    # ------------------------------------------------------------------ tools
    def provider(self, name: str) -> ToolProvider | None:
        """The service (or the workspace) called ``name``; ``None`` when not enabled."""
        if name == "workspace":
            return self.workspace
        return self.services.get(canonical_name(name))

    def call(self, agent_name: str, args: Any = None) -> Any:
        """Call ``<service>__<tool>`` as the agent would. Never raises for bad input."""
        service, sep, tool_name = agent_name.partition(NAME_SEP)
        if not sep or not tool_name:
            return {
                "error": f"tool name {agent_name!r} must look like '<service>{NAME_SEP}<tool>'",
                "code": "UNKNOWN_TOOL",
            }
        provider = self.provider(service)
        if provider is None:
            return {
                "error": f"service {service!r} is not available in this task; available: {', '.join(self.provider_names())}",
                "code": "UNKNOWN_TOOL",
            }
        return provider.call(tool_name, args)

    def provider_names(self) -> list[str]:
        """Enabled services plus ``workspace``."""
        return [*self.services, "workspace"]

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every tool the agent can call, OpenAI function format, in a stable order."""
        schemas: list[dict[str, Any]] = []
        for name in self.provider_names():
            provider = self.provider(name)
            assert provider is not None
            schemas.extend(provider.openai_tools())
        return schemas

    # -------------------------------------------------------------- snapshots
    def snapshot(self) -> WorldSnapshot:
        """Copy the whole world state (cheap: serialized images, no SQL replay)."""
        return WorldSnapshot(
            images={n: s.serialize() for n, s in self.services.items()},
            files=dict(self.workspace.files),
            now=self.clock.now(),
            tz_name=self.tz_name,
            rng_state=self.rng.bit_generator.state,
            applied_keys=frozenset(self.applied_keys),
        )

    def restore(self, snap: WorldSnapshot) -> None:
        """Return to a snapshot exactly (services must be the same set)."""
        if set(snap.images) != set(self.services):
            raise ValueError(f"snapshot services {sorted(snap.images)} differ from world {sorted(self.services)}")
        if self._start is not None:  # the episode savepoint cannot survive new images
            for svc in self.services.values():
                svc.conn.execute("ROLLBACK TO vl_episode")
                svc.conn.execute("RELEASE vl_episode")
            self._start = None
        for name, image in snap.images.items():
            self.services[name].restore(image)
        self.workspace.files = dict(snap.files)
        self.clock.set(snap.now)
        self.rng.bit_generator.state = snap.rng_state
        self.applied_keys = set(snap.applied_keys)

    @classmethod
    def from_snapshot(cls, snap: WorldSnapshot) -> World:
        """A new, independent world equal to the snapshot."""
        world = cls(snap.images, snap.files, snap.now, snap.tz_name)
        world.rng.bit_generator.state = snap.rng_state
        world.applied_keys = set(snap.applied_keys)
        return world

    def sandbox(self) -> WorldSandbox:
        """Open a throw-away view of this world: everything done through it is undone on close.

        Much cheaper than :meth:`fork` (no database copies): every service opens a
        savepoint that :meth:`WorldSandbox.close` rolls back, and the workspace, generator
        and idempotency keys are put back as they were.
        """
        return WorldSandbox(self)

    def fork(self) -> World:
        """An independent copy; changes to either never reach the other."""
        return World.from_snapshot(self.snapshot())

    def digest(self) -> str:
        """SHA-256 over every service's rows, the workspace, the clock and the generator."""
        h = hashlib.sha256()
        for name in sorted(self.services):
            h.update(name.encode() + self.services[name].digest().encode())
        h.update(self.workspace.digest().encode())
        h.update(self.clock.iso().encode())
        h.update(repr(self.rng.bit_generator.state).encode())
        h.update(repr(sorted(self.applied_keys)).encode())
        return h.hexdigest()


class WorldSandbox:
    """A world opened for read-only use (checks); see :meth:`World.sandbox`."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._files = dict(world.workspace.files)
        self._rng = world.rng.bit_generator.state
        self._keys = set(world.applied_keys)
        self._now = world.clock.now()
        for svc in world.services.values():
            svc.conn.execute("SAVEPOINT vl_sandbox")
        self.open = True

    def close(self) -> None:
        """Undo everything done since the sandbox opened (idempotent)."""
        if not self.open:
            return
        self.open = False
        for svc in self.world.services.values():
            svc.conn.execute("ROLLBACK TO vl_sandbox")
            svc.conn.execute("RELEASE vl_sandbox")
        self.world.workspace.files = self._files
        self.world.rng.bit_generator.state = self._rng
        self.world.applied_keys = self._keys
        self.world.clock.set(self._now)

    def __enter__(self) -> World:
        return self.world

    def __exit__(self, *exc: object) -> None:
        self.close()
