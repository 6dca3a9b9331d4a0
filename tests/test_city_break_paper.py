"""travel/city_break at the paper level (issue #27): the same trip as the guided level, harder.

Through the public API (``gym.make(..., level="paper")``): the paper instance tells the story the
guided one tells from the same seed; its workspace is what a person writes (no backend hints, one
red line, no per-event quiet instruction); its mailbox is lived in and its catalogues long, with
decoys that fail on looked-up facts; every binding check records its rule, and the domain rules
are in the world, returned by the tool calls the oracle makes before the check decides.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import date, timedelta
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

ENV = "VibeLife-travel-city-break-v0"
TRAIN = (3, 7, 11)


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
    # one traveller's passport runs out sooner at the paper level (the latent fact); nothing else differs
    short = p.extras["passport_short"]
    assert [x for x in p.party if x not in g.party] == [short]
    assert [replace(x, passport_expires="") for x in g.party] == [replace(x, passport_expires="") for x in p.party]
    assert (g.user.name, g.home, g.dest) == (p.user.name, p.home, p.dest)
    assert (g.kickoff, g.depart_day, g.return_day, g.budget, g.rules) == (
        p.kickoff,
        p.depart_day,
        p.return_day,
        p.budget,
        p.rules,
    )
    assert g.extras["outing"] == p.extras["outing"] and g.extras["outing_day"] == p.extras["outing_day"]
    assert [(e.id, e.time, e.kind) for e in guided.events] == [(e.id, e.time, e.kind) for e in paper.events]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.suite] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.suite if not c.id.endswith("_passport_expiry_raised")
    ]
    assert paper.meta.name == guided.meta.name + "-paper"
    assert _family().profile(split, index, "guided").probes == _family().profile(split, index, "paper").probes
    # the story's own catalogue is in the paper one, and its plan is the same: the extra entries are
    # decoys or dearer valid choices
    assert {h.hotel_id for h in g.hotels} <= {h.hotel_id for h in p.hotels}
    cheapest = lambda s: (  # noqa: E731
        min(s.valid_out(), key=lambda f: (f.price, f.flight_no)).flight_no,
        min(s.valid_back(), key=lambda f: (f.price, f.flight_no)).flight_no,
        min(s.valid_hotels(), key=lambda h: (h.nightly, h.hotel_id)).hotel_id,
    )
    assert cheapest(g) == cheapest(p)


# ====================================================================== the latent fact
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_a_passport_runs_out_within_six_months_of_the_trip_and_only_the_documents_show_it(
    split: str, index: int
) -> None:
    task = _task(split, index)
    story = task.oracle[0].story
    short = story.extras["passport_short"]
    assert short in story.party and (short.role != "user" or len(story.party) == 1)  # a companion's, if any
    runs_out = date.fromisoformat(short.passport_expires)
    assert story.return_day < runs_out < story.depart_day + timedelta(days=183)
    files = task.workspace_files
    assert short.passport_expires in files["DOCUMENTS.md"]
    assert not any(short.passport_expires in text for name, text in files.items() if name != "DOCUMENTS.md")
    (check,) = [c for c in task.suite if c.id.endswith("_passport_expiry_raised")]
    (rule,) = check.rules
    assert (rule.source, rule.fact) == ("latent:passport_six_months", short.passport_expires)
    # the proposal or the booking reply may raise it
    stages = {e.id: i for i, s in enumerate(task.stages) for e in s.events}
    assert check.stage == stages["go_ahead"] and "renew" not in "\n".join(files.values()).lower()


def test_a_proposal_that_never_raises_the_passport_loses_the_latent_check_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_module("paper"), "passport_line", lambda story: "The documents are in order.")
    env = gym.make(ENV, split="test", instance=0, level="paper")
    result = run_episode(env, load_oracle(base_env(env).task), seed=0, record=False)
    env.close()
    failed = [c for c in result.checks if not c["passed"]]
    assert [c["id"] for c in failed] == ["s02_passport_expiry_raised"] and result.score < 100
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
    for word in ("htl_", "acc_", "pl_", "`"):
        assert word not in joined


# ====================================================================== a lived-in world
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_the_mailbox_at_reset_is_lived_in(split: str, index: int) -> None:
    env = _reset(split, index)
    mail = env.world.services["email"]
    n = mail.query("SELECT COUNT(*) AS n FROM messages")[0]["n"]
    assert 60 <= n <= 120
    senders = [r["from_addr"] for r in mail.query("SELECT from_addr FROM messages")]
    assert "hello@skylane-travel.example" in senders and "hello@skylane-supplies.example" in senders  # a namesake
    assert explicitness(env.task)["mails_at_reset"] == n


@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_the_catalogues_are_long_and_their_decoys_fail_on_looked_up_facts(split: str, index: int) -> None:
    env = _reset(split, index)
    story = env.task.oracle[0].story
    flights = env.world.services["flight_booking"].query("SELECT flight_no, origin, depart_dt FROM flights")
    out = [f for f in flights if f["origin"] == story.home.airport and story.depart_day.isoformat() in f["depart_dt"]]
    back = [f for f in flights if f["origin"] == story.dest.airport and story.return_day.isoformat() in f["depart_dt"]]
    assert len(out) >= 20 and len(back) >= 20
    hotels = env.world.services["hotel_booking"].query("SELECT * FROM hotels")
    assert len(hotels) >= 20
    labels = re.compile(r"another|sold out|no lift|too small|closed|cheap|luxury", re.I)
    assert not any(labels.search(h["name"]) for h in hotels)
    valid = {h.hotel_id for h in story.valid_hotels()}
    cheapest = min(h.nightly for h in story.hotels if h.hotel_id in valid)
    flights = min(f.price for f in story.valid_out()) + min(f.price for f in story.valid_back())
    dear = [h for h in story.hotels if h.nightly * story.nights + flights * story.size > story.budget]
    decoys = [h for h in story.hotels if h.hotel_id not in valid]
    assert len(dear) >= 3  # the spa hotels: valid by the rules, beyond the budget
    if story.rules.lift:  # tempting decoys: as cheap as the cheapest valid hotel, or cheaper; some fail on two rules
        assert any(h.nightly <= cheapest for h in decoys)
        assert any("elevator" not in h.amenities and h.capacity < story.size for h in decoys)
    for h in hotels:  # what fails is in the hotel's own details, not its name
        if "elevator" not in json.loads(h["amenities_json"]):
            assert "stairs only" in h["description"]


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
    assert figures["world_share"] >= 0.4 and figures["backend_hints"] == 0
    sources = {r.source for c in task.suite for r in c.rules if not r.stated}
    assert {"email:<welcome@skylane-travel.example>", "hotel_booking:policies"} <= sources


def test_the_entry_rule_sentences_are_the_entry_rule_service_s_own() -> None:
    rules = _module("rules")
    family = _family()
    for index in range(4):
        task = family.instance("test", index, "paper")
        seeded = "\n".join(task.seed_sql["visa_and_advisory"])
        assert rules.VISA_FREE in seeded
        changes = [json.dumps(e.model_dump(mode="json", warnings=False)) for e in task.events]
        if any(e.id == "entry_rule_lands" for e in task.events):
            assert any(rules.ARRIVAL_CARD in c for c in changes)


@pytest.mark.parametrize(("split", "index"), [("test", 0), ("test", 3), ("train", 7)])
def test_the_oracle_reads_each_world_rule_by_a_tool_call_before_its_check_decides(split: str, index: int) -> None:
    rules = _module("rules")
    env = gym.make(ENV, split=split, instance=index, level="paper")
    core = base_env(env)
    task = core.task
    lang = task.oracle[0].story.extras["lang"]
    result = run_episode(env, load_oracle(task), seed=0, record=False)
    assert result.score == pytest.approx(100.0)
    calls = [c for stage in sorted(core.episode.record.traces) for c in core.episode.record.traces[stage]]
    returned = {c["name"]: [] for c in calls}
    for c in calls:
        if c.get("ok"):
            returned[c["name"]].extend(strings_in(c.get("result")))
    read = "\n".join(returned["email__read_email"])
    assert rules.PLATFORM["checkin"][lang] in read  # the booking platform's mail, opened
    assert rules.BANK[lang] in read and rules.TOUR[lang] in read
    assert rules.HOTEL["payment"] in "\n".join(returned["hotel_booking__get_hotel_details"])
    assert rules.VISA_FREE in "\n".join(returned["visa_and_advisory__check_entry_requirements"])
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
    assert any("checked_in" in p and "skylane" in p for p in problems), problems


def test_every_gate_passes_on_a_paper_instance() -> None:
    v = validate_env(ENV, env_kwargs={"split": "test", "instance": 1, "level": "paper"})
    assert v.ok, v.problems
    assert v.scores["oracle"] == 100.0
