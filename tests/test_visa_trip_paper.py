"""travel/visa_trip at the paper level (issue #27): the same trip and visa as the guided level, harder.

Through the public API (``gym.make(..., level="paper")``): the paper instance tells the story the
guided one tells from the same seed; its workspace is what a person writes (no backend hints, one
red line); its mailbox is lived in and its hotel catalogue long, with decoys that fail on looked-up
facts; every binding check records its rule, the domain rules (the proof-of-funds threshold among
them) are in the world, returned by the tool calls the oracle makes before the check decides; and
more of what happens is seen in the world (the visa portal, the reviews, check-out, landing home).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.families.loader import load_family
from vibelife_env.probes import visa as vz
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness, task_stats
from vibelife_env.validation import discoverability_problems, strings_in, validate_env

ENV = "VibeLife-travel-visa-trip-v0"
TRAIN = (2, 5)


def _family() -> Any:
    return load_family(gym.registry[ENV].kwargs["family_dir"])


def _module(name: str) -> Any:
    """A module of the family's package (``rules``, ``paper``), as the family loaded it."""
    return getattr(sys.modules[type(_family()).__module__], name)


def _task(split: str, index: int, level: str = "paper") -> Any:
    return base_env(gym.make(ENV, split=split, instance=index, level=level)).task


def _instances() -> Iterator[tuple[str, int]]:
    yield from (("test", k) for k in range(4))
    yield from (("train", s) for s in TRAIN)


def _reset(split: str, index: int) -> Any:
    env = gym.make(ENV, split=split, instance=index, level="paper").unwrapped
    env.reset(seed=0)
    return env


# ====================================================================== one story, two levels
def test_the_family_renders_both_levels_and_defaults_to_paper() -> None:
    family = _family()
    assert family.levels == ("guided", "paper") and family.default_level == "paper"
    env = gym.make(ENV, instance=0)
    env.reset(seed=0)
    assert env.unwrapped.level == "paper"
    env.close()


@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_guided_and_paper_tell_the_same_story(split: str, index: int) -> None:
    guided, paper = _task(split, index, "guided"), _task(split, index, "paper")
    g, p = guided.oracle[0].story, paper.oracle[0].story
    assert (g.user, g.party, g.home, g.dest) == (p.user, p.party, p.home, p.dest)
    assert (g.kickoff, g.depart_day, g.return_day, g.budget, g.rules) == (
        p.kickoff,
        p.depart_day,
        p.return_day,
        p.budget,
        p.rules,
    )
    assert vz.facts(g).products == vz.facts(p).products and vz.facts(g).threshold == vz.facts(p).threshold
    assert [(e.id, e.time) for e in guided.events] == [(e.id, e.time) for e in paper.events]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.suite] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.suite if not c.id.endswith("_home_appointment_clash_raised")
    ]
    assert paper.meta.name == guided.meta.name + "-paper"
    assert _family().profile(split, index, "guided").probes == _family().profile(split, index, "paper").probes
    # the story's own hotels are in the paper catalogue, and its cheapest valid plan is the same
    assert {h.hotel_id for h in g.hotels} <= {h.hotel_id for h in p.hotels}
    cheapest = lambda s: min(s.valid_hotels(), key=lambda h: (h.nightly, h.hotel_id)).hotel_id  # noqa: E731
    assert cheapest(g) == cheapest(p)


@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_more_of_the_world_is_seen_and_fewer_notifications_arrive(split: str, index: int) -> None:
    guided, paper = _task(split, index, "guided"), _task(split, index, "paper")
    g, p = Counter(e.kind for e in guided.events), Counter(e.kind for e in paper.events)
    assert p["world"] > g["world"] and p["notification"] + p["cron_fire"] < g["notification"] + g["cron_fire"]
    assert p["user_message"] == g["user_message"] and p["mutation"] == g["mutation"]
    shares = task_stats(paper)["events_by_kind"]
    assert shares["world"] / sum(shares.values()) >= 0.18


# ====================================================================== the latent fact
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_an_appointment_at_home_falls_during_the_trip_and_only_the_diary_shows_it(split: str, index: int) -> None:
    env = _reset(split, index)
    story = env.task.oracle[0].story
    what, day = story.extras["appointment"]
    assert story.depart_day < day < story.return_day
    assert not any(what in text for text in env.task.workspace_files.values())
    events = env.world.services["calendar"].query("SELECT summary FROM events")
    assert what in [e["summary"] for e in events]
    (check,) = [c for c in env.task.suite if c.id.endswith("_home_appointment_clash_raised")]
    (rule,) = check.rules
    assert (rule.source, rule.fact) == ("latent:one_place_at_a_time", what)


def test_a_proposal_that_never_raises_the_appointment_loses_the_latent_check_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_module("paper"), "clash_line", lambda story: "The diary is clear.")
    env = gym.make(ENV, split="test", instance=0, level="paper")
    result = run_episode(env, load_oracle(base_env(env).task), seed=0, record=False)
    env.close()
    failed = [c for c in result.checks if not c["passed"]]
    assert [label(c["id"]) for c in failed] == ["home_appointment_clash_raised"] and result.score < 100
    assert failed[0]["reason"]


# ====================================================================== what a person writes
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_the_paper_workspace_has_no_backend_hints_and_leaves_the_visa_rules_to_the_world(
    split: str, index: int
) -> None:
    task = _task(split, index)
    files, story = task.workspace_files, task.oracle[0].story
    v = vz.facts(story)
    joined = "\n".join(files.values())
    assert backend_hints(joined) == []
    assert backend_hints("\n".join(_task(split, index, "guided").workspace_files.values()))  # the guided one has them
    assert f"{v.threshold:,}" not in joined and v.consulate_addr not in joined  # the visa centre says these
    assert "odd domains" not in files["AGENTS.md"] and files["AGENTS.md"].count("Spam") == 1
    assert v.decide_by.isoformat() in files["USER.md"]  # the person's own deadline
    for word in ("htl_", "acc_", "pl_", "`", "funds_account"):
        assert word not in joined


# ====================================================================== a lived-in world
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_the_mailbox_is_lived_in_and_the_hotel_catalogue_long(split: str, index: int) -> None:
    env = _reset(split, index)
    story = env.task.oracle[0].story
    n = env.world.services["email"].query("SELECT COUNT(*) AS n FROM messages")[0]["n"]
    assert 60 <= n <= 100 and explicitness(env.task)["mails_at_reset"] == n
    hotels = env.world.services["hotel_booking"].query("SELECT * FROM hotels")
    assert len(hotels) >= 20
    assert not any(re.search(r"decoy|cheap|luxury|too small|airport", h["name"], re.I) for h in hotels)
    valid = {h.hotel_id for h in story.valid_hotels()}
    cheapest = min(h.nightly for h in story.hotels if h.hotel_id in valid)
    decoys = [h for h in story.hotels if h.hotel_id not in valid]
    assert len(decoys) >= 8 and any(h.nightly <= cheapest for h in decoys)
    flights = min(f.price for f in story.valid_out()) + min(f.price for f in story.valid_back())
    dear = [
        h
        for h in story.hotels
        if h.hotel_id in valid and h.nightly * story.nights + flights * story.size > story.budget
    ]
    assert len(dear) >= 3
    for h in hotels:  # what fails is in the hotel's own details: its city and its rooms
        assert h["city"] in h["description"]


# ====================================================================== rules, where they live
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_every_binding_check_records_its_rule_and_the_domain_rules_live_in_the_world(split: str, index: int) -> None:
    rules = _module("rules")
    task = _task(split, index)
    files = task.workspace_files
    for check in task.suite:
        assert check.rules or label(check.id) in rules.REQUEST_ONLY, check.id
        for rule in check.rules:
            if rule.stated:
                assert rule.source == "prompt" or rule.text in files[rule.source], (check.id, rule.key)
            else:
                assert re.fullmatch(r"[a-z_]+:.+", rule.source), rule.source
                assert not any(rule.text in text for text in files.values()), rule.key
    figures = explicitness(task)
    assert figures["world_share"] >= 0.4 and figures["backend_hints"] == 0
    sources = {r.source for c in task.suite for r in c.rules if not r.stated}
    assert f"email:{rules.GUIDE_MAIL}" in sources and f"email:{rules.CLUB_MAIL}" in sources


@pytest.mark.parametrize(("split", "index"), [("test", 0), ("train", 5)])
def test_the_oracle_reads_each_world_rule_by_a_tool_call_before_its_check_decides(split: str, index: int) -> None:
    rules = _module("rules")
    env = gym.make(ENV, split=split, instance=index, level="paper")
    core = base_env(env)
    task = core.task
    story = task.oracle[0].story
    result = run_episode(env, load_oracle(task), seed=0, record=False)
    assert result.score == pytest.approx(100.0)
    calls = [c for stage in sorted(core.episode.record.traces) for c in core.episode.record.traces[stage]]
    read = "\n".join(
        t for c in calls if c.get("ok") and c["name"] == "email__read_email" for t in strings_in(c["result"])
    )
    for sentence in (*rules.guide(story).values(), *rules.CLUB.values(), *rules.BANK.values(), rules.WALK):
        assert sentence in read
    env.close()
    assert discoverability_problems(ENV, 0, {"split": split, "instance": index, "level": "paper"}) == []


def test_an_oracle_that_never_opens_the_rule_mail_fails_discoverability(monkeypatch: pytest.MonkeyPatch) -> None:
    paper = _module("paper")

    def glance(agent: Any, query: str, *message_ids: str):  # searches, but never opens the mail
        yield agent.call("email__search_emails", query=query)
        return None

    monkeypatch.setattr(paper, "read", glance)
    problems = discoverability_problems(ENV, 0, {"split": "test", "instance": 0, "level": "paper"})
    assert problems and all("returned by no tool call" in p for p in problems), problems
    assert any("applications_submitted" in p for p in problems), problems


def test_every_gate_passes_on_a_paper_instance() -> None:
    v = validate_env(ENV, env_kwargs={"split": "test", "instance": 1, "level": "paper"})
    assert v.ok, v.problems
    assert v.scores["oracle"] == 100.0
