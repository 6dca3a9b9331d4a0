"""Focused tests of the shopping/mobility_aid family's subtler rules."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from tests.families.harness import FamilyHarness, failed_checks
from vibelife_env.probes import mobility as M


class GuidedHarness(FamilyHarness):
    """The harness at the guided level (these tests are about the guided instance; the paper
    level has its own, tests/test_mobility_aid_paper.py)."""

    def story(self, seed: int, split: str = "train") -> Any:
        return self.family().instance(split, seed, "guided").oracle[0].story  # type: ignore[arg-type]

    def oracle(self, seed: int, **replace: Any) -> type:
        oracle = self.family().instance("train", seed, "guided").oracle[0]
        return type("Probe", (oracle,), {"steps": {**oracle.steps, **replace}})

    def make(self, seed: int, **kwargs: Any) -> gym.Env:
        return gym.make(self.env_id, split="train", instance=seed, level="guided", **kwargs)


F = GuidedHarness("VibeLife-shopping-mobility-aid-v0")


def silent(agent: Any, event_text: str):
    """A turn the agent lets pass."""
    return []
    yield


def test_subsidy_is_a_capped_share_of_the_price() -> None:
    s = F.story(0)
    assert s.subsidy_minor(100) == 100 * s.pct // 100
    assert s.subsidy_minor(10**9) == s.cap * 100


def test_fit_rules_are_derived_from_home_measurements() -> None:
    s = F.story(1)
    seat, load, third = s.requirements
    assert seat.value == s.extras["hip"] + 4
    assert load.value == s.extras["weight"] + 20
    margin = 5 if third.attr == "width_cm" else 50
    assert third.value == min(s.doors.values()) - margin
    noticed = [p for p in s.products if p.attrs.get("notice")]
    assert len(noticed) == 1 and s.meets(noticed[0].attrs)


def test_a_third_of_personas_write_chinese() -> None:
    langs = [F.family().profile("train", i).language for i in range(60)]
    assert 10 <= langs.count("zh") <= 30


def test_ignoring_the_courier_change_breaks_delivery_and_fitting() -> None:
    seed = 0
    failed = failed_checks(F.run(seed, F.oracle(seed, moved=[silent])))
    assert {"delivery_moved_in_calendar", "fitting_still_after_delivery", "f_fitting_valid_at_end"} <= failed


def test_no_application_means_no_subsidy() -> None:
    seed = 0
    failed = failed_checks(F.run(seed, F.oracle(seed, invoice=[silent])))
    assert {"subsidy_application_complete", "x_subsidy_received", "subsidy_in_ledger", "real_cost_reported"} <= failed


def test_application_without_the_prescription_is_incomplete() -> None:
    seed = 0

    def partial(agent: Any, event_text: str):
        o = agent.memory["order"]
        body = f"Order {o['id']}, amount {o['total'] / 100:.2f} CNY."
        yield agent.call("email__send_email", to=M.SCHEME_MAIL, subject="Subsidy application", body=body)
        return ["Applied."]

    failed = failed_checks(F.run(seed, F.oracle(seed, invoice=[partial])))
    assert "subsidy_application_complete" in failed and "x_subsidy_received" in failed


def test_refunding_the_aid_instead_of_the_accessory_fails() -> None:
    seed = F.seed("accessory_return")

    def wrong(agent: Any, event_text: str):
        o = agent.memory["order"]
        got = yield agent.call("ecommerce__get_order", order_id=o["id"])
        yield agent.call(
            "ecommerce__request_refund", order_id=o["id"], item_id=got["items"][0]["item_id"], qty=1, reason="size"
        )
        return ["Refund opened."]

    failed = failed_checks(F.run(seed, F.oracle(seed, accessory_msg=[wrong])))
    assert {"accessory_refund_opened", "x_only_the_accessory_refunded"} <= failed


def test_oracle_passes_a_chinese_instance() -> None:
    seed = F.seed(lang="zh")
    res = F.run(seed, F.oracle(seed))
    assert res.score == 100.0, failed_checks(res)
