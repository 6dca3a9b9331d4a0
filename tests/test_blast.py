"""The blast radius (``vibelife_env.blast``): each probe's footprint, and what skipping it costs."""

from __future__ import annotations

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.blast import BLAST_MAX, blast_radius
from vibelife_env.env import base_env

FAMILY_IDS = [i for i in vibelife_env.registered_ids() if "family_dir" in gym.registry[i].kwargs]


@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_every_probe_owns_checks_and_steps_of_its_instance(env_id: str) -> None:
    task = base_env(gym.make(env_id, split="train", instance=0)).task
    assert task.footprints, f"{env_id}: no probe footprints recorded"
    ids = {c.id for c in task.checks}
    steps = task.oracle[0].steps
    for label, fp in task.footprints.items():
        assert fp.checks and fp.checks <= ids, (label, sorted(fp.checks - ids))
        for event_id, fns in fp.steps.items():
            assert all(any(f is g for g in steps.get(event_id, ())) for f in fns), (label, event_id)


@pytest.mark.parametrize(
    ("env_id", "probe"),
    [
        # Both were shared gates: the offsite's "being run" gate required the step-free room a
        # downgrade takes away, the family trip's "booked" gate required the lift an outage stops.
        ("VibeLife-team-building-offsite-v0", "RoomDowngrade:room_downgrade"),
        ("VibeLife-travel-family-trip-v0", "LiftOutage:lift_outage"),
        # the purchase resolver demanded a sound model, so a missed recall failed every check about
        # the delivery and installation of what was bought (46 points); the rail tour's gate demanded
        # every leg valid, so an unhandled disruption failed its guards (16 points)
        ("VibeLife-shopping-appliance-install-v0", "Recall:recall"),
        ("VibeLife-travel-rail-tour-v0", "TrainDisruption:train_disruption"),
    ],
)
def test_skipping_a_probe_costs_its_own_checks_not_the_shared_gate(env_id: str, probe: str) -> None:
    blasts = {b.probe: b for b in blast_radius(env_id, 0, {"split": "train", "instance": 0})}
    b = blasts[probe]
    assert b.own, "skipping the probe must cost its own checks"
    assert b.stage_points <= BLAST_MAX, b.outside
    assert all(x.score < 100 for x in blasts.values())  # every probe's handling is worth something
