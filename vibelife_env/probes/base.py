"""Probes: reusable scenario motifs a family draws for an instance.

A probe bundles what one motif needs, all addressed by roles resolved from state:

- its **slots**: the timeline events it adds (a silent mutation and the turn that follows
  it, at times inside the phase window the family gives it);
- its **seeds** and world scripts (registered on the builder);
- its **checks**, from the check library, added once the family has numbered the stages;
- the oracle's **steps** for its turns (variants reuse them through the agent's hooks).

A probe is a small object made per instance with the parameters the family's generator
drew (which scam, which day, how long the delay), so two instances of one family differ
in structure: which probes fire, when, and in what order.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from vibelife_env.families.builder import TaskBuilder

#: The story type a probe reads (a family's story dataclass); ``Probe`` alone reads any story.
S = TypeVar("S")

#: An oracle step: ``step(agent, event_text)`` yields actions and returns reply fragments.
Step = Callable[[Any, str], Generator[dict[str, Any], Any, list[str]]]


@dataclass
class Slot:
    """One stage's worth of events a probe (or the skeleton) adds.

    Attributes:
        key: Unique name within the instance (checks find their stage by it).
        events: Event fields as in ``event.yaml`` (without ``stage``), in time order.
        steps: Oracle steps per turn-opening event id of the slot.
    """

    key: str
    events: list[dict[str, Any]]
    steps: dict[str, list[Step]] = field(default_factory=dict)
    owner: str | None = None  # the probe that placed it (see :attr:`Probe.footprint_label`)
    #: Per event id, what an agent that misses this motif still does in its place: a probe
    #: whose handling is also the trip's main action (a held fare that is the leg's ticket)
    #: books it the plain way here. The blast-radius gate plays these instead of ``steps``.
    instead: dict[str, list[Step]] = field(default_factory=dict)

    @property
    def when(self) -> datetime:
        """The slot's first event time (stages are ordered by it)."""
        return self.events[0]["time"]


class Probe(ABC, Generic[S]):
    """Base of the scenario motifs; see the module docstring. ``Probe[MyStory]`` types the story
    its hooks receive.

    Class attributes:
        name: The probe's name (instance profiles list it).
        phase: ``prep`` (before departure), ``trip`` (during) or ``end`` (the last day).
    """

    name: ClassVar[str] = ""
    phase: ClassVar[str] = "prep"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Wrap each subclass's ``add_checks`` so the builder learns which checks are this
        probe's own (its :class:`Footprint`, read by the blast-radius gate)."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("add_checks")
        if own is None or getattr(own, "_records_footprint", False):
            return

        def add_checks(self: Probe, b: TaskBuilder, story: Any, stage_of: dict[str, int]) -> None:
            added = getattr(getattr(b, "checks", None), "checks", None)
            if not isinstance(added, list) or not hasattr(b, "footprints"):  # a stand-in builder (tests)
                own(self, b, story, stage_of)
                return
            before = {c.id for c in added}
            own(self, b, story, stage_of)
            if type(self).add_checks is add_checks:  # the outermost override records
                footprint(b, self.footprint_label).checks.update(c.id for c in added if c.id not in before)

        add_checks._records_footprint = True  # type: ignore[attr-defined]
        add_checks.__doc__, add_checks.__name__ = own.__doc__, "add_checks"
        cls.add_checks = add_checks  # type: ignore[method-assign]

    @property
    def footprint_label(self) -> str:
        """The probe's name in this instance: its class name and its first slot's key."""
        keys = getattr(self, "slot_keys", None) or ["?"]
        return f"{type(self).__name__}:{keys[0]}"

    #: Implicit constraints this probe plants (for the instance profile).
    constraints: tuple[str, ...] = ()

    def place(self, story: S, window: tuple[datetime, datetime]) -> list[Slot]:
        """The probe's slots for this instance (remembers their keys in :attr:`slot_keys`)."""
        out = self.slots(story, window)
        self.slot_keys = [s.key for s in out]
        for slot in out:
            slot.owner = self.footprint_label
        return out

    @abstractmethod
    def slots(self, story: S, window: tuple[datetime, datetime]) -> list[Slot]:
        """The events this probe adds, at times inside ``window``."""

    def setup(self, b: TaskBuilder, story: S) -> None:
        """Add seeds, workspace lines and world scripts (default: nothing)."""

    @abstractmethod
    def add_checks(self, b: TaskBuilder, story: S, stage_of: dict[str, int]) -> None:
        """Add this probe's checks; ``stage_of[slot.key]`` is each slot's stage index."""

    def _pick(self, items: list[Any]) -> Any:
        return items[int(self.rng.integers(0, len(items)))]

    def _between(self, window: tuple[datetime, datetime], lo: float = 0.1, hi: float = 0.9) -> datetime:
        """A time in ``window`` (at a random share of it), rounded to the quarter hour."""
        a, b = window
        at = a + (b - a) * float(self.rng.uniform(lo, hi))
        return at.replace(minute=(at.minute // 15) * 15, second=0, microsecond=0)


def turn(key: str, at: datetime, body: str, *steps: Step, sender: str = "", kind: str = "user_message") -> Slot:
    """A slot of one turn-opening event: a message from ``sender`` (default kind), or a
    ``cron_fire``/``notification``/``world`` event (from the scheduler or the world), with the
    oracle's ``steps`` for it."""
    who = {"from": sender} if kind == "user_message" else {"source": "scheduler" if kind == "cron_fire" else "world"}
    return Slot(key, [{"id": key, "time": at, "kind": kind, "body": body, **who}], {key: list(steps)})


def stage_groups(slots: list[Slot]) -> list[list[Slot]]:
    """Slots in time order, grouped into stages: a slot that starts before the previous group's
    last event joins that group, so stages never interleave in time."""
    groups: list[list[Slot]] = []
    end: datetime | None = None
    for slot in sorted(slots, key=lambda s: (s.when, s.key)):
        last = max(e["time"] for e in slot.events)
        if groups and end is not None and slot.when <= end:
            groups[-1].append(slot)
            end = max(end, last)
        else:
            groups.append([slot])
            end = last
    return groups


def stage_index(groups: list[list[Slot]]) -> dict[str, int]:
    """Slot key → the stage (index of its group in :func:`stage_groups`) it opens in."""
    return {slot.key: i for i, group in enumerate(groups) for slot in group}


def shared_slots(groups: list[list[Slot]]) -> set[str]:
    """Keys of the slots that share their stage with another slot (their turns merge)."""
    return {slot.key for group in groups if len(group) > 1 for slot in group}


def stage_windows(groups: list[list[Slot]]) -> dict[str, tuple[datetime, datetime]]:
    """Per slot key: when its stage opens and when the stage's last event lands."""
    return {
        slot.key: (group[0].when, max(e["time"] for x in group for e in x.events)) for group in groups for slot in group
    }


def add_stages(b: TaskBuilder, groups: list[list[Slot]]) -> dict[str, list[Step]]:
    """Add every group's events to the builder as one stage each, in order, and return the
    oracle's steps by event id (the steps of slots that share an event id are chained)."""
    steps: dict[str, list[Step]] = {}
    for i, group in enumerate(groups):
        for slot in group:
            for fields in slot.events:
                b.event(i, **fields)
            for event_id, fns in slot.steps.items():
                steps.setdefault(event_id, []).extend(fns)
            record_steps(b, slot)
    return steps


@dataclass
class Footprint:
    """What one probe of an instance owns: its checks and its oracle steps (by identity, per
    turn-opening event id). ``vibelife validate``'s blast-radius gate plays the oracle
    without those steps and expects only these checks (and declared dependents) to fall."""

    checks: set[str] = field(default_factory=set)
    steps: dict[str, list[Step]] = field(default_factory=dict)
    instead: dict[str, list[Step]] = field(default_factory=dict)  # see :attr:`Slot.instead`


def footprint(b: TaskBuilder, label: str) -> Footprint:
    """The builder's footprint of probe ``label`` (made on first use)."""
    table: dict[str, Footprint] = b.footprints
    return table.setdefault(label, Footprint())


def record_steps(b: TaskBuilder, slot: Slot) -> None:
    """Note a probe's slot's oracle steps on its footprint (a skeleton's slot has no owner)."""
    if slot.owner is None:
        return
    fp = footprint(b, slot.owner)
    for table, mine in ((slot.steps, fp.steps), (slot.instead, fp.instead)):
        for event_id, fns in table.items():
            mine.setdefault(event_id, []).extend(f for f in fns if f not in mine.get(event_id, []))
