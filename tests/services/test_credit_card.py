"""credit_card through its tools: cards, statements, payments, disputes, rewards, atomicity."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO cards VALUES ('card_a', 'u1', 'Bank', 'Gold', '**** 1111', 'Visa', 1000000, 700000, 200000, 100000, 20000, '2026-04-25', 1, 28, 20, 'active', 1800);
INSERT INTO cards VALUES ('card_b', 'u1', 'Bank', 'Old', '**** 2222', 'Mastercard', 500000, 500000, 0, 0, 0, NULL, 1, 28, 20, 'closed', 1800);
INSERT INTO statements VALUES ('st_feb', 'card_a', '2026-02-01', '2026-02-28', 0, 50000, 50000, 0, 0, '2026-03-20', 'paid');
INSERT INTO statements VALUES ('st_mar', 'card_a', '2026-03-01', '2026-03-28', 0, 200000, 0, 200000, 20000, '2026-04-25', 'open');
INSERT INTO statement_lines VALUES ('l1', 'st_mar', '2026-03-10T02:00:00Z', 150000, 'TV Store', '5732', 'electronics', 'purchase');
INSERT INTO statement_lines VALUES ('l2', 'st_mar', '2026-03-12T02:00:00Z', 50000, 'Grocer', '5411', 'food', 'purchase');
INSERT INTO unbilled_transactions VALUES ('u_1', 'card_a', '2026-04-02T02:00:00Z', 60000, 'Airline', '4511', 'travel', 'purchase');
INSERT INTO unbilled_transactions VALUES ('u_2', 'card_a', '2026-04-05T02:00:00Z', 40000, 'Hotel', '7011', 'travel', 'purchase');
INSERT INTO rewards_balances VALUES ('card_a', 21000, 5000, 60000, '2026-04-01T00:00:00Z');
INSERT INTO rewards_ledger VALUES ('r1', 'card_a', '2026-04-01T00:00:00Z', 'earn', 500, 21000, 'spend');
"""


@pytest.fixture
def cc(make_service):
    return make_service("credit_card", SEED)


def card(cc, card_id="card_a"):
    return cc.call("get_card", {"card_id": card_id})


def test_cards_statements_unbilled(cc):
    assert [c["card_id"] for c in cc.call("list_cards", {"user_id": "u1"})] == ["card_a", "card_b"]
    detail = card(cc)
    assert detail["unbilled_balance_minor"] == 100000 and detail["points_balance"] == 21000
    assert [t["id"] for t in detail["recent_transactions"]] == ["u_2", "u_1", "l2", "l1"]
    assert detail["recent_transactions"][2]["statement_id"] == "st_mar"
    assert [s["statement_id"] for s in cc.call("list_statements", {"card_id": "card_a", "limit": 1})] == ["st_mar"]
    stmt = cc.call("get_statement", {"statement_id": "st_mar"})
    assert [ln["line_id"] for ln in stmt["statement_lines"]] == ["l1", "l2"]
    assert [t["tx_id"] for t in cc.call("list_unbilled", {"card_id": "card_a"})] == ["u_1", "u_2"]


def test_partial_then_full_payment(cc):
    res = cc.call("make_payment", {"card_id": "card_a", "amount_minor": 50000, "source_hint": "acct_chk"})
    assert res == {
        "payment_id": "pay_20260417_000001",
        "applied_to_statement_minor": 50000,
        "applied_to_unbilled_minor": 0,
        "new_outstanding_minor": 250000,
    }
    after = card(cc)
    assert after["statement_balance_minor"] == 150000 and after["min_payment_due_minor"] == 0
    assert after["available_credit_minor"] == 750000
    assert cc.call("list_statements", {"card_id": "card_a"})[0]["status"] == "partial"
    res = cc.call("make_payment", {"card_id": "card_a", "amount_minor": 250000, "source_hint": "acct_chk"})
    assert res["applied_to_statement_minor"] == 150000 and res["applied_to_unbilled_minor"] == 100000
    assert res["new_outstanding_minor"] == 0
    stmt = cc.call("get_statement", {"statement_id": "st_mar"})
    assert stmt["status"] == "paid" and stmt["payments_minor"] == 200000 and stmt["closing_balance_minor"] == 0
    assert [ln["kind"] for ln in stmt["statement_lines"]][-2:] == ["payment", "payment"]
    assert card(cc)["available_credit_minor"] == 1000000


def test_freeze_still_accepts_payment(cc):
    assert cc.call("freeze_card", {"card_id": "card_a"})["status"] == "frozen"
    assert (
        cc.call("make_payment", {"card_id": "card_a", "amount_minor": 1, "source_hint": ""})["new_outstanding_minor"]
        == 299999
    )
    assert cc.call("unfreeze_card", {"card_id": "card_a"})["status"] == "active"


def test_dispute_flow(cc):
    res = cc.call("dispute_transaction", {"tx_id": "l1", "reason": "never delivered"})
    assert res == {
        "dispute_id": "dsp_20260417_000001",
        "status": "under_review",
        "expected_resolution_date": "2026-05-17",
    }
    assert cc.call("dispute_transaction", {"tx_id": "l1", "reason": "again"})["code"] == "DISPUTE_ALREADY_OPEN"
    cc.call("dispute_transaction", {"tx_id": "u_1", "reason": "double charge"})
    rows = cc.call("list_disputes", {"card_id": "card_a", "status_filter": "under_review"})
    assert {r["tx_id"] for r in rows} == {"l1", "u_1"}
    assert cc.call("list_disputes", {"card_id": "card_a", "status_filter": "approved"}) == []


def test_redeem_statement_credit_lowers_balance(cc):
    res = cc.call("redeem_rewards", {"card_id": "card_a", "redemption_code": "stmt_credit_200"})
    assert res["points_balance"] == 1000 and res["value_minor"] == 20000
    after = card(cc)
    assert after["unbilled_balance_minor"] == 80000 and after["available_credit_minor"] == 720000
    assert cc.call("list_unbilled", {"card_id": "card_a"})[-1]["amount_minor"] == -20000
    rewards = cc.call("get_rewards", {"card_id": "card_a"})
    assert rewards["recent_earnings"][0]["delta"] == -20000
    assert (
        cc.call("redeem_rewards", {"card_id": "card_a", "redemption_code": "GIFT_JD_100"})["code"]
        == "INSUFFICIENT_POINTS"
    )


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("make_payment", {"card_id": "card_a", "amount_minor": 300001, "source_hint": "x"}, "OVERPAYMENT"),
        ("make_payment", {"card_id": "card_a", "amount_minor": 0, "source_hint": "x"}, "BAD_ARG"),
        ("make_payment", {"card_id": "card_a", "amount_minor": 10}, "BAD_ARG"),
        ("make_payment", {"card_id": "card_x", "amount_minor": 10, "source_hint": "x"}, "CARD_NOT_FOUND"),
        ("get_statement", {"statement_id": "st_x"}, "STATEMENT_NOT_FOUND"),
        ("dispute_transaction", {"tx_id": "nope", "reason": "r"}, "TX_NOT_FOUND"),
        ("list_disputes", {"card_id": "card_a", "status_filter": "maybe"}, "BAD_ARG"),
        ("redeem_rewards", {"card_id": "card_a", "redemption_code": "CASH"}, "BAD_ARG"),
        ("redeem_rewards", {"card_id": "card_b", "redemption_code": "STMT_CREDIT_50"}, "INSUFFICIENT_POINTS"),
        ("unfreeze_card", {"card_id": "card_b"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(cc, tool, args, code):
    before = table_dump(cc)
    result = cc.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(cc) == before


def test_payment_is_all_or_nothing(cc):
    # the statement line insert fails after the card balances were updated: nothing survives
    cc.execute("CREATE TRIGGER no_lines BEFORE INSERT ON statement_lines BEGIN SELECT RAISE(ABORT, 'refused'); END")
    before = table_dump(cc)
    result = cc.call("make_payment", {"card_id": "card_a", "amount_minor": 1000, "source_hint": "x"})
    assert result["code"] == "INTERNAL_ERROR"
    assert table_dump(cc) == before


def test_an_unknown_dispute_status_lists_the_accepted_ones(cc):
    res = cc.call("list_disputes", {"card_id": "card_a", "status_filter": "open"})
    assert res["code"] == "BAD_ARG" and "under_review, approved, denied, withdrawn" in res["error"]
