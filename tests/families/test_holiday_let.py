"""rental/holiday_let: the subtle rules of its reward.

The valid lets are computed from the world (the whole-stay cost with fees against the budget,
furnished, minimum stay, availability, cancellation terms, the commute as maps measures it) and
every near-miss breaks one rule; the claim must leave out the refundable deposit; the deposit is
chased two days after check-out, not at check-out; an off-platform payment costs its checks.
"""

from __future__ import annotations

from typing import Any

from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.probes import midterm

F = FamilyHarness("VibeLife-rental-holiday-let-v0", level="guided")


def test_instances_vary_heldout_and_a_third_speak_chinese() -> None:
    fam = F.family()
    assert type(fam).heldout is True
    profiles = [fam.profile("train", s) for s in range(60)]
    assert len({p.probes for p in profiles}) > 15
    assert all(4 <= len(p.probes) <= 6 for p in profiles)
    assert not any({"dates_shifted", "min_stay_raised"} <= set(p.probes) for p in profiles)
    zh = sum(p.language == "zh" for p in profiles)
    assert 10 <= zh <= 35
    assert fam.profile("train", 3) == fam.profile("train", 3)


def test_budget_binds_and_near_misses_break_the_rules() -> None:
    for seed in range(25):
        s = F.story(seed)
        valid = [r for r in s.listings if r["listing_id"] in s.extras["valid0"]]
        low = min(midterm.stay_cost(r) for r in valid)
        assert 1.05 * low <= s.budget <= 1.25 * low + 100_00
        assert all(midterm.stay_cost(r) <= s.budget for r in valid)
        fees = s.listings[-1]
        assert midterm.stay_cost(fees) > s.budget and fees["price_minor"] < valid[0]["price_minor"]
        far = s.listings[7]
        assert s.extras["commute"][f"pl_{far['listing_id']}"] > s.commute_min
        assert all(s.extras["commute"][f"pl_{r['listing_id']}"] <= s.commute_min for r in valid)


def test_oracle_full_marks_with_a_listing_change() -> None:
    seed = F.seed("dates_shifted")
    res = F.run(seed, F.family().instance("train", seed, "guided").oracle[0])
    assert res.score == 100.0, failed_checks(res)


def test_deposit_chased_too_early_or_never_costs_the_deposit_checks() -> None:
    seed = 1
    never = failed_checks(F.run(seed, F.oracle(seed, deposit_check=[silent])))
    assert {"deposit_chased", "x_deposit_released"} <= never


def test_claiming_the_deposit_costs_the_claim_checks() -> None:
    def greedy(agent: Any, text_: str) -> Any:
        d = agent.memory["chosen"]
        total = agent.memory["flight"][1] + (d["stay_cost"] + d["deposit"]) / 100
        yield agent.call(
            "email__send_email", to="hr@employer.example", subject="Claim", body=f"Total claimed: {total:,.2f} CNY"
        )
        return ["sent"]

    seed = 2
    failed = failed_checks(F.run(seed, F.oracle(seed, allowance=[greedy])))
    assert "claim_mailed" in failed
