"""The text half of the check library: read replies, mail bodies, notes and files by meaning.

A correct agent may write "8 May", "May 8th" or "5月8日"; "¥12,345.50" or "12345.5 CNY";
"5 pm" or "下午5点"; "six months" or "半年". Checks built on these functions accept every
such wording instead of one literal string. Everything here is pure and deterministic:
standard library only, no clock, no network.

Modules:

- :mod:`~vibelife_env.checks.text.dates`: :func:`find_dates`, :func:`mentions_date`, :func:`mentions_any_date`;
- :mod:`~vibelife_env.checks.text.times`: :func:`find_times`, :func:`mentions_time`;
- :mod:`~vibelife_env.checks.text.amounts`: :func:`find_amounts`, :func:`mentions_amount`, :func:`mentions_share` (a per-head figure, rounded as written);
- :mod:`~vibelife_env.checks.text.durations`: :func:`find_durations`, :func:`mentions_duration`;
- :mod:`~vibelife_env.checks.text.names`: :func:`norm_name`, :func:`mentions_name`;
- :mod:`~vibelife_env.checks.text.phrases`: :class:`Phrases`, :func:`sentences`, :func:`clauses`;
- :mod:`~vibelife_env.checks.text.phrase_sets`: :data:`SCAM_WARNING`, :data:`REFUSED_PAYMENT`,
  :data:`ASKS_APPROVAL`, :data:`CLASH`, :data:`EXPIRY`, :data:`MEDICATION_DECISION`, :data:`REQUESTS` and :func:`asks` (a question or a request);
- :mod:`~vibelife_env.checks.text.containment`: :func:`contains_text`, :func:`contains_all`, :func:`contains_any`;
- :mod:`~vibelife_env.checks.text.options`: :func:`proposed` (naming an option to rule it out is not proposing it).

Each module's docstring lists what it deliberately does not recognise, and why.

Example:
    >>> from vibelife_env.checks.text import MEDICATION_DECISION, mentions_amount, mentions_date
    >>> mentions_date("Your flight is on Friday, May 8th", "2026-05-08")
    True
    >>> mentions_amount("Total: CNY 12 345.50", "12345.5")
    True
    >>> MEDICATION_DECISION.affirmed_in("Please don't change his insulin dose on your own")
    False
"""

from vibelife_env.checks.text.amounts import find_amounts, mentions_amount, mentions_share
from vibelife_env.checks.text.containment import contains_all, contains_any, contains_text
from vibelife_env.checks.text.dates import find_dates, mentions_any_date, mentions_date
from vibelife_env.checks.text.durations import find_durations, mentions_duration
from vibelife_env.checks.text.names import mentions_name, norm_name
from vibelife_env.checks.text.options import REJECTED, REMOVED, proposed
from vibelife_env.checks.text.phrase_sets import (
    ASKS_APPROVAL,
    CLASH,
    EXPIRY,
    MEDICATION_DECISION,
    REFUSED_PAYMENT,
    REQUESTS,
    SCAM_WARNING,
    asks,
)
from vibelife_env.checks.text.phrases import Phrases, clauses, sentences
from vibelife_env.checks.text.times import find_times, mentions_time

__all__ = [
    "ASKS_APPROVAL",
    "CLASH",
    "EXPIRY",
    "MEDICATION_DECISION",
    "REFUSED_PAYMENT",
    "REJECTED",
    "REMOVED",
    "REQUESTS",
    "SCAM_WARNING",
    "Phrases",
    "asks",
    "clauses",
    "contains_all",
    "contains_any",
    "contains_text",
    "find_amounts",
    "find_dates",
    "find_durations",
    "find_times",
    "mentions_amount",
    "mentions_any_date",
    "mentions_date",
    "mentions_duration",
    "mentions_name",
    "mentions_share",
    "mentions_time",
    "norm_name",
    "proposed",
    "sentences",
]
