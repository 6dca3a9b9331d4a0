"""shopping/refurb_laptop: the subtle rules of its reward.

The cheapest listing never qualifies (a near-miss fails one stated minimum, the seller's rating included);
the budget binds; a price rise in the cart can push the listing past the budget, and then only a swap
keeps the plan; the delivery entry must follow the courier's delay; the faulty unit needs a return on the
order; the data-move brief must name every folder to move and no private one; the rules are stated in the
workspace; a third of the personas write in Chinese.
"""

from __future__ import annotations

from datetime import date

from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.probes import purchase as P
from vibelife_env.probes import refurb as R

ENV = "VibeLife-shopping-refurb-laptop-v0"
F = FamilyHarness(ENV, level="guided")


def test_registers_not_held_out():
    fam = F.family()
    assert not fam.heldout and (fam.domain, fam.name) == ("shopping", "refurb_laptop")


def test_cheapest_listing_misfits_and_budget_binds():
    for seed in range(8):
        env, story = F.world(seed)
        ctx = CheckContext(env.world, EpisodeRecord())
        assert {p.product_id for p in story.products if p.role == "valid"} == P.valid_ids(ctx, story)
        cheapest = min(story.products, key=lambda p: p.price)
        assert not story.meets(cheapest.attrs)
        low = min(p.price for p in story.products if p.role == "valid") + P.SHIPPING
        assert 1.05 * low <= story.budget * 100 <= 1.25 * low + 80000
        premium = next(p for p in story.products if p.role == "premium")
        assert premium.price + P.SHIPPING > story.budget * 100


def test_rules_are_stated_in_the_workspace():
    files = F.family().instance("train", 0, "guided").workspace_files
    story = F.story(0)
    for r in story.requirements:
        assert f"{r.value:g}" in files["USER.md"]
    assert "Budget" in files["USER.md"] and "-service.example" in files["USER.md"]
    assert all(f in files["DATA.md"] for f in story.extras["move"] + story.extras["private"])


def test_about_a_third_write_chinese():
    langs = [F.family().profile("train", s, "guided").language for s in range(60)]
    assert 10 <= langs.count("zh") <= 30


def test_price_rise_past_the_budget_needs_a_swap():
    seed = F.seed("price_rise_over_budget")
    assert F.run(seed, F.oracle(seed)).score == 100
    failed = failed_checks(F.run(seed, F.oracle(seed, price_rise=[silent])))
    assert "cart_valid_after_rise" in failed


def test_ignoring_the_delay_leaves_the_calendar_wrong():
    failed = failed_checks(F.run(1, F.oracle(1, delayed=[silent])))
    assert "delivery_entry_moved" in failed


def test_faulty_unit_needs_a_return():
    failed = failed_checks(F.run(2, F.oracle(2, faulty=[silent])))
    assert {"return_opened", "x_return_stands"} <= failed


def leaky(agent, event_text):
    """The data-move step, but the brief also lists the private folders."""
    s = agent.story
    lines = yield from P.book_visit(agent, event_text)
    brand = next(p.brand for p in s.products if p.code == agent.memory["pick"]["code"])
    body = "Move: " + ", ".join(R.move_list(s)) + ". Also: " + ", ".join(R.private_list(s))
    yield agent.call("email__send_email", to=R.centre_mail(brand), subject="Data", body=body)
    return lines


def test_private_folders_in_the_brief_fail_the_privacy_check():
    failed = failed_checks(F.run(3, F.oracle(3, data=[leaky])))
    assert "x_private_folders_never_mailed" in failed and "folders_briefed" not in failed


def test_add_months_clamps_the_day():
    assert R.add_months(date(2026, 1, 31), 1) == date(2026, 2, 28)
    assert R.add_months(date(2026, 11, 15), 6) == date(2027, 5, 15)
