"""renovation/kitchen_remodel at the paper level: the same story as the guided level, with its
domain rules in the district housing office's, the review site's, the fitter's, the building's,
the plumber's, the shop's, the courier's and the bank's mails and in every quote's terms, a latent
fact (a one-off morning across town over the home inspection), a workspace without backend names,
a lived-in inbox and more shop models whose decoys fail on the fitter's sizes.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/renovation/kitchen_remodel --level ...``.
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
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-renovation-kitchen-remodel-v0"
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
    timeline = lambda task: [(e.id, e.time, e.kind, e.body) for e in task.events]  # noqa: E731
    assert timeline(guided) == timeline(paper)
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["inspection_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert paper.meta.max_tool_calls_per_turn == 80 and paper.meta.max_tool_calls_per_episode == 2000


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
    story = task.oracle[0].story
    for rule in ("licensed", "flagged", "30%", "09:00", "Sunday", "周日", "re-inspection at least", " cm", " mm"):
        assert rule not in text, rule
    for cat in story.cats:
        assert f"{cat.lo}-{cat.hi}" not in text and f"{cat.lo} and {cat.hi}" not in text
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_householder_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    story = task.oracle[0].story
    assert explicitness(task)["world_share"] >= 0.4
    assert {"licensed", "flagged", "sizes", "quiet_hours", "deposit_once", "ask", "cap", "inspection_clash"} <= set(
        rules
    )
    by_id = {m["message_id"]: m for m in mailbox(task)}
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:someone_home" and r.fact == story.extras["morning"]
        elif r.stated:
            assert r.text in task.workspace_files[r.source], r
        else:
            mid = r.source.removeprefix("email:")
            if mid == "<result@district-housing.example>":  # the failed inspection's mail lands later
                continue
            if mid == story.contractors[0].mail_id:  # every quote carries the same terms
                assert all(r.text in by_id[c.mail_id]["body_text"] for c in story.contractors), r
            else:
                assert r.text in by_id[mid]["body_text"], r
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= {"plan_total_told", "demolition_time_told", "contractor_reviewed", "t_few_failed_changes"}


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    story = task.oracle[0].story
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    word = story.contractors[0].name.split()[0].lower()
    assert any(word in x and not x.endswith("@" + story.contractors[0].domain) for x in senders)  # a namesake
    assert len(mailbox(_task("guided", **where))) == 9


def test_the_decoy_models_fail_on_the_fitters_sizes_and_the_plan_is_the_guided_one():
    where = {"split": "test", "instance": 1}
    found = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            rows = core.world.call("ecommerce__search_products", {"query": "", "limit": 100})
            rows = rows if isinstance(rows, list) else rows.get("products", rows.get("items", []))
            found.append((rows, core.task.oracle[0].story))
        finally:
            env.close()
    (g_rows, g_story), (p_rows, story) = found
    assert len(g_rows) == 12 and len(p_rows) >= 20
    cheapest = lambda s, c: min(i.price for i in s.items if i.cat == c and i.role == "valid")  # noqa: E731
    assert all(cheapest(g_story, c.key) == cheapest(story, c.key) for c in story.cats)
    for it in story.items:
        assert story.cat(it.cat).fits(it.size) == (it.role == "valid"), it
        assert it.title.endswith(f"{it.size} {story.cat(it.cat).unit}")
    assert sum(1 for it in story.items if it.role == "near_miss") >= 9


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
    guided_kickoff = sys.modules["vibelife_env.probes.reno_family"].kickoff

    def guided(f: Any) -> Any:  # the guided level's step in place of the paper level's reading one
        return guided_kickoff if f.__name__ == "kickoff_step" else f

    blind = {k: [guided(f) for f in fns] for k, fns in oracle.steps.items()}
    assert blind != oracle.steps
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"valid_plan_in_cart", "deposit_paid_once", "x_quiet_hours_kept"} <= failing
    assert "inspection_clash_raised" in failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        kickoff = oracle.steps["kickoff"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from kickoff(agent, text)
            return [s for s in said if "clashes with" not in s]

        steps = oracle.steps if raise_it else {**oracle.steps, "kickoff": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_inspection_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["inspection_clash_raised"]["passed"]
    assert not silent["inspection_clash_raised"]["passed"]
    assert silent["valid_plan_in_cart"]["passed"]  # the rest of the reply still counts


# ---------------------------------------------------------------- gated on the work, not on the pick
def _miss_run(level: str) -> tuple[float, set[str]]:
    """The oracle taking the contractor rated below the minimum, and doing all the rest right."""
    env = gym.make(ENV, level=level, split="test", instance=0)
    try:
        oracle = base_env(env).task.oracle[0]
        kickoff = oracle.steps["kickoff"][0]

        def wrong_pick(agent: Any, text: str):
            agent.memory["pick_c"] = next(c for c in agent.story.contractors if c.role == "low_rating").key
            return (yield from kickoff(agent, text))

        steps = {**oracle.steps, "kickoff": [wrong_pick]}
        result = run_episode(env, type("Miss", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return result.score, {label(c["id"]) for c in result.checks if not c["passed"]}


def test_one_early_miss_costs_the_picks_own_checks_not_the_later_work():
    score, failed = _miss_run("paper")
    assert failed <= {
        "valid_plan_in_cart",
        "near_misses_explained",
        "plan_total_told",
        "platform_consulted",  # this run skips the look-up its pick would have made
        "valid_contractor_accepted",
        "x_within_cap_deposit_once",
    }, failed
    assert "valid_contractor_accepted" in failed and score > 80
    guided_score, _ = _miss_run("guided")
    assert guided_score < 40  # the guided level keeps its shared gate as it was
