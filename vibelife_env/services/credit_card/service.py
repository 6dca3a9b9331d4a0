"""credit_card: a card issuer's back office as seen by the cardholder.

Tool surface: the public ``credit_card_mock`` spec (12 tools). Money is integer minor
units (fen/cents). Cycle closes, interest, late fees and dispute outcomes arrive through
timeline mutations; the tools read cards, statements and unbilled charges, and move money
only through :meth:`make_payment` (statement balance first, then unbilled, never more than
is owed) and statement-credit redemptions, each keeping ``cards`` balances, available
credit, the open statement and the ledgers consistent.

"Today" is the task-local date of the virtual clock; stored instants are UTC with ``Z``.
Ids come from ``_counters``: ``pay_YYYYMMDD_%06d``, ``dsp_YYYYMMDD_%06d``, ``ln_%08d``,
``tx_%08d``, ``rwl_%08d``.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``INVALID_AMOUNT``,
``BAD_REDEMPTION``).

Where the release is lenient: ``list_disputes`` with an unknown ``status_filter`` (e.g.
``"open"``) returns ``BAD_ARG`` listing the accepted statuses instead of the release's empty
list, which would read as "no such disputes"; use ``under_review`` for open disputes.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool

DISPUTE_STATUSES = ("under_review", "approved", "denied", "withdrawn")
DISPUTE_WINDOW_DAYS = 30
RECENT_TX = 5
MAX_STATEMENTS = 60

#: Redemption catalogue: points cost, statement-credit value (minor units) and label.
REDEMPTIONS: dict[str, dict[str, Any]] = {
    "STMT_CREDIT_50": {"points": 5000, "value_minor": 5000, "label": "¥50 statement credit"},
    "STMT_CREDIT_200": {"points": 20000, "value_minor": 20000, "label": "¥200 statement credit"},
    "MILES_AIR_CHINA": {"points": 10000, "value_minor": 0, "label": "Convert 10000 points to Air China miles"},
    "GIFT_JD_100": {"points": 12000, "value_minor": 10000, "label": "¥100 JD.com e-gift card"},
}
_STATEMENT_CREDITS = ("STMT_CREDIT_50", "STMT_CREDIT_200")

_SUMMARY_FIELDS = (
    "card_id",
    "issuer",
    "product_name",
    "masked_no",
    "type",
    "credit_limit_minor",
    "available_credit_minor",
    "statement_balance_minor",
    "min_payment_due_minor",
    "due_date",
    "status",
)
_STATEMENT_FIELDS = (
    "statement_id",
    "period_start",
    "period_end",
    "opening_balance_minor",
    "new_charges_minor",
    "payments_minor",
    "closing_balance_minor",
    "min_payment_due_minor",
    "due_date",
    "status",
)
_LINE_COLUMNS = "posted_at, amount_minor, merchant_name, mcc, category, kind"


class CreditCardService(Service):
    """Credit cards, statements, unbilled charges, payments, disputes and reward points."""

    name = "credit_card"
    SCHEMA = schema_from(__file__)

    # -------------------------------------------------------------------- cards
    @tool(read_only=True)
    def list_cards(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's credit cards, ordered by card id.

        Each summary has the masked number, credit limit, available credit, statement
        balance, minimum payment due, due date and status (active, frozen, expired,
        closed). Money is integer minor units (fen/cents).

        Args:
            user_id: The cardholder, e.g. ``usr_li_wei``.
        """
        rows = self.query("SELECT * FROM cards WHERE user_id = ? ORDER BY card_id", (user_id,))
        return [_summary(r) for r in rows]

    @tool(read_only=True)
    def get_card(self, card_id: str) -> dict[str, Any]:
        """Return one card in full: balances, billing cycle, APR, points and recent activity.

        ``unbilled_balance_minor`` is owed but not yet on a statement; ``interest_apr_bp``
        is the APR in basis points; ``recent_transactions`` holds the 5 newest lines across
        unbilled charges and statements (newest first, ``statement_id`` null when unbilled).

        Args:
            card_id: The card id, e.g. ``card_cmb_white``.
        """
        row = self._card_row(card_id)
        recent = self.query(
            f"SELECT tx_id AS id, {_LINE_COLUMNS}, NULL AS statement_id FROM unbilled_transactions "
            "WHERE card_id = ? UNION ALL "
            f"SELECT l.line_id AS id, l.posted_at, l.amount_minor, l.merchant_name, l.mcc, l.category, l.kind, "
            "l.statement_id FROM statement_lines l JOIN statements s ON s.statement_id = l.statement_id "
            "WHERE s.card_id = ? ORDER BY posted_at DESC, id DESC LIMIT ?",
            (card_id, card_id, RECENT_TX),
        )
        points = self.query_one("SELECT points_balance FROM rewards_balances WHERE card_id = ?", (card_id,))
        out = {"card_id": row["card_id"], "user_id": row["user_id"], **_summary(row)}
        out["unbilled_balance_minor"] = int(row["unbilled_balance_minor"])
        for key in ("cycle_start_day", "cycle_end_day", "grace_period_days", "interest_apr_bp"):
            out[key] = int(row[key])
        out["points_balance"] = int(points["points_balance"]) if points else 0
        out["recent_transactions"] = recent
        return out

    @tool
    def freeze_card(self, card_id: str) -> dict[str, Any]:
        """Freeze a card so new charges are rejected; payments still work (idempotent).

        Returns the updated card summary. Expired or closed cards cannot be frozen.

        Args:
            card_id: The card to freeze.
        """
        return self._set_status(card_id, "frozen")

    @tool
    def unfreeze_card(self, card_id: str) -> dict[str, Any]:
        """Reactivate a frozen card (idempotent on an active card).

        Returns the updated card summary. Expired or closed cards cannot be reactivated.

        Args:
            card_id: The card to unfreeze.
        """
        return self._set_status(card_id, "active")

    # --------------------------------------------------------------- statements
    @tool(read_only=True)
    def list_statements(self, card_id: str, limit: int = 12) -> list[dict[str, Any]]:
        """List a card's monthly statements, newest period first.

        Each has the period, opening balance, new charges, payments, closing balance,
        minimum payment due, due date and status (open, paid, overdue, partial).

        Args:
            card_id: The card whose statements to list.
            limit: Maximum statements (default 12, clamped to 1..60).
        """
        self._card_row(card_id)
        rows = self.query(
            "SELECT * FROM statements WHERE card_id = ? ORDER BY period_end DESC, statement_id DESC LIMIT ?",
            (card_id, max(1, min(limit, MAX_STATEMENTS))),
        )
        return [_statement(r) for r in rows]

    @tool(read_only=True)
    def get_statement(self, statement_id: str) -> dict[str, Any]:
        """Return one statement's header and its lines (oldest first).

        Line ``kind`` is purchase, refund, payment, fee, interest or adjustment; charges
        are positive, refunds and payments negative.

        Args:
            statement_id: The statement id.
        """
        row = self.require(
            "SELECT * FROM statements WHERE statement_id = ?",
            (statement_id,),
            "STATEMENT_NOT_FOUND",
            f"no statement {statement_id!r}",
        )
        out = {"statement_id": row["statement_id"], "card_id": row["card_id"], **_statement(row)}
        out["statement_lines"] = self.query(
            f"SELECT line_id, {_LINE_COLUMNS} FROM statement_lines WHERE statement_id = ? ORDER BY posted_at, line_id",
            (statement_id,),
        )
        return out

    @tool(read_only=True)
    def list_unbilled(self, card_id: str) -> list[dict[str, Any]]:
        """List a card's transactions not yet on a statement, oldest first.

        Same line shape as get_statement's lines, keyed by ``tx_id``.

        Args:
            card_id: The card whose unbilled transactions to list.
        """
        self._card_row(card_id)
        return self.query(
            f"SELECT tx_id, {_LINE_COLUMNS} FROM unbilled_transactions WHERE card_id = ? ORDER BY posted_at, tx_id",
            (card_id,),
        )

    # ----------------------------------------------------------------- payments
    @tool
    def make_payment(self, card_id: str, amount_minor: int, source_hint: str) -> dict[str, Any]:
        """Pay down a card: the statement balance first, then the unbilled balance.

        Releases the same amount of available credit (up to the limit), lowers the minimum
        payment due, and marks the open statement partial or paid. Works on frozen cards.
        Rejects amounts above the total outstanding (OVERPAYMENT).

        Args:
            card_id: The card to pay.
            amount_minor: Amount in minor units (fen/cents), a positive integer.
            source_hint: Where the money comes from, e.g. ``acct_checking_main`` (recorded, not validated).
        """
        if amount_minor <= 0:
            raise ToolError("BAD_ARG", f"amount_minor must be a positive integer, got {amount_minor}")
        card = self._card_row(card_id)
        statement_balance = int(card["statement_balance_minor"])
        unbilled_balance = int(card["unbilled_balance_minor"])
        outstanding = max(statement_balance, 0) + max(unbilled_balance, 0)
        if amount_minor > outstanding:
            raise ToolError(
                "OVERPAYMENT", f"amount_minor {amount_minor} exceeds the {outstanding} outstanding on {card_id}"
            )
        to_statement = min(amount_minor, max(statement_balance, 0))
        to_unbilled = amount_minor - to_statement
        new_statement = statement_balance - to_statement
        new_unbilled = unbilled_balance - to_unbilled
        new_min_due = max(0, min(int(card["min_payment_due_minor"]) - to_statement, new_statement))
        available = min(int(card["available_credit_minor"]) + amount_minor, int(card["credit_limit_minor"]))

        payment_id = self.mint_id(f"pay_{self._day()}_{{:06d}}", "payment_seq", "payments", "payment_id")
        posted_at = self.now_utc()
        self.execute(
            "INSERT INTO payments VALUES (?, ?, ?, ?, ?, ?, ?)",
            (payment_id, card_id, posted_at, amount_minor, source_hint, to_statement, to_unbilled),
        )
        self.execute(
            "UPDATE cards SET statement_balance_minor = ?, unbilled_balance_minor = ?, min_payment_due_minor = ?, "
            "available_credit_minor = ? WHERE card_id = ?",
            (new_statement, new_unbilled, new_min_due, available, card_id),
        )
        if to_statement:
            self._apply_to_statement(card_id, to_statement, source_hint, posted_at)
        return {
            "payment_id": payment_id,
            "applied_to_statement_minor": to_statement,
            "applied_to_unbilled_minor": to_unbilled,
            "new_outstanding_minor": new_statement + new_unbilled,
        }

    # ----------------------------------------------------------------- disputes
    @tool
    def dispute_transaction(self, tx_id: str, reason: str) -> dict[str, Any]:
        """Open a dispute on a transaction (an unbilled ``tx_id`` or a statement ``line_id``).

        The dispute starts ``under_review`` with an expected resolution 30 days from today;
        the issuer's decision arrives later. Only one open dispute per transaction.

        Args:
            tx_id: The unbilled transaction id or billed line id to dispute.
            reason: Why the charge is disputed (e.g. duplicate charge, goods not received).
        """
        if not reason.strip():
            raise ToolError("BAD_ARG", "reason must not be empty")
        found = self.query_one("SELECT card_id FROM unbilled_transactions WHERE tx_id = ?", (tx_id,))
        if found is None:
            found = self.query_one(
                "SELECT s.card_id FROM statement_lines l JOIN statements s ON s.statement_id = l.statement_id "
                "WHERE l.line_id = ?",
                (tx_id,),
            )
        if found is None:
            raise ToolError("TX_NOT_FOUND", f"no unbilled transaction or statement line {tx_id!r}")
        open_dispute = self.query_one(
            "SELECT dispute_id FROM disputes WHERE tx_id = ? AND status = 'under_review'", (tx_id,)
        )
        if open_dispute:
            raise ToolError(
                "DISPUTE_ALREADY_OPEN",
                f"transaction {tx_id} already has dispute {open_dispute['dispute_id']} under review",
            )
        dispute_id = self.mint_id(f"dsp_{self._day()}_{{:06d}}", "dispute_seq", "disputes", "dispute_id")
        expected = (self.now().date() + timedelta(days=DISPUTE_WINDOW_DAYS)).isoformat()
        self.execute(
            "INSERT INTO disputes (dispute_id, card_id, tx_id, reason, status, opened_at, expected_resolution_date) "
            "VALUES (?, ?, ?, ?, 'under_review', ?, ?)",
            (dispute_id, found["card_id"], tx_id, reason, self.now_utc(), expected),
        )
        return {"dispute_id": dispute_id, "status": "under_review", "expected_resolution_date": expected}

    @tool(read_only=True)
    def list_disputes(self, card_id: str, status_filter: str | None = None) -> list[dict[str, Any]]:
        """List a card's disputes, newest first.

        Args:
            card_id: The card whose disputes to list.
            status_filter: Only this status: under_review, approved, denied or withdrawn.
        """
        self._card_row(card_id)
        if status_filter is not None and status_filter not in DISPUTE_STATUSES:
            raise ToolError(
                "BAD_ARG", f"status_filter must be one of {', '.join(DISPUTE_STATUSES)}, got {status_filter!r}"
            )
        sql, params = "SELECT * FROM disputes WHERE card_id = ?", [card_id]
        if status_filter:
            sql += " AND status = ?"
            params.append(status_filter)
        return self.query(sql + " ORDER BY opened_at DESC, dispute_id DESC", params)

    # ------------------------------------------------------------------ rewards
    @tool(read_only=True)
    def get_rewards(self, card_id: str) -> dict[str, Any]:
        """Return a card's reward points, the 10 latest ledger entries and the redemption catalogue.

        ``redemption_options`` lists the ``redemption_code`` values redeem_rewards accepts,
        with their points cost and value in minor units.

        Args:
            card_id: The card whose rewards to read.
        """
        self._card_row(card_id)
        bal = self.query_one("SELECT * FROM rewards_balances WHERE card_id = ?", (card_id,))
        recent = self.query(
            "SELECT posted_at, kind, delta, balance_after, note FROM rewards_ledger WHERE card_id = ? "
            "ORDER BY posted_at DESC, ledger_id DESC LIMIT 10",
            (card_id,),
        )
        return {
            "card_id": card_id,
            "points_balance": int(bal["points_balance"]) if bal else 0,
            "ytd_earned": int(bal["ytd_earned"]) if bal else 0,
            "lifetime_earned": int(bal["lifetime_earned"]) if bal else 0,
            "updated_at": bal["updated_at"] if bal else self.now_utc(),
            "recent_earnings": recent,
            "redemption_options": [{"redemption_code": code, **meta} for code, meta in REDEMPTIONS.items()],
        }

    @tool
    def redeem_rewards(self, card_id: str, redemption_code: str) -> dict[str, Any]:
        """Spend reward points on a catalogue item from get_rewards.

        Deducts the points and records a ledger entry; statement-credit codes also post a
        credit (negative adjustment) to the card's unbilled balance and free the same
        amount of available credit.

        Args:
            card_id: The card whose points to spend.
            redemption_code: A catalogue code, e.g. ``STMT_CREDIT_50``.
        """
        card = self._card_row(card_id)
        code = redemption_code.strip().upper()
        meta = REDEMPTIONS.get(code)
        if meta is None:
            raise ToolError("BAD_ARG", f"unknown redemption_code {redemption_code!r}; valid: {', '.join(REDEMPTIONS)}")
        bal = self.query_one("SELECT points_balance FROM rewards_balances WHERE card_id = ?", (card_id,))
        current = int(bal["points_balance"]) if bal else 0
        cost = int(meta["points"])
        if current < cost:
            raise ToolError("INSUFFICIENT_POINTS", f"{code} costs {cost} points but {card_id} has {current}")
        now = self.now_utc()
        new_balance = current - cost
        self.execute(
            "UPDATE rewards_balances SET points_balance = ?, updated_at = ? WHERE card_id = ?",
            (new_balance, now, card_id),
        )
        ledger_id = self.mint_id("rwl_{:08d}", "ledger_seq", "rewards_ledger", "ledger_id")
        self.execute(
            "INSERT INTO rewards_ledger VALUES (?, ?, ?, 'redeem', ?, ?, ?)",
            (ledger_id, card_id, now, -cost, new_balance, f"redeem:{code}"),
        )
        if code in _STATEMENT_CREDITS:
            self._post_credit(card, int(meta["value_minor"]), meta["label"], now)
        return {
            "card_id": card_id,
            "redemption_code": code,
            "points_spent": cost,
            "points_balance": new_balance,
            "value_minor": int(meta["value_minor"]),
            "label": meta["label"],
            "ledger_id": ledger_id,
        }

    # ------------------------------------------------------------------ helpers
    def _card_row(self, card_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM cards WHERE card_id = ?", (card_id,), "CARD_NOT_FOUND", f"no card {card_id!r}"
        )

    def _day(self) -> str:
        return self.now().strftime("%Y%m%d")

    def _set_status(self, card_id: str, status: str) -> dict[str, Any]:
        card = self._card_row(card_id)
        if card["status"] in ("expired", "closed"):
            raise ToolError("BAD_ARG", f"card {card_id} is {card['status']} and cannot be set to {status}")
        self.execute("UPDATE cards SET status = ? WHERE card_id = ?", (status, card_id))
        return _summary(self._card_row(card_id))

    def _apply_to_statement(self, card_id: str, amount: int, source_hint: str, posted_at: str) -> None:
        """Record a payment on the latest unpaid statement and update its status."""
        stmt = self.query_one(
            "SELECT * FROM statements WHERE card_id = ? AND status IN ('open', 'partial', 'overdue') "
            "ORDER BY period_end DESC, statement_id DESC LIMIT 1",
            (card_id,),
        )
        if stmt is None:
            return
        payments = int(stmt["payments_minor"]) + amount
        closing = max(int(stmt["closing_balance_minor"]) - amount, 0)
        status = "paid" if closing == 0 else "partial"
        self.execute(
            "UPDATE statements SET payments_minor = ?, closing_balance_minor = ?, status = ? WHERE statement_id = ?",
            (payments, closing, status, stmt["statement_id"]),
        )
        line_id = self.mint_id("ln_{:08d}", "line_seq", "statement_lines", "line_id")
        self.execute(
            "INSERT INTO statement_lines VALUES (?, ?, ?, ?, ?, NULL, 'payment', 'payment')",
            (line_id, stmt["statement_id"], posted_at, -amount, f"Payment ({source_hint or 'unspecified'})"),
        )

    def _post_credit(self, card: dict[str, Any], value_minor: int, label: str, posted_at: str) -> None:
        """Post a statement credit as a negative unbilled adjustment."""
        tx_id = self.mint_id("tx_{:08d}", "tx_seq", "unbilled_transactions", "tx_id")
        self.execute(
            "INSERT INTO unbilled_transactions VALUES (?, ?, ?, ?, ?, NULL, 'rewards', 'adjustment')",
            (tx_id, card["card_id"], posted_at, -value_minor, label),
        )
        available = min(int(card["available_credit_minor"]) + value_minor, int(card["credit_limit_minor"]))
        self.execute(
            "UPDATE cards SET unbilled_balance_minor = unbilled_balance_minor - ?, available_credit_minor = ? "
            "WHERE card_id = ?",
            (value_minor, available, card["card_id"]),
        )


def _summary(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in _SUMMARY_FIELDS}


def _statement(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in _STATEMENT_FIELDS}
