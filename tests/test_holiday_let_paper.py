"""rental/holiday_let at the paper level: the same story as the guided level, with its domain rules
in the let platform's terms and the employer's relocation policy, a latent fact (the key handover
over the first day at the office), a workspace without backend names, a lived-in inbox, scam mails
whose Message-IDs say nothing, lets whose decoys fail on looked-up facts, and the checks after the
pick gated on the work done, never on the pick being right.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/rental/holiday_let --level ...``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, failed_checks, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.probes import midterm
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-rental-holiday-let-v0"
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
    # the same turns at the same times; only the flight turn points at the relocation policy
    assert [(e.id, e.time, e.kind) for e in guided.events] == [(e.id, e.time, e.kind) for e in paper.events]
    moved = [e.id for e, f in zip(guided.events, paper.events, strict=True) if e.body != f.body]
    assert moved == ["flight"]
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["handover_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_trigger_lists(where):
    files = _task("paper", **where).workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for trigger in ("personal account", "re-post", "cleaning", "cancellation", "minimum stay", "20:00", "deposit"):
        assert trigger not in text, trigger
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_traveller_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"fees", "fit_dates", "host_only", "cancel", "flight_rule", "claim", "deposit_back"} <= set(rules)
    assert "handover_clash" in rules
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {"viewings_told", "flight_told", "choice_told", "payment_told", "final_net_cost"}, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_lets_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any("monthstay" in x and not x.endswith("@monthstay.example") for x in senders)  # namesakes
    assert len(mailbox(_task("guided", **where))) == 2
    story = task.oracle[0].story
    assert len(story.listings) >= 22 and explicitness(task)["catalogue"] >= 20
    assert len(story.extras["decoys"]) >= 12
    for r in story.listings:  # no blurb labels a decoy
        blurb = r["description"].lower()
        assert not any(w in blurb for w in ("re-post", "furnished", "cancellation", "private")), blurb


@pytest.mark.parametrize("seed", range(4))
def test_scripted_scam_mails_say_nothing_in_their_message_ids(seed):
    paper = _task("paper", split="train", instance=seed)
    ids = re.findall(r"<[^<>@ ]+@[^<>@ ]+>", " ".join(str(e.apply) for e in paper.events if e.kind == "mutation"))
    assert ids, "no scripted mail"
    for mid in ids:
        for word in ("direct-pay", "deposit_first", "keys_by_post", "id-please", "scam"):
            assert word not in mid, mid


def test_the_decoys_fail_on_looked_up_facts_and_the_valid_set_is_the_guided_one():
    where = {"split": "test", "instance": 1}
    sets = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            rows = core.world.call("listing_platform__search_listings", {"category": "rent", "limit": 100})
            sets.append(({r["listing_id"] for r in rows}, core.task.oracle[0].story))
        finally:
            env.close()
    (guided_ids, _), (paper_ids, story) = sets
    assert guided_ids < paper_ids and len(paper_ids) >= 22
    assert {d["listing_id"] for d in story.extras["decoys"]} == paper_ids - guided_ids
    for d in story.extras["decoys"]:  # each breaks a rule on the let's own facts or its ride
        a = json.loads(d["attrs_json"])
        broken = [
            not a["furnished"],
            a["cancellation"] not in midterm.OK_CANCEL,
            a["min_stay_days"] > story.stay_days,
            a["available_from"] > story.start.isoformat() or a["available_to"] < story.checkout.isoformat(),
            d["agent_id"] is None,
            midterm.stay_cost(d) > story.budget,
            story.extras["commute"][a["map_place"]] > story.commute_min,
        ]
        assert any(broken), d["listing_id"]


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
    assert {"shortlist_exact", "flight_booked", "claim_mailed", "deposit_chased"} <= failing


# ---------------------------------------------------------------- the latent fact
def _run(where: dict[str, Any], level: str, **replace: Any) -> Any:
    env = gym.make(ENV, level=level, **where)
    try:
        oracle = base_env(env).task.oracle[0]
        steps = {**oracle.steps, **{k: f(oracle.steps[k]) for k, f in replace.items()}}
        return run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()


def test_the_latent_check_wants_the_handover_clash_raised():
    where = {"split": "test", "instance": 2}

    def hush(fns: list[Any]) -> list[Any]:
        def quiet_about_it(agent: Any, text: str):
            said = yield from fns[0](agent, text)
            return [s.split(" The key handover at the flat")[0] for s in said]

        return [quiet_about_it]

    raised = {label(c["id"]): c for c in _run(where, "paper").checks}
    silent = {label(c["id"]): c for c in _run(where, "paper", checkin_details=hush).checks}
    assert raised["handover_clash_raised"]["passed"]
    assert not silent["handover_clash_raised"]["passed"]
    assert silent["handover_in_calendar"]["passed"]  # the rest of the turn still counts


# ---------------------------------------------------------------- gates on the work, not on the pick
def test_a_wrong_pick_costs_its_own_check_not_the_work_after_it():
    where = {"split": "test", "instance": 0}

    def wrong(fns: list[Any]) -> list[Any]:
        def pick_a_decoy(agent: Any, text: str):
            s = agent.story
            decoy = s.listings[3]  # the unfurnished near-miss, at both levels
            d = yield agent.call("listing_platform__get_listing_detail", listing_id=decoy["listing_id"])
            d["stay_cost"], d["deposit"] = midterm.stay_cost(decoy), midterm.deposit_of(decoy)
            yield agent.call(
                "listing_platform__contact_agent",
                listing_id=decoy["listing_id"],
                message="We would like to book this let. Please send the terms.",
                user_id=s.user_key,
            )
            agent.memory.update(chosen=d, agency_domain=s.agencies[decoy["agent_id"]][1])
            return [f"My pick: {decoy['listing_id']}; I asked its host for the terms."]

        return [pick_a_decoy]

    paper = {label(c) for c in failed_checks(_run(where, "paper", decide=wrong))}
    guided = {label(c) for c in failed_checks(_run(where, "guided", decide=wrong))}
    assert "viewed_let_chosen" in paper
    assert paper <= {"viewed_let_chosen", "final_shortlist_current"}, paper
    assert {"choice_told", "total_proposed_unpaid"} <= guided  # the guided level gates on the pick


def test_a_flight_that_lands_late_costs_the_flight_checks_not_the_ledger_or_the_calendar():
    where = {"split": "test", "instance": 1}

    def late(fns: list[Any]) -> list[Any]:
        def book_the_cheapest(agent: Any, text: str):  # the cheapest fare lands after 20:00
            agent.memory["careless_flight"] = True
            out = yield from fns[0](agent, text)
            agent.memory["careless_flight"] = False
            return out

        return [book_the_cheapest]

    def run(level: str) -> set[str]:
        env = gym.make(ENV, level=level, **where)
        try:
            oracle = base_env(env).task.oracle[0]
            steps = {**oracle.steps, "flight": late(oracle.steps["flight"])}

            def careless(self: Any) -> bool:
                return bool(self.memory.get("careless_flight")) or oracle.careless(self)

            policy = type("Late", (oracle,), {"steps": steps, "careless": careless})()
            return {label(c) for c in failed_checks(run_episode(env, policy, seed=0, record=False))}
        finally:
            env.close()

    paper, guided = run("paper"), run("guided")
    assert {"flight_booked", "final_one_valid_flight"} <= paper
    assert paper <= {"flight_booked", "final_one_valid_flight"}, paper
    assert {"flight_in_calendar", "receipts_in_ledger"} <= guided  # the guided level gates on the flight's rules
