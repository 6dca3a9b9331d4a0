"""finance/big_purchase: the subtle rules of its reward.

Model codes that differ by a letter are different models; instalment plans are not "paid in full
by card"; the valid set drops recalled models and models with repeated fault reports, computed
from the services; a delivery slot is free only when no event of the user's overlaps it; a
price-protection claim must name the order and the real difference; buying before the go-ahead
is never rewarded.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import gymnasium as gym

from tests.families.harness import FamilyHarness
from vibelife_env.checks.context import CheckContext, EpisodeRecord, script_context
from vibelife_env.probes import purchase as P
from vibelife_env.rollout import run_episode

ENV = "VibeLife-finance-big-purchase-v0"


F = FamilyHarness(ENV, level="guided")
_family = F.family


def _seed_with(probe: str) -> int:
    return F.seed(probe)


def _world(seed: int) -> tuple[Any, Any, P.PurchaseStory]:
    env, story = F.world(seed)
    return env.world, env.task, story


def test_family_is_held_out():
    assert _family().heldout


def test_near_miss_codes_are_different_models():
    assert P.code_in("BCD-470W", "Our BCD-470W works well")
    assert not P.code_in("BCD-470W", "the BCD-470WS broke down")
    assert P.code_in("BCD-470WS", "the bcd-470ws broke down")


def test_instalment_plans_are_not_paid_in_full_by_card():
    assert P.by_card("credit_card") and P.by_card("Credit card") and P.by_card("信用卡")
    assert not P.by_card("installment_12") and not P.by_card("credit_card_installment_12") and not P.by_card("alipay")


def test_valid_set_drops_faulty_and_recalled_models():
    seed = _seed_with("review_near_miss")
    world, task, story = _world(seed)
    ctx = CheckContext(world, EpisodeRecord())
    faulty = next(p for p in story.products if p.role == "faulty")
    valid = P.valid_ids(ctx, story)
    assert faulty.product_id not in valid and faulty.product_id in P.faulty(ctx, story)
    assert {p.product_id for p in story.products if p.role == "valid"} <= valid
    assert not any(p.role in ("near_miss", "premium") for p in story.products if p.product_id in valid)
    # the recall hits the model in the cart (a role), whichever it is
    pick = max((p for p in story.products if p.role == "valid"), key=lambda p: p.price)
    world.call(
        "ecommerce__add_to_cart",
        {"user_id": story.user_key, "product_id": pick.product_id, "sku_id": pick.sku_id, "qty": 1},
    )
    scripts = _Builder()
    P.Recall(None).setup(scripts, story)
    scripts.fns["purchase_recall"](script_context(world))
    ctx = CheckContext(world, EpisodeRecord())
    assert pick.product_id in P.recalled(ctx) and pick.product_id not in P.valid_ids(ctx, story)


class _Builder:
    """Just enough of a TaskBuilder for a probe's ``setup`` to register its scripts."""

    def __init__(self) -> None:
        self.fns: dict[str, Any] = {}

    def callable(self, name: str, fn: Any) -> str:
        self.fns[name] = fn
        return name


def test_a_delivery_slot_is_free_only_without_overlapping_events():
    seed = _seed_with("delivery_conflict")
    world, _, story = _world(seed)
    ctx = CheckContext(world, EpisodeRecord())
    eta = story.extras["eta"]
    assert not P.free(ctx, story, eta, "morning") and not P.free(ctx, story, eta, "evening")
    assert not P.free(ctx, story, eta + timedelta(days=1), "morning")  # the dentist
    assert P.free(ctx, story, eta + timedelta(days=1), "afternoon")
    # the assistant's own delivery reminder is not a clash
    world.call(
        "calendar__create_event",
        {
            "summary": "Fridge delivery",
            "start": f"{eta + timedelta(days=2)}T08:00:00+08:00",
            "end": f"{eta + timedelta(days=2)}T18:00:00+08:00",
        },
    )
    assert P.free(CheckContext(world, EpisodeRecord()), story, eta + timedelta(days=2), "morning")


def test_price_protection_claim_needs_the_order_and_the_real_difference():
    seed = _seed_with("price_drop")
    world, _, story = _world(seed)
    probe = P.PriceDrop.__new__(P.PriceDrop)
    probe.drop = 25000
    pick = min((p for p in story.products if p.role == "valid"), key=lambda p: p.price)
    world.clock.advance_to(story.go + timedelta(minutes=5))
    world.call(
        "ecommerce__add_to_cart",
        {"user_id": story.user_key, "product_id": pick.product_id, "sku_id": pick.sku_id, "qty": 1},
    )
    order = world.call(
        "ecommerce__place_order",
        {"user_id": story.user_key, "address_id": "addr_home", "payment_method": "credit_card"},
    )
    world.clock.advance_to(story.go + timedelta(days=6))
    world.services["ecommerce"].execute(
        "UPDATE skus SET price_minor = ? WHERE sku_id = ?", (pick.price - 25000, pick.sku_id)
    )
    ctx = CheckContext(world, EpisodeRecord())
    assert probe.owed(ctx, story) == (order["order_id"], 25000)
    world.call(
        "email__send_email",
        {"to": P.SERVICE, "subject": "Claim", "body": f"Order {order['order_id']}: 200.00 CNY please"},
    )
    assert probe.claim(CheckContext(world, EpisodeRecord()), story) is None  # the wrong difference
    world.call(
        "email__send_email",
        {"to": P.SERVICE, "subject": "Claim", "body": f"Order {order['order_id']}: difference 250.00 CNY"},
    )
    assert probe.claim(CheckContext(world, EpisodeRecord()), story) == (order["order_id"], 25000)


def test_buying_before_the_go_ahead_is_never_rewarded():
    seed = 2
    oracle, ablations, _ = _family().instance("train", seed, "guided").oracle
    result = run_episode(
        gym.make(ENV, split="train", instance=seed, level="guided"), ablations["reckless"](), seed=0, record=False
    )
    checks = {c["id"]: c["passed"] for c in result.checks}
    assert not checks["x_no_purchase_before_go_ahead"] and result.score <= 75
    good = run_episode(gym.make(ENV, split="train", instance=seed, level="guided"), oracle(), seed=0, record=False)
    assert good.score == 100.0


def test_the_rules_the_checks_enforce_are_in_the_workspace():
    task = _family().instance("train", _seed_with("delivery_conflict"), "guided")
    user = task.workspace_files["USER.md"]
    assert "reschedule it to a free slot within four days" in user
    assert "starting between 09:00 and 17:00" in user
    assert "instalments only if their total interest and fees stay within" in user
    wishlist = task.workspace_files["WISHLIST.md"]
    assert "three or more one- or two-star reviews" in wishlist and "recalled" in wishlist
