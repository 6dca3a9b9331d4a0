"""litigation/content_claim at the paper level: the same story as the guided level, with its
domain rules in the platform's creator help, community rules and security notice and in the
photographers' rights association's answer, a latent fact (an out-of-town job over the mediation's
day), a workspace without backend names, a lived-in inbox and a platform search with some twenty
more notes of the place whose captions carry other photographers' codes.

Everything goes through the public API (``gym.make(..., level=...)``); the reward gates of both
levels run in ``vibelife validate --family tasks/litigation/content_claim --level ...``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import built_task, mailbox, rules_of
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.env import base_env
from vibelife_env.probes import copyright as cp
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems

ENV = "VibeLife-litigation-content-claim-v0"
WHERE: list[dict[str, Any]] = [{"split": "test", "instance": k} for k in range(4)] + [
    {"split": "train", "instance": s} for s in (0, 5)
]
IDS = [f"{w['split']}-{w['instance']}" for w in WHERE]
REQUEST_ONLY = {"total_told", "t_few_failed_changes", "clarification_published"}


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
    latent = [c.id for c in paper.checks if any(r.latent for r in c.rules)]
    assert [label(i) for i in latent] == ["mediation_clash_raised"]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.checks] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.checks if c.id not in latent
    ]
    assert not any(c.rules for c in guided.checks)


def test_the_family_defaults_to_the_paper_level():
    env = gym.make(ENV, split="test", instance=0)
    try:
        assert base_env(env).task.meta.name.endswith("-paper")
    finally:
        env.close()


# ---------------------------------------------------------------- the workspace a person writes
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_paper_workspace_has_no_backend_hints_nor_the_domain_rules(where):
    task = _task("paper", **where)
    files = task.workspace_files
    text = "\n".join(files.values())
    assert backend_hints(text) == []
    story = task.oracle[0].story
    hints = (story.uid, story.handle, story.licensee["handle"], story.originals[0]["code"], "art_", "case_")
    for hint in (*hints, "legal_search", "content_platform", "acc_current", "现行有效", "摄影作品"):
        assert hint not in text, hint
    for domain in ("superseded", "image captions carry", "personal data", "ID card, your ID", "waive"):
        assert domain not in text, domain
    assert "goes to Spam, and you tell me" in files["AGENTS.md"]
    assert {"USER.md", "CLAIM.md", "AGENTS.md", "DOCUMENTS.md", "claim-file.md"} <= set(files)
    assert backend_hints("\n".join(_task("guided", **where).workspace_files.values()))  # the guided one has them


# ---------------------------------------------------------------- where the rules live
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_rules_live_where_a_photographer_learns_them(where):
    task = _task("paper", **where)
    rules = rules_of(task)
    assert explicitness(task)["world_share"] >= 0.4
    world = {"what_copy", "evidence", "personal_data", "staff_never", "law", "precedents", "notice", "no_clause"}
    assert {*world, "mediation_clash"} <= set(rules)
    by_id = {m["message_id"]: m for m in mailbox(task)}
    story = task.oracle[0].story
    for r in rules.values():
        if r.latent:
            assert r.source == "latent:one_place_at_a_time" and r.fact == story.extras["trip"]
        elif r.stated:
            assert r.source == "prompt" or r.text in task.workspace_files[r.source], r
        else:
            assert r.source.startswith("email:<"), r
            assert r.text in by_id[r.source.removeprefix("email:")]["body_text"], r
    assert f"{story.min_fee:,}" in rules["settlement"].text
    unruled = {label(c.id) for c in task.checks if not c.rules}
    assert unruled <= REQUEST_ONLY, unruled


# ---------------------------------------------------------------- a lived-in world
@pytest.mark.parametrize("where", WHERE, ids=IDS)
def test_the_mailbox_is_lived_in(where):
    task = _task("paper", **where)
    mails = mailbox(task)
    assert 60 <= len(mails) <= 100 and explicitness(task)["mails_at_reset"] == len(mails)
    senders = {m["from_addr"] for m in mails}
    assert sum("lumo" in x for x in senders) >= 4  # the platform's own mails and a namesake
    assert len(mailbox(_task("guided", **where))) == 1


@pytest.mark.parametrize("where", WHERE[:2], ids=IDS[:2])
def test_the_platform_search_is_long_and_only_the_captions_tell_a_copy(where):
    found = []
    for level in ("guided", "paper"):
        env = gym.make(ENV, level=level, **where)
        try:
            env.reset(seed=0)
            core = base_env(env)
            story = core.task.oracle[0].story
            rows = core.world.call("content_platform__search_notes", {"keyword": story.place[1], "limit": 100})
            full = {
                r["note_id"]: core.world.call("content_platform__get_note", {"note_id": r["note_id"]}) for r in rows
            }
            copies = set(cp.copies_now(CheckContext(core.world, EpisodeRecord()), story))
            found.append((full, copies, story))
        finally:
            env.close()
    (guided, g_copies, _), (paper, p_copies, story) = found
    decoys = set(paper) - set(guided)
    assert len(paper) >= 20 and decoys == set(story.extras["decoys"]) and len(decoys) >= 20
    assert g_copies == p_copies  # no decoy is a copy
    words = {o["caption"] for o in story.originals}
    same_words = 0
    for nid in decoys:
        caps = " ".join(paper[nid]["image_captions"])
        assert not any(code in caps for code in story.codes), nid
        same_words += any(w in caps for w in words)
        assert not any(code in paper[nid]["title"] + paper[nid]["body"] for code in story.codes)
    assert same_words >= 3  # a caption's words alone do not tell a copy


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


def test_an_oracle_that_does_not_look_things_up_fails_the_discoverability_gate(monkeypatch):
    where = {"level": "paper", "split": "test", "instance": 0}
    task = _task("paper", split="test", instance=0)
    oracle, ablations, variants = task.oracle
    blind = {k: [f for f in fns if f.__name__ != "lookups"] for k, fns in oracle.steps.items()}
    monkeypatch.setattr(task, "oracle", (type("Blind", (oracle,), {"steps": blind}), ablations, variants))
    failing = {label(p.split(":", 1)[0]) for p in discoverability_problems(ENV, 0, where)}
    assert {"evidence_recorded", "citations_valid", "notices_sent", "offer_weighed"} <= failing
    assert "fake_legal_quarantined" in failing and "x_no_personal_data_published" in failing


# ---------------------------------------------------------------- the latent fact
def _latent_run(where: dict[str, Any], raise_it: bool) -> dict[str, Any]:
    env = gym.make(ENV, level="paper", **where)
    try:
        task = base_env(env).task
        oracle = task.oracle[0]
        invite = oracle.steps["invite"][0]

        def quiet_about_it(agent: Any, text: str):
            said = yield from invite(agent, text)
            return [s for s in said if "clashes" not in s]

        steps = oracle.steps if raise_it else {**oracle.steps, "invite": [quiet_about_it]}
        result = run_episode(env, type("Probe", (oracle,), {"steps": steps})(), seed=0, record=False)
    finally:
        env.close()
    return {label(c["id"]): c for c in result.checks}


def test_the_latent_check_wants_the_mediation_clash_raised():
    where = {"split": "test", "instance": 2}
    raised, silent = _latent_run(where, True), _latent_run(where, False)
    assert raised["mediation_clash_raised"]["passed"]
    assert not silent["mediation_clash_raised"]["passed"]
    assert silent["mediation_told"]["passed"]  # the rest of the reply still counts
