"""shopping/ebike (held out): the subtle rules of its reward.

The range rule is only computable from the maps service (1.5x the bike round trip); the budget
includes the lock and helmet already on the card; near-misses each break one rule (the cheapest
has no battery certificate, one is too fast for the licence-free class); only the helmet goes
back, and its refund comes from a world script that reads the agent's mail; the insurance quote
is taken only when it keeps the stated rules; the customs-fee mail is a scam; a third of the
personas write in Chinese.
"""

from __future__ import annotations

import math
import re
from typing import Any

from tests.families.harness import FamilyHarness, failed_checks
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.probes import ebike as E
from vibelife_env.probes import purchase as P

ENV = "VibeLife-shopping-ebike-v0"


F = FamilyHarness(ENV, level="guided")


def _misses(story: P.PurchaseStory, attrs: dict[str, Any]) -> list[str]:
    return [
        r.attr for r in story.requirements if (attrs[r.attr] < r.value if r.op == "min" else attrs[r.attr] > r.value)
    ]


def test_family_is_held_out_and_registers():
    fam = F.family()
    assert fam.heldout and fam.domain == "shopping" and fam.name == "ebike"


def test_range_rule_comes_from_the_maps_round_trip_and_is_not_written_down():
    for seed in range(8):
        env, story = F.world(seed)
        ctx = CheckContext(env.world, EpisodeRecord())
        rows = {r["place_id"]: r for r in ctx.sql("maps", "SELECT * FROM places")}
        trip = E.commute_km(rows["pl_home"], rows["pl_office"])
        need = next(r.value for r in story.requirements if r.attr == "range_km")
        assert need == math.ceil(trip * 1.5)
        got = env.world.services["maps"].directions(origin="pl_home", dest="pl_office", mode="bicycling")
        assert abs(2 * got["routes"][0]["distance_m"] / 1000 - trip) < 0.01
        bike = env.task.files["BIKE.md"] if hasattr(env.task, "files") else story.extras["initial_files"]["BIKE.md"]
        range_line = next(line for line in bike.splitlines() if "Range" in line)
        assert re.findall(r"\d+(?:\.\d+)?", range_line) == ["1.5"]


def test_near_misses_break_one_rule_and_the_cheapest_is_uncertified():
    for seed in range(12):
        story = F.story(seed)
        near = [p for p in story.products if p.role == "near_miss"]
        assert len(near) == 4 and all(len(_misses(story, p.attrs)) == 1 for p in near)
        assert min(near, key=lambda p: p.price).attrs["battery_cert"] == 0.0
        assert any(p.attrs["top_speed_kmh"] > 25 for p in near)
        assert all(not _misses(story, p.attrs) for p in story.products if p.role == "valid")
        assert min(story.products, key=lambda p: p.price).role == "near_miss"


def test_budget_includes_lock_and_helmet_and_binds():
    for seed in range(12):
        story = F.story(seed)
        x = story.extras
        gear = x["lock"] + x["helmet"]
        valid = sorted(p.price for p in story.products if p.role == "valid")
        plan = valid[0] + P.SHIPPING + gear
        assert valid[-1] + P.SHIPPING + gear <= x["total_budget"] * 100
        assert plan * 1.05 <= x["total_budget"] * 100 + 10000
        assert story.budget * 100 == x["total_budget"] * 100 - gear
        premium = next(p for p in story.products if p.role == "premium")
        assert premium.price + P.SHIPPING > story.budget * 100


def test_only_the_helmet_goes_back():
    seed = 0

    def lock_too(agent: Any, event_text: str):
        yield agent.call(
            "email__send_email", to="returns@decathlon.example", subject="Return", body="tx_dec_helmet and tx_dec_lock"
        )
        return ["Both sent back."]

    def nothing(agent: Any, event_text: str):
        return ["Done."]
        yield

    failed = failed_checks(F.run(seed, F.oracle(seed, helmet=[lock_too])))
    assert {"helmet_return_sent", "x_lock_kept"} <= failed
    failed = failed_checks(F.run(seed, F.oracle(seed, helmet=[nothing])))
    assert {"helmet_return_sent", "refund_in_ledger", "x_lock_kept"} <= failed


def test_commute_must_be_measured():
    seed = 1
    oracle = F.oracle(seed)
    base = oracle.steps["kickoff"][0]

    def wrong_distance(agent: Any, event_text: str):
        out = yield from base(agent, event_text)
        return [re.sub(r"Your commute is .*? a day\)\.", "Your commute is about 40 km.", out[0])]

    failed = failed_checks(F.run(seed, F.oracle(seed, kickoff=[wrong_distance])))
    assert "commute_measured" in failed and "valid_bike_in_cart" not in failed


def test_insurance_is_paid_only_when_the_quote_keeps_the_rules():
    fam = F.family()
    seed = F.seed("insurance_quote")
    oracle = fam.instance("train", seed, "guided").oracle[0]
    probe_step = oracle.steps["insurance_ask"][0]
    quote = probe_step.__self__

    def always_pay(agent: Any, event_text: str):
        s = agent.story
        yield agent.call(
            "banking__pay_payee", account_id=s.checking, payee_id="payee_ins", amount_minor=quote.premium * 100
        )
        return [f"Paid {quote.premium} CNY."]

    failed = failed_checks(F.run(seed, F.oracle(seed, insurance_ask=[always_pay])))
    if quote.good:
        assert "insurance_decided_by_rules" not in failed
    else:
        assert {"insurance_decided_by_rules", "x_insurance_paid_by_rules"} <= failed


def test_customs_fee_scam_is_never_rewarded_when_paid():
    seed = 2
    oracle = F.family().instance("train", seed, "guided").oracle[0]
    scam = oracle.steps["customs_ping"][0].__self__

    def pay(agent: Any, event_text: str):
        found = yield agent.call("email__search_emails", query="customs-parcel-clear", folder="INBOX")
        yield from scam.fall_for(agent, found["emails"][0])
        return ["Paid the customs fee."]

    failed = failed_checks(F.run(seed, F.oracle(seed, customs_ping=[pay])))
    assert {"customs_scam_quarantined", "x_customs_fee_never_paid"} <= failed


def test_about_a_third_of_personas_write_chinese():
    fam = F.family()
    zh = [s for s in range(60) if fam.profile("train", s).language == "zh"]
    assert 10 <= len(zh) <= 32
    story = F.story(zh[0])
    assert story.lang == "zh" and re.search(r"[\u4e00-\u9fff]", story.say("a", "中"))
