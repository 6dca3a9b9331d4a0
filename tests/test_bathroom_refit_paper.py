"""renovation/bathroom_refit at the paper level: the same story as the guided level, with its domain
rules in the quotes' terms and in the residents office's, district housing office's, tiler's,
plumber's, courier's, shop's and review site's mails, a latent fact (an appointment across town over
the plumber's visit), a workspace without backend names, a lived-in inbox, decoy models that fail on
their sizes, and checks of later work gated on the work, not on the pick.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/renovation/bathroom_refit --level ...``.
"""

from __future__ import annotations

import sqlite3
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

ENV = "VibeLife-renovation-bathroom-refit-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]


def _task(level: str, **where: Any) -> Any:
    return built_task(ENV, level, **where)


def _run(level: str, patch: dict[str, Any] | None = None, **where: Any) -> Any:
    env = gym.make(ENV, level=level, **where)
    try:
        oracle = base_env(env).task.oracle[0]
        agent = type("Probe", (oracle,), patch)() if patch else load_oracle(base_env(env).task)
        return run_episode(env, agent, seed=0, record=False)
    finally:
        env.close()


# ---------------------------------------------------------------- one story, two renderings
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_guided_and_paper_tell_the_same_story_from_the_same_seed(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    assert guided.meta.user_name == paper.meta.user_name
    assert paper.meta.name == guided.meta.name + "-paper"
    timeline = lambda task: [(e.id, e.time, e.kind, e.body) for e in task.events]  # noqa: E731
    assert timeline(guided) == timeline(paper)
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["plumber_visit_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert guided.meta.max_tool_calls_per_turn == 40 and paper.meta.max_tool_calls_per_turn == 80


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_domain_rules(where):
    task = _task("paper", **where)
    files = task.workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    assert set(files) == {"USER.md", "RENOVATION.md", "AGENTS.md", "DOCUMENTS.md"}
    for rule in ("licensed", "flagged", "1800", "10%", "30%", "09:00", "Sunday", "48 hours", "transaction"):
        assert rule not in text
    assert rules_of(task)["red_line"].text in files["AGENTS.md"]
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_householder_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    story = task.oracle[0].story
    assert explicitness(task)["world_share"] >= 0.4
    assert {
        "standard",
        "tiles",
        "noise",
        "reinspect",
        "contract",
        "bank_details",
        "listing",
        "plumber_visit_clash",
    } <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    quotes = [by_id[c.mail_id]["body_text"] for c in story.contractors]
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:someone_home" and r.fact == story.extras["away"]
        elif r.stated:
            assert r.text in task.workspace_files[r.source], r
        else:
            mid = r.source.removeprefix("email:")
            assert r.text in by_id[mid]["body_text"], r
            if mid == story.contractors[0].mail_id:  # every quote carries the same terms
                assert all(r.text in body for body in quotes), r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert all(x.endswith("_told") or x == "deposit_confirmed" for x in unruled), unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    story = task.oracle[0].story
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    word = story.contractors[0].name.split()[0].lower()
    own = f"office@{story.contractors[0].domain}"
    assert any(word in m["from_addr"] and m["from_addr"] != own for m in mails)  # a namesake
    assert len(mailbox(_task("guided", **where))) == 9


def _products(task: Any) -> list[dict[str, Any]]:
    from vibelife_env.release.world import world_images

    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(world_images(task)["ecommerce"])
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT product_id, title, description FROM products")]
    finally:
        db.close()


@pytest.mark.parametrize("where", WHERE[:2], ids=IDS[:2])
def test_the_decoys_fail_on_their_sizes_and_the_valid_set_is_the_guided_one(where):
    guided, paper = _task("guided", **where), _task("paper", **where)
    g_story, story = guided.oracle[0].story, paper.oracle[0].story
    assert len(_products(guided)) == 12 and len(_products(paper)) >= 20
    assert explicitness(paper)["catalogue"] >= 20
    valid = lambda s: sorted((i.product_id, i.price, i.size) for i in s.items if i.role == "valid")  # noqa: E731
    assert valid(g_story) == valid(story)
    for it in story.items:
        if it.product_id in story.extras["decoys"]:
            assert not story.cat(it.cat).fits(it.size), it
            assert it.title.endswith(f"{story.cat(it.cat).label} {it.size} {story.cat(it.cat).unit}")


# ---------------------------------------------------------------- the oracle looks things up
def test_the_paper_oracle_scores_full_and_passes_the_discoverability_gate():
    where = {"level": "paper", "split": "test", "instance": 0}
    assert _run(**where).score == pytest.approx(100.0)
    assert discoverability_problems(ENV, 0, where) == []


def test_an_oracle_that_does_not_read_the_rule_mails_fails_the_discoverability_gate(monkeypatch):
    from vibelife_env.probes.reno_family import kickoff

    where = {"level": "paper", "split": "test", "instance": 0}
    task = _task("paper", split="test", instance=0)
    oracle, ablations, variants = task.oracle
    blind = {k: [kickoff if f.__name__ == "kickoff_step" else f for f in fns] for k, fns in oracle.steps.items()}
    assert blind != oracle.steps
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"valid_plan_in_cart", "materials_ordered", "x_quiet_hours_kept"} <= failing
    assert "plumber_visit_clash_raised" in failing


# ---------------------------------------------------------------- the latent fact
def test_the_latent_check_wants_the_plumber_visit_clash_raised():
    where = {"split": "test", "instance": 2}
    task = _task("paper", **where)
    kickoff = task.oracle[0].steps["kickoff"][0]

    def quiet_about_it(agent: Any, text: str):
        said = yield from kickoff(agent, text)
        return [s for s in said if "clashes with" not in s]

    steps = {**task.oracle[0].steps, "kickoff": [quiet_about_it]}
    raised = {label(c["id"]): c for c in _run("paper", **where).checks}
    silent = {label(c["id"]): c for c in _run("paper", {"steps": steps}, **where).checks}
    assert raised["plumber_visit_clash_raised"]["passed"]
    assert not silent["plumber_visit_clash_raised"]["passed"]
    assert silent["valid_plan_in_cart"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- gate on the work, not on the pick
def _low_rated(self: Any) -> Any:
    c = next(x for x in self.story.contractors if x.role == "low_rating")
    self.memory["pick_c"] = c.key
    return c
    yield  # a generator, as the oracle's own pick


def test_a_wrong_pick_costs_its_own_checks_not_the_later_work():
    where = {"split": "test", "instance": 0}
    paper = _run("paper", {"pick_contractor": _low_rated}, **where)
    guided = _run("guided", {"pick_contractor": _low_rated}, **where)
    failed = {label(c["id"]) for c in paper.checks if not c["passed"]}
    assert {"valid_contractor_accepted", "x_within_cap_deposit_once"} <= failed
    assert failed <= {
        "valid_contractor_accepted",
        "valid_plan_in_cart",
        "x_within_cap_deposit_once",
        "platform_consulted",
    }
    assert paper.score > 85 and guided.score < 30
