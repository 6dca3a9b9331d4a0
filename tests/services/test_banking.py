"""banking through its tools: balances, transfers, payments, schedules, errors, atomicity."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO accounts VALUES ('a_chk', 'u1', 'checking', 'Daily', 100000, 'CNY', '2020-01-01', 0);
INSERT INTO accounts VALUES ('a_sav', 'u1', 'savings', 'Rainy day', 50000, 'CNY', '2021-01-01', 0);
INSERT INTO accounts VALUES ('a_old', 'u1', 'checking', 'Closed', 90000, 'CNY', '2019-01-01', 1);
INSERT INTO accounts VALUES ('b_chk', 'u2', 'checking', 'Other', 10, 'CNY', '2020-01-01', 0);
INSERT INTO payees VALUES ('p_power', 'u1', 'Power Co', '6222000011112222', '************2222', 'ICBC', '2024-01-01T00:00:00Z');
INSERT INTO payees VALUES ('p_other', 'u2', 'Someone', '1234567', '***4567', 'BOC', '2024-01-01T00:00:00Z');
INSERT INTO transactions VALUES ('t1', 'a_chk', '2026-04-12T03:00:00Z', 100000, 'deposit', 'Employer', 'salary', 100000);
INSERT INTO transactions VALUES ('t2', 'a_sav', '2026-04-01T03:00:00Z', 50000, 'deposit', NULL, NULL, 50000);
INSERT INTO _counters VALUES ('tx_seq', 10);
"""


@pytest.fixture
def bank(make_service):
    return make_service("banking", SEED)


def balance(bank, account_id):
    return bank.call("get_account", {"account_id": account_id})["balance_minor"]


def test_accounts_and_trend(bank):
    accounts = bank.call("list_accounts", {"user_id": "u1"})
    assert [a["account_id"] for a in accounts] == ["a_old", "a_chk", "a_sav"]
    assert accounts[0]["frozen"] is True
    detail = bank.call("get_account", {"account_id": "a_chk"})
    trend = detail["balance_trend_7d"]
    assert len(trend) == 7 and trend[-1]["date"] == "2026-04-17"
    assert trend[0] == {"date": "2026-04-11", "balance_minor": 0}
    assert trend[1] == {"date": "2026-04-12", "balance_minor": 100000}


def test_dates_are_the_users_days_though_stamps_are_utc(make_service):
    """07:30 in Shanghai on 16 April is 23:30 UTC on the 15th: the user's since/until and the
    trend's days are local dates, so that payment belongs to the 16th."""
    bank = make_service(
        "banking",
        SEED + "INSERT INTO transactions VALUES ('t3', 'a_chk', '2026-04-15T23:30:00Z', -2000, 'payment', "
        "'Cafe', 'breakfast', 98000);",
    )
    on_16 = bank.call("list_transactions", {"account_id": "a_chk", "since": "2026-04-16", "until": "2026-04-16"})
    assert [r["tx_id"] for r in on_16] == ["t3"]
    assert bank.call("list_transactions", {"account_id": "a_chk", "since": "2026-04-16", "until": "2026-04-15"}) == []
    trend = {
        d["date"]: d["balance_minor"] for d in bank.call("get_account", {"account_id": "a_chk"})["balance_trend_7d"]
    }
    assert trend["2026-04-15"] == 100000 and trend["2026-04-16"] == 98000
    assert [r["tx_id"] for r in bank.call("list_transactions", {"account_id": "a_chk"})] == ["t3", "t1"]  # newest first


def test_transfer_moves_both_balances(bank):
    res = bank.call("transfer", {"from_account_id": "a_chk", "to_account_id": "a_sav", "amount_minor": 30000})
    assert res["from_new_balance_minor"] == 70000 and res["to_new_balance_minor"] == 80000
    assert res["tx_id"] == "tx_20260417_00000011"
    assert balance(bank, "a_chk") == 70000 and balance(bank, "a_sav") == 80000
    rows = bank.call("list_transactions", {"account_id": "a_sav"})
    assert rows[0]["kind"] == "transfer_in" and rows[0]["amount_minor"] == 30000
    assert rows[0]["counterparty"] == "Daily"
    assert [r["tx_id"] for r in bank.call("list_transactions", {"account_id": "a_chk", "kind_filter": "deposit"})] == [
        "t1"
    ]
    assert bank.call("list_transactions", {"account_id": "a_chk", "until": "2026-04-11"}) == []


def test_pay_payee_now_and_later(bank):
    added = bank.call(
        "add_payee", {"user_id": "u1", "name": "Landlord", "account_no": "6222999988887777", "bank_name": "CMB"}
    )
    assert added["payee_id"] == "pay_000001" and added["account_no_masked"] == "************7777"
    now = bank.call(
        "pay_payee", {"account_id": "a_chk", "payee_id": "pay_000001", "amount_minor": 40000, "memo": "rent"}
    )
    assert now["status"] == "posted" and now["balance_after_minor"] == 60000
    later = bank.call(
        "pay_payee",
        {"account_id": "a_chk", "payee_id": "p_power", "amount_minor": 999999, "scheduled_for": "2026-05-01"},
    )
    assert later["status"] == "scheduled" and later["pending_id"] == "pend_000001"
    assert balance(bank, "a_chk") == 60000
    pending = bank.call("list_pending_payments", {"user_id": "u1"})
    assert pending[0]["payee_name"] == "Power Co" and pending[0]["status"] == "pending"
    assert [p["payee_id"] for p in bank.call("list_payees", {"user_id": "u1"})] == ["p_power", "pay_000001"]


def test_recurring_lifecycle(bank):
    sch = bank.call(
        "schedule_recurring",
        {
            "account_id": "a_chk",
            "payee_id": "p_power",
            "amount_minor": 8000,
            "freq": "monthly",
            "start_date": "2026-05-05",
        },
    )
    assert sch == {
        "schedule_id": "sch_000001",
        "next_run_date": "2026-05-05",
        "amount_minor": 8000,
        "freq": "monthly",
        "status": "active",
    }
    assert bank.call("list_recurring", {"user_id": "u1"})[0]["payee_name"] == "Power Co"
    assert bank.call("cancel_recurring", {"schedule_id": "sch_000001"})["status"] == "cancelled"
    assert bank.call("cancel_recurring", {"schedule_id": "sch_000001"})["status"] == "cancelled"
    assert bank.call("list_recurring", {"user_id": "u1", "status_filter": "active"}) == []


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        (
            "transfer",
            {"from_account_id": "a_chk", "to_account_id": "a_sav", "amount_minor": 100001},
            "INSUFFICIENT_FUNDS",
        ),
        ("transfer", {"from_account_id": "a_old", "to_account_id": "a_sav", "amount_minor": 1}, "ACCOUNT_FROZEN"),
        ("transfer", {"from_account_id": "a_chk", "to_account_id": "b_chk", "amount_minor": 1}, "CROSS_USER_TRANSFER"),
        ("transfer", {"from_account_id": "a_chk", "to_account_id": "nope", "amount_minor": 1}, "ACCOUNT_NOT_FOUND"),
        ("transfer", {"from_account_id": "a_chk", "to_account_id": "a_sav", "amount_minor": 0}, "BAD_ARG"),
        ("transfer", {"from_account_id": "a_chk", "to_account_id": "a_sav", "amount_minor": "lots"}, "BAD_ARG"),
        ("pay_payee", {"account_id": "a_chk", "payee_id": "p_power", "amount_minor": 100001}, "INSUFFICIENT_FUNDS"),
        ("pay_payee", {"account_id": "a_chk", "payee_id": "p_other", "amount_minor": 1}, "PAYEE_NOT_FOUND"),
        (
            "pay_payee",
            {"account_id": "a_chk", "payee_id": "p_power", "amount_minor": 1, "scheduled_for": "May 1"},
            "BAD_ARG",
        ),
        (
            "schedule_recurring",
            {
                "account_id": "a_chk",
                "payee_id": "p_power",
                "amount_minor": 1,
                "freq": "yearly",
                "start_date": "2026-05-01",
            },
            "BAD_ARG",
        ),
        ("cancel_recurring", {"schedule_id": "sch_404"}, "SCHEDULE_NOT_FOUND"),
        ("list_transactions", {"account_id": "a_chk", "kind_filter": "gift"}, "BAD_ARG"),
        ("get_account", {"account_id": "nope"}, "ACCOUNT_NOT_FOUND"),
    ],
)
def test_errors_leave_tables_unchanged(bank, tool, args, code):
    before = table_dump(bank)
    result = bank.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(bank) == before


def test_transfer_is_all_or_nothing(bank):
    # make the credit leg fail after the debit leg has posted: neither may survive
    bank.execute(
        "CREATE TRIGGER no_credit BEFORE INSERT ON transactions WHEN NEW.kind = 'transfer_in' "
        "BEGIN SELECT RAISE(ABORT, 'credit refused'); END"
    )
    before = table_dump(bank)
    result = bank.call("transfer", {"from_account_id": "a_chk", "to_account_id": "a_sav", "amount_minor": 500})
    assert result["code"] == "INTERNAL_ERROR"
    assert table_dump(bank) == before
    assert balance(bank, "a_chk") == 100000
