"""banking: a retail bank with accounts, a ledger, payees and scheduled payments.

Tool surface: the public ``banking_mock`` spec (11 tools). Money is integer minor units
(fen/cents). Every debit goes through :meth:`BankingService._post`, which refuses frozen
accounts and overdrafts, updates the balance and appends a ledger row carrying
``balance_after_minor``; a failing call is rolled back whole by the framework, so a
transfer never moves only one leg.

"Today" is the task-local date of the virtual clock; ``posted_at`` stamps are UTC with
``Z``, and every date an agent gives or reads (``since``, ``until``, the balance trend) is a
task-local date. Future-dated payments are parked in ``pending_payments`` and, as in the public
server, are posted by timeline mutations rather than swept by the service. Ids come
from ``_counters`` (``tx_YYYYMMDD_%08d``, ``pay_%06d``, ``sch_%06d``, ``pend_%06d``).

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``BAD_AMOUNT``,
``BAD_DATE``, ``BAD_FREQ``).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool

TX_KINDS = ("deposit", "withdrawal", "transfer_in", "transfer_out", "payment", "fee", "interest")
FREQS = ("daily", "weekly", "monthly")
SCHEDULE_STATUSES = ("active", "paused", "cancelled", "ended")
PENDING_STATUSES = ("pending", "posted", "cancelled")
MAX_LIMIT = 500


class BankingService(Service):
    """Bank accounts, transactions, same-user transfers, payees and (recurring) payments."""

    name = "banking"
    SCHEMA = schema_from(__file__)

    # ----------------------------------------------------------------- accounts
    @tool(read_only=True)
    def list_accounts(self, user_id: str) -> list[dict[str, Any]]:
        """List all bank accounts owned by a user with current balance and frozen state.

        Ordered by opening date. Balances are integer minor units (fen/cents).

        Args:
            user_id: The account owner, e.g. ``usr_li_wei``.
        """
        _nonempty("user_id", user_id)
        rows = self.query(
            "SELECT * FROM accounts WHERE user_id = ? ORDER BY opened_at, account_id",
            (user_id,),
        )
        return [_account(r) for r in rows]

    @tool(read_only=True)
    def get_account(self, account_id: str) -> dict[str, Any]:
        """Return one account in full plus a 7-day daily balance trend.

        ``balance_trend_7d`` has one entry per day (oldest first, ending today): the
        balance after the last transaction posted on or before that day (0 before any).

        Args:
            account_id: The account id, e.g. ``acct_checking_main``.
        """
        row = self._account_row(account_id)
        out = {"account_id": row["account_id"], "user_id": row["user_id"], **_account(row)}
        today = self._today()
        rows = self._dated(self.query("SELECT * FROM transactions WHERE account_id = ?", (account_id,)))
        trend = []
        for back in range(6, -1, -1):
            day = today - timedelta(days=back)
            last = [r for d, r in rows if d <= day]
            trend.append(
                {"date": day.isoformat(), "balance_minor": int(last[-1]["balance_after_minor"]) if last else 0}
            )
        out["balance_trend_7d"] = trend
        return out

    @tool(read_only=True)
    def list_transactions(
        self,
        account_id: str,
        since: str | None = None,
        until: str | None = None,
        limit: int = 50,
        kind_filter: str | None = None,
    ) -> list[dict[str, Any]]:
        """List an account's transactions, newest first.

        ``amount_minor`` is signed from the account's side (positive = inflow).

        Args:
            account_id: The account whose ledger to read.
            since: ``YYYY-MM-DD``; keep transactions posted on or after this date.
            until: ``YYYY-MM-DD``; keep transactions posted on or before this date.
            limit: Maximum rows (default 50, clamped to 500).
            kind_filter: Only this kind: deposit, withdrawal, transfer_in, transfer_out, payment, fee or interest.
        """
        self._account_row(account_id)
        if limit < 1:
            raise ToolError("BAD_ARG", f"limit must be at least 1, got {limit}")
        if kind_filter is not None and kind_filter not in TX_KINDS:
            raise ToolError("BAD_ARG", f"kind_filter must be one of {', '.join(TX_KINDS)}, got {kind_filter!r}")
        first = _parse_date("since", since) if since else None
        last = _parse_date("until", until) if until else None
        sql = "SELECT * FROM transactions WHERE account_id = ?"
        params: list[Any] = [account_id]
        if kind_filter:
            sql += " AND kind = ?"
            params.append(kind_filter)
        kept = [
            r
            for d, r in self._dated(self.query(sql, params))
            if (first is None or d >= first) and (last is None or d <= last)
        ]
        return [_transaction(r) for r in reversed(kept)][: min(limit, MAX_LIMIT)]

    # ----------------------------------------------------------------- transfers
    @tool
    def transfer(
        self, from_account_id: str, to_account_id: str, amount_minor: int, memo: str | None = None
    ) -> dict[str, Any]:
        """Move money between two accounts of the same user, atomically.

        Fails with ACCOUNT_FROZEN when the source is frozen, INSUFFICIENT_FUNDS when it
        would go below zero and CROSS_USER_TRANSFER across owners; nothing moves then.
        For external recipients use add_payee + pay_payee.

        Args:
            from_account_id: The account debited.
            to_account_id: The account credited (same owner, different account).
            amount_minor: Amount in minor units (fen/cents), a positive integer.
            memo: Optional note stored on both ledger rows.
        """
        if from_account_id == to_account_id:
            raise ToolError("BAD_ARG", f"from_account_id and to_account_id are both {from_account_id!r}")
        _positive(amount_minor)
        src = self._account_row(from_account_id)
        dst = self._account_row(to_account_id)
        if src["user_id"] != dst["user_id"]:
            raise ToolError(
                "CROSS_USER_TRANSFER",
                f"{from_account_id} and {to_account_id} belong to different users; use add_payee + pay_payee",
            )
        out = self._post(from_account_id, -amount_minor, "transfer_out", dst["name"], memo)
        into = self._post(to_account_id, amount_minor, "transfer_in", src["name"], memo)
        return {
            "tx_id": out["tx_id"],
            "from_account_id": from_account_id,
            "to_account_id": to_account_id,
            "amount_minor": amount_minor,
            "from_new_balance_minor": out["balance_after_minor"],
            "to_new_balance_minor": into["balance_after_minor"],
            "posted_at": out["posted_at"],
        }

    # -------------------------------------------------------------------- payees
    @tool(read_only=True)
    def list_payees(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's saved external payees, oldest first; account numbers are masked.

        Args:
            user_id: The payee owner.
        """
        _nonempty("user_id", user_id)
        rows = self.query("SELECT * FROM payees WHERE user_id = ? ORDER BY added_at, payee_id", (user_id,))
        return [_payee(r) for r in rows]

    @tool
    def add_payee(self, user_id: str, name: str, account_no: str, bank_name: str) -> dict[str, Any]:
        """Save a new external payee; the full account number is stored, only a masked form is returned.

        Args:
            user_id: The user saving the payee.
            name: Payee display name.
            account_no: The payee's full account number.
            bank_name: The payee's bank.
        """
        for arg, value in (("user_id", user_id), ("name", name), ("account_no", account_no), ("bank_name", bank_name)):
            _nonempty(arg, value)
        payee_id = f"pay_{self.next_seq('payee_seq'):06d}"
        while self.query_one("SELECT 1 FROM payees WHERE payee_id = ?", (payee_id,)):
            payee_id = f"pay_{self.next_seq('payee_seq'):06d}"
        self.execute(
            "INSERT INTO payees VALUES (?, ?, ?, ?, ?, ?, ?)",
            (payee_id, user_id, name, account_no, _mask(account_no), bank_name, self.now_utc()),
        )
        return _payee(self._payee_row(payee_id))

    @tool
    def pay_payee(
        self,
        account_id: str,
        payee_id: str,
        amount_minor: int,
        memo: str | None = None,
        scheduled_for: str | None = None,
    ) -> dict[str, Any]:
        """Pay a saved payee from an account, now or on a future date.

        With ``scheduled_for`` after today the payment is parked as a pending payment
        (status ``scheduled``) and nothing is debited yet; otherwise the account is debited
        immediately (status ``posted``), failing on a frozen account or insufficient funds.

        Args:
            account_id: The account debited.
            payee_id: A payee of the same user as the account.
            amount_minor: Amount in minor units (fen/cents), a positive integer.
            memo: Optional note on the payment.
            scheduled_for: Optional ``YYYY-MM-DD`` execution date; today or earlier pays now.
        """
        _positive(amount_minor)
        account = self._account_row(account_id)
        payee = self._owned_payee(payee_id, account)
        when = _parse_date("scheduled_for", scheduled_for) if scheduled_for else None
        if when is not None and when > self._today():
            pending_id = f"pend_{self.next_seq('pending_seq'):06d}"
            while self.query_one("SELECT 1 FROM pending_payments WHERE pending_id = ?", (pending_id,)):
                pending_id = f"pend_{self.next_seq('pending_seq'):06d}"
            self.execute(
                "INSERT INTO pending_payments VALUES (?, ?, ?, ?, ?, ?, 'pending')",
                (pending_id, account_id, payee_id, amount_minor, memo, scheduled_for),
            )
            return {
                "pending_id": pending_id,
                "tx_id_or_pending_id": pending_id,
                "status": "scheduled",
                "scheduled_for": scheduled_for,
                "amount_minor": amount_minor,
            }
        posted = self._post(account_id, -amount_minor, "payment", payee["name"], memo)
        return {
            "tx_id": posted["tx_id"],
            "tx_id_or_pending_id": posted["tx_id"],
            "status": "posted",
            "amount_minor": amount_minor,
            "balance_after_minor": posted["balance_after_minor"],
        }

    @tool(read_only=True)
    def list_pending_payments(
        self,
        user_id: str,
        account_id: str | None = None,
        status_filter: str | None = None,
        limit: int = 50,
    ) -> list[dict[str, Any]]:
        """List a user's future-dated one-off payments, earliest scheduled date first.

        Args:
            user_id: The owner of the source accounts.
            account_id: Only payments from this account.
            status_filter: Only this status: pending, posted or cancelled.
            limit: Maximum rows (default 50, clamped to 500).
        """
        _nonempty("user_id", user_id)
        if status_filter is not None and status_filter not in PENDING_STATUSES:
            raise ToolError(
                "BAD_ARG", f"status_filter must be one of {', '.join(PENDING_STATUSES)}, got {status_filter!r}"
            )
        if limit < 1:
            raise ToolError("BAD_ARG", f"limit must be at least 1, got {limit}")
        sql = (
            "SELECT pp.pending_id, pp.account_id, pp.payee_id, p.name AS payee_name, pp.amount_minor, "
            "pp.memo, pp.scheduled_for, pp.status FROM pending_payments pp "
            "JOIN accounts a ON a.account_id = pp.account_id JOIN payees p ON p.payee_id = pp.payee_id "
            "WHERE a.user_id = ?"
        )
        params: list[Any] = [user_id]
        if account_id:
            self._account_row(account_id)
            sql += " AND pp.account_id = ?"
            params.append(account_id)
        if status_filter:
            sql += " AND pp.status = ?"
            params.append(status_filter)
        sql += " ORDER BY pp.scheduled_for, pp.pending_id LIMIT ?"
        params.append(min(limit, MAX_LIMIT))
        return self.query(sql, params)

    # ----------------------------------------------------------------- recurring
    @tool
    def schedule_recurring(
        self,
        account_id: str,
        payee_id: str,
        amount_minor: int,
        freq: str,
        start_date: str,
        end_date: str | None = None,
    ) -> dict[str, Any]:
        """Schedule a recurring debit from an account to a payee; the first run is on start_date.

        Args:
            account_id: The account to debit on each run.
            payee_id: A payee of the same user as the account.
            amount_minor: Amount per run in minor units (fen/cents), a positive integer.
            freq: One of daily, weekly, monthly.
            start_date: ``YYYY-MM-DD`` of the first run.
            end_date: Optional ``YYYY-MM-DD`` of the last possible run (on or after start_date).
        """
        _positive(amount_minor)
        if freq not in FREQS:
            raise ToolError("BAD_ARG", f"freq must be one of {', '.join(FREQS)}, got {freq!r}")
        start = _parse_date("start_date", start_date)
        if end_date and _parse_date("end_date", end_date) < start:
            raise ToolError("BAD_ARG", f"end_date {end_date} is before start_date {start_date}")
        account = self._account_row(account_id)
        self._owned_payee(payee_id, account)
        schedule_id = f"sch_{self.next_seq('schedule_seq'):06d}"
        while self.query_one("SELECT 1 FROM recurring_payments WHERE schedule_id = ?", (schedule_id,)):
            schedule_id = f"sch_{self.next_seq('schedule_seq'):06d}"
        self.execute(
            "INSERT INTO recurring_payments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active')",
            (
                schedule_id,
                account["user_id"],
                account_id,
                payee_id,
                amount_minor,
                freq,
                start_date,
                end_date,
                start_date,
            ),
        )
        return {
            "schedule_id": schedule_id,
            "next_run_date": start_date,
            "amount_minor": amount_minor,
            "freq": freq,
            "status": "active",
        }

    @tool
    def cancel_recurring(self, schedule_id: str) -> dict[str, Any]:
        """Cancel a recurring payment schedule (idempotent).

        Args:
            schedule_id: The schedule to cancel, e.g. ``sch_000001``.
        """
        self.require(
            "SELECT 1 FROM recurring_payments WHERE schedule_id = ?",
            (schedule_id,),
            "SCHEDULE_NOT_FOUND",
            f"no recurring schedule {schedule_id!r}",
        )
        self.execute("UPDATE recurring_payments SET status = 'cancelled' WHERE schedule_id = ?", (schedule_id,))
        return {"schedule_id": schedule_id, "status": "cancelled"}

    @tool(read_only=True)
    def list_recurring(self, user_id: str, status_filter: str | None = None) -> list[dict[str, Any]]:
        """List a user's recurring payment schedules, soonest next run first.

        Args:
            user_id: The schedule owner.
            status_filter: Only this status: active, paused, cancelled or ended.
        """
        _nonempty("user_id", user_id)
        if status_filter is not None and status_filter not in SCHEDULE_STATUSES:
            raise ToolError(
                "BAD_ARG", f"status_filter must be one of {', '.join(SCHEDULE_STATUSES)}, got {status_filter!r}"
            )
        sql = (
            "SELECT r.schedule_id, r.account_id, r.payee_id, p.name AS payee_name, r.amount_minor, r.freq, "
            "r.next_run_date, r.status FROM recurring_payments r LEFT JOIN payees p ON p.payee_id = r.payee_id "
            "WHERE r.user_id = ?"
        )
        params: list[Any] = [user_id]
        if status_filter:
            sql += " AND r.status = ?"
            params.append(status_filter)
        return self.query(sql + " ORDER BY r.next_run_date, r.schedule_id", params)

    # ------------------------------------------------------------------ helpers
    def _today(self) -> date:
        return self.now().date()

    def _dated(self, rows: list[dict[str, Any]]) -> list[tuple[date, dict[str, Any]]]:
        """``rows`` oldest first, each with its task-local posting date: the stamps are UTC, and
        ``since``/``until`` and the trend's days are the user's dates (a payment made at 07:00 in
        Shanghai is posted the day before in UTC)."""
        zone = self.tz()
        out = []
        for r in rows:
            stamp = datetime.fromisoformat(str(r["posted_at"]).replace("Z", "+00:00"))
            day = stamp.astimezone(zone).date() if stamp.tzinfo else stamp.date()
            out.append((stamp.astimezone(UTC) if stamp.tzinfo else stamp.replace(tzinfo=UTC), str(r["tx_id"]), day, r))
        out.sort(key=lambda x: (x[0], x[1]))
        return [(day, r) for _, _, day, r in out]

    def _account_row(self, account_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM accounts WHERE account_id = ?",
            (account_id,),
            "ACCOUNT_NOT_FOUND",
            f"no account {account_id!r}",
        )

    def _payee_row(self, payee_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM payees WHERE payee_id = ?", (payee_id,), "PAYEE_NOT_FOUND", f"no payee {payee_id!r}"
        )

    def _owned_payee(self, payee_id: str, account: dict[str, Any]) -> dict[str, Any]:
        payee = self._payee_row(payee_id)
        if payee["user_id"] != account["user_id"]:
            raise ToolError(
                "PAYEE_NOT_FOUND", f"payee {payee_id!r} does not belong to the owner of {account['account_id']}"
            )
        return payee

    def _post(
        self, account_id: str, amount_minor: int, kind: str, counterparty: str | None, memo: str | None
    ) -> dict[str, Any]:
        """Apply a signed amount to an account and append the ledger row."""
        account = self._account_row(account_id)
        balance = int(account["balance_minor"])
        if amount_minor < 0:
            if account["frozen"]:
                raise ToolError("ACCOUNT_FROZEN", f"account {account_id} is frozen")
            if balance + amount_minor < 0:
                raise ToolError(
                    "INSUFFICIENT_FUNDS",
                    f"account {account_id} holds {balance} but {-amount_minor} was requested",
                )
        new_balance = balance + amount_minor
        day = self._today().strftime("%Y%m%d")
        tx_id = f"tx_{day}_{self.next_seq('tx_seq'):08d}"
        while self.query_one("SELECT 1 FROM transactions WHERE tx_id = ?", (tx_id,)):
            tx_id = f"tx_{day}_{self.next_seq('tx_seq'):08d}"
        posted_at = self.now_utc()
        self.execute("UPDATE accounts SET balance_minor = ? WHERE account_id = ?", (new_balance, account_id))
        self.execute(
            "INSERT INTO transactions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (tx_id, account_id, posted_at, amount_minor, kind, counterparty, memo, new_balance),
        )
        return {"tx_id": tx_id, "posted_at": posted_at, "balance_after_minor": new_balance}


def _nonempty(name: str, value: str) -> None:
    if not value.strip():
        raise ToolError("BAD_ARG", f"{name} must not be empty")


def _positive(amount_minor: int) -> None:
    if amount_minor <= 0:
        raise ToolError("BAD_ARG", f"amount_minor must be a positive integer, got {amount_minor}")


def _parse_date(name: str, value: str) -> date:
    try:
        if len(value) == 10:
            return date.fromisoformat(value)
    except ValueError:
        pass
    raise ToolError("BAD_ARG", f"{name} must be YYYY-MM-DD, got {value!r}")


def _mask(account_no: str) -> str:
    s = account_no.strip()
    return "*" * len(s) if len(s) <= 4 else "*" * (len(s) - 4) + s[-4:]


def _account(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "account_id": row["account_id"],
        "type": row["type"],
        "name": row["name"],
        "balance_minor": int(row["balance_minor"]),
        "currency": row["currency"],
        "opened_at": row["opened_at"],
        "frozen": bool(row["frozen"]),
    }


def _transaction(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "tx_id": row["tx_id"],
        "posted_at": row["posted_at"],
        "amount_minor": int(row["amount_minor"]),
        "kind": row["kind"],
        "counterparty": row["counterparty"],
        "memo": row["memo"],
        "balance_after_minor": int(row["balance_after_minor"]),
    }


def _payee(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "payee_id": row["payee_id"],
        "name": row["name"],
        "bank_name": row["bank_name"],
        "account_no_masked": row["account_no_masked"],
        "added_at": row["added_at"],
    }
