"""travel/rail_tour at the paper level (issue #27): the same story as the guided level, with its
domain rules in the railway's, the hotel platform's, the metro's, the weather service's and the
family doctor's mails, a latent fact (an appointment back home during the tour), a workspace
without backend names, a lived-in inbox, and a leg going on sale seen on the timetable page (a
world observation) instead of the app's notification.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/travel/rail_tour --level ...``.
"""

from __future__ import annotations

import sys
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness, task_stats
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-travel-rail-tour-v0"
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
    assert [(e.id, e.time) for e in guided.events] == [(e.id, e.time) for e in paper.events]
    for g, p in zip(guided.events, paper.events, strict=True):  # a leg on sale is seen, not notified
        if g.id.startswith("presale_") and g.kind == "notification":
            assert p.kind == "world" and "12306" in p.body
        else:
            assert (g.kind, g.body) == (p.kind, p.body)
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["home_appointment_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


def test_world_observations_are_a_larger_share_at_the_paper_level():
    shares = {}
    for level in ("guided", "paper"):
        kinds = [task_stats(_task(level, split="test", instance=k))["events_by_kind"] for k in range(4)]
        events = sum(sum(k.values()) for k in kinds)
        shares[level] = sum(k.get("world", 0) for k in kinds) / events
    assert shares["paper"] >= 0.22 and shares["paper"] > shares["guided"] + 0.05


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_domain_rules(where):
    task = _task("paper", **where)
    files = task.workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    for rule in ("15 days", "12306", "accessible", "21:00", "15:00", "taxi", "Plan B", "refunded in full"):
        assert rule not in text, rule
    assert rules_of(task)["red_line"].text in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_traveller_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    story = task.oracle[0].story
    assert explicitness(task)["world_share"] >= 0.4
    assert {"real_name", "official", "one_ticket", "occupancy", "budget", "ask", "home_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact == story.extras["clash_title"]
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            mid = r.source.removeprefix("email:")
            assert r.text in by_id[mid]["body_text"], r
            assert "@mx.mailout.example" in mid  # nothing in a Message-ID says what the mail is
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert all(x.endswith(("_told", "_reported", "_in_calendar", "_failed_changes")) for x in unruled), unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any("staywell" in x and x != "hello@staywell.example" for x in senders)  # a namesake
    assert len(mailbox(_task("guided", **where))) == 2
    assert explicitness(task)["catalogue"] >= 20


def test_no_probe_mail_is_labelled_by_its_message_id():
    for k in range(4):
        steps = _task("paper", split="test", instance=k).oracle[0].steps
        probes = {getattr(f, "__self__", None) for fns in steps.values() for f in fns}
        ids = [p.message_id for p in probes if isinstance(getattr(p, "message_id", None), str)]
        assert ids and all(i.endswith("@mx.mailout.example>") for i in ids), ids


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

    def guided(f: Any) -> Any:  # the guided level's kick-off in place of the paper level's reading one
        if f.__module__.endswith(".paper"):
            return sys.modules[f.__module__.removesuffix(".paper") + ".family"].propose
        return f

    blind = {k: [guided(f) for f in fns] for k, fns in oracle.steps.items()}
    assert blind != oracle.steps
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"id_cards_reminded", "hotel_told", "home_appointment_clash_raised"} <= failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        kickoff = oracle.steps["kickoff"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from kickoff(agent, text)
            return [s for s in said if not s.startswith("One clash")]

        steps = oracle.steps if raise_it else {**oracle.steps, "kickoff": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_appointment_back_home_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["home_appointment_clash_raised"]["passed"]
    assert not silent["home_appointment_clash_raised"]["passed"]
    assert silent["valid_proposal_nothing_bought"]["passed"]  # the rest of the reply still counts
