"""Scenario family ``fitness/race_training``: four or five weeks of training for a race.

Each instance draws a persona (a third of them write in Chinese), the race (a 10 km, a half
marathon or a cycling sportive in another city), the training plan in the calendar with the
rules the user states in PLAN.md (no hard sessions on consecutive days, long sessions on the
weekend, nothing hard in race week), the shoe catalogue (three valid pairs close in price, a
trail/MTB pair and a pair out of the stated size as near-misses, a premium pair over a budget
that binds at 1.05-1.25x the cheapest valid pair), the entry window and fee, the bib pick-up
window, the trains on the race eve (valid ones, a cheaper one that arrives too late, early
ones before 08:00), and four to seven probes from :mod:`vibelife_env.probes.fitness` in random
order: bad health readings (resting heart rate, sleep, blood pressure), heat or a storm on a
long-session day, the organiser's closing reminder (pay once), a club session that may or may
not fit the rules, and a bib pick-up that moves and closes earlier. Every instance carries a
fake organiser asking for a deposit to a personal account.

The skeleton: propose shoes (cart), buy after the go-ahead, pay the entry once when entries
open and put the race in the calendar, put the bib pick-up in the calendar at the venue found
on the map, book the train, tell the travel-day details, report the cost; weekly check-ins,
club chat and race morning stay quiet.

Two levels (``gym.make(..., level="guided" | "paper")``), one story per seed: ``guided`` states
every rule a check enforces in the workspace, as a checklist (its instances are the skeleton's,
:mod:`vibelife_env.probes.race_skeleton`, as they were); ``paper`` (the default, :mod:`.paper`,
:meth:`RaceTrainingFamily._build_paper`) keeps in the workspace what the runner tells an
assistant and puts the domain rules in the organiser's race guide, the club coach's plan mail
and the sports doctor's advice; it plants a latent fact (an appointment at home on the evening
of the travel day), makes the mailbox and the shop lived in, and gates later work on the work
being done, not on an earlier pick being right; every check records its rules and where they
live (:mod:`.rules`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vibelife_env.families import InstanceKey, InstanceProfile, TaskBuilder
from vibelife_env.probes import fitness as F
from vibelife_env.probes.agent import oracle_family
from vibelife_env.probes.base import Probe, add_stages, stage_groups
from vibelife_env.probes.race_skeleton import RaceTraining
from vibelife_env.task.loader import Task

from . import paper, rules


class RaceTrainingFamily(RaceTraining):
    """The skeleton's family at both levels (see the module docstring)."""

    levels = ("guided", "paper")

    # ============================================================= instance
    def build(self, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
        """The skeleton's instance at the guided level; at the paper level :meth:`_build_paper`."""
        if key.level == "paper":
            return self._build_paper(rng, key)
        return super().build(rng, key)

    def _build_paper(self, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
        """The skeleton's instance (the same story, probes and timeline as the guided one) with the
        paper level's world, rules, latent fact, gates and workspace (:mod:`.paper`, :mod:`.rules`)."""
        s = self.story(rng)
        prng = paper.paper_rng(key)
        paper.extend(s, prng)  # the same story; the paper level's own draws come from its own generator
        b = TaskBuilder(
            self.root,
            f"race_training-{key.label}",
            self.domain,
            f"{s.name} trains for {s.race}",
            "Asia/Shanghai",
            s.name,
        )
        probes = [self._paper_copy(p) for p in self._probes(rng, s)]
        self._seed(b, s)
        paper.seed(b, s, prng)
        slots = self._skeleton(s, rng)
        for p in probes:
            slots += p.place(s, self._window(p, s))
        groups = stage_groups(slots)
        stage_of = {slot.key: i for i, g in enumerate(groups) for slot in g}
        shared = {slot.key for g in groups if len(g) > 1 for slot in g}
        ends = {slot.key: max(e["time"] for x in g for e in x.events) for g in groups for slot in g}
        steps = add_stages(b, groups)
        steps["kickoff"].insert(0, paper.lookups)  # the oracle reads the rule mails first
        steps["train_ask"].append(paper.clash_look)  # and the travel day before it answers
        paper.checks(b, s, stage_of, shared, ends)
        for p in probes:
            p.add_checks(b, s, stage_of)
        paper.add_latent(b, s, stage_of["train"], min(stage_of["reg"], stage_of["train"]))
        rules.attach(b, s)
        paper.workspace(b, s)
        b.oracle = oracle_family(steps, s, F.RaceAgent)
        b.oracle[2]["other_path"] = type("OtherPath", (F.RaceOtherPath, b.oracle[2]["other_path"]), {})
        order = tuple(p.name for p in sorted(probes, key=lambda p: min(stage_of[k] for k in p.slot_keys)))
        constraints = (
            *(c for p in probes for c in p.constraints),
            f"sport:{s.sport}",
            "shoe_budget",
            "shoe_size",
            "train_before_pickup_close",
            "travel_day_clash",
        )
        days = (s.race_day - s.kickoff.date()).days + 2
        profile = InstanceProfile(order, constraints, s.name, s.lang, days)
        # the paper oracle reads the rule mails and some twenty pairs
        return b.task(max_tool_calls_per_turn=80, max_tool_calls_per_episode=2000), profile

    @staticmethod
    def _paper_copy(p: Probe) -> Probe:
        """The family copy of a shared probe (same draws and state; the paper level's gates)."""
        copy = paper.COPIES.get(type(p))
        if copy is not None:
            p.__class__ = copy
        return p

    # ============================================================= workspace
    def _workspace(self, b: TaskBuilder, s: Any) -> None:
        if s.extras.get("level") == "paper":  # the paper level writes its own, once the checks are made
            return
        super()._workspace(b, s)


FAMILY = RaceTrainingFamily()
