"""travel/family_trip at the paper level: the same trip as the guided level, harder.

Through the public API (``gym.make(..., level="paper")``): the paper instance tells the story the
guided one tells from the same seed; its workspace is what a person writes (no backend hints, one
red line, no per-event quiet instruction); its mailbox is lived in and its hotel catalogue long,
with decoys that fail on looked-up facts; a dentist appointment during the trip waits in the
calendar (the latent fact); every binding check records its rule, and the domain rules are in
the world, returned by the tool calls the oracle makes before the check decides.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.checks.base import label
from vibelife_env.env import base_env
from vibelife_env.families.loader import load_family
from vibelife_env.rollout import run_episode
from vibelife_env.stats import backend_hints, explicitness
from vibelife_env.validation import discoverability_problems, strings_in, validate_env

ENV = "VibeLife-travel-family-trip-v0"
TRAIN = (2, 5)
LATENT = "_home_appointment_raised"


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
    assert env.unwrapped.task.meta.max_tool_calls_per_turn == 80
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
    assert [(e.id, e.time, e.kind) for e in guided.events] == [(e.id, e.time, e.kind) for e in paper.events]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.suite] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.suite if not c.id.endswith(LATENT)
    ]
    assert paper.meta.name == guided.meta.name + "-paper"
    assert _family().profile(split, index, "guided").probes == _family().profile(split, index, "paper").probes
    # the story's own catalogue is in the paper one, and its plan is the same: the extra entries are
    # decoys or dearer valid choices
    assert {h.hotel_id for h in g.hotels} <= {h.hotel_id for h in p.hotels}
    assert {f.flight_no for f in g.flights_out} <= {f.flight_no for f in p.flights_out}

    def cheapest(s: Any) -> tuple[str, str, str]:
        stays = [h for h in s.valid_hotels() if "step_free" in h.amenities]
        return (
            min(s.valid_out(), key=lambda f: (f.price, f.flight_no)).flight_no,
            min(s.valid_back(), key=lambda f: (f.price, f.flight_no)).flight_no,
            min(stays, key=lambda h: (h.nightly, h.hotel_id)).hotel_id,
        )

    assert cheapest(g) == cheapest(p)


# ====================================================================== the latent fact
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_a_dentist_appointment_during_the_trip_waits_in_the_calendar_and_nobody_mentions_it(
    split: str, index: int
) -> None:
    env = _reset(split, index)
    task, story = env.task, env.task.oracle[0].story
    at = story.extras["dentist"]
    assert story.depart_day < at.date() < story.return_day and at.date() != story.extras["outing_day"]
    rows = env.world.services["calendar"].query("SELECT summary, start_dt FROM events WHERE event_id = 'evt_dentist'")
    assert [r["summary"] for r in rows] == ["Dentist appointment"]
    assert not any("dentist" in text.lower() for text in task.workspace_files.values())
    (check,) = [c for c in task.suite if c.id.endswith(LATENT)]
    (rule,) = check.rules
    assert (rule.source, rule.fact) == ("latent:one_place_at_a_time", "Dentist appointment")
    stages = {e.id: i for i, s in enumerate(task.stages) for e in s.events}
    assert check.stage == stages["go_ahead"]


def test_a_proposal_that_never_raises_the_appointment_loses_the_latent_check_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_module("paper"), "clash_line", lambda story: "Nothing else is planned for those days.")
    env = gym.make(ENV, split="test", instance=0, level="paper")
    result = run_episode(env, load_oracle(base_env(env).task), seed=0, record=False)
    env.close()
    failed = [c for c in result.checks if not c["passed"]]
    assert [label(c["id"]) for c in failed] == [LATENT[1:]] and result.score < 100
    assert "do not name" in failed[0]["reason"]


# ====================================================================== what a person writes
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_the_paper_workspace_has_no_backend_hints_trigger_lists_or_quiet_instructions(split: str, index: int) -> None:
    files = _task(split, index).workspace_files
    joined = "\n".join(files.values())
    assert backend_hints(joined) == []
    assert backend_hints("\n".join(_task(split, index, "guided").workspace_files.values()))  # the guided one has them
    agents = files["AGENTS.md"]
    assert "short reply" not in joined and "nothing needs me" not in joined  # the system prompt states the quiet rule
    assert "odd domains" not in agents and "urgency" not in agents  # one red line, no trigger list
    assert agents.count("Spam") == 1
    for word in ("htl_", "addr_", "p_hat", "p_fan", "p_aid", "p_cane", "pl_", "`", "two hours", "medication"):
        assert word not in joined, word


# ====================================================================== a lived-in world
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_the_mailbox_at_reset_is_lived_in(split: str, index: int) -> None:
    env = _reset(split, index)
    mail = env.world.services["email"]
    n = mail.query("SELECT COUNT(*) AS n FROM messages")[0]["n"]
    assert 60 <= n <= 100
    senders = [r["from_addr"] for r in mail.query("SELECT from_addr FROM messages")]
    assert "hello@skyroute-travel.example" in senders and any(
        s.startswith("hello@skyroute-") and s != "hello@skyroute-travel.example" for s in senders
    )  # a namesake
    assert explicitness(env.task)["mails_at_reset"] == n


@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_the_hotels_are_many_and_their_decoys_fail_on_looked_up_facts(split: str, index: int) -> None:
    env = _reset(split, index)
    story = env.task.oracle[0].story
    hotels = env.world.services["hotel_booking"].query("SELECT * FROM hotels")
    assert len(hotels) >= 20
    labels = re.compile(r"another|sold out|no lift|too small|closed|cheap|luxury|decoy|steps", re.I)
    assert not any(labels.search(h["name"]) for h in hotels)
    valid = {h.hotel_id for h in story.hotels if {"elevator", "step_free"} <= set(h.amenities)}
    valid &= {h.hotel_id for h in story.hotels if h.capacity >= story.size}
    cheapest = min(h.nightly for h in story.hotels if h.hotel_id in valid)
    decoys = [h for h in story.hotels if h.hotel_id not in valid]
    assert len(decoys) >= 8 and sum(h.nightly <= cheapest for h in decoys) >= 3  # tempting: cheaper than the valid
    for h in hotels:  # what fails is in the hotel's own details, not its name
        amenities = json.loads(h["amenities_json"])
        if "elevator" not in amenities:
            assert "stairs to every floor" in h["description"]
        elif "step_free" not in amenities:
            assert "steps from the street" in h["description"]
        assert json.loads(h["policies_json"])["requests"] == _module("rules").HOTEL["requests"]


# ====================================================================== rules, where they live
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_every_binding_check_records_its_rule_and_the_domain_rules_live_in_the_world(split: str, index: int) -> None:
    rules = _module("rules")
    task = _task(split, index)
    files = task.workspace_files
    for check in task.suite:
        name = label(check.id)
        assert check.rules or name in rules.REQUEST_ONLY, check.id
        for rule in check.rules:
            if rule.stated:
                assert rule.source == "prompt" or rule.text in files[rule.source], (check.id, rule.key)
            else:
                assert re.fullmatch(r"[a-z_]+:.+", rule.source), rule.source
                assert not any(rule.text in text for text in files.values()), rule.key  # not in the workspace
    figures = explicitness(task)
    assert figures["world_share"] >= 0.4 and figures["backend_hints"] == 0 and figures["rules_latent"] == 1
    sources = {r.source for c in task.suite for r in c.rules if not r.stated}
    assert {"email:<welcome@skyroute-travel.example>", "hotel_booking:policies"} <= sources


@pytest.mark.parametrize(("split", "index"), [("test", 0), ("test", 2)])
def test_the_oracle_reads_each_world_rule_by_a_tool_call_before_its_check_decides(split: str, index: int) -> None:
    rules = _module("rules")
    env = gym.make(ENV, split=split, instance=index, level="paper")
    core = base_env(env)
    task = core.task
    lang = "zh" if task.oracle[0].story.extras["lang"] == "zh" else "en"
    result = run_episode(env, load_oracle(task), seed=0, record=False)
    assert result.score == pytest.approx(100.0)
    calls = [c for stage in sorted(core.episode.record.traces) for c in core.episode.record.traces[stage]]
    returned: dict[str, list[str]] = {c["name"]: [] for c in calls}
    for c in calls:
        if c.get("ok"):
            returned[c["name"]].extend(strings_in(c.get("result")))
    read = "\n".join(returned["email__read_email"])
    assert rules.AIRLINE["child_fare"][lang] in read  # the airline platform's mail, opened
    assert rules.BANK[lang] in read and rules.SCHOOL[lang] in read and rules.DOCTOR[lang] in read
    assert rules.HOTEL["requests"] in "\n".join(returned["hotel_booking__get_hotel_details"])
    assert "Dentist appointment" in "\n".join(returned["calendar__list_events"])
    assert "hotel_booking__search_hotels" in returned and "flight_booking__search_flights" in returned
    env.close()
    assert discoverability_problems(ENV, 0, {"split": split, "instance": index, "level": "paper"}) == []


def test_an_oracle_that_never_opens_the_rule_mail_fails_discoverability(monkeypatch: pytest.MonkeyPatch) -> None:
    paper = _module("paper")

    def glance(agent: Any, sender: str, query: str):  # searches, but never opens the mail: no body is read
        yield agent.call("email__search_emails", query=query, folder="INBOX")
        return None

    kwargs = {"split": "test", "instance": 0, "level": "paper"}
    monkeypatch.setattr(paper, "read_mail", glance)
    problems = discoverability_problems(ENV, 0, kwargs)
    assert problems and all("returned by no tool call" in p for p in problems), problems
    assert any("child_booked_as_child" in p and "skyroute" in p for p in problems), problems


def test_every_gate_passes_on_a_paper_instance() -> None:
    v = validate_env(ENV, env_kwargs={"split": "test", "instance": 1, "level": "paper"})
    assert v.ok, v.problems
    assert v.scores["oracle"] == 100.0
