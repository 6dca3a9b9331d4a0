"""Scenario family ``exam_preparation/professional_cert``: a working professional's certification exam.

Each instance draws a persona (a third write in Chinese), a certification of our own (the Meridian
Chartered Accountant exam, the Keystone Project Professional exam, the Northgate Medical Licensing
exam part 1), the eligibility rules (years of experience, an employer letter) stated in the board's
registration mail and the candidate's record in the workspace, the board's sessions (one on a day
the calendar is taken, one whose results come after the employer's review deadline, one full, two
valid ones at two centres), the documents on file (two scans meet the stated spec), the on-call
days when no study is allowed, and the test-day rental cars at the home desk (near-misses: pickup
too early or too late, returned too soon, a premium car over the daily cap, sold out).

The skeleton runs ~4-5 weeks: propose (nothing paid), register and pay once on the go-ahead, the
board's confirmation (the exam in the calendar with the centre's street address from maps), the
mock-exam plan, the car, weekly reviews, the tutor's mock scores, the admission ticket that arrives
late by mail (forward it to print, note its number), the evening before, the exam morning and the
wrap-up. Four to seven probes come from :mod:`vibelife_env.probes.exams` and
:mod:`vibelife_env.probes.certs` (the leaked-questions scam always, and three to six of: document
rejected, centre moved, mock conflict, deposit charged twice, ticket chase, late study-leave
approval), in random order. The skeleton also plants a silent pickup change (the booked car's
pickup moves earlier; the calendar must follow) and the board's confirmation mail.

Two levels (``gym.make(..., level="guided" | "paper")``), one story per seed: ``guided`` states
every rule a check enforces in USER.md and AGENTS.md, as a checklist (its instances are the
certification skeleton's, :class:`~vibelife_env.probes.cert_skeleton.ProfessionalCert`, byte for
byte); ``paper`` (the default, :meth:`Certification._build_paper` and :mod:`.paper`) keeps in the
workspace what the candidate tells an assistant and puts the domain rules in the board's
registration mail and rules for candidates, the employer's exam-support mail, the study group's
plan, the car desk's and the card issuer's mails, plants a latent fact (a compulsory briefing over
a weekly appointment at home), makes the mailbox and the car catalogue lived in, and sends the
leaked-questions scam under a bulk mailer's Message-ID; every check records its rules and where
they live (:mod:`.rules`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import require_stated
from vibelife_env.families import InstanceKey, InstanceProfile, TaskBuilder
from vibelife_env.probes import cert_skeleton as pc
from vibelife_env.probes import exam_steps as es
from vibelife_env.probes import exams as ex
from vibelife_env.probes.agent import oracle_family
from vibelife_env.probes.base import add_stages, shared_slots, stage_groups, stage_index
from vibelife_env.probes.household import clear_of
from vibelife_env.task.loader import Task

from . import paper, rules


class Certification(pc.ProfessionalCert):
    """See the module docstring: the skeleton's family at the guided level, and the paper level."""

    levels = ("guided", "paper")

    def build(self, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
        """The skeleton's instance at the guided level (unchanged); the paper level: :meth:`_build_paper`."""
        if key.level == "paper":
            return self._build_paper(rng, key)
        return super().build(rng, key)

    def _build_paper(self, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
        """The paper level: the skeleton's instance as :meth:`build` makes it (the same story, probes
        and timeline from ``rng``), with the paper level's world, workspace, look-ups, latent fact
        and rules (:mod:`.paper`, :mod:`.rules`) from a generator of its own."""
        story = self.story(rng)
        b = TaskBuilder(
            self.root, f"professional_cert-{key.label}", self.domain, f"{story.short} certification", "Asia/Shanghai",
            story.name,
        )  # fmt: skip
        probes = self._probes(rng, story)
        paper.unlabel(probes)
        slots = self._skeleton(story, rng) + self._probe_slots(probes, story)
        k = story.kickoff
        clear_of(slots, {"spent_q": (k + timedelta(days=4), k + timedelta(days=8))})
        constraints = tuple(dict.fromkeys((*(c for p in probes for c in p.constraints), *self._constraints(story))))
        prng = paper.paper_rng(key)  # the same story and timeline; the paper level's own draws from its own generator
        paper.extend(story, prng, probes)
        for p in probes:
            p.setup(b, story)
        self._seed(b, story)
        paper.seed_mail(b, story, prng)
        paper.seed_calendar(b, story)
        del b.callables["reg_mail_lands"]  # the confirmation carries the briefing (the latent fact)
        confirm = paper.confirm_text(story, pc.CONFIRM)
        b.callable("reg_mail_lands", lambda ctx: es.reg_mail_lands(ctx, story, confirm))
        groups = stage_groups(slots)
        stage_of = stage_index(groups)
        story.extras["shared"] = shared_slots(groups)
        steps = add_stages(b, groups)
        # the oracle reads the rule mails first, then the confirmation and the diary
        steps["kickoff"].insert(0, paper.lookups)
        steps["reg_confirm"] = [paper.confirm_step if f is es.confirm else f for f in steps["reg_confirm"]]
        self._checks(b, story, stage_of)
        for p in probes:
            p.add_checks(b, story, stage_of)
        # the latent fact's check; every check's rules, where they live
        paper.add_latent(b, story, stage_of["reg_confirm"], lambda ctx: es.run_gate(ctx, story))
        rules.attach(b, story)
        require_stated(b.root, b.files, b.checks.rules.values())
        b.oracle = oracle_family(steps, story, pc.ExamAgent)
        order = tuple(p.name for p in sorted(probes, key=lambda p: min(stage_of[x] for x in p.slot_keys)))
        profile = InstanceProfile(
            order, constraints, f"{story.short}:{story.name}", story.lang, (story.exam_day - k.date()).days + 1
        )
        return b.task(max_tool_calls_per_turn=80, max_tool_calls_per_episode=2000), profile

    # ========================================================= workspace
    def _workspace(self, b: Any, s: ex.ExamStory) -> None:
        if s.extras.get("level") == "paper":  # what the candidate writes, no backend names (:mod:`.paper`)
            paper.workspace(b, s)
            return
        super()._workspace(b, s)


FAMILY = Certification()
