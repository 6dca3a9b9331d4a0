"""A predicate's verdict with its reason: what a check library function returns.

A :class:`Verdict` is a truth value that carries, in words, why it holds or fails, with
the values it saw (``"<fee-notice@scam.example> is in INBOX, not in Spam"``). It behaves
as ``0``/``1`` everywhere a ``bool`` is used (``if``, ``and``, ``not``, ``sum``, ``==``),
so library predicates return one without changing any check that composes them; and
because ``a and b`` returns the first falsy operand itself, a check written as a chain of
library calls returns the failing call's verdict, reason included.

Example:
    >>> v = Verdict(False, "no reply mentions the new date")
    >>> bool(v), v == False, v.reason
    (False, True, 'no reply mentions the new date')
    >>> ok = Verdict(True, "paid 1,200 CNY")
    >>> (ok and v).reason
    'no reply mentions the new date'

Library functions return one through :func:`because`, typed ``bool``.
"""

from __future__ import annotations

from typing import Any


class Verdict(int):
    """A truth value with a reason; see the module docstring.

    Args:
        passed: The truth value.
        reason: Why, in words, with the values seen (``""``: none given).
    """

    reason: str

    def __new__(cls, passed: Any, reason: str = "") -> Verdict:
        obj = super().__new__(cls, 1 if passed else 0)
        obj.reason = reason
        return obj

    @property
    def passed(self) -> bool:
        """The truth value as a ``bool``."""
        return bool(int(self))

    def __repr__(self) -> str:
        return f"Verdict({self.passed}, {self.reason!r})"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, ...]:
        return (Verdict, (self.passed, self.reason))

    def __invert__(self) -> Verdict:
        """The negation, with the same reason (``~v``; ``not v`` gives a plain bool)."""
        return Verdict(not self.passed, self.reason)


def because(passed: Any, reason: str) -> bool:
    """``Verdict(passed, reason)``, typed as the ``bool`` it stands in for.

    Library predicates are annotated ``-> bool`` and composed by checks annotated the same
    way; a verdict is an ``int`` to Python (``bool`` cannot be subclassed), so this is the
    one place that tells the type checker a verdict goes wherever a ``bool`` goes.
    """
    verdict: Any = Verdict(passed, reason)
    return verdict


def reason_of(value: Any) -> str:
    """The reason a check's return value gives for itself (``""`` when it gives none).

    Understands a :class:`Verdict`, a ``(passed, detail)`` tuple and a dict with one of the
    keys ``reason``, ``detail``, ``details``, ``message`` or ``explanation`` (the shapes
    public rubrics return).
    """
    if isinstance(value, Verdict):
        return value.reason
    if isinstance(value, tuple) and len(value) >= 2:
        first = reason_of(value[0])
        if first:
            return first
        detail = value[1]
        return detail if isinstance(detail, str) else (_plain(detail) if detail else "")
    if isinstance(value, dict):
        for key in ("reason", "detail", "details", "message", "explanation"):
            if value.get(key):
                detail = value[key]
                return detail if isinstance(detail, str) else _plain(detail)
    return ""


def _plain(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
