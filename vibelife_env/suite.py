"""Benchmark suites: named sets of scenario-family test instances, at a level.

``vibelife-200`` is every scenario family shipped with the package, four frozen test
instances each; with the planned ten domains × five families it is 200 instances, the
size of the paper's benchmark. Until every family is built it is the families that exist
(:func:`describe` says how far it is). Held-out families (``heldout = True``, two per
domain) are part of the suite and reported apart, so one can train on the ``train`` split
of the other families and test both in-distribution and on unseen scenarios.

Levels (:mod:`vibelife_env.families.base`): ``vibelife-200`` is the paper level, each family
at its default (paper where the family renders it, guided otherwise);
``vibelife-200-guided`` is the same instances with every family at the guided level.
"""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym

from vibelife_env.families import TEST_INSTANCES, Level
from vibelife_env.families.loader import load_family
from vibelife_env.registration import shipped_family_dir


@dataclass(frozen=True)
class Suite:
    """A named benchmark suite.

    Attributes:
        name: What ``--suite`` takes.
        families: Env ids of its families, by domain then family.
        heldout: The held-out ones among them.
        target_families: How many families the suite is planned to have.
        level: The level every family plays at; ``None``: each family's default (the paper
            level where it renders one, else guided).
    """

    name: str
    families: tuple[str, ...]
    heldout: frozenset[str]
    target_families: int
    level: Level | None = None

    @property
    def instances(self) -> list[tuple[str, int]]:
        """(env id, test instance) of every task of the suite."""
        return [(e, k) for e in self.families for k in range(TEST_INSTANCES)]

    @property
    def domains(self) -> list[str]:
        """The life domains its families cover."""
        return sorted({load_family(gym.spec(e).kwargs["family_dir"]).domain for e in self.families})

    def level_of(self, env_id: str) -> Level:
        """The level the family ``env_id`` plays at in this suite."""
        return self.level or load_family(gym.spec(env_id).kwargs["family_dir"]).default_level

    def describe(self) -> str:
        """One line: families, held-out ones, domains and instances, against the plan, and the level."""
        if self.level is not None:
            level = f"level {self.level} (every family)"
        else:
            paper = sum(self.level_of(e) == "paper" for e in self.families)
            level = f"level paper where a family renders it ({paper} families), guided otherwise ({len(self.families) - paper})"
        return (
            f"{self.name}: {len(self.families)} of {self.target_families} planned families "
            f"({len(self.heldout)} held out) in {len(self.domains)} domains, "
            f"{len(self.instances)} of {self.target_families * TEST_INSTANCES} test instances; {level}"
        )


#: Suite name -> (planned families, level: ``None`` = each family's default).
SUITES: dict[str, tuple[int, Level | None]] = {
    "vibelife-200": (50, None),
    "vibelife-200-guided": (50, "guided"),
}


def builtin_families() -> list[str]:
    """Env ids of the scenario families shipped with the package (registered on import)."""
    found = []
    for env_id, spec in gym.registry.items():
        family_dir = spec.kwargs.get("family_dir") if isinstance(spec.kwargs, dict) else None
        if family_dir is not None and shipped_family_dir(family_dir):
            found.append(env_id)
    return sorted(found, key=lambda e: (load_family(gym.spec(e).kwargs["family_dir"]).domain, e))


def get_suite(name: str) -> Suite:
    """The suite called ``name``.

    Raises:
        KeyError: an unknown name (the message lists the known ones).
    """
    if name not in SUITES:
        raise KeyError(f"unknown suite {name!r}; known: {', '.join(SUITES)}")
    families = builtin_families()
    heldout = frozenset(e for e in families if type(load_family(gym.spec(e).kwargs["family_dir"])).heldout)
    target, level = SUITES[name]
    return Suite(name, tuple(families), heldout, target, level)
