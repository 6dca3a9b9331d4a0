"""The family template: a scenario family as hooks, with the build pipeline owned here.

:class:`StoryFamily` runs the build every family repeats — story, probes drawn, slots laid
out, seeds, timeline, checks, workspace, oracle, instance profile — and a family fills hooks
and class attributes::

    class Errand(StoryFamily[ErrandStory]):
        domain, name, title = "template", "errand", "A repair visit: book it, pay it, keep it"
        services = ("email", "calendar", "banking", "notion")

        def story(self, rng): ...                      # every draw of the instance, as a dataclass
        def skeleton(self, rng, story): ...            # the slots every instance has
        def probes(self, rng, story): ...              # the motifs drawn for this one
        def window(self, probe, story): ...            # when each may happen
        def seed(self, b, story): ...                  # the world, through the service seed modules
        def checks(self, b, story, stage_of, shared): ...  # check kinds (vibelife_env.checks.kinds)
        def workspace(self, story, rules): ...         # files, rendering the kinds' rules

The rules of every check made from a kind (the family's and the probes') are handed to
:meth:`workspace`; an instance whose files do not state a workspace rule where the rule says it
lives is refused (``TaskLoadError``), so a rule can never be enforced without being stated. A
rule that lives in the world (the paper level: a merchant's own mail) is proven found by the
discoverability gate of ``vibelife validate`` instead. A family that renders the paper level
lists it in ``levels``; its hooks read :attr:`StoryFamily.level`.
``tasks/_template/`` is a complete family on this base; docs/authoring.md walks through it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from datetime import datetime
from typing import ClassVar, Generic, TypeVar

import numpy as np

from vibelife_env.checks.kinds import Kind, Rule, require_stated
from vibelife_env.families import Family, InstanceKey, InstanceProfile, Level, TaskBuilder
from vibelife_env.probes.agent import PlanAgent, oracle_family
from vibelife_env.probes.base import Probe, Slot, add_stages, shared_slots, stage_groups, stage_index
from vibelife_env.task.loader import Task

S = TypeVar("S")


class StoryFamily(Family, Generic[S]):
    """Base of a family built from hooks (see the module docstring).

    Class attributes:
        timezone: The instances' IANA zone.
        services: Services every instance enables (seeding enables more).
        max_tool_calls_per_turn: The per-turn budget the prompt states.
        max_tool_calls_per_episode: The per-episode budget.
        agent: The oracle's :class:`~vibelife_env.probes.agent.PlanAgent` (domain hooks).
    """

    timezone: ClassVar[str] = "Asia/Shanghai"
    services: ClassVar[tuple[str, ...]] = ()
    max_tool_calls_per_turn: ClassVar[int] = 30
    max_tool_calls_per_episode: ClassVar[int] = 600
    agent: ClassVar[type[PlanAgent]] = PlanAgent
    _level: Level = "guided"

    @property
    def level(self) -> Level:
        """The level of the instance being built (``guided`` or ``paper``): hooks render by it."""
        return self._level

    # ------------------------------------------------------------------ hooks
    @abstractmethod
    def story(self, rng: np.random.Generator) -> S:
        """Every draw of the instance (persona, catalogue, dates), from ``rng`` only."""

    @abstractmethod
    def skeleton(self, rng: np.random.Generator, story: S) -> list[Slot]:
        """The slots every instance has (kick-off, go-ahead, wrap-up...), laid out before the
        probes are placed (so a probe's window may depend on the skeleton's dates)."""

    def probes(self, rng: np.random.Generator, story: S) -> list[Probe[S]]:
        """The motifs drawn for this instance (default: none)."""
        return []

    def window(self, probe: Probe[S], story: S) -> tuple[datetime, datetime]:
        """When ``probe`` may happen (needed as soon as :meth:`probes` draws one)."""
        raise NotImplementedError(f"{type(self).__name__} draws probes but gives them no window()")

    def seed(self, b: TaskBuilder, story: S) -> None:
        """Seed the world (``b.seed(service, sql)`` with the service seed modules)."""

    def checks(self, b: TaskBuilder, story: S, stage_of: dict[str, int], shared: set[str]) -> Iterable[Kind]:
        """The skeleton's check kinds (``stage_of``: slot key -> stage; ``shared``: slots sharing a stage).

        Prerequisites they name are registered here (``b.checks.prerequisite``)."""
        return ()

    @abstractmethod
    def workspace(self, story: S, rules: list[Rule]) -> dict[str, str]:
        """The workspace files; each rule must be stated in its :attr:`~Rule.source` file."""

    def title_of(self, story: S) -> str:
        """The instance's one-line title (default: the family's)."""
        return self.title

    def constraints(self, story: S, probes: list[Probe[S]]) -> tuple[str, ...]:
        """What the instance plants (default: the probes' constraints)."""
        return tuple(c for p in probes for c in getattr(p, "constraints", ()))

    # --------------------------------------------------------------- pipeline
    def build(self, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
        """Story, probes, slots, seeds, timeline, checks, workspace, oracle, profile."""
        self._level = key.level
        story = self.story(rng)
        user = str(getattr(story, "name", ""))
        b = TaskBuilder(self.root, f"{self.name}-{key.label}", self.domain, self.title_of(story), self.timezone, user)
        b.use(*self.services)
        probes = self.probes(rng, story)
        skeleton = self.skeleton(rng, story)  # before the probes are placed, as the shipped families draw
        placed = {id(p): p.place(story, self.window(p, story)) for p in probes}
        slots = [*skeleton, *(s for p in probes for s in placed[id(p)])]
        self.seed(b, story)
        for p in probes:
            p.setup(b, story)
        groups = stage_groups(slots)
        stage_of = stage_index(groups)
        steps = add_stages(b, groups)
        for kind in self.checks(b, story, stage_of, shared_slots(groups)):
            kind.add(b.checks)
        for p in probes:
            p.add_checks(b, story, stage_of)
        rules = list(b.checks.rules.values())
        files = self.workspace(story, rules)
        require_stated(self.root, files, rules)
        for path, content in files.items():
            b.file(path, content)
        b.oracle = oracle_family(steps, story, self.agent)
        order = sorted(probes, key=lambda p: min(stage_of[s.key] for s in placed[id(p)]))
        times = [e.time for events in b.stages.values() for e in events]
        profile = InstanceProfile(
            tuple(p.name for p in order),
            self.constraints(story, probes),
            user,
            str(getattr(story, "lang", "en")),
            (max(times).date() - min(times).date()).days + 1,
        )
        task = b.task(
            max_tool_calls_per_turn=self.max_tool_calls_per_turn,
            max_tool_calls_per_episode=self.max_tool_calls_per_episode,
        )
        return task, profile
