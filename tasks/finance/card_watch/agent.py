"""The card-watch reference policy: the plan agent plus a money log and the family's tool-path
hooks, and the variants and ablations that must differ through them.

- :meth:`FinanceAgent.pay_bill`: pay a bill now (``OtherPath`` schedules it for its due date);
- :meth:`FinanceAgent.claim_refund`: ask the shop for a refund (``OtherPath`` disputes the card charge);
- :meth:`FinanceAgent.early`: ``Earlier`` sets the reminders and the budget page at the kickoff,
  before being asked;
- :meth:`FinanceAgent.careful`: ``Reckless`` buys without checking the spending cap and unfreezes
  a card frozen for fraud when it is declined.

For a Chinese-speaking persona the ``paraphrase`` variant writes dates, times and amounts the
Chinese way.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from vibelife_env.probes.agent import PlanAgent, oracle_family


class FinanceAgent(PlanAgent):
    """See the module docstring."""

    def log(self, what: str, ref: str, amount: float) -> None:
        """Remember a money-log row (``money.md`` is rewritten from these)."""
        self.memory.setdefault("log", []).append([self.story.kickoff.date().isoformat(), what, ref, amount])

    def write_log(self) -> dict[str, Any]:
        """Rewrite ``money.md``."""
        rows = self.memory.get("log", [])
        lines = ["# Money log", "", "| date | what | reference | amount_cny | status |", "|---|---|---|---|---|"]
        lines += [f"| {d} | {self.t(w)} | {r} | {a:.2f} | done |" for d, w, r, a in rows]
        return self.call("workspace__write_file", path="money.md", content="\n".join(lines) + "\n")

    def pay_card(self):
        """Pay the card's statement balance in full from the current account."""
        s = self.story
        paid = yield self.call(
            "credit_card__make_payment", card_id=s.card_id, amount_minor=s.statement_minor, source_hint=s.checking
        )
        self.memory["card_paid"] = True
        self.log("Card statement paid in full", str(paid.get("payment_id", "card")), s.statement_minor / 100)
        yield self.write_log()

    def pay_bill(self, payee_id: str, amount_minor: int, due: date, memo: str):
        """Pay a bill to a saved payee now; returns the transaction reference."""
        s = self.story
        made = yield self.call(
            "banking__pay_payee", account_id=s.checking, payee_id=payee_id, amount_minor=amount_minor, memo=self.t(memo)
        )
        return str(made.get("tx_id_or_pending_id", "payment"))

    def claim_refund(self, order_id: str, item_id: str, tx_id: str):
        """Ask the shop for the money back; returns the refund reference."""
        made = yield self.call(
            "ecommerce__request_refund",
            order_id=order_id,
            item_id=item_id,
            qty=1,
            reason=self.t("Marked delivered but never received"),
        )
        return str(made.get("refund_id", "refund"))

    def watch_price(self, product_id: str, target_minor: int):
        """Watch a product's price: a price alert."""
        s = self.story
        yield self.call(
            "notification_hub__create_price_alert",
            user_id=s.user_key,
            item_ref=product_id,
            target_price_minor=target_minor,
        )

    def early(self) -> bool:
        """Whether to act before being asked (``Earlier``)."""
        return False

    def careful(self) -> bool:
        """Whether to check limits before acting (``Reckless`` does not)."""
        return True

    def mail_user(self, subject: str, body: str):
        """Mail the user (their own address)."""
        yield self.call("email__send_email", to=self.story.email, subject=self.t(subject), body=self.t(body))


class OtherPathHooks(FinanceAgent):
    """``OtherPath`` through the family's hooks: bills scheduled for their due date, a card dispute
    instead of a refund request."""

    def pay_bill(self, payee_id: str, amount_minor: int, due: date, memo: str):
        s = self.story
        made = yield self.call(
            "banking__pay_payee",
            account_id=s.checking,
            payee_id=payee_id,
            amount_minor=amount_minor,
            memo=self.t(memo),
            scheduled_for=due.isoformat(),
        )
        return str(made.get("tx_id_or_pending_id", "payment"))

    def claim_refund(self, order_id: str, item_id: str, tx_id: str):
        made = yield self.call(
            "credit_card__dispute_transaction", tx_id=tx_id, reason=self.t("Goods not received (marked delivered)")
        )
        return str(made.get("dispute_id", "dispute"))

    def watch_price(self, product_id: str, target_minor: int):
        yield self.call(
            "notification_hub__create_subscription",
            user_id=self.story.user_key,
            source="ecommerce",
            type="price_target",
            target=product_id,
            condition_json=f'{{"below": {target_minor}}}',
        )


class EarlierHooks(FinanceAgent):
    """``Earlier``: the reminders and the budget page at the kickoff."""

    def early(self) -> bool:
        return True


class RecklessHooks(FinanceAgent):
    """``Reckless``: no limit checks."""

    def careful(self) -> bool:
        return False


_ZH_CLOCK = re.compile(r"(?<![\d:])([01]\d|2[0-3]):([0-5]\d)(?![\d:])")


def reword_zh(text: str) -> str:
    """Dates, times and amounts the Chinese way, same facts."""
    out = re.sub(r"\b(20\d\d)-(\d\d)-(\d\d)\b", lambda m: f"{m[1]}年{int(m[2])}月{int(m[3])}日", text)
    out = _ZH_CLOCK.sub(lambda m: f"{int(m[1])}点{m[2]}分", out)
    return re.sub(
        r"\b(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)? CNY\b", lambda m: m[1].replace(",", "") + (m[2] or "") + "元", out
    )


class ParaphraseZh(FinanceAgent):
    """The paraphrase variant for a Chinese-speaking persona."""

    def t(self, text: str) -> str:
        return reword_zh(text)


def family_of(steps: dict[str, list[Any]], story: Any) -> tuple[type, dict[str, type], dict[str, type]]:
    """``(Oracle, ABLATIONS, VARIANTS)`` for one instance, with the family's hooks."""
    oracle, ablations, variants = oracle_family(steps, story, FinanceAgent)
    variants["other_path"] = type("OtherPath", (OtherPathHooks, variants["other_path"]), {})
    variants["earlier"] = type("Earlier", (EarlierHooks, variants["earlier"]), {})
    ablations["reckless"] = type("Reckless", (RecklessHooks, ablations["reckless"]), {})
    if story.extras["lang"] == "zh":
        variants["paraphrase"] = type("Paraphrase", (ParaphraseZh, variants["paraphrase"]), {})
    return oracle, ablations, variants
