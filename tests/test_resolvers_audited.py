"""Resolvers widened after real-agent audits (issue #27 item 10): each reads a valid way of doing
what the rule says that an audited agent used, and still refuses what the rule forbids."""

from __future__ import annotations

from vibelife_env.probes.tenancy import _sheet, authorities_part
from vibelife_env.services.health_tracker.read import value_in


def test_a_case_file_row_is_read_by_its_item_whatever_explanation_its_label_carries() -> None:
    doc = (
        "| item | CNY |\n|---|---|\n| Deposit | 19,800.00 |\n| Claimed (all he claims so far) | 4,400.00 |\n"
        "| **Accepted deductions** (the part he may keep) | 1,100.00 |\n| Owed | 18,700.00 |\n"
        "| Received (bank, current account) | 15,400.00 |\n| Shortfall: owed less received | 3,300.00 |\n"
        "| Received twice over | 1.00 |\n"
    )
    assert dict(_sheet(doc)) == {
        "deposit": 19800.0,
        "claimed": 4400.0,
        "accepted_deductions": 1100.0,
        "owed": 18700.0,
        "received": 15400.0,
        "shortfall": 3300.0,
    }


def test_only_the_authorities_section_cites_and_a_file_without_one_is_read_whole() -> None:
    doc = (
        "# Case\n\n## Authorities\n\n- art_cc_710\n### Judgments\n- case_1\n\n"
        "## Log\n\n- 2026-06-21: new judgment case_79273 published, does not apply\n"
    )
    part = authorities_part(doc)
    assert "art_cc_710" in part and "case_1" in part and "case_79273" not in part
    assert authorities_part("- art_cc_710\n- case_1") == "- art_cc_710\n- case_1"


def test_a_reading_is_read_in_the_unit_asked_from_the_unit_it_was_logged_in() -> None:
    grams = {"type": "weight", "value": 88600.0, "unit": "g"}
    kilos = {"type": "weight", "value": 88.6, "unit": "kg"}
    assert value_in(grams, "kg") == 88.6 and value_in(kilos, "kg") == 88.6
    assert value_in({"type": "weight", "value": 177.2, "unit": "斤"}, "kg") == 88.6
    assert value_in({"type": "weight", "value": 88.6, "unit": "stone-ish"}, "kg") is None  # unknown: not counted
    assert value_in({"type": "heart_rate", "value": 86.0, "unit": "bpm"}, "bpm") == 86.0
