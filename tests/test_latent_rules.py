"""Latent rules (issue #27 item 3): a rule nobody states, inferred from a planted fact and one
entry of the common-knowledge list; the Raised kind that checks one; rules on hand-written checks."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from vibelife_env.checks import text
from vibelife_env.checks.base import CheckSet
from vibelife_env.checks.kinds import PROMPT, Raised, Rule
from vibelife_env.checks.knowledge import KNOWLEDGE, knowledge
from vibelife_env.checks.verdict import reason_of


def test_a_rule_is_stated_in_the_world_or_latent_by_its_source() -> None:
    stated = Rule("pay", "Pay saved payees only.")
    world = Rule("policy", "We never ask for a new account.", "email:<visit@co.example>")
    latent = Rule("clash", "Raise a clash.", "latent:one_place_at_a_time", fact="Swimming lesson")
    assert (stated.stated, world.stated, latent.stated) == (True, False, False)
    assert (stated.latent, world.latent, latent.latent) == (False, False, True)
    assert Rule("quiet", "stay silent", PROMPT).stated
    assert latent.knowledge == "one_place_at_a_time" and world.knowledge == ""
    # what a tool call must return for the rule to be found: the fact, or the rule's own text
    assert (latent.found_by, world.found_by) == ("Swimming lesson", world.text)


def test_a_latent_rule_without_its_fact_is_refused() -> None:
    with pytest.raises(ValueError, match="latent rule needs the fact"):
        Rule("clash", "Raise a clash.", "latent:one_place_at_a_time")


def test_the_common_knowledge_list_names_what_it_lacks() -> None:
    assert knowledge("passport_six_months").startswith("Many countries")
    with pytest.raises(KeyError, match="not on the common-knowledge list; entries: "):
        knowledge("tax_code_section_12")
    assert all(text.endswith(".") and len(text) < 200 for text in KNOWLEDGE.values())


def _ctx(reply: str) -> SimpleNamespace:
    return SimpleNamespace(reply=lambda stage: reply)


RAISED = Raised(
    stage=2, weight=1, label="clash_raised", what="the clash with the Swimming lesson", names=("Swimming lesson",)
)


@pytest.mark.parametrize(
    "reply",
    [
        "Booked for Tuesday 10:00. Note: it clashes with your swimming lesson; shall I ask for another time?",
        "The visit overlaps your Swimming Lesson at 09:30.",
        "You won't be home then: the swimming lesson runs 09:30-11:30.",
        "访问时间和你的 Swimming lesson 冲突。",
        "Heads-up: there is a conflict. Your swimming lesson is at 09:30 that day.",
    ],
)
def test_raised_passes_a_sentence_that_names_it_and_raises_the_clash(reply: str) -> None:
    assert RAISED.holds(_ctx(reply))


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Booked for Tuesday 10:00.", "does not name 'Swimming lesson'"),
        ("Swimming lesson Pottery class Tuesday 10:00 invoice calendar.", "no sentence at or next to it raises"),
        (
            "There is a conflict in your diary. The invoice is noted. The weather is fine. Your swimming lesson is on Tuesdays.",
            "no sentence at or next to it raises",
        ),
        ("The visit does not clash with your swimming lesson.", "no sentence at or next to it raises"),
    ],
)
def test_raised_is_not_fooled_by_a_name_dump_a_split_or_a_denial(reply: str, why: str) -> None:
    verdict = RAISED.holds(_ctx(reply))
    assert not verdict
    assert why in reason_of(verdict)


def test_a_hand_written_check_records_its_rules_and_one_text_per_key() -> None:
    checks = CheckSet()
    rule = Rule("pay", "Pay saved payees only.")
    checks.stage(1, rules=(rule,), id="s01_paid")(lambda ctx: True)
    checks.final(rules=(rule,), id="f_paid")(lambda ctx: True)
    assert [c.rules for c in checks.checks] == [(rule,), (rule,)]
    assert checks.rules == {"pay": rule}
    with pytest.raises(ValueError, match="rule 'pay' is registered with another text"):
        checks.cross_stage(rules=(Rule("pay", "Pay anyone."),), id="x_paid")(lambda ctx: True)


EXPIRING = Raised(
    stage=3,
    since=1,
    weight=2,
    label="passport_expiry_raised",
    what="Jie's passport running out",
    names=("Jie Li", "Jie", "partner"),
    phrases=text.EXPIRY,
)


def _replies(by_stage: dict[int, str]) -> SimpleNamespace:
    return SimpleNamespace(reply=lambda stage: by_stage.get(stage, ""))


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_raised_since_counts_a_reply_of_any_stage_of_its_window(stage: int) -> None:
    said = "Heads-up: Jie's passport expires on 2026-09-15, within six months of the trip; please renew it."
    verdict = EXPIRING.holds(_replies({stage: said}))
    assert verdict and reason_of(verdict) == f"the reply (stage {stage}) raises Jie's passport running out"


@pytest.mark.parametrize(
    ("by_stage", "why"),
    [
        (
            {0: "Your partner's passport expires in September: renew it.", 4: "Jie's passport expires soon."},
            "do not name",
        ),
        ({2: "Jie is coming too. The hotel is booked."}, "the replies of stages 1-3 name 'Jie Li' but no sentence"),
        ({1: "Jie's passport does not expire before 2031."}, "but no sentence at or next to it raises"),
        ({1: "Jie Li Jie partner passport Tuesday invoice.", 2: "Renewal fees are listed."}, "but no sentence"),
    ],
)
def test_raised_since_is_not_fooled_outside_its_window_by_a_dump_or_a_denial(
    by_stage: dict[int, str], why: str
) -> None:
    verdict = EXPIRING.holds(_replies(by_stage))
    assert not verdict
    assert why in reason_of(verdict)


def test_raised_without_since_reads_only_its_own_stage() -> None:
    alone = Raised(stage=3, weight=1, label="x", what="the clash", names=("Swimming lesson",))
    assert not alone.holds(_replies({2: "It clashes with your swimming lesson."}))
    assert reason_of(alone.holds(_replies({}))) == "the reply does not name 'Swimming lesson' (the clash)"


def test_raised_takes_an_appointment_s_short_and_chinese_names() -> None:
    badminton = Raised(stage=0, weight=2, label="clash", what="the clash", names=("Badminton club",))
    assert badminton.holds(_ctx("时间冲突：您日历上今天 13:30–15:30 有羽毛球俱乐部，那段时间家里得有人。"))
    assert badminton.holds(_ctx("The roofer comes at 14:00, but you'll be in town at badminton then."))
    assert not badminton.holds(_ctx("The roofer comes at 14:00."))


AWAY = Raised(
    stage=2,
    weight=2,
    label="delivery_clash_raised",
    what="the delivery slot's clash with the Client visit in Hangzhou",
    names=("Client visit in Hangzhou",),
)


@pytest.mark.parametrize(
    "reply",
    [
        "The courier's slot of 17 Feb morning clashes with your all-day client visit, so I moved it to the 18th.",
        "You will be away in Hangzhou that day: I moved the delivery to the 18th afternoon.",
        "It clashes with the Client visit in Hangzhou; moved to the 18th.",
    ],
)
def test_raised_takes_a_diary_entry_by_what_it_is_or_where(reply: str) -> None:
    """A reply names "Client visit in Hangzhou" as a person would: "your client visit", "in Hangzhou"."""
    assert AWAY.holds(_ctx(reply))


def test_a_diary_titles_parts_are_only_what_a_person_would_name_it_by() -> None:
    from vibelife_env.checks.kinds import title_parts

    assert title_parts("Client visit in Hangzhou") == ("Client visit", "Hangzhou")
    assert title_parts("Business trip to Chengdu") == ("Business trip", "Chengdu")
    assert title_parts("出差：成都") == ("出差", "成都")
    assert title_parts("Visit at home") == ()  # one loose word, a common noun: nothing beyond the title
    assert title_parts("Physiotherapy session") == ()
    assert not AWAY.holds(_ctx("The delivery moved to the 18th; I visit the client list weekly."))
