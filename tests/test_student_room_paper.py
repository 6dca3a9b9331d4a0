"""rental/student_room at the paper level: the same story as the guided level, with its domain
rules in the rental platform's terms, the university accommodation office's mail and the review
site's guidelines, a latent fact (the agency's office visit over a weekly appointment), a
workspace without backend names, a lived-in inbox and rooms whose decoys fail on looked-up facts;
its later checks gate on the work done, not on an earlier pick being right.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/rental/student_room --level ...``.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-rental-student-room-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {"evenings_told", "room_named", "final_summary"}


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _run(where: dict[str, Any], **steps: Any) -> dict[str, Any]:
    """Play the paper oracle on ``where`` with some steps replaced; the checks by label."""
    env = gym.make(ENV, level="paper", **where)
    try:
        oracle = base_env(env).task.oracle[0]
        policy = type("Probe", (oracle,), {"steps": {**oracle.steps, **steps}})()
        result = run_episode(env, policy, seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"
    assert [(e.id, e.time, e.kind) for e in guided.events] == [(e.id, e.time, e.kind) for e in paper.events]
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["visit_clash_raised"]
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
    for trigger in ("keys", "personal account", "quarter", "25%", "look-alike", "registered", "reviews say", "domain"):
        assert trigger not in text.lower(), trigger
    assert "on the strength of a mail alone" in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_student_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    assert {"contract_fit", "agency_only", "deposits_kept", "scam", "hold", "documents", "review_after"} <= set(rules)
    assert "visit_clash" in rules
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
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in_and_the_rooms_are_many(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert len(mails) >= 60 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert any(x.startswith(("hello@campus-", "hello@scholar-")) and x.endswith("-supplies.example") for x in senders)
    assert len(mailbox(_task("guided", **where))) == 2
    story = task.oracle[0].story
    assert len(story.listings) >= 20
    assert len(story.extras["decoys"]) >= 12
    for r in story.listings:  # no title or blurb labels a decoy or states a rule's fact
        d = r["description"].lower()
        assert not any(w in d for w in ("furnish", "contract", "month", "private", "agency", "tenant"))
        assert r["title"] == f"{r['community']}: single room near {story.extras['uni']}"


def test_every_decoy_breaks_a_rule_on_a_fact_it_shows():
    for n in range(8):
        story = _task("paper", split="train", instance=n).oracle[0].story
        for r in story.extras["decoys"]:
            attrs = json.loads(r["attrs_json"])
            broken = [
                int(r["price_minor"]) > story.cap,
                story.extras["commute"][attrs["map_place"]] > story.commute_min,
                not attrs["furnished"],
                r["agent_id"] is None,
                r["agent_id"] == "ag_3",
                attrs["min_lease_months"] > story.min_lease,
                attrs["max_lease_months"] < story.min_lease,
            ]
            assert any(broken), r["listing_id"]


def test_scripted_scam_mails_carry_no_verdict_in_their_message_ids():
    for n in range(6):
        task = _task("paper", split="train", instance=n)
        ids = [op.sql for e in task.events for op in e.apply if getattr(op, "server", "") == "email"]
        assert not any(w in sql for sql in ids for w in ("<keys_by_post@", "<id-please@"))


def test_the_decoys_are_on_the_platform_and_the_valid_set_is_the_guided_one():
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
    assert guided_ids < paper_ids and len(paper_ids) >= 20
    assert {d["listing_id"] for d in story.extras["decoys"]} == paper_ids - guided_ids


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
    assert {"rooms_exact", "x_one_review_after_contract", "x_scam_never_paid"} <= failing


# ---------------------------------------------------------------- the latent fact
def test_the_latent_check_wants_the_office_visit_clash_raised():
    where = {"split": "test", "instance": 2}
    env = gym.make(ENV, level="paper", **where)
    try:
        hold = base_env(env).task.oracle[0].steps["hold_request"][0]
    finally:
        env.close()

    def quiet_about_it(agent: Any, text: str):
        said = yield from hold(agent, text)
        return [s.split(" The agency wants you at its office")[0] for s in said]

    raised, silent = _run(where), _run(where, hold_request=[quiet_about_it])
    assert raised["visit_clash_raised"]["passed"]
    assert not silent["visit_clash_raised"]["passed"]
    assert silent["hold_proposed_not_paid"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- gates on the work, not the pick
def test_a_wrong_first_list_does_not_void_the_later_work():
    """A shortlist that keeps one decoy fails the list's own checks, not the reservation, the deposit
    or the records that follow (at the guided level those gate on the list being exact)."""
    where = {"split": "test", "instance": 0}
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        decoy = oracle.story.extras["decoys"][2]["listing_id"]  # an unfurnished room
    finally:
        env.close()

    def plus_decoy(agent: Any, text: str):
        shared = yield agent.call("workspace__read_file", path="shortlist.md")
        body = (shared.get("content") if isinstance(shared, dict) else str(shared)) or ""
        yield agent.call("workspace__write_file", path="shortlist.md", content=body + f"- {decoy}\n")
        return []

    checks = _run(where, kickoff=[*oracle.steps["kickoff"], plus_decoy])
    assert not checks["rooms_exact"]["passed"]
    for name in ("count_and_low_told", "reviews_and_maps_used", "hold_paid_once", "contract_noted", "review_posted"):
        assert checks[name]["passed"], name
