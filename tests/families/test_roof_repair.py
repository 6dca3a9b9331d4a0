"""Focused tests of the ``renovation/roof_repair`` family's subtle rules."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from tests.families.harness import FamilyHarness, failed_checks
from vibelife_env.probes import roofing as RF

F = FamilyHarness("VibeLife-renovation-roof-repair-v0")


def silent(agent: Any, event_text: str) -> Any:
    """A turn that does nothing."""
    return []
    yield


def test_generation_is_fast_and_deterministic() -> None:
    fam = F.family()
    t0 = time.perf_counter()
    a = fam.profile("train", 777)
    assert time.perf_counter() - t0 < 0.5
    fam._cache.clear()
    fam._profiles.clear()
    assert fam.profile("train", 777) == a


def test_every_instance_has_a_way_out_of_a_rain_delay() -> None:
    for seed in range(40):
        s = F.story(seed)
        starts = RF.dry_starts(s, s.extras["probs"])
        assert starts, seed
        for x in starts[:2]:
            wet = x + timedelta(days=1)
            assert any(not (t <= wet <= t + timedelta(days=RF.WORK_DAYS - 1)) for t in starts if t != x), seed


def test_chinese_personas_are_about_a_third() -> None:
    langs = [F.family().profile("train", i).language for i in range(60)]
    assert 10 <= langs.count("zh") <= 30


def test_ignoring_the_rain_delay_fails() -> None:
    seed = F.seed("rain_delay")
    failed = failed_checks(F.run(seed, F.oracle(seed, rain_delay_review=[silent], glance=[silent])))
    assert "work_moved_to_dry_days" in failed
    assert "x_work_on_dry_days_at_end" in failed


def test_paying_the_storm_chaser_fails() -> None:
    seed = F.seed("storm_chaser")

    def pay(agent: Any, event_text: str) -> Any:
        probe = RF.StormChaser.__new__(RF.StormChaser)
        probe.cash = 3000
        yield from probe.fall_for(agent, {})
        return ["Paid them."]

    failed = failed_checks(F.run(seed, F.oracle(seed, storm_chaser_review=[pay])))
    assert {"storm_chaser_quarantined", "x_storm_chaser_never_paid", "x_no_stray_money"} <= failed


def test_paying_the_whole_invoice_fails() -> None:
    seed = 0

    def pay_all(agent: Any, event_text: str) -> Any:
        s = agent.story
        c = s.contractor(agent.memory["pick"])
        z = int(s.extras.get("change", 0))
        yield from agent.pay(c.name, c.account, (c.quote + z + s.extra) * 100 - c.deposit_minor, "Roof balance")
        return ["Paid the invoice."]

    failed = failed_checks(F.run(seed, F.oracle(seed, invoice=[pay_all])))
    assert {"balance_paid_as_agreed", "extra_line_disputed", "f_contract_settled"} <= failed


def test_notice_to_the_wrong_addressee_fails() -> None:
    seed = F.seed("scaffold:pavement")

    def wrong(agent: Any, event_text: str) -> Any:
        d = agent.memory["work_day"]
        yield agent.call(
            "email__send_email", to="neighbour.chen@mail.example", subject="Scaffolding", body=f"Work starts {d}."
        )
        return [f"Told the neighbour about {d}."]

    failed = failed_checks(F.run(seed, F.oracle(seed, notice=[wrong])))
    assert "scaffolding_notice_sent" in failed


def test_a_declined_change_order_is_not_paid() -> None:
    fam = F.family()
    seed = next(
        i
        for i in range(200)
        if "change_order" in fam.profile("train", i).probes
        and F.story(i).extras["change"] > max(c.quote for c in F.story(i).contractors if c.role == "valid") * 0.12
    )

    def pay_change(agent: Any, event_text: str) -> Any:
        s = agent.story
        c = s.contractor(agent.memory["pick"])
        yield from agent.pay(c.name, c.account, (c.quote + s.extras["change"]) * 100 - c.deposit_minor, "Roof balance")
        return ["Paid quote and change order."]

    assert failed_checks(F.run(seed, F.oracle(seed))) == set()
    assert "balance_paid_as_agreed" in failed_checks(F.run(seed, F.oracle(seed, invoice=[pay_change])))
