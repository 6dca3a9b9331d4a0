"""The blast radius (``vibelife_env.blast``): each probe's footprint, and what skipping it costs."""

from __future__ import annotations

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.blast import BLAST_MAX, blast_radius, skipping
from vibelife_env.env import base_env
from vibelife_env.probes.base import Footprint
from vibelife_env.validation import blast_problems, validate_env

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


def test_a_skip_plays_what_the_probe_names_in_its_place() -> None:
    """``Slot.instead``: the skipped probe's steps go, its stand-in takes the first one's place."""

    def mine(agent, text):  # pragma: no cover - never called
        yield {}

    def other(agent, text):  # pragma: no cover
        yield {}

    def plain(agent, text):  # pragma: no cover
        yield {}

    Oracle = type("Oracle", (), {"steps": {"e1": [other, mine, other], "e2": [mine], "e3": [other]}})

    fp = Footprint(checks={"c"}, steps={"e1": [mine], "e2": [mine]}, instead={"e1": [plain]})
    skipped = skipping(Oracle, fp)
    assert skipped.steps == {"e1": [other, plain, other], "e2": [], "e3": [other]}
    assert Oracle.steps["e1"] == [other, mine, other]  # the oracle class itself is untouched


@pytest.mark.gates
@pytest.mark.parametrize(("env_id", "seed"), [(e, s) for e in FAMILY_IDS for s in range(4)])
def test_no_skipped_probe_costs_other_stage_checks_on_train_seeds(env_id: str, seed: int) -> None:
    """The blast-radius gate on four train seeds of every family (200 instances; the test
    instances run it inside ``validate_env``, in tests/test_families.py)."""
    blasts = blast_radius(env_id, 0, {"split": "train", "instance": seed})
    assert not blast_problems(blasts), blast_problems(blasts)


def test_validate_gates_the_blast_radius_and_prints_it_on_request(capsys) -> None:
    from vibelife_env.cli import main as cli_main

    family = ["validate", "--family", "VibeLife-shopping-ebike-v0", "--seeds", "0:1"]
    assert cli_main([*family, "--blast"]) == 0
    out = capsys.readouterr().out
    assert "skipped probe" in out and "other stage" in out
    assert cli_main([*family, "--no-blast"]) == 0
    assert "skipped probe" not in capsys.readouterr().out
    v = validate_env("VibeLife-shopping-ebike-v0", env_kwargs={"split": "test", "instance": 0})
    assert v.ok and v.blasts and all(b.own for b in v.blasts)
    assert not validate_env(
        "VibeLife-shopping-ebike-v0", env_kwargs={"split": "test", "instance": 0}, blast=False
    ).blasts
