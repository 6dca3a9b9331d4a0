"""Reusable check predicates that several tasks share."""

from __future__ import annotations

from typing import Any

MAIL_SENDS = ("email__send_email", "email__reply_email", "email__forward_email")
MAIL_READS = ("email__read_email", "email__search_emails", "email__get_emails")


def read_mail_before_sending(ctx: Any, max_failed_share: float = 0.25) -> bool:
    """Mail was read before any was sent, and fewer than ``max_failed_share`` of all calls failed."""
    calls = ctx.calls()
    names = [c["name"] for c in calls]
    sends = [i for i, n in enumerate(names) if n in MAIL_SENDS]
    reads = [i for i, n in enumerate(names) if n in MAIL_READS]
    failed = sum(1 for c in calls if not c["ok"])
    return bool(sends) and bool(reads) and reads[0] < sends[0] and failed < max_failed_share * len(calls)
