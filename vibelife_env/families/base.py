"""Scenario families: a seed in, a complete task instance out.

A family is a generator ``build(rng, key) -> Task`` over a persona pool, catalogues with
distractors and near-misses, a story skeleton and a draw of probes
(:mod:`vibelife_env.probes`). It lives in ``tasks/<domain>/<family>/family.py`` as a
module-level ``FAMILY`` and registers as ``VibeLife-<domain>-<family>-v0``.

Splits (Procgen-style, as constructor arguments of the env):

- ``split="test"`` (the default): four frozen evaluation instances, ``instance=k`` pins one,
  otherwise ``reset(seed)`` serves instance ``seed % 4``;
- ``split="train"``: unlimited instances, one per reset seed; a train instance is built
  from the key ``train-<seed>`` and a test instance from ``test-<k>``, so their seeds never
  collide by construction.

Each domain marks two of its families ``heldout``: train on the others, test generalization
to unseen scenarios on those (see the README's protocol).

Levels (``gym.make(..., level="guided" | "paper")``): ``guided`` is an instance whose rules are
stated in the workspace; ``paper`` renders the same story (the same seed draws it) the way the
VibeLifeBench paper sets its tasks: domain rules live in the world (a merchant's own mail, a
policy page, a statute), the workspace keeps what a person tells an assistant, the mailbox is
lived in. A family lists the levels it renders (:attr:`Family.levels`); its default is the
paper level where it has one.

Generation is pure and deterministic (the same key gives the same bytes: no wall clock, no
global random state, one ``numpy`` generator seeded from a SHA-256 of the family and key),
builds in memory (no files written) and is cached per family and key.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np

if TYPE_CHECKING:
    from vibelife_env.task.loader import Task

Split = Literal["test", "train"]
SPLITS: tuple[Split, ...] = ("test", "train")
TEST_INSTANCES = 4
Level = Literal["guided", "paper"]
LEVELS: tuple[Level, ...] = ("guided", "paper")


@dataclass(frozen=True)
class InstanceKey:
    """Which instance: a split and an index (a test instance 0-3, or a train seed), at a level.

    ``str(key)`` (``test-0``) names the story and seeds its generator, the same at every level.
    """

    split: Split
    index: int
    level: Level = "guided"

    def __str__(self) -> str:
        return f"{self.split}-{self.index}"

    @property
    def label(self) -> str:
        """``test-0`` at the guided level, ``test-0-paper`` at the paper level (task names)."""
        return str(self) if self.level == "guided" else f"{self}-{self.level}"


def stable_seed(*parts: str) -> int:
    """A 63-bit seed from text, the same in every process (``hash()`` is not)."""
    return int.from_bytes(hashlib.sha256("/".join(parts).encode()).digest()[:8], "big") >> 1


@dataclass
class InstanceProfile:
    """What an instance is made of, for diversity measures and ``vibelife stats``.

    Attributes:
        probes: The probes drawn, in timeline order.
        constraints: The implicit constraints planted (and binding) in this instance.
        persona: The persona's id.
        language: ``en`` or ``zh``.
        days: Horizon in days.
    """

    probes: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    persona: str = ""
    language: str = "en"
    days: int = 0
    extra: dict[str, str] = field(default_factory=dict)


class Family(ABC):
    """Base class of scenario families; subclasses set the class attributes and :meth:`build`.

    Class attributes:
        domain: The life domain (``travel``, ``finance``, ...).
        name: The family's name (``city_break``); the env id is ``VibeLife-<domain>-<name>-v0``.
        title: One line for listings.
        heldout: True for the families a domain holds out of training.
    """

    domain: ClassVar[str] = ""
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    heldout: ClassVar[bool] = False
    #: The levels this family renders (see the module docstring).
    levels: ClassVar[tuple[Level, ...]] = ("guided",)
    #: Instances kept per family (the four test ones and recent train ones).
    cache_size: ClassVar[int] = 64

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else Path.cwd()
        self._cache: OrderedDict[InstanceKey, Task] = OrderedDict()
        self._profiles: dict[InstanceKey, InstanceProfile] = {}

    @property
    def id(self) -> str:
        """``<domain>/<name>``."""
        return f"{self.domain}/{self.name}"

    @property
    def default_level(self) -> Level:
        """The paper level where the family renders one, else the guided level."""
        return "paper" if "paper" in self.levels else "guided"

    def instance(self, split: Split, index: int, level: Level | None = None) -> Task:
        """The task instance ``split``/``index`` at ``level`` (default :attr:`default_level`),
        built once, then cached.

        Raises:
            ValueError: an unknown split or level, a level this family does not render, a test
                index outside 0-3, or a negative train seed.
        """
        level = level or self.default_level
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
        if level not in self.levels:
            raise ValueError(f"family {self.id} renders the levels {self.levels}, not {level!r}")
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        if split == "test" and not 0 <= index < TEST_INSTANCES:
            raise ValueError(f"test instances are 0-{TEST_INSTANCES - 1}, got {index}")
        if split == "train" and index < 0:
            raise ValueError(f"train seeds are >= 0, got {index}")
        key = InstanceKey(split, int(index), level)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        rng = np.random.default_rng(stable_seed(self.domain, self.name, str(key)))
        task, profile = self.build(rng, key)
        self._cache[key] = task
        self._profiles[key] = profile
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return task

    def profile(self, split: Split, index: int, level: Level | None = None) -> InstanceProfile:
        """The structure of an instance (its probes, constraints, persona...)."""
        key = InstanceKey(split, int(index), level or self.default_level)
        if key not in self._profiles:
            self.instance(split, index, key.level)
        return self._profiles[key]

    @abstractmethod
    def build(self, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
        """Generate one instance from ``rng`` (the only source of variation)."""


def diversity(profiles: list[InstanceProfile]) -> float:
    """Mean pairwise structural distance of instances, in [0, 1].

    Two instances differ by the probes they draw (Jaccard distance of the sets), the order
    of the probes they share (share of discordant pairs) and the constraints planted
    (Jaccard distance); names and numbers do not count. 0 means every instance has the same
    structure.
    """

    def jaccard(a: set[str], b: set[str]) -> float:
        return 1.0 - len(a & b) / len(a | b) if a | b else 0.0

    def order(a: tuple[str, ...], b: tuple[str, ...]) -> float:
        shared = [p for p in a if p in b]
        pairs = [(x, y) for i, x in enumerate(shared) for y in shared[i + 1 :]]
        if not pairs:
            return 0.0
        return sum(1 for x, y in pairs if b.index(x) > b.index(y)) / len(pairs)

    scores = []
    for i, p in enumerate(profiles):
        for q in profiles[i + 1 :]:
            parts = (
                jaccard(set(p.probes), set(q.probes)),
                order(p.probes, q.probes),
                jaccard(set(p.constraints), set(q.constraints)),
            )
            scores.append(sum(parts) / len(parts))
    return round(sum(scores) / len(scores), 4) if scores else 0.0
