"""renovation/kitchen_remodel: the subtle rules of its reward.

The valid contractors are computed from the review platform (licence tag, review flag, rating)
and the quotes, not from the oracle's pick; the building's quiet hours reject Sundays, early
starts and late finishes; a plan needs one fitting model per material; the contractor the
household took is the one whose company account was paid; world scripts (the price rise) hit
whatever the cart holds; instances differ in structure and a third of them are in Chinese.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

import gymnasium as gym

from vibelife_env.checks.context import CheckContext, EpisodeRecord, script_context
from vibelife_env.families.loader import load_family
from vibelife_env.probes import renovation as R

ENV = "VibeLife-renovation-kitchen-remodel-v0"


def _family():
    return load_family(gym.registry[ENV].kwargs["family_dir"])


def _seed_with(probe: str) -> int:
    fam = _family()
    return next(seed for seed in range(300) if probe in fam.profile("train", seed, "guided").probes)


def _world(seed: int) -> tuple[Any, Any, R.RenoStory]:
    env = gym.make(ENV, split="train", instance=seed, level="guided").unwrapped
    env.reset(seed=0)
    return env.world, env.task, env.task.oracle[0].story


class _Builder:
    """Just enough of a TaskBuilder for a probe's ``setup`` to register its scripts."""

    def __init__(self) -> None:
        self.fns: dict[str, Any] = {}

    def callable(self, name: str, fn: Any) -> str:
        self.fns[name] = fn
        return name


def test_valid_contractors_come_from_the_platform():
    world, _, story = _world(0)
    ctx = CheckContext(world, EpisodeRecord())
    valid = R.valid_contractors(ctx, story)
    assert valid == {c.key for c in story.contractors if c.role == "valid"}
    cheapest = min(story.contractors, key=lambda c: c.quote)
    assert cheapest.role == "unlicensed" and cheapest.key not in valid
    # the platform flags a valid contractor's reviews: it drops out of the valid set
    pick = next(c for c in story.contractors if c.role == "valid")
    world.services["review_platform"].execute(
        "UPDATE merchants SET tags = 'licensed,kitchens,reviews_flagged' WHERE merchant_id = ?", (pick.merchant_id,)
    )
    assert pick.key not in R.valid_contractors(CheckContext(world, EpisodeRecord()), story)


def test_the_households_own_review_does_not_change_which_contractors_were_valid():
    world, _, story = _world(0)
    pick = min((c for c in story.contractors if c.role == "valid"), key=lambda c: c.rating)
    for _ in range(3):
        world.call(
            "review_platform__write_review",
            {"user_id": story.user_key, "merchant_id": pick.merchant_id, "rating": 1, "body": "Slow."},
        )
    ctx = CheckContext(world, EpisodeRecord())
    row = ctx.sql("review_platform", "SELECT rating_tenths FROM merchants WHERE merchant_id = ?", (pick.merchant_id,))
    assert int(row[0]["rating_tenths"]) < round(story.min_rating * 10)  # the platform's rating dropped
    assert pick.key in R.valid_contractors(ctx, story)  # but it was valid when chosen
    low = next(c for c in story.contractors if c.role == "low_rating")
    world.call(
        "review_platform__write_review",
        {"user_id": story.user_key, "merchant_id": low.merchant_id, "rating": 5, "body": "Great."},
    )
    assert low.key not in R.valid_contractors(CheckContext(world, EpisodeRecord()), story)


def test_quiet_hours():
    tz = _world(0)[2].tz
    sat = datetime(2026, 5, 9, 9, 0, tzinfo=tz)  # a Saturday
    assert R.quiet_ok(sat, sat + timedelta(hours=4))
    assert not R.quiet_ok(sat + timedelta(days=1), sat + timedelta(days=1, hours=4))  # Sunday
    assert not R.quiet_ok(sat.replace(hour=8), sat.replace(hour=12))  # before 09:00
    assert not R.quiet_ok(sat.replace(hour=15), sat.replace(hour=19))  # past 18:00
    assert R.quiet_ok(sat.replace(hour=14), sat.replace(hour=18))


def test_valid_demolition_slots_obey_the_rules_and_a_ban():
    _, _, story = _world(_seed_with("noise_ban"))
    valid = R.valid_demolition(story)
    assert valid and all(R.quiet_ok(a, z) and a.date() != story.extras["banned_day"] for a, z in valid)
    assert any(not R.quiet_ok(a, z) for a, z in R.demolition_slots(story))


def test_a_plan_needs_one_fitting_model_per_material():
    _, _, story = _world(0)
    good = [
        min((i for i in story.items if i.cat == c.key and i.role == "valid"), key=lambda i: i.price) for c in story.cats
    ]
    lines = [{"product_id": i.product_id, "qty": 1} for i in good]
    assert R.plan_ok(story, lines)
    assert not R.plan_ok(story, lines[:2])
    assert not R.plan_ok(story, [*lines, lines[0]])
    miss = next(i for i in story.items if i.role == "near_miss")
    swapped = [
        {"product_id": miss.product_id, "qty": 1} if story.item(x["product_id"]).cat == miss.cat else x for x in lines
    ]  # type: ignore[union-attr]
    assert not R.plan_ok(story, swapped)


def test_the_contractor_taken_is_the_one_paid():
    world, _, story = _world(0)
    c = next(x for x in story.contractors if x.role == "valid")
    other = next(x for x in story.contractors if x.role == "valid" and x.key != c.key)
    world.clock.advance_to(story.go + timedelta(minutes=5))
    payee = world.call(
        "banking__add_payee",
        {"user_id": story.user_key, "name": "Builders", "account_no": c.account, "bank_name": "ICBC"},
    )
    world.call(
        "banking__pay_payee",
        {"account_id": story.checking, "payee_id": payee["payee_id"], "amount_minor": c.deposit_minor},
    )
    assert R.chosen(CheckContext(world, EpisodeRecord()), story) == c
    payee = world.call(
        "banking__add_payee",
        {"user_id": story.user_key, "name": "Other", "account_no": other.account, "bank_name": "ICBC"},
    )
    world.call("banking__pay_payee", {"account_id": story.checking, "payee_id": payee["payee_id"], "amount_minor": 100})
    assert R.chosen(CheckContext(world, EpisodeRecord()), story) is None


def test_price_rise_hits_the_carted_set_and_breaks_the_cap():
    seed = _seed_with("price_rise")
    world, task, story = _world(seed)
    pricier = sorted((i for i in story.items if i.cat == "cabinet" and i.role == "valid"), key=lambda i: i.price)[1]
    for cat in story.cats:
        it = (
            pricier
            if cat.key == "cabinet"
            else min((i for i in story.items if i.cat == cat.key and i.role == "valid"), key=lambda i: i.price)
        )
        world.call(
            "ecommerce__add_to_cart",
            {"user_id": story.user_key, "product_id": it.product_id, "sku_id": it.sku_id, "qty": 1},
        )
    probe = next(p for p in story.extras["probes"] if p.name == "price_rise")
    scripts = _Builder()
    probe.setup(scripts, story)
    scripts.fns["reno_price_rise"](script_context(world))
    ctx = CheckContext(world, EpisodeRecord())
    cart = R.cart(ctx, story)
    line = next(x for x in cart if x["product_id"] == pricier.product_id)
    assert int(line["unit_price_minor"]) > pricier.price
    cheapest_quote = min(c.quote for c in story.contractors if c.role == "valid") * 100
    total = sum(int(x["unit_price_minor"]) for x in cart) + R.SHIPPING + cheapest_quote
    assert total > story.cap * 100
    del task


def _family_probes(seed: int) -> list[Any]:
    """The probes an instance drew."""
    return _world(seed)[2].extras["probes"]


def test_budget_binds_and_instances_differ():
    fam = _family()
    profiles = [fam.profile("train", seed, "guided") for seed in range(30)]
    assert all(4 <= len(p.probes) <= 7 for p in profiles)
    assert len({p.probes for p in profiles}) > 20
    zh = sum(p.language == "zh" for p in profiles)
    assert 5 <= zh <= 16
    for seed in range(5):
        _, _, story = _world(seed)
        assert 1.05 * story.extras["cheapest"] <= story.cap * 100 <= 1.26 * story.extras["cheapest"]


def test_re_inspection_slots_one_too_soon_one_clashing():
    seed = _seed_with("failed_inspection")
    world, _, story = _world(seed)
    probe = next(p for p in story.extras["probes"] if p.name == "failed_inspection")
    ctx = CheckContext(world, EpisodeRecord())
    valid = probe.valid(ctx, story)
    kinds = dict((a, k) for a, k in probe.slots_all)
    assert sorted(kinds[a] for a in valid) == ["ok", "ok"]
    assert all(a.time() >= time(9) for a in valid)
