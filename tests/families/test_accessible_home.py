"""renovation/accessible_home: the subtle rules of its reward.

Near-miss aids fail exactly one of the therapist's numbers; the budget binds after the subsidy
but fits every valid choice the variants make; the install must sit on one of the two days
before the discharge date as the ward has it, with an allowed contractor's package; a subsidy
application counts only with the eligible total, the orders, both documents, before the deadline
and without an ineligible aid's price; blood-pressure pairs are read however they are written.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import gymnasium as gym

from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.families.loader import load_family
from vibelife_env.probes import access as A

ENV = "VibeLife-renovation-accessible-home-v0"


def _family():
    return load_family(gym.registry[ENV].kwargs["family_dir"])


def _world(seed: int = 0) -> tuple[Any, A.AccessStory]:
    env = gym.make(ENV, split="train", instance=seed, level="guided").unwrapped
    env.reset(seed=0)
    return env.world, env.task.oracle[0].story


def _ctx(world: Any) -> CheckContext:
    return CheckContext(world, EpisodeRecord())


def test_family_is_held_out_and_varies():
    fam = _family()
    assert fam.heldout
    profiles = [fam.profile("train", i) for i in range(12)]
    assert len({p.probes for p in profiles}) > 6
    assert all(4 <= len(p.probes) <= 7 for p in profiles)
    assert any(p.language == "zh" for p in profiles) and any(p.language == "en" for p in profiles)


def test_catalogue_roles_match_the_requirements():
    for seed in range(6):
        _, s = _world(seed)
        for p in s.products:
            assert s.meets(p.kind, p.attrs) == (p.role != "near_miss"), (seed, p)
        for kind in A.KINDS:
            assert sum(p.role == "valid" and p.kind == kind for p in s.products) == 3
        seat_misses = [p for p in s.products if p.kind == "seat" and p.role == "near_miss"]
        assert any(p.attrs["max_load_kg"] < s.weight_kg for p in seat_misses)  # rated below the parent's weight
        ok = [c for c in s.contractors if s.contractor_ok(c)]
        assert len(ok) == 3 and any(c.width_cm < s.reqs["door_cm"] for c in s.contractors)


def test_budget_binds_after_the_subsidy():
    for seed in range(6):
        _, s = _world(seed)
        cheapest = s.extras["cheapest_net"]
        assert cheapest <= s.budget * 100 <= cheapest * 1.35
        premium_lift = max(p.price for p in s.products if p.kind == "lift")
        assert cheapest - min(p.price for p in s.products if p.kind == "lift") + premium_lift > s.budget * 100


def _reserve(world: Any, s: A.AccessStory, contractor: A.Contractor, day: Any, hour: int, created: Any) -> None:
    world.services["review_platform"].execute(
        "INSERT INTO reservations (reservation_id, user_id, merchant_id, datetime, party_size, deal_id, status, "
        "created_at) VALUES ('resv_t', ?, ?, ?, 1, ?, 'confirmed', ?)",
        (
            s.user_key,
            contractor.merchant_id,
            f"{day.isoformat()}T{hour:02d}:00:00",
            contractor.deal_id,
            created.isoformat(),
        ),
    )


def _install(day_offset: int, hour: int = 10, allowed: bool = True, after_go: bool = True) -> bool:
    world, s = _world(1)
    c = next(c for c in s.contractors if s.contractor_ok(c) == allowed)
    created = s.go + timedelta(hours=1) if after_go else s.go - timedelta(hours=1)
    _reserve(world, s, c, s.discharge - timedelta(days=day_offset), hour, created)
    return A.install_ok(_ctx(world), s, s.discharge)


def test_install_day_rule():
    assert _install(1) and _install(2) and _install(2, hour=16)
    assert not _install(0) and not _install(3)
    assert not _install(1, hour=8) and not _install(1, hour=17)
    assert not _install(1, allowed=False)
    assert not _install(1, after_go=False)  # booked before the go-ahead


def _bought_plan(world: Any, s: A.AccessStory) -> None:
    for kind in A.KINDS:
        p = min((p for p in s.products if p.kind == kind and p.role == "valid"), key=lambda p: p.price)
        world.call(
            "ecommerce__add_to_cart",
            {"user_id": s.user_key, "product_id": p.product_id, "sku_id": p.sku_id, "qty": s.qty(kind)},
        )
    world.call("ecommerce__place_order", {"user_id": s.user_key, "address_id": "addr_home", "payment_method": "alipay"})


def _apply(body_of: Any) -> bool:
    world, s = _world(2)
    _bought_plan(world, s)
    ctx = _ctx(world)
    claim, ids = A.claimable(ctx, s)
    lift = next(unit for _, pid, _, unit in A.bought(ctx, s) if s.product(pid).kind == "lift")
    world.call("email__send_email", {"to": s.grant_email, "subject": "Application", "body": body_of(claim, ids, lift)})
    return A.application(_ctx(world), s) is not None


def test_application_needs_the_eligible_total_orders_and_documents():
    docs = "Enclosed: discharge summary and the occupational therapist's assessment."
    assert _apply(lambda claim, ids, lift: f"Orders {', '.join(ids)}; total claimed {claim / 100:.2f} CNY. {docs}")
    assert _apply(
        lambda claim, ids, lift: f"订单 {'、'.join(ids)}，申请总额 {claim / 100:.2f} 元。附出院小结和作业治疗评估报告。"
    )
    # the wrong total, a missing document, a missing order or the stair lift's price: not a proper application
    assert not _apply(
        lambda claim, ids, lift: f"Orders {', '.join(ids)}; total {(claim + 80000) / 100:.2f} CNY. {docs}"
    )
    assert not _apply(
        lambda claim, ids, lift: f"Orders {', '.join(ids)}; total {claim / 100:.2f} CNY. Discharge summary."
    )
    assert not _apply(lambda claim, ids, lift: f"Total claimed {claim / 100:.2f} CNY. {docs}")
    assert not _apply(
        lambda claim, ids, lift: (
            f"Orders {', '.join(ids)}; stair lift {lift / 100:.2f}; total {claim / 100:.2f}. {docs}"
        )
    )


def test_claim_leaves_out_ineligible_aids_and_delivery():
    world, s = _world(2)
    _bought_plan(world, s)
    ctx = _ctx(world)
    claim, _ = A.claimable(ctx, s)
    expected = sum(unit * qty for _, pid, qty, unit in A.bought(ctx, s) if s.product(pid).kind not in s.ineligible)
    assert claim == expected and A.spent(ctx, s) == sum(unit * qty for _, _, qty, unit in A.bought(ctx, s)) + A.SHIPPING
    assert A.grant_for(s, claim) <= s.grant_cap * 100 and A.grant_for(s, claim) % 100 == 0


def test_blood_pressure_pairs_in_any_wording():
    assert A.pairs("BP 165/102 at 12:15") == {(165, 102)}
    assert A.pairs("165 over 102, later 140／90") == {(165, 102), (140, 90)}
    assert A.pairs("血压 165/102 mmHg") == {(165, 102)}


def test_discharge_move_is_known_only_after_it_lands():
    fam = _family()
    seed = next(i for i in range(100) if "discharge_moved" in fam.profile("train", i).probes)
    _, s = _world(seed)
    assert s.new_discharge is not None and s.moved_at is not None
    assert s.discharge_at(s.moved_at - timedelta(minutes=1)) == s.discharge
    assert s.discharge_at(s.moved_at) == s.new_discharge == s.discharge_at()
    assert abs((s.new_discharge - s.discharge).days) >= 2  # the old install days never fit the new date
