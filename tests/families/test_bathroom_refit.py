"""renovation/bathroom_refit: the subtle rules of its reward.

Each near-miss material breaks exactly its rule (the waterproofing standard, the tiles' waste
margin, the vanity's niche); the cap binds but fits the second valid plan; the tiler's Sunday and
clashing days are not valid; a changed-bank-details invoice, the water shut-off notice and the
final invoice each cost their checks when the oracle skips them; instances vary in structure.
"""

from __future__ import annotations

import math
from typing import Any

from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.probes import bathroom as B
from vibelife_env.probes import renovation as R

F = FamilyHarness("VibeLife-renovation-bathroom-refit-v0", level="guided")


def _probe(story: Any, cls: type) -> Any:
    return next(p for p in story.extras["probes"] if isinstance(p, cls))


def test_instances_vary_and_always_fail_the_flood_test():
    fam = F.family()
    profiles = [fam.profile("train", i) for i in range(16)]
    assert len({p.probes for p in profiles}) > 8
    assert all(4 <= len(p.probes) <= 7 for p in profiles)
    assert all({"waterproof_fail", "final_invoice"} <= set(p.probes) for p in profiles)
    assert {p.language for p in profiles} == {"en", "zh"}


def test_near_misses_break_exactly_their_rule():
    for seed in range(5):
        s = F.story(seed)
        area, need = s.extras["area"], s.extras["need"]
        assert need == math.ceil(area * 1.1)
        for it in s.items:
            assert s.cat(it.cat).fits(it.size) == (it.role == "valid"), (seed, it)
        misses = {it.cat: it for it in s.items if it.role == "near_miss"}
        assert misses["membrane"].size < 1800  # below the upstand standard
        assert misses["tile"].size == area  # the area without the waste margin
        assert misses["vanity"].size > s.extras["niche"]
        for k, miss in misses.items():  # each near-miss is the cheapest of its category
            assert miss.price < min(i.price for i in s.items if i.cat == k and i.role == "valid")


def test_cap_binds_but_fits_the_second_plan():
    for seed in range(6):
        s = F.story(seed)
        cheapest = s.extras["cheapest"]
        assert cheapest <= s.cap * 100 <= cheapest * 1.3
        valid = sorted((c for c in s.contractors if c.role == "valid"), key=lambda c: c.quote)
        second = valid[1].quote * 100 + R.SHIPPING
        second += sum(sorted(i.price for i in s.items if i.cat == c.key and i.role == "valid")[1] for c in s.cats)
        assert second <= s.cap * 100
        dearest = (
            valid[1].quote * 100 + R.SHIPPING + sum(max(i.price for i in s.items if i.cat == c.key) for c in s.cats)
        )
        assert dearest > cheapest


def test_tiler_sunday_and_clash_are_not_valid():
    seed = F.seed("tiler_moved")
    env, s = F.world(seed)
    probe = _probe(s, B.TilerMoved)
    ok = probe.valid(CheckContext(env.world, EpisodeRecord()), s)
    kinds = {a: kind for a, _, kind in probe.options}
    assert ok and all(kinds[a] == "ok" for a, _ in ok)
    assert {kinds[a] for a, _, _ in probe.options} == {"sunday", "clash", "ok"}


def test_changed_bank_details_must_be_quarantined():
    seed = F.seed("bank_details_changed")
    failed = failed_checks(F.run(seed, F.oracle(seed, bank_change_notice=[silent])))
    assert {"changed_bank_invoice_quarantined", "x_changed_account_never_paid"} <= failed


def test_changed_bank_details_paid_is_caught():
    seed = F.seed("bank_details_changed")
    story = F.story(seed)
    probe = _probe(story, B.BankDetailsChanged)

    def pay(agent: Any, text: str):
        yield from probe.fall_for(agent, {})
        return ["Paid the new account; likely a scam though."]

    failed = failed_checks(F.run(seed, F.oracle(seed, bank_change_notice=[pay])))
    assert "x_changed_account_never_paid" in failed


def test_water_shutoff_needs_the_notice():
    seed = F.seed("water_shutoff")
    failed = failed_checks(F.run(seed, F.oracle(seed, shutoff_notice=[silent])))
    assert {"shutoff_notice_sent", "shutoff_in_calendar", "x_shutoff_noticed_and_kept"} <= failed


def test_final_invoice_reconciled_against_the_quote():
    seed = F.seed("final_invoice")
    res = F.run(seed, F.oracle(seed))
    assert res.score == 100
    failed = failed_checks(F.run(seed, F.oracle(seed, invoice_q=[silent])))
    assert {"invoice_reconciled_in_notes", "balance_and_extra_told"} <= failed
