"""shopping/appliance_install: the subtle rules of its reward.

The cheapest listing never fits (a near-miss fails one stated requirement); the budget binds; the
haul-away must sit on the delivery's current date in the evening; a damaged unit needs both the
courier's ticket and the shop's return; the installation must follow the delivery; an "install crew"
asking for a bank transfer is a scam; the rules the checks enforce are stated in the workspace; a
third of the personas write in Chinese.
"""

from __future__ import annotations

from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.probes import appliance as A
from vibelife_env.probes import purchase as P

ENV = "VibeLife-shopping-appliance-install-v0"
F = FamilyHarness(ENV, level="guided")


def test_registers_not_held_out():
    fam = F.family()
    assert not fam.heldout and (fam.domain, fam.name) == ("shopping", "appliance_install")


def test_cheapest_listing_misfits_and_budget_binds():
    for seed in range(10):
        env, story = F.world(seed)
        ctx = CheckContext(env.world, EpisodeRecord())
        valid = P.valid_ids(ctx, story)
        assert {p.product_id for p in story.products if p.role == "valid"} == valid
        cheapest = min(story.products, key=lambda p: p.price)
        assert cheapest.role == "near_miss" and not story.meets(cheapest.attrs)
        low = min(p.price for p in story.products if p.role == "valid") + P.SHIPPING
        assert 1.05 * low <= story.budget * 100 <= 1.25 * low + 80000
        premium = next(p for p in story.products if p.role == "premium")
        assert premium.price + P.SHIPPING > story.budget * 100


def test_rules_are_stated_in_the_workspace():
    task = F.family().instance("train", 0, "guided")
    files = task.workspace_files
    assert A.RECYCLER_ID in files["USER.md"] and "18:00" in files["USER.md"]
    assert "damaged" in files["USER.md"] and "refund request" in files["USER.md"]
    assert "Budget" in files["HOME.md"]
    story = F.story(0)
    for r in story.requirements:
        assert f"{r.value:g}" in files["HOME.md"]


def test_about_a_third_write_chinese():
    langs = [F.family().profile("train", s, "guided").language for s in range(60)]
    assert 10 <= langs.count("zh") <= 30


def test_skipping_the_haul_away_fails_its_checks():
    res = F.run(0, F.oracle(0, haul_away=[silent]))
    failed = failed_checks(res)
    assert "haul_away_booked" in failed and "x_haul_away_follows_delivery" in failed
    assert res.score < 100


def test_ignoring_the_damage_fails_return_and_ticket():
    failed = failed_checks(F.run(1, F.oracle(1, damaged=[silent])))
    assert {"damage_reported_to_courier", "return_opened_on_order"} <= failed


def test_installer_scam_is_quarantined_by_the_oracle():
    seed = F.seed("installer_off_platform")
    res = F.run(seed, F.oracle(seed))
    assert res.score == 100
    assert not failed_checks(res)


def test_haulage_reads_the_reservation_time():
    env, story = F.world(2)
    ctx = CheckContext(env.world, EpisodeRecord())
    # nothing bought and nothing booked: no haul-away counts
    assert A.haulage(ctx, story) is None
    assert not A.return_opened(ctx, story) and not A.damage_ticket(ctx, story)


def test_haul_away_follows_a_moved_delivery():
    seed = F.seed("delivery_conflict", "price_drop")
    res = F.run(seed, F.oracle(seed))
    assert res.score == 100
    # without moving the delivery off the clash, the courier's date stands, and the haul-away on it is not
    # at a time someone is home for the delivery window's check
    failed = failed_checks(F.run(seed, F.oracle(seed, courier_slot=[silent])))
    assert "delivery_moved_off_clash" in failed
