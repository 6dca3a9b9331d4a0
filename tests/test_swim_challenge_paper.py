"""fitness/swim_challenge at the paper level (issue #27): the same story as the guided level, with
its domain rules in the organiser's athlete guide, the clinic's and the sports doctor's mails and
the open-water club's safety rules, a latent fact (out-of-town work days inside the certificate
window), a workspace without backend names, a lived-in inbox, and a shop and a hotel site whose
decoys fail on looked-up facts.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/fitness/swim_challenge --level ...``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.probes import fitness as F
from vibelife_env.probes import openwater as W
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-fitness-swim-challenge-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
LATENT = "medical_check_clear_of_work_trips"  # the label: a stage check of the last stage


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"
    assert [(e.id, e.time, e.kind, e.body) for e in guided.events] == [
        (e.id, e.time, e.kind, e.body) for e in paper.events
    ]
    assert [label(c.id) for c in paper.checks if c.rules and all(r.latent for r in c.rules)] == [LATENT]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if label(c.id) != LATENT
    ]
    assert all(not c.rules for c in guided.checks)


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_trigger_lists(where):
    task = _task("paper", **where)
    files = task.workspace_files
    text = "\n".join(files.values())
    s = task.oracle[0].story
    assert backend_hints(text) == []
    for trigger in ("°C", "km/h", "prepaid", "09:00", "300 minutes", "5mm", "4mm", "3mm", "wind", "storm"):
        assert trigger not in text, trigger
    assert f"{s.extras['cert_days']} days" not in text and f"{s.extras['radius_km']:g} km" not in text
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert {"USER.md", "PLAN.md", "GEAR.md", "TRAVEL.md", "AGENTS.md", "DOCUMENTS.md", "ledger.md"} <= set(files)
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_swimmer_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"thickness", "certificate", "pay_org", "stay_near", "free_cancel", "clinic", "one_place"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact
        elif r.stated:
            assert r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {"race_week_sessions_told", "total_cost_told", "t_few_failed_changes"}, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_catalogues_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 110 and explicitness(task)["mails_at_reset"] == len(mails)
    story = task.oracle[0].story
    word = story.organiser.split()[0].lower()
    senders = {m["from_addr"] for m in mails}
    assert any(word in x and not x.endswith(story.organiser_domain) for x in senders)  # a namesake
    assert len(mailbox(_task("guided", **where))) == 1
    s = story
    assert len(s.shoes) >= 20 and len(s.extras["decoy_suits"]) >= 14
    assert sorted(w.role for w in s.shoes if not w.role.startswith("decoy")) == sorted(
        w.role for w in _task("guided", **where).oracle[0].story.shoes
    )
    for w in s.extras["decoy_suits"]:  # each fails on a fact the agent looks up, and on nothing else
        fails = w.role.removeprefix("decoy:").split("+")
        assert ("thickness" in fails) == (w.type != s.road)
        assert ("stock" in fails) == (w.missing == s.size)
        assert ("sizes" in fails) == (s.size not in w.skus)
        assert ("over" in fails) == (w.price + F.SHIPPING > s.budget * 100)
    assert len(s.hotels) >= 15
    for h in s.extras["decoy_hotels"]:
        fails = h.role.removeprefix("decoy:").split("+")
        near = W.km(s.extras["start_ll"], (round(h.lat, 4), round(h.lng, 4))) <= s.extras["radius_km"]
        assert ("far" in fails) == (not near)
        assert ("prepaid" in fails) == (h.flavor == "prepaid")
        assert ("over" in fails) == (h.nightly > s.extras["night_cap"])


def test_the_valid_wetsuits_and_hotels_are_the_guided_ones():
    where = {"split": "test", "instance": 1}
    found = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            from vibelife_env.checks.context import CheckContext, EpisodeRecord

            ctx = CheckContext(core.world, EpisodeRecord())
            s = core.task.oracle[0].story
            found.append((F.valid_shoes(ctx, s), W.valid_hotels(ctx, s), len(s.hotels)))
        finally:
            env.close()
    (gs, gh, gn), (ps, ph, pn) = found
    assert gs == ps and gh == ph and pn > gn


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
    assert {"valid_wetsuit_in_cart", "entry_paid_once", "medical_check_in_window", "hotel_fits"} <= failing
    assert LATENT not in failing  # the calendar, not a mail, shows the work days


# ---------------------------------------------------------------- the latent fact
def _onto_a_work_day(agent: Any, text: str):
    """Move the booked medical check onto the first out-of-town work day, at 10:00."""
    s = agent.story
    lo, hi = W.medical_window(s)
    found = yield from agent.find("Medical check", lo, (hi - lo).days + 1)
    day = s.extras["away_days"][0]
    for e in found[:1]:
        at = s.at(day, 10)
        yield agent.call(
            "calendar__update_event",
            event_id=e["event_id"],
            start=at.isoformat(),
            end=(at + timedelta(minutes=30)).isoformat(),
        )
    return []


def _latent_run(where: dict[str, Any], break_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        oracle = base_env(env).task.oracle[0]
        steps = dict(oracle.steps)
        if break_it:
            steps["entries_note"] = [*steps["entries_note"], _onto_a_work_day]
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_keeps_the_medical_check_off_the_work_days():
    where = {"split": "test", "instance": 2}
    task = _task("paper", **where)
    away = task.oracle[0].story.extras["away_title"]
    assert away not in "\n".join(task.workspace_files.values())
    assert all(away not in m["body_text"] for m in mailbox(task))  # nobody mentions it
    kept, broken = _latent_run(where, False), _latent_run(where, True)
    assert kept[LATENT]["passed"] and kept["medical_check_in_window"]["passed"]
    assert not broken[LATENT]["passed"] and broken[LATENT]["reason"]
    assert broken["medical_check_in_window"]["passed"]  # a weekday in the window: only the diary rules it out
