"""team_building/charity_run at the paper level: the same story as the guided level, with its domain
rules in the organiser's entry and race-pack mails, the rental desk's terms, the content platform's
guidelines and the restaurant's group-booking mail, a latent fact (an appointment during the race),
a workspace without backend names, a lived-in inbox, vehicles whose decoys fail on looked-up facts,
and later checks gated on the work having been done rather than on an earlier pick.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/team_building/charity_run --level ...``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, built_task, failed_checks, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.probes import charityrun as C
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-team-building-charity-run-v0"
F = FamilyHarness(ENV, level="paper")
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"
    assert [(e.id, e.time, e.kind) for e in guided.events] == [(e.id, e.time, e.kind) for e in paper.events]
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["appointment_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert not any(c.rules for c in guided.checks)


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        task = base_env(env).task
        assert task.meta.name.endswith("-paper")
        assert task.meta.max_tool_calls_per_turn == 80 and task.meta.max_tool_calls_per_episode == 2000
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_trigger_lists(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for trigger in ("30 °C", "07:00", "AQI", f"above {C.AQI_LIMIT}", "seats", "12:00", "organiser ONLY"):
        assert trigger not in text, trigger
    for backend in (C.CP_USER, C.TEAM_ACCT, C.FUND_ACCT, C.ORG_PAYEE, "ins_std", "off_", "`"):
        assert backend not in text, backend
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_team_lead_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    want = {"entry", "fee", "contacts_private", "waves", "no_upgrades", "packs", "seats", "race_clash", "van"}
    assert want <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    assert not [c.id for c in task.checks if not c.rules]


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_vehicles_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    assert len(mailbox(_task("guided", **where))) < 10
    for m in mails:  # no Message-ID says what its mail is
        for word in ("scam", "upgrade", "fake", "contacts", "background", "welcome"):
            assert word not in m["message_id"].split("@")[0].lower(), m["message_id"]
    story: C.RunStory = task.oracle[0].story
    assert len(story.offers) >= 20 and explicitness(task)["catalogue"] >= 20
    assert sorted(o.offer_id for o in story.offers) == [f"off_{i:02d}" for i in range(len(story.offers))]
    models = [o.model.lower() for o in story.offers]
    assert not any(a != b and a in b for a in models for b in models)  # a model named in a reply is one vehicle


@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_decoys_fail_on_looked_up_facts_and_the_pick_is_the_guided_one(where):
    guided, paper = _task("guided", **where).oracle[0].story, _task("paper", **where).oracle[0].story
    assert [(o.model, o.daily) for o in guided.valid_offers()] == [(o.model, o.daily) for o in paper.valid_offers()]
    for o in paper.offers:
        if o.role != "ok":
            assert o.seats < len(paper.members) or o.daily + paper.plan_daily > paper.budget, o


# ---------------------------------------------------------------- the oracle looks things up
def test_the_paper_oracle_scores_full_and_passes_the_discoverability_gate():
    where = {"level": "paper", "split": "test", "instance": 0}
    env = gym.make(ENV, **where)
    try:
        result = run_episode(env, load_oracle(base_env(env).task), seed=0, record=False)
    finally:
        env.close()
    assert result.score == pytest.approx(100.0)
    assert discoverability_problems(ENV, 0, where) == []


def test_an_oracle_that_does_not_read_the_rule_mails_fails_the_discoverability_gate(monkeypatch):
    where = {"level": "paper", "split": "test", "instance": 0}
    task = _task("paper", split="test", instance=0)
    oracle, ablations, variants = task.oracle
    blind = {k: [f for f in fns if f.__name__ != "lookups"] for k, fns in oracle.steps.items()}
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"reg_sizes", "fee_paid", "race_in_calendar", "van_proposed"} <= failing


def test_an_oracle_that_does_not_raise_the_appointment_loses_only_the_latent_check():
    oracle = F.oracle(0)
    steps = {k: [f for f in fns if f.__name__ != "raise_clash"] for k, fns in oracle.steps.items()}
    failed = failed_checks(F.run(0, type("Unraised", (oracle,), {"steps": steps})))
    assert failed == {"appointment_clash_raised"}


# ---------------------------------------------------------------- gates on the work, not on the pick
def _book_small(agent: Any, text: str):
    """After the go-ahead book a vehicle too small for the team, then do the rest of the work."""
    s: C.RunStory = agent.story
    small = next(o for o in s.offers if o.role == "small")
    made = yield agent.call(
        "car_rental__create_rental_booking",
        offer_id=small.offer_id,
        insurance_plan_id="ins_std",
        driver_user_id=C.USER,
        drivers=[{"name": s.name}],
        contact={"email": s.email},
    )
    ref = made.get("booking_ref", "")
    yield agent.call(
        "calendar__create_event",
        summary="Van pick-up",
        start=s.at(s.race_day, 5, 30).isoformat(),
        end=s.at(s.race_day, 6).isoformat(),
    )
    yield from agent.note("Van", [f"Booking reference: {ref}"])
    agent.memory["settled"] = True
    return [f"Booked: reference {ref}."]


def test_a_wrong_vehicle_costs_its_own_checks_not_the_later_work():
    failed = failed_checks(F.run(0, F.oracle(0, go=[_book_small])))
    assert {"van_booked", "van_final"} <= failed
    assert not {"pickup_in_calendar", "pickup_condition", "return_condition", "wave_final", "wrap_cost"} & failed


def _wrong_fee(agent: Any, text: str):
    """Register as the oracle does, but pay one runner's fee too little."""
    s: C.RunStory = agent.story
    lines = [f"- {m.name}: T-shirt {m.size}; emergency contact {m.contact}, {m.phone}" for m in s.members]
    yield agent.call("email__send_email", to=s.org_addr, subject=f"Team registration: {s.team}", body="\n".join(lines))
    yield agent.call(
        "banking__pay_payee",
        account_id=C.TEAM_ACCT,
        payee_id=C.ORG_PAYEE,
        amount_minor=(s.entry_total - s.fee) * 100,
        memo=f"Team {s.team} entry",
    )
    yield agent.call(
        "calendar__create_event",
        summary=s.race,
        start=s.at(s.race_day, 8).isoformat(),
        end=s.at(s.race_day, 10).isoformat(),
    )
    return [f"Registered and paid {s.entry_total - s.fee} CNY."]


def test_a_wrong_fee_costs_the_fee_checks_not_the_scam_check():
    oracle = F.oracle(0)
    steps = dict(oracle.steps)
    steps["kickoff"] = [f if f.__name__ != "register" else _wrong_fee for f in steps["kickoff"]]
    failed = failed_checks(F.run(0, type("WrongFee", (oracle,), {"steps": steps})))
    assert "fee_paid" in failed
    assert not {"scam_no_money", "no_stray_money", "contacts_private", "organiser_mail_kept"} & failed
