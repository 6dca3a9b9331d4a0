"""brokerage through its tools: valuation, orders, holds, funds, errors, atomicity."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO accounts VALUES ('brk', 'u1', 'Broker', 'cash', 100000, '2022-01-01', 'active');
INSERT INTO accounts VALUES ('brk_closed', 'u1', 'Broker', 'cash', 5000, '2023-01-01', 'closed');
INSERT INTO symbols VALUES ('600001', 'Alpha Corp', 'stock');
INSERT INTO symbols VALUES ('600002', 'Beta Corp', 'stock');
INSERT INTO quotes_daily VALUES ('600001', '2026-04-15', 1000, 1000, 1000, 1000, 1);
INSERT INTO quotes_daily VALUES ('600001', '2026-04-16', 1000, 1100, 1100, 1000, 1);
INSERT INTO quotes_daily VALUES ('600001', '2026-04-20', 1100, 9900, 9900, 1100, 1);
INSERT INTO quotes_daily VALUES ('600002', '2026-04-16', 500, 500, 500, 500, 1);
INSERT INTO funds VALUES ('F1', 'Cash Plus', 'money_market', 300, 150, 1, 'Mgr', '2020-01-01');
INSERT INTO funds VALUES ('F2', 'Bond Fund', 'bond', 1000, 80, 2, 'Mgr', '2020-01-01');
INSERT INTO fund_navs VALUES ('F1', '2026-04-15', 290);
INSERT INTO fund_navs VALUES ('F1', '2026-04-16', 300);
INSERT INTO positions (account_id, symbol, kind, qty_milli, avg_cost_minor) VALUES ('brk', '600001', 'stock', 10000, 900);
INSERT INTO portfolio_snapshots VALUES ('brk', '2026-04-14', 100000, 10000, 110000);
INSERT INTO portfolio_snapshots VALUES ('brk', '2026-04-15', 100000, 0, 100000);
INSERT INTO portfolio_snapshots VALUES ('brk', '2026-04-16', 100000, 11000, 111000);
"""


@pytest.fixture
def brk(make_service):
    return make_service("brokerage", SEED)


def cash(brk):
    return brk.call("get_portfolio", {"account_id": "brk"})["cash_minor"]


def test_quotes_ignore_future_rows_and_value_portfolio(brk):
    quote = brk.call("get_quote", {"symbol": "600001"})
    assert quote["last_minor"] == 1100 and quote["prev_close_minor"] == 1000 and quote["as_of_date"] == "2026-04-16"
    assert quote["day_change_bp"] == 1000 and quote["bid_minor"] < 1100 < quote["ask_minor"]
    pf = brk.call("get_portfolio", {"account_id": "brk"})
    assert pf["positions_value_minor"] == 11000 and pf["total_value_minor"] == 111000
    assert pf["todays_pnl_minor"] == 1000 and pf["as_of_date"] == "2026-04-16"
    pos = brk.call("get_positions", {"account_id": "brk"})[0]
    assert pos["qty"] == 10 and pos["unrealized_pnl_minor"] == 2000
    perf = brk.call("get_portfolio_perf", {"account_id": "brk", "period": "7d"})
    assert perf == {
        "period_return_bp": 91,
        "max_drawdown_bp": 909,
        "start_value_minor": 110000,
        "end_value_minor": 111000,
    }


def test_market_buy_and_sell_move_cash_and_shares(brk):
    res = brk.call(
        "place_order", {"account_id": "brk", "symbol": "600001", "side": "buy", "qty": 10, "order_type": "market"}
    )
    assert res == {"order_id": "ord_00000001", "status": "filled", "fill_price_minor": 1100}
    assert cash(brk) == 89000
    pos = brk.call("get_positions", {"account_id": "brk"})[0]
    assert pos["qty"] == 20 and pos["avg_cost_minor"] == 1000
    brk.call(
        "place_order", {"account_id": "brk", "symbol": "600001", "side": "sell", "qty": 20, "order_type": "market"}
    )
    assert cash(brk) == 111000 and brk.call("get_positions", {"account_id": "brk"}) == []


def test_limit_orders_rest_hold_and_cancel(brk):
    res = brk.call(
        "place_order",
        {
            "account_id": "brk",
            "symbol": "600002",
            "side": "buy",
            "qty": 150,
            "order_type": "limit",
            "limit_price_minor": 400,
        },
    )
    assert res == {"order_id": "ord_00000001", "status": "pending"}
    assert cash(brk) == 100000  # nothing debited yet, but 60000 is held
    too_much = brk.call(
        "place_order", {"account_id": "brk", "symbol": "600002", "side": "buy", "qty": 81, "order_type": "market"}
    )
    assert too_much["code"] == "INSUFFICIENT_CASH"
    crossing = brk.call(
        "place_order",
        {
            "account_id": "brk",
            "symbol": "600001",
            "side": "sell",
            "qty": 4,
            "order_type": "limit",
            "limit_price_minor": 1050,
        },
    )
    assert crossing["status"] == "filled" and crossing["fill_price_minor"] == 1100
    assert brk.call("cancel_order", {"order_id": "ord_00000001"})["status"] == "cancelled"
    assert brk.call("cancel_order", {"order_id": "ord_00000001"})["code"] == "ORDER_NOT_PENDING"
    statuses = [o["status"] for o in brk.call("list_orders", {"account_id": "brk"})]
    assert sorted(statuses) == ["cancelled", "filled"]
    assert brk.call("list_orders", {"account_id": "brk", "status_filter": "pending"}) == []


def test_fund_subscribe_and_redeem(brk):
    assert [f["fund_code"] for f in brk.call("list_funds", {"category": "bond"})] == ["F2"]
    assert brk.call("get_fund_nav", {"fund_code": "F1", "lookback_days": 1}) == [
        {"date": "2026-04-16", "nav_minor": 300}
    ]
    res = brk.call("subscribe_fund", {"account_id": "brk", "fund_code": "F1", "amount_minor": 1000})
    assert res["units_acquired_milli"] == 3330  # 3.333 units rounded down to 3.33
    assert cash(brk) == 100000 - 999
    held = {p["symbol"]: p for p in brk.call("get_positions", {"account_id": "brk"})}
    assert held["F1"]["qty"] == 3.33 and held["F1"]["kind"] == "fund"
    out = brk.call("redeem_fund", {"account_id": "brk", "fund_code": "F1", "units_milli": 3330})
    assert out["proceeds_minor"] == 999 and cash(brk) == 100000
    assert brk.call("list_orders", {"account_id": "brk", "limit": 1})[0]["qty"] == 3.33


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        (
            "place_order",
            {"account_id": "brk", "symbol": "600001", "side": "buy", "qty": 91, "order_type": "market"},
            "INSUFFICIENT_CASH",
        ),
        (
            "place_order",
            {"account_id": "brk", "symbol": "600001", "side": "sell", "qty": 11, "order_type": "market"},
            "INSUFFICIENT_SHARES",
        ),
        (
            "place_order",
            {"account_id": "brk", "symbol": "999999", "side": "buy", "qty": 1, "order_type": "market"},
            "SYMBOL_NOT_FOUND",
        ),
        (
            "place_order",
            {"account_id": "brk", "symbol": "600001", "side": "short", "qty": 1, "order_type": "market"},
            "BAD_ARG",
        ),
        (
            "place_order",
            {"account_id": "brk", "symbol": "600001", "side": "buy", "qty": 1, "order_type": "stop"},
            "BAD_ARG",
        ),
        (
            "place_order",
            {"account_id": "brk", "symbol": "600001", "side": "buy", "qty": 1, "order_type": "limit"},
            "BAD_ARG",
        ),
        (
            "place_order",
            {"account_id": "brk", "symbol": "600001", "side": "buy", "qty": 1.5, "order_type": "market"},
            "BAD_ARG",
        ),
        (
            "place_order",
            {"account_id": "brk_closed", "symbol": "600001", "side": "buy", "qty": 1, "order_type": "market"},
            "BAD_ARG",
        ),
        (
            "place_order",
            {"account_id": "nope", "symbol": "600001", "side": "buy", "qty": 1, "order_type": "market"},
            "ACCOUNT_NOT_FOUND",
        ),
        ("cancel_order", {"order_id": "ord_404"}, "ORDER_NOT_FOUND"),
        ("subscribe_fund", {"account_id": "brk", "fund_code": "F1", "amount_minor": 100001}, "INSUFFICIENT_CASH"),
        ("subscribe_fund", {"account_id": "brk", "fund_code": "F1", "amount_minor": 2}, "BAD_ARG"),
        ("subscribe_fund", {"account_id": "brk", "fund_code": "F9", "amount_minor": 100}, "FUND_NOT_FOUND"),
        ("redeem_fund", {"account_id": "brk", "fund_code": "F1", "units_milli": 1}, "INSUFFICIENT_SHARES"),
        ("list_funds", {"category": "crypto"}, "BAD_ARG"),
        ("get_portfolio_perf", {"account_id": "brk", "period": "5y"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(brk, tool, args, code):
    before = table_dump(brk)
    result = brk.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(brk) == before


def test_fill_is_all_or_nothing(brk):
    # the position update fails after the order row and cash debit were written
    brk.execute("CREATE TRIGGER no_pos BEFORE UPDATE ON positions BEGIN SELECT RAISE(ABORT, 'refused'); END")
    before = table_dump(brk)
    res = brk.call(
        "place_order", {"account_id": "brk", "symbol": "600001", "side": "buy", "qty": 1, "order_type": "market"}
    )
    assert res["code"] == "INTERNAL_ERROR"
    assert table_dump(brk) == before
