"""brokerage: a personal securities account with stocks, funds, orders and daily prices.

Tool surface: the public ``brokerage_mock`` spec (12 tools). Money is integer minor units;
quantities are stored in milli-units (``qty_milli``, 1 share/unit = 1000) so whole-share
stocks and fractional fund units share one column.

Prices come from end-of-day data: a stock's price is the latest ``quotes_daily`` close
dated on or before today (the task-local date of the virtual clock), so rows pre-baked
for later days stay invisible until then; a fund trades at ``funds.current_nav_minor``.
Market orders, and limit orders whose limit crosses the last price, fill at once; other
limit orders rest as ``pending`` (timeline mutations may fill them). Pending orders hold
what they commit: a new buy must fit in cash minus the value of resting buy limits, a new
sell in holdings minus resting sells. Order ids are ``ord_%08d`` from ``_counters``.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``INVALID_AMOUNT``,
``BAD_SIDE``, ``BAD_ORDER_TYPE``).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool

SIDES = ("buy", "sell")
ORDER_TYPES = ("market", "limit")
ORDER_STATUSES = ("pending", "filled", "cancelled", "rejected")
TIFS = ("day", "gtc")
FUND_CATEGORIES = ("money_market", "bond", "equity", "mixed", "index")
PERIOD_DAYS = {"1d": 1, "7d": 7, "30d": 30}
MAX_ORDERS = 500
MAX_NAV_DAYS = 365


class BrokerageService(Service):
    """Brokerage accounts, positions, quotes, stock orders and fund subscriptions."""

    name = "brokerage"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------------ accounts
    @tool(read_only=True)
    def list_accounts(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's brokerage accounts, oldest first.

        Args:
            user_id: The account owner, e.g. ``usr_li_wei``.
        """
        return self.query(
            "SELECT account_id, broker, account_type, opened_at, status FROM accounts "
            "WHERE user_id = ? ORDER BY opened_at, account_id",
            (user_id,),
        )

    @tool(read_only=True)
    def get_portfolio(self, account_id: str) -> dict[str, Any]:
        """Return an account's cash, positions value, total value and today's P/L.

        ``todays_pnl_minor`` sums quantity x (latest price - previous price) over positions;
        ``as_of_date`` is the date of the latest portfolio snapshot. Money in minor units.

        Args:
            account_id: The brokerage account id.
        """
        account = self._account_row(account_id)
        positions = self._valued_positions(account_id)
        value = sum(p["market_value_minor"] for p in positions)
        pnl = 0
        for p in positions:
            prev = self._previous_price(p["symbol"], p["kind"])
            if prev is not None:
                pnl += p["qty_milli"] * (p["current_price_minor"] - prev) // 1000
        last_snapshot = self._last_snapshot_date(account_id)
        return {
            "account_id": account_id,
            "cash_minor": int(account["cash_minor"]),
            "positions_value_minor": value,
            "total_value_minor": int(account["cash_minor"]) + value,
            "todays_pnl_minor": pnl,
            "as_of_date": last_snapshot,
        }

    @tool(read_only=True)
    def get_positions(self, account_id: str) -> list[dict[str, Any]]:
        """List an account's open positions with current price, market value and unrealized P/L.

        ``qty`` is whole shares for stocks and units (3 decimals) for funds; prices and
        values are minor units. Ordered by symbol.

        Args:
            account_id: The brokerage account id.
        """
        self._account_row(account_id)
        return [{k: v for k, v in p.items() if k != "qty_milli"} for p in self._valued_positions(account_id)]

    @tool(read_only=True)
    def get_portfolio_perf(self, account_id: str, period: str) -> dict[str, Any]:
        """Return the period return and maximum drawdown (basis points) from daily snapshots.

        The window ends at the latest snapshot; all fields are 0 without snapshots.

        Args:
            account_id: The brokerage account id.
            period: One of ``1d``, ``7d``, ``30d``, ``ytd``.
        """
        self._account_row(account_id)
        if period not in (*PERIOD_DAYS, "ytd"):
            raise ToolError("BAD_ARG", f"period must be one of 1d, 7d, 30d, ytd, got {period!r}")
        zero = {"period_return_bp": 0, "max_drawdown_bp": 0, "start_value_minor": 0, "end_value_minor": 0}
        end = self._last_snapshot_date(account_id)
        if end is None:
            return zero
        end_day = date.fromisoformat(end[:10])
        start = end_day.replace(month=1, day=1) if period == "ytd" else end_day - timedelta(days=PERIOD_DAYS[period])
        values = [
            int(r["total_value_minor"])
            for r in self.query(
                "SELECT total_value_minor FROM portfolio_snapshots WHERE account_id = ? AND date >= ? AND date <= ? "
                "ORDER BY date",
                (account_id, start.isoformat(), end),
            )
        ]
        if not values:
            return zero
        first, last = values[0], values[-1]
        peak, drawdown = first, 0
        for v in values:
            peak = max(peak, v)
            if peak > 0:
                drawdown = max(drawdown, round((peak - v) * 10000 / peak))
        return {
            "period_return_bp": round((last - first) * 10000 / first) if first > 0 else 0,
            "max_drawdown_bp": drawdown,
            "start_value_minor": first,
            "end_value_minor": last,
        }

    # -------------------------------------------------------------------- market
    @tool(read_only=True)
    def get_quote(self, symbol: str) -> dict[str, Any]:
        """Return the latest daily quote for a symbol.

        ``last_minor`` is the latest close, ``day_change_bp`` the change against the
        previous close in basis points; bid/ask sit 5 bp either side of last. Prices in
        minor units.

        Args:
            symbol: The ticker, e.g. ``600519`` (A-share codes are 6-digit strings).
        """
        symbol = symbol.strip()
        rows = self._quote_rows(symbol, 2)
        if not rows:
            raise ToolError("SYMBOL_NOT_FOUND", f"no quote data for symbol {symbol!r}")
        close = int(rows[0]["close_minor"])
        prev = int(rows[1]["close_minor"]) if len(rows) > 1 else None
        spread = max(1, close // 2000)
        return {
            "symbol": symbol,
            "name": self._symbol_name(symbol),
            "bid_minor": max(1, close - spread),
            "ask_minor": close + spread,
            "last_minor": close,
            "prev_close_minor": prev if prev is not None else close,
            "day_change_bp": round((close - prev) * 10000 / prev) if prev else 0,
            "as_of_date": rows[0]["date"],
        }

    # -------------------------------------------------------------------- orders
    @tool(read_only=True)
    def list_orders(self, account_id: str, status_filter: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """List an account's orders (stock orders and fund subscriptions/redemptions), newest first.

        Args:
            account_id: The brokerage account id.
            status_filter: Only this status: pending, filled, cancelled or rejected.
            limit: Maximum rows (default 50, clamped to 1..500).
        """
        self._account_row(account_id)
        if status_filter is not None and status_filter not in ORDER_STATUSES:
            raise ToolError(
                "BAD_ARG", f"status_filter must be one of {', '.join(ORDER_STATUSES)}, got {status_filter!r}"
            )
        sql = "SELECT * FROM orders WHERE account_id = ?"
        params: list[Any] = [account_id]
        if status_filter:
            sql += " AND status = ?"
            params.append(status_filter)
        sql += " ORDER BY placed_at DESC, order_id DESC LIMIT ?"
        params.append(max(1, min(limit, MAX_ORDERS)))
        return [self._order(r) for r in self.query(sql, params)]

    @tool
    def place_order(
        self,
        account_id: str,
        symbol: str,
        side: str,
        qty: int,
        order_type: str,
        limit_price_minor: int | None = None,
        tif: str = "day",
    ) -> dict[str, Any]:
        """Buy or sell whole shares; cash and holdings move atomically on fill.

        A market order fills at once at the latest close. A limit order fills at once at
        the latest close when the limit crosses it (buy: last <= limit, sell: last >=
        limit), otherwise it rests as ``pending`` and holds the cash or shares it commits.
        Returns ``{order_id, status, fill_price_minor?}``.

        Args:
            account_id: The brokerage account id.
            symbol: The ticker, e.g. ``600519``.
            side: ``buy`` or ``sell``.
            qty: Number of whole shares, a positive integer.
            order_type: ``market`` or ``limit``.
            limit_price_minor: Limit price per share in minor units; required for limit orders.
            tif: Time in force: ``day`` (default) or ``gtc``.
        """
        account = self._tradable_account(account_id)
        if side not in SIDES:
            raise ToolError("BAD_ARG", f"side must be buy or sell, got {side!r}")
        if order_type not in ORDER_TYPES:
            raise ToolError("BAD_ARG", f"order_type must be market or limit, got {order_type!r}")
        if qty <= 0:
            raise ToolError("BAD_ARG", f"qty must be a positive whole number of shares, got {qty}")
        if tif not in TIFS:
            raise ToolError("BAD_ARG", f"tif must be day or gtc, got {tif!r}")
        limit = None
        if order_type == "limit":
            if limit_price_minor is None or limit_price_minor <= 0:
                raise ToolError("BAD_ARG", f"limit orders need a positive limit_price_minor, got {limit_price_minor}")
            limit = limit_price_minor
        symbol = symbol.strip()
        rows = self._quote_rows(symbol, 1)
        if not rows:
            raise ToolError("SYMBOL_NOT_FOUND", f"no quote data for symbol {symbol!r}")
        last = int(rows[0]["close_minor"])
        qty_milli = qty * 1000
        reference = last if limit is None else limit
        if side == "buy":
            self._require_cash(account, qty_milli * reference // 1000)
        else:
            self._require_holding(account_id, symbol, qty_milli, f"{qty} shares")

        crosses = limit is None or (last <= limit if side == "buy" else last >= limit)
        order_id = self._next_order_id()
        now = self.now_utc()
        self.execute(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                order_id,
                account_id,
                symbol,
                side,
                qty_milli,
                order_type,
                limit,
                tif,
                "filled" if crosses else "pending",
                now,
                now if crosses else None,
                last if crosses else None,
            ),
        )
        if not crosses:
            return {"order_id": order_id, "status": "pending"}
        self._fill(account_id, symbol, side, qty_milli, last)
        return {"order_id": order_id, "status": "filled", "fill_price_minor": last}

    @tool
    def cancel_order(self, order_id: str) -> dict[str, Any]:
        """Cancel a pending order, releasing what it held; filled or cancelled orders cannot be cancelled.

        Args:
            order_id: The order id, e.g. ``ord_00000001``.
        """
        row = self.require(
            "SELECT status FROM orders WHERE order_id = ?", (order_id,), "ORDER_NOT_FOUND", f"no order {order_id!r}"
        )
        if row["status"] != "pending":
            raise ToolError("ORDER_NOT_PENDING", f"order {order_id} is {row['status']}, not pending")
        self.execute("UPDATE orders SET status = 'cancelled', filled_at = NULL WHERE order_id = ?", (order_id,))
        return {"order_id": order_id, "status": "cancelled"}

    # --------------------------------------------------------------------- funds
    @tool(read_only=True)
    def list_funds(self, category: str | None = None) -> list[dict[str, Any]]:
        """Browse the fund catalogue, ordered by fund code.

        Each fund has its current NAV per unit (minor units), year-to-date return (basis
        points) and risk level (1 lowest to 5 highest).

        Args:
            category: Only this category: money_market, bond, equity, mixed or index; omit for all.
        """
        if category is not None and category not in FUND_CATEGORIES:
            raise ToolError("BAD_ARG", f"category must be one of {', '.join(FUND_CATEGORIES)}, got {category!r}")
        sql = (
            "SELECT fund_code, fund_name, category, current_nav_minor AS nav_minor, ytd_return_bp, risk_level "
            "FROM funds"
        )
        if category:
            return self.query(sql + " WHERE category = ? ORDER BY fund_code", (category,))
        return self.query(sql + " ORDER BY fund_code")

    @tool(read_only=True)
    def get_fund_nav(self, fund_code: str, lookback_days: int = 30) -> list[dict[str, Any]]:
        """Return a fund's NAV history, newest first.

        Args:
            fund_code: The fund code, e.g. ``000001``.
            lookback_days: How many trailing NAV days to return (default 30, clamped to 1..365).
        """
        self._fund_row(fund_code)
        return self.query(
            "SELECT date, nav_minor FROM fund_navs WHERE fund_code = ? AND substr(date, 1, 10) <= ? ORDER BY date DESC LIMIT ?",
            (fund_code, self._today(), max(1, min(lookback_days, MAX_NAV_DAYS))),
        )

    @tool
    def subscribe_fund(self, account_id: str, fund_code: str, amount_minor: int) -> dict[str, Any]:
        """Buy fund units with cash at the current NAV.

        Units = amount / NAV rounded down to 0.01 unit; the cash debited is units x NAV
        (the rounding residual stays in cash). Returns ``units_acquired_milli``.

        Args:
            account_id: The brokerage account id.
            fund_code: The fund to buy.
            amount_minor: Cash to invest in minor units, a positive integer.
        """
        account = self._tradable_account(account_id)
        fund = self._fund_row(fund_code)
        if amount_minor <= 0:
            raise ToolError("BAD_ARG", f"amount_minor must be a positive integer, got {amount_minor}")
        self._require_cash(account, amount_minor)
        nav = int(fund["current_nav_minor"])
        if nav <= 0:
            raise ToolError("BAD_ARG", f"fund {fund_code} has no NAV")
        units_milli = amount_minor * 1000 // nav // 10 * 10
        if units_milli <= 0:
            raise ToolError("BAD_ARG", f"{amount_minor} buys less than 0.01 unit of {fund_code} at NAV {nav}")
        order_id = self._record_fund_order(account_id, fund_code, "buy", units_milli, nav)
        self._fill(account_id, fund_code, "buy", units_milli, nav)
        return {"order_id": order_id, "status": "filled", "units_acquired_milli": units_milli}

    @tool
    def redeem_fund(self, account_id: str, fund_code: str, units_milli: int) -> dict[str, Any]:
        """Sell fund units at the current NAV; proceeds are credited to cash.

        Args:
            account_id: The brokerage account id.
            fund_code: The fund to redeem.
            units_milli: Units to redeem in thousandths of a unit (1 unit = 1000), a positive integer.
        """
        self._tradable_account(account_id)
        fund = self._fund_row(fund_code)
        if units_milli <= 0:
            raise ToolError("BAD_ARG", f"units_milli must be a positive integer, got {units_milli}")
        self._require_holding(account_id, fund_code, units_milli, f"{units_milli} milli-units")
        nav = int(fund["current_nav_minor"])
        order_id = self._record_fund_order(account_id, fund_code, "sell", units_milli, nav)
        proceeds = self._fill(account_id, fund_code, "sell", units_milli, nav)
        return {
            "order_id": order_id,
            "status": "filled",
            "units_redeemed_milli": units_milli,
            "proceeds_minor": proceeds,
        }

    # ------------------------------------------------------------------- helpers
    def _today(self) -> str:
        """Today's task-local date; price and snapshot rows dated later are not visible yet."""
        return self.now().date().isoformat()

    def _account_row(self, account_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM accounts WHERE account_id = ?",
            (account_id,),
            "ACCOUNT_NOT_FOUND",
            f"no brokerage account {account_id!r}",
        )

    def _tradable_account(self, account_id: str) -> dict[str, Any]:
        account = self._account_row(account_id)
        if account["status"] != "active":
            raise ToolError("BAD_ARG", f"account {account_id} is {account['status']} and cannot trade")
        return account

    def _fund_row(self, fund_code: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM funds WHERE fund_code = ?", (fund_code,), "FUND_NOT_FOUND", f"no fund {fund_code!r}"
        )

    def _quote_rows(self, symbol: str, n: int) -> list[dict[str, Any]]:
        return self.query(
            "SELECT * FROM quotes_daily WHERE symbol = ? AND substr(date, 1, 10) <= ? ORDER BY date DESC LIMIT ?",
            (symbol, self._today(), n),
        )

    def _last_snapshot_date(self, account_id: str) -> str | None:
        row = self.query_one(
            "SELECT MAX(date) AS d FROM portfolio_snapshots WHERE account_id = ? AND substr(date, 1, 10) <= ?",
            (account_id, self._today()),
        )
        return row["d"] if row else None

    def _symbol_name(self, symbol: str) -> str:
        row = self.query_one("SELECT name FROM symbols WHERE symbol = ?", (symbol,))
        if row is None:
            row = self.query_one("SELECT fund_name AS name FROM funds WHERE fund_code = ?", (symbol,))
        return row["name"] if row else symbol

    def _symbol_kind(self, symbol: str) -> str:
        row = self.query_one("SELECT kind FROM symbols WHERE symbol = ?", (symbol,))
        if row is not None:
            return row["kind"]
        return "fund" if self.query_one("SELECT 1 FROM funds WHERE fund_code = ?", (symbol,)) else "stock"

    def _price(self, symbol: str, kind: str) -> int:
        if kind == "fund":
            fund = self.query_one("SELECT current_nav_minor FROM funds WHERE fund_code = ?", (symbol,))
            if fund is not None:
                return int(fund["current_nav_minor"])
            nav = self.query_one(
                "SELECT nav_minor FROM fund_navs WHERE fund_code = ? AND substr(date, 1, 10) <= ? ORDER BY date DESC LIMIT 1",
                (symbol, self._today()),
            )
            return int(nav["nav_minor"]) if nav else 0
        rows = self._quote_rows(symbol, 1)
        return int(rows[0]["close_minor"]) if rows else 0

    def _previous_price(self, symbol: str, kind: str) -> int | None:
        """The price one trading day before the latest one (for today's P/L)."""
        if kind == "fund":
            navs = self.query(
                "SELECT nav_minor FROM fund_navs WHERE fund_code = ? AND substr(date, 1, 10) <= ? ORDER BY date DESC LIMIT 2",
                (symbol, self._today()),
            )
            if len(navs) == 2:
                return int(navs[1]["nav_minor"])
        rows = self._quote_rows(symbol, 2)
        return int(rows[1]["close_minor"]) if len(rows) == 2 else None

    def _valued_positions(self, account_id: str) -> list[dict[str, Any]]:
        out = []
        for r in self.query(
            "SELECT symbol, kind, qty_milli, avg_cost_minor FROM positions WHERE account_id = ? AND qty_milli > 0 "
            "ORDER BY symbol",
            (account_id,),
        ):
            qty_milli, avg_cost = int(r["qty_milli"]), int(r["avg_cost_minor"])
            price = self._price(r["symbol"], r["kind"])
            value = qty_milli * price // 1000
            out.append(
                {
                    "symbol": r["symbol"],
                    "name": self._symbol_name(r["symbol"]),
                    "kind": r["kind"],
                    "qty": _display_qty(qty_milli, r["kind"]),
                    "qty_milli": qty_milli,
                    "avg_cost_minor": avg_cost,
                    "current_price_minor": price,
                    "market_value_minor": value,
                    "unrealized_pnl_minor": value - qty_milli * avg_cost // 1000,
                }
            )
        return out

    def _require_cash(self, account: dict[str, Any], needed: int) -> None:
        held = self.query_one(
            "SELECT COALESCE(SUM(qty_milli * limit_price_minor / 1000), 0) AS held FROM orders "
            "WHERE account_id = ? AND side = 'buy' AND status = 'pending'",
            (account["account_id"],),
        )
        committed = int(held["held"]) if held else 0
        free = int(account["cash_minor"]) - committed
        if needed > free:
            extra = f" ({committed} held by pending buy orders)" if committed else ""
            raise ToolError(
                "INSUFFICIENT_CASH", f"need {needed} minor units but {account['account_id']} has {free} free{extra}"
            )

    def _require_holding(self, account_id: str, symbol: str, qty_milli: int, what: str) -> None:
        pos = self.query_one(
            "SELECT qty_milli FROM positions WHERE account_id = ? AND symbol = ?", (account_id, symbol)
        )
        held = int(pos["qty_milli"]) if pos else 0
        pending = self.query_one(
            "SELECT COALESCE(SUM(qty_milli), 0) AS q FROM orders "
            "WHERE account_id = ? AND symbol = ? AND side = 'sell' AND status = 'pending'",
            (account_id, symbol),
        )
        free = held - (int(pending["q"]) if pending else 0)
        if qty_milli > free:
            raise ToolError(
                "INSUFFICIENT_SHARES",
                f"cannot sell {what} of {symbol}: {free / 1000:g} free in {account_id} (held {held / 1000:g})",
            )

    def _fill(self, account_id: str, symbol: str, side: str, qty_milli: int, price: int) -> int:
        """Move cash and the position for a fill; returns the cash amount moved."""
        amount = qty_milli * price // 1000
        pos = self.query_one(
            "SELECT qty_milli, avg_cost_minor FROM positions WHERE account_id = ? AND symbol = ?",
            (account_id, symbol),
        )
        if side == "buy":
            self.execute("UPDATE accounts SET cash_minor = cash_minor - ? WHERE account_id = ?", (amount, account_id))
            if pos is None:
                self.execute(
                    "INSERT INTO positions (account_id, symbol, kind, qty_milli, avg_cost_minor) VALUES (?, ?, ?, ?, ?)",
                    (account_id, symbol, self._symbol_kind(symbol), qty_milli, price),
                )
            else:
                old_qty, old_avg = max(int(pos["qty_milli"]), 0), int(pos["avg_cost_minor"])
                new_qty = old_qty + qty_milli
                new_avg = (old_qty * old_avg + qty_milli * price) // new_qty
                self.execute(
                    "UPDATE positions SET qty_milli = ?, avg_cost_minor = ? WHERE account_id = ? AND symbol = ?",
                    (new_qty, new_avg, account_id, symbol),
                )
        else:
            self.execute("UPDATE accounts SET cash_minor = cash_minor + ? WHERE account_id = ?", (amount, account_id))
            self.execute(
                "UPDATE positions SET qty_milli = qty_milli - ? WHERE account_id = ? AND symbol = ?",
                (qty_milli, account_id, symbol),
            )
        return amount

    def _next_order_id(self) -> str:
        return self.mint_id("ord_{:08d}", "order_seq", "orders", "order_id")

    def _record_fund_order(self, account_id: str, fund_code: str, side: str, units_milli: int, nav: int) -> str:
        order_id = self._next_order_id()
        now = self.now_utc()
        self.execute(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?, 'market', NULL, 'day', 'filled', ?, ?, ?)",
            (order_id, account_id, fund_code, side, units_milli, now, now, nav),
        )
        return order_id

    def _order(self, row: dict[str, Any]) -> dict[str, Any]:
        return {
            "order_id": row["order_id"],
            "symbol": row["symbol"],
            "side": row["side"],
            "qty": _display_qty(int(row["qty_milli"]), self._symbol_kind(row["symbol"])),
            "order_type": row["order_type"],
            "limit_price_minor": row["limit_price_minor"],
            "status": row["status"],
            "placed_at": row["placed_at"],
            "filled_at": row["filled_at"],
            "fill_price_minor": row["fill_price_minor"],
        }


def _display_qty(qty_milli: int, kind: str) -> int | float:
    return qty_milli // 1000 if kind == "stock" else round(qty_milli / 1000, 3)
