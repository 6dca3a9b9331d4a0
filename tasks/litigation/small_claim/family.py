"""Scenario family ``litigation/small_claim``: pursue a civil small claim over about four weeks.

Each instance draws a persona (a third of them write in Chinese), a city and its two basic
courts (the claim belongs to the court of the defendant's district), a defendant (a renovation
contractor who left the work unfinished, a dry-cleaner who ruined a coat, a furniture maker who
never delivered, movers who broke a cabinet), the claim, the evidence already in the mail, a
legal-aid adviser, the user's settlement minimum and how early they want to be at court. The
legal_search corpus is planted per instance with valid statutes and precedents and near-misses
(a repealed law, another region's regulation and court, a claim lost on the limitation period).
Then four to seven probes from :mod:`vibelife_env.probes.legal`, in random order: a fake court-fee
mail (always), and some of a silently moved hearing, a settlement offer under the user's minimum,
late photo evidence, the walk to the courthouse, a limitation question, the defendant's reviews,
an amended regulation.

The skeleton (:mod:`vibelife_env.probes.claim_skeleton`) opens the case file (court, claim, fee,
statutes, precedents, filing deadline), files the claim by mail, takes the court's acceptance
(pays the fee once to the court's account, puts the hearing and the evidence deadline in the
calendar), submits the evidence, answers questions, holds quiet checks, briefs the user on the eve
of the hearing and closes the case.

Two levels (``gym.make(..., level="guided" | "paper")``), one story per seed: ``guided`` states
every rule a check enforces in CASE.md and AGENTS.md, as a checklist (its instances are the
skeleton's, as they were); ``paper`` (the default, :mod:`.paper`, :meth:`SmallClaimFamily._build_paper`)
keeps in the workspace what the claimant tells an assistant and puts the domain rules where a
claimant learns them (the court guide, the adviser's answer, the bank's notice, the Civil Code's
limitation period), with a latent clash at the hearing's hour (:mod:`.rules`).
"""

from __future__ import annotations

import numpy as np

from vibelife_env.families import InstanceKey, InstanceProfile, TaskBuilder
from vibelife_env.probes.agent import oracle_family
from vibelife_env.probes.base import add_stages, shared_slots, stage_groups, stage_index
from vibelife_env.probes.claim_skeleton import SmallClaim, _acceptance, _fee_receipt, final_claim
from vibelife_env.probes.claim_skeleton import acceptance_step as guided_acceptance
from vibelife_env.probes.legal import ClaimAgent, ClaimStory
from vibelife_env.task.loader import Task

from . import paper, rules

#: What the paper level runs on (the skeleton's services, as the guided level uses them).
SERVICES = ("email", "legal_search", "calendar", "notion", "banking", "maps", "notification_hub", "review_platform")


class SmallClaimFamily(SmallClaim):
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
        paper level's world, rules, latent fact and workspace (:mod:`.paper`, :mod:`.rules`)."""
        story = self.story(rng)
        story.extras["level"] = "paper"
        prng = paper.paper_rng(key)
        title = f"{story.name} v {story.defendant['en']}: a small claim"
        b = TaskBuilder(self.root, f"small_claim-{key.label}", self.domain, title, "Asia/Shanghai", story.name)
        probes = self._probes(rng, story)
        slots = self._layout(rng, story, probes)
        self._seed(b, story, rng)
        paper.seed(b, story, prng)
        for p in probes:
            p.setup(b, story)
        b.callable("court_acceptance", lambda ctx: _acceptance(ctx, story))
        b.callable("court_fee_receipt", lambda ctx: _fee_receipt(ctx, story))
        groups = stage_groups(slots)
        stage_of = stage_index(groups)
        shared = shared_slots(groups)
        steps = add_stages(b, groups)
        steps["kickoff"].insert(0, paper.lookups)
        steps["acceptance_notice"] = [
            paper.acceptance_step if f is guided_acceptance else f for f in steps["acceptance_notice"]
        ]
        self._checks(b, story, stage_of, shared)
        for p in probes:
            p.add_checks(b, story, stage_of)
        paper.add_latent(b, story, stage_of["acceptance"])
        rules.attach(b, story)
        paper.workspace(b, story)
        b.oracle = oracle_family(steps, story, ClaimAgent)
        order = tuple(p.name for p in sorted(probes, key=lambda p: min(stage_of[k] for k in p.slot_keys)))
        constraints = (
            *(c for p in probes for c in p.constraints),
            f"kind:{story.defendant['kind']}",
            f"settle_min:{story.threshold}",
            "fee:flat" if final_claim(story) <= 10_000 else "fee:scaled",
        )
        days = (story.extras["end"] - story.kickoff.date()).days + 1
        profile = InstanceProfile(order, constraints, story.user_key, story.lang, days)
        return b.task(max_tool_calls_per_turn=80, max_tool_calls_per_episode=2000), profile

    # ============================================================= workspace
    def _workspace(self, b: TaskBuilder, s: ClaimStory) -> None:
        if s.extras.get("level") == "paper":  # the paper level writes its own, once the checks are made
            b.use(*SERVICES)
            return
        super()._workspace(b, s)


FAMILY = SmallClaimFamily()
