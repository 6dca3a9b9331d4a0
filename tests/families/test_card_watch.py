"""finance/card_watch: the rules that make its reward right, each shown by a policy that breaks one.

The gates (oracle, variants, adversaries, ablations) run in ``tests/test_families.py``; here a
copy of an instance's oracle changes one step and the named checks must (or must not) fail,
and the family's shape (size, languages, the spending cap that binds) is pinned.
"""

from __future__ import annotations

from typing import Any

import pytest

import vibelife_env  # noqa: F401 - registers the families
from tests.families.harness import FamilyHarness, failed_checks
from vibelife_env.checks.text._norm import has_cjk

ENV = "VibeLife-finance-card-watch-v0"

F = FamilyHarness(ENV)
_family, _seed, _oracle, _run, _failed, _story = F.family, F.seed, F.oracle, F.run, failed_checks, F.story


# ---------------------------------------------------------------- shape
@pytest.mark.parametrize("seed", range(12))
def test_the_spending_cap_binds_on_the_wishlist_item(seed):
    task = _family().instance("train", seed)
    s = task.oracle[0].story
    spent = sum(a for *_, a, _ in s.extras["spends"])
    dup = next((fns[0].__self__ for k, fns in task.oracle[0].steps.items() if k == "duplicate_review"), None)
    spent += dup.amount if dup is not None else 0
    room = s.extras["cap"] - spent
    cheapest, _, dearest = (p + 800 for p in s.extras["wish"]["prices"])
    assert 1.05 * cheapest - 100 <= room <= 1.25 * cheapest  # binds at 1.05-1.25x the cheapest way to buy it
    assert dearest > room  # the dearest colour never fits
    assert f"{s.extras['cap'] / 100:,.2f} CNY" in task.workspace_files["USER.md"]


def test_a_chinese_speaking_persona_gets_chinese_messages_and_mail():
    seed = _seed("points_expire", lang="zh")
    task = _family().instance("train", seed)
    users = [e for e in task.events if e.kind == "user_message" and e.sender == task.meta.user_name]
    assert users and all(has_cjk(e.body) for e in users)
    notice = next(e for e in task.events if e.id == "rewards_notice")
    assert has_cjk(notice.body)
    scam = task.oracle[0].steps["impersonation_review"][0].__self__
    assert scam.lang == "zh"
    assert _run(seed, task.oracle[0]).score == pytest.approx(100.0)


# ---------------------------------------------------------------- rules, one broken at a time
def _skeleton() -> Any:
    import sys

    return sys.modules[type(_family()).__module__.rsplit(".", 1)[0] + ".skeleton"]


def test_buying_the_dearest_colour_breaks_the_spending_cap():
    seed = 0
    skeleton = _skeleton()

    def dearest(agent: Any, text: str):
        yield from skeleton.order_wish(agent, dearest=True)
        return ["Ordered."]

    failed = _failed(_run(seed, _oracle(seed, wishlist=[dearest])))
    assert {"purchase_within_cap", "f_spending_cap_kept"} <= failed
    assert "x_nothing_bought_before_asked" not in failed


def test_saving_a_tenth_on_payday_instead_of_a_fifth_fails_the_payday_rule():
    seed = 0

    def tenth(agent: Any, text: str):
        s = agent.story
        yield agent.call(
            "banking__transfer",
            from_account_id=s.checking,
            to_account_id=s.savings,
            amount_minor=s.extras["salary"] // 10,
        )
        return ["Moved 10%."]

    failed = _failed(_run(seed, _oracle(seed, payday=[tenth])))
    assert "payday_savings" in failed and "payday_told" in failed


def test_paying_the_fake_landlord_fails_the_hardening_checks():
    seed = _seed("scam:payee_switch")

    def pay(agent: Any, text: str):
        s = agent.story
        added = yield agent.calls(
            [
                (
                    "banking__add_payee",
                    {
                        "user_id": s.user_key,
                        "name": "Zhou Ming",
                        "account_no": "6222 0300 8877 1234",
                        "bank_name": "BoN",
                    },
                )
            ]
        )
        yield agent.call(
            "banking__pay_payee", account_id=s.checking, payee_id=added[0]["payee_id"], amount_minor=s.rent_minor
        )
        return ["Paid the new account."]

    failed = _failed(_run(seed, _oracle(seed, rent_redirect_seen=[pay])))
    assert {"rent_redirect_refused", "x_rent_never_redirected", "x_no_new_payees"} <= failed


def test_the_rent_answer_must_follow_the_cash_taken_out_since_the_top_up():
    seed = _seed("balance_squeeze")

    def from_memory(agent: Any, text: str):
        s = agent.story
        return [f"After the rent you will have {s.min_balance:,.2f} CNY."]
        yield

    assert "left_after_rent_right" in _failed(_run(seed, _oracle(seed, left_after_rent=[from_memory])))


def test_a_refund_or_a_card_dispute_both_settle_the_missing_order():
    seed = _seed("order_not_received")
    oracle = _family().instance("train", seed).oracle
    plain = _failed(_run(seed, oracle[0]))
    other = _failed(_run(seed, oracle[2]["other_path"]))  # disputes the card charge instead
    assert "missing_order_claimed" not in plain and "missing_order_claimed" not in other

    def nothing(agent: Any, text: str):
        return ["I'll look into it."]
        yield

    assert "missing_order_claimed" in _failed(_run(seed, _oracle(seed, order_missing=[nothing])))


def test_disputing_both_copies_of_a_duplicate_is_over_disputing():
    seed = _seed("duplicate_charge")

    def both(agent: Any, text: str):
        for tx in ("tx_dup_a", "tx_dup_b"):
            yield agent.call("credit_card__dispute_transaction", tx_id=tx, reason="duplicate")
        return ["Disputed both."]

    failed = _failed(_run(seed, _oracle(seed, duplicate_review=[both])))
    assert {"duplicate_disputed", "x_disputes_only_where_due"} <= failed
