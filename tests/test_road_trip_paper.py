"""travel/road_trip at the paper level: the same trip as the guided level, harder.

Through the public API (``gym.make(..., level="paper")``): the paper instance tells the story the
guided one tells from the same seed; its workspace is what a person writes (no backend hints, one
red line, no quiet instruction); its mailbox is lived in and every town has more hotels, with
decoys that fail on looked-up facts; a dentist appointment at home during the trip waits in the
calendar (the latent fact); every binding check records its rule, and the domain rules are in the
world (the rental company's mail, the bank's, the hotels' policies, the insurer's), returned by the
tool calls the oracle makes before the check decides.
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

ENV = "VibeLife-travel-road-trip-v0"
TRAIN = (1, 6)
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
    assert env.unwrapped.task.meta.max_tool_calls_per_episode == 2000
    env.close()


@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_guided_and_paper_tell_the_same_story(split: str, index: int) -> None:
    guided, paper = _task(split, index, "guided"), _task(split, index, "paper")
    g, p = guided.oracle[0].story, paper.oracle[0].story
    assert (g.user, g.party, g.home, g.pickup, g.stays, g.drives) == (
        p.user,
        p.party,
        p.home,
        p.pickup,
        p.stays,
        p.drives,
    )
    assert (g.kickoff, g.car_cap, g.hotel_cap, g.luggage, g.permits) == (
        p.kickoff,
        p.car_cap,
        p.hotel_cap,
        p.luggage,
        p.permits,
    )
    assert [(o.offer_id, o.daily) for o in g.offers] == [(o.offer_id, o.daily) for o in p.offers]
    assert [h.hotel_id for h in g.hotels] == [h.hotel_id for h in p.hotels]
    assert [(e.id, e.time, e.kind) for e in guided.events] == [(e.id, e.time, e.kind) for e in paper.events]
    assert [(c.id, c.weight, c.tier, c.stage) for c in guided.suite] == [
        (c.id, c.weight, c.tier, c.stage) for c in paper.suite if not c.id.endswith(LATENT)
    ]
    assert paper.meta.name == guided.meta.name + "-paper"
    assert _family().profile(split, index, "guided").probes == _family().profile(split, index, "paper").probes


# ====================================================================== the latent fact
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_a_dentist_appointment_during_the_trip_waits_in_the_calendar_and_nobody_mentions_it(
    split: str, index: int
) -> None:
    env = _reset(split, index)
    task, story = env.task, env.task.oracle[0].story
    at = story.extras["dentist"]
    assert story.depart_day < at.date() < story.return_day
    rows = env.world.services["calendar"].query("SELECT summary FROM events WHERE event_id = 'evt_dentist'")
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
def test_the_paper_workspace_has_no_backend_hints_or_quiet_instructions(split: str, index: int) -> None:
    files = _task(split, index).workspace_files
    joined = "\n".join(files.values())
    assert backend_hints(joined) == []
    assert backend_hints("\n".join(_task(split, index, "guided").workspace_files.values()))  # the guided one has them
    assert "short reply" not in joined and "nothing needs me" not in joined  # the system prompt states the quiet rule
    assert files["AGENTS.md"].count("Spam") == 1  # one red line
    for word in ("card_", "ins_", "pl_", "`", "route_km", "compare_energy", "claims@", "International Driving"):
        assert word not in joined, word


# ====================================================================== a lived-in world
@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_the_mailbox_at_reset_is_lived_in(split: str, index: int) -> None:
    env = _reset(split, index)
    story = env.task.oracle[0].story
    mail = env.world.services["email"]
    n = mail.query("SELECT COUNT(*) AS n FROM messages")[0]["n"]
    assert 60 <= n <= 100
    ids = [r["message_id"] for r in mail.query("SELECT message_id FROM messages")]
    assert not any(re.search(r"namesake|background|scam|fake", i) for i in ids)
    senders = [r["from_addr"] for r in mail.query("SELECT from_addr FROM messages")]
    word = story.company.split()[0].lower()
    assert f"service@{story.domain}" in senders and any(s.startswith(f"hello@{word}-") for s in senders)  # a namesake
    assert explicitness(env.task)["mails_at_reset"] == n


@pytest.mark.parametrize(("split", "index"), list(_instances()))
def test_every_town_has_more_hotels_and_the_decoys_fail_on_looked_up_facts(split: str, index: int) -> None:
    env = _reset(split, index)
    story = env.task.oracle[0].story
    db = env.world.services["hotel_booking"]
    hotels = db.query("SELECT * FROM hotels")
    assert len(hotels) >= 20
    labels = re.compile(r"decoy|too small|cheap|sold out|no access|budget", re.I)
    assert not any(labels.search(h["name"]) or labels.search(h["description"]) for h in hotels)
    for stay in story.stays:
        cheapest = min(r.nightly for _, r in story.valid_rooms(stay))
        extra = [h for h in hotels if h["city"] == stay.city.name and "_x" in h["hotel_id"]]
        assert len(extra) == 4
        for h in extra:
            plans = db.query(
                "SELECT room_type, max_occupancy, MIN(nightly_price) AS p FROM rate_plans WHERE hotel_id = ? "
                "GROUP BY room_type",
                (h["hotel_id"],),
            )
            fits = [r for r in plans if r["max_occupancy"] >= story.size]
            if not fits:  # a decoy: cheaper than every valid room, one bed short (its rates say so)
                assert min(r["p"] for r in plans) < cheapest
            else:  # valid, and dearer than the story's two cheapest valid choices
                assert all(r["p"] > cheapest for r in fits)
        for h in hotels:
            assert json.loads(h["policies_json"])["hotel_walk"] == _module("rules").HOTEL["hotel_walk"]


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
    assert figures["mails_at_reset"] >= 60 and figures["catalogue"] >= 20
    story = task.oracle[0].story
    sources = {r.source for c in task.suite for r in c.rules if not r.stated}
    assert {f"email:{rules.rental_mail(story)}", "hotel_booking:policies"} <= sources


@pytest.mark.parametrize(("split", "index"), [("test", 0), ("test", 2)])
def test_the_oracle_reads_each_world_rule_by_a_tool_call_before_its_check_decides(split: str, index: int) -> None:
    rules = _module("rules")
    env = gym.make(ENV, split=split, instance=index, level="paper")
    core = base_env(env)
    task = core.task
    story: Any = task.oracle[0].story  # type: ignore[index, union-attr]
    lang = "zh" if story.lang == "zh" else "en"
    result = run_episode(env, load_oracle(task), seed=0, record=False)
    assert result.score == pytest.approx(100.0)
    calls = [c for stage in sorted(core.episode.record.traces) for c in core.episode.record.traces[stage]]
    returned: dict[str, list[str]] = {c["name"]: [] for c in calls}
    for c in calls:
        if c.get("ok"):
            returned[c["name"]].extend(strings_in(c.get("result")))
    read = "\n".join(returned["email__read_email"])
    assert all(t in read for t in rules.rental_terms(story).values())  # the rental company's mail, opened
    assert rules.BANK[lang] in read
    assert rules.HOTEL["hotel_access"] in "\n".join(returned["hotel_booking__get_hotel_details"])
    assert "Dentist appointment" in "\n".join(returned["calendar__list_events"])
    env.close()
    assert discoverability_problems(ENV, 0, {"split": split, "instance": index, "level": "paper"}) == []


def test_an_oracle_that_never_opens_the_rule_mail_fails_discoverability(monkeypatch: pytest.MonkeyPatch) -> None:
    paper = _module("paper")

    def glance(agent: Any, sender: str, query: str):  # searches, but never opens the mail: no body is read
        yield agent.call("email__search_emails", query=query, folder="INBOX")
        return None

    monkeypatch.setattr(paper, "read_mail", glance)
    problems = discoverability_problems(ENV, 0, {"split": "test", "instance": 0, "level": "paper"})
    assert problems and all("returned by no tool call" in p for p in problems), problems
    assert any("pickup_recorded" in p and "condition" in p for p in problems), problems


def test_a_rental_on_basic_cover_fails_the_booking_check_with_its_reason_and_nothing_later() -> None:
    oracle: Any = _family().instance("test", 1, "paper").oracle[0]

    class Basic(oracle):
        def call(self, name: str, **kwargs: Any) -> Any:  # the rental on basic cover, the rest as the oracle
            if name == "car_rental__create_rental_booking":
                kwargs["insurance_plan_id"] = "ins_basic"
            return super().call(name, **kwargs)

    env = gym.make(ENV, split="test", instance=1, level="paper")
    result = run_episode(env, Basic(), seed=0, record=False)
    env.close()
    failed = [c for c in result.checks if not c["passed"]]
    assert [label(c["id"]) for c in failed] == ["car_booked_within_cap"]  # the later work done right keeps its checks
    assert "full cover" in failed[0]["reason"]


def test_every_gate_passes_on_a_paper_instance() -> None:
    v = validate_env(ENV, env_kwargs={"split": "test", "instance": 1, "level": "paper"})
    assert v.ok, v.problems
    assert v.scores["oracle"] == 100.0
