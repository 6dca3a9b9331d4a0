"""The blast radius of each probe: what an oracle that skips one probe's handling loses.

A check should fail only for its own reason. When a family's checks share a gate ("the
trip is booked", "the offsite is being run") whose truth depends on how another probe was
handled, one unhandled motif zeroes checks that have nothing to do with it: a lift outage
left alone fails every quiet-turn check of the trip. :func:`blast_radius` measures it on
one instance: for each probe (a :class:`~vibelife_env.probes.base.Footprint`: its checks
and its oracle steps), it plays the instance's oracle with that probe's steps removed (its
turns get the other steps and a silent reply) and lists the checks the oracle passed and
this run failed:

- ``own``: the probe's own checks (expected to fall);
- ``outside``: every other check, with its weight as points of the 100. Stage-tier ones
  are a shared gate's doing; end-tier ones (cross-stage, final) may be the probe's rule
  judged again at the end ("the rooms are right at the end").

:data:`BLAST_MAX` is the bound the gate holds each probe's outside stage-tier loss to.
``vibelife validate`` fails a family instance above the bound (``--blast`` prints the table).

A probe whose handling is also the instance's main action (a held fare that is the leg's
ticket) names what an agent that misses the motif still does in its place
(:attr:`~vibelife_env.probes.base.Slot.instead`: buy the leg at the plain fare); the skip
plays that instead of nothing, so the gate measures the motif, not the trip.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from vibelife_env.agents.oracle import load_oracle
from vibelife_env.env import base_env
from vibelife_env.rollout import run_episode

#: Points (of 100) of other probes' and the skeleton's stage-tier checks one skipped probe may cost.
BLAST_MAX = 2.0


@dataclass
class ProbeBlast:
    """What skipping one probe cost (see the module docstring)."""

    probe: str
    score: float
    own: list[str] = field(default_factory=list)
    outside: dict[str, float] = field(default_factory=dict)  # check id -> points lost
    stage: list[str] = field(default_factory=list)  # the stage-tier ones among them (gated)
    stage_points: float = 0.0
    end_points: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the outside stage-tier loss is within :data:`BLAST_MAX`."""
        return self.stage_points <= BLAST_MAX + 1e-9


def skipping(oracle: type, footprint: Any) -> type:
    """The oracle class without ``footprint``'s steps: its turns run the others, and where the
    probe names what an agent that misses it still does (``footprint.instead``, e.g. buying
    the leg plainly when the probe is a fare hold), that runs in the first skipped step's place."""
    mine, instead = footprint.steps, getattr(footprint, "instead", {})
    steps: dict[str, list[Any]] = {}
    for event_id, fns in getattr(oracle, "steps", {}).items():
        kept: list[Any] = []
        placed = False
        for f in fns:
            if not any(f is g for g in mine.get(event_id, ())):
                kept.append(f)
            elif not placed:
                kept.extend(instead.get(event_id, ()))
                placed = True
        steps[event_id] = kept
    return type(f"Skip{oracle.__name__}", (oracle,), {"steps": steps})


def blast_radius(env_id: str, seed: int = 0, env_kwargs: dict[str, Any] | None = None) -> list[ProbeBlast]:
    """One :class:`ProbeBlast` per probe of the instance ``gym.make(env_id, **env_kwargs)``.

    Raises:
        ValueError: the task is not a family instance with probes, or its oracle does not
            score 100 (the comparison needs the oracle's full pass set).
    """
    kwargs = dict(env_kwargs or {})
    env = gym.make(env_id, explain_failures=False, **kwargs)
    task = base_env(env).task
    if not task.footprints or task.oracle is None:
        raise ValueError(f"{env_id}: not a scenario-family instance with probes")
    base = run_episode(env, load_oracle(task), seed=seed, record=False)
    if base.score < 100.0 - 1e-9:
        raise ValueError(f"{env_id}: the oracle scores {base.score:.2f}, not 100")
    total = sum(c["weight"] for c in base.checks) or 1.0
    tier = {c["id"]: c["tier"] for c in base.checks}
    weight = {c["id"]: c["weight"] for c in base.checks}
    out = []
    for label, footprint in task.footprints.items():
        agent = load_oracle(task)
        agent.__class__ = skipping(type(agent), footprint)
        result = run_episode(gym.make(env_id, explain_failures=False, **kwargs), agent, seed=seed, record=False)
        lost = [c["id"] for c in result.checks if not c["passed"]]
        blast = ProbeBlast(label, result.score, own=[c for c in lost if c in footprint.checks])
        blast.outside = {c: 100.0 * weight[c] / total for c in lost if c not in footprint.checks}
        blast.stage = [c for c in blast.outside if tier[c] == "stage"]
        blast.stage_points = sum(blast.outside[c] for c in blast.stage)
        blast.end_points = sum(p for c, p in blast.outside.items() if tier[c] != "stage")
        out.append(blast)
    return out
