"""Calendar dates written in English, Chinese or ISO form.

Recognised (case-insensitive, full-width input is fine):

- ISO-like, year first: ``2026-05-08``, ``2026/5/8``, ``2026.05.08`` (one separator
  throughout; a following ``T17:00`` is allowed);
- ISO month-day without the year, both parts zero-padded: ``06-14`` (what dropping the year
  from ``2026-06-14`` leaves; ``6-14`` is not read);
- day first: ``8 May``, ``8th May``, ``the 8th of May 2026``, ``Fri 8 May``, ``20 September 2026``;
- month first: ``May 8``, ``May 8th, 2026``, ``Friday, May 8th``, ``Sept 20, 2026``, ``Dec. 1``;
- Chinese: ``5月8日``, ``5月8号``, ``2026年5月8日``, ``五月八日``, ``二〇二六年十二月廿五日``;
- numeric day and month with a slash where only one reading is a date: ``7/23`` and
  ``23/7`` are 23 July (23 is no month), with or without a trailing year (``7/23/2026``);
  in Chinese text (more Chinese characters than Latin letters), where dates run year,
  month, day, ``7/9`` is 9 July too;
- a hyphen range of days in one month names both days: ``8-10 May``, ``May 8-10, 2026``.

Month names may be full or abbreviated (``Sep``/``Sept``). Weekday names are allowed
around a date but are not checked against it.

Deliberately NOT recognised:

- Numeric day/month forms that read as two dates (``08/05``, ``5/8``, ``5/8/2026``) in
  text without Chinese: they read differently in the US and elsewhere, so neither reading
  is safe; and dotted ones
  (``08.05.2026``, ``7.23``), which amounts share.
- Lower-case ``may``, ``mar`` and ``march`` ("you may 2 ..." is a verb): months must be
  capitalised (``May``) or upper-case (``MAY``) for these three words.
- Compact ``20260508``, two-digit years (``'26``), ordinal words (``the eighth of May``),
  relative dates (``tomorrow``, ``next Friday``, ``下周五``), and other ranges (``8 to 10 May``
  yields only 10 May, ``5月8日-10日`` only 8 May).
- A Chinese date needs its day suffix ``日``/``号`` (``5月8`` alone is not read).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from functools import lru_cache

from vibelife_env.checks.text._norm import CJK_CHARS, CN_DIGIT_CHARS, Span, cn_int, pick_spans, prep

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
_VERB_MONTHS = frozenset({"may", "mar", "march"})
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?(?![A-Za-z])"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?(?![A-Za-z0-9])(?![.:]\d)"
_YEAR = r"(?P<year>(?:19|20|21)\d{2})(?!\d)"
_CN_MONTH = r"(?P<mon>\d{1,2}|十[一二]?|[一二三四五六七八九])"
_CN_DAY = r"(?P<day>\d{1,2}|[一二三四五六七八九十廿卅]{1,3})"

_ISO = re.compile(r"(?<![\d./-])(?P<year>\d{4})(?P<sep>[-/.])(?P<mon>\d{1,2})(?P=sep)(?P<day>\d{1,2})(?!\d)")
_CHINESE = re.compile(
    rf"(?:(?P<year>\d{{4}}|[{CN_DIGIT_CHARS}]{{4}})\s*年\s*)?(?<![\d{CN_DIGIT_CHARS}十])"
    rf"{_CN_MONTH}\s*月\s*{_CN_DAY}\s*[日号號]"
)
_DAY_MONTH = re.compile(
    rf"(?<![A-Za-z0-9.,:/-])(?:(?P<day0>[0-3]?\d)(?:st|nd|rd|th)?\s*-\s*)?{_DAY}\s*(?:of\s+)?{_MONTH}(?:,?\s*{_YEAR})?",
    re.IGNORECASE,
)
_MONTH_DAY = re.compile(
    rf"(?<![A-Za-z]){_MONTH}\s*(?:the\s+)?{_DAY}(?:\s*-\s*(?P<day1>[0-3]?\d)(?:st|nd|rd|th)?(?![A-Za-z0-9]))?"
    rf"(?:,?\s*{_YEAR})?",
    re.IGNORECASE,
)
_ISO_MONTH_DAY = re.compile(r"(?<![\d./:-])(?P<mon>0[1-9]|1[0-2])-(?P<day>0[1-9]|[12]\d|3[01])(?![\d./:-])")
_SLASHED = re.compile(
    r"(?<![\d./-])(?<!\d:)(?P<a>[0-3]?\d)/(?P<b>[0-3]?\d)(?:/(?P<year>(?:19|20|21)\d{2}))?(?![\d/])(?![.:]\d)"
)
_FORMS = (_ISO, _CHINESE, _DAY_MONTH, _MONTH_DAY, _ISO_MONTH_DAY)
#: ``9-25`` (month without its leading zero, a two-digit day): read in Chinese text only, where a
#: date runs month-day ("预计 9-25 送到"); in English text it is as likely a range ("9-25 people").
_SHORT_MONTH_DAY = re.compile(r"(?<![\d./:-])(?P<mon>[1-9])-(?P<day>0[1-9]|[12]\d|3[01])(?![\d./:-])")
_CJK = re.compile(f"[{CJK_CHARS}]")
_LATIN = re.compile(r"[A-Za-z]")

# Date-like text that is not a full date, but whose numbers are not amounts either.
_DATE_LIKE = (
    re.compile(rf"(?<![A-Za-z]){_MONTH}\s*,?\s*{_YEAR}", re.IGNORECASE),  # May 2026
    re.compile(r"(?<!\d)\d{4}\s*年(?:\s*\d{1,2}\s*月)?"),  # 2026年, 2026年5月
    re.compile(r"(?<![\d./-])\d{4}-\d{1,2}(?![\d-])"),  # 2026-05
    re.compile(r"(?<![\d./-])\d{1,2}/\d{1,2}(?:/\d{2,4})?(?![\d/])"),  # 08/05, 5/8/2026
)

DateParts = tuple[int | None, int, int]


def _slashed(match: re.Match[str], month_first: bool) -> list[DateParts]:
    """The one reading of ``7/23`` or ``23/7``; ``7/9`` reads month first only in Chinese text
    (``month_first``), where dates run year, month, day; else ``[]``."""
    a, b = int(match["a"]), int(match["b"])
    year = int(match["year"]) if match["year"] else None
    if 1 <= a <= 12 < b <= 31:
        return [(year, a, b)]
    if 1 <= b <= 12 < a <= 31:
        return [(year, b, a)]
    if month_first and 1 <= a <= 12 and 1 <= b <= 12:
        return [(year, a, b)]
    return []


def _parts(match: re.Match[str]) -> list[DateParts]:
    """``(year or None, month, day)`` of each day a match names (two for a range), unvalidated."""
    raw_month = match["mon"]
    if raw_month.isdigit():
        month = int(raw_month)
    elif raw_month.lower() in _MONTHS:
        if raw_month.lower() in _VERB_MONTHS and raw_month.islower():
            return []
        month = _MONTHS[raw_month.lower()]
    else:
        month = cn_int(raw_month) or 0
    groups = match.groupdict()
    raw_year = groups.get("year")
    year = cn_int(raw_year) if raw_year else None
    days = [groups.get("day0"), match["day"], groups.get("day1")]
    return [(year, month, cn_int(day) or 0) for day in days if day]


def _chinese(prepped: str) -> bool:
    """Whether prepped text is written in Chinese (no fewer CJK characters than Latin letters),
    where dates run year, month, day."""
    return _CJK.search(prepped) is not None and len(_CJK.findall(prepped)) >= len(_LATIN.findall(prepped))


@lru_cache(maxsize=512)  # checks of one episode read the same replies and files many times
def scan_dates(prepped: str) -> tuple[tuple[int, int, tuple[DateParts, ...]], ...]:
    """Every date-shaped match of prepped text as ``(start, end, [(year, month, day), ...])``.

    A range (``8-10 May``) names two days. The parts are not validated (``Feb 30`` is kept);
    overlapping matches are resolved in favour of the more specific form (ISO, then Chinese,
    then day-month, then month-day).
    """
    candidates: list[tuple[int, int, tuple[DateParts, ...]]] = []
    for form in _FORMS:
        for match in form.finditer(prepped):
            parts = _parts(match)
            if parts:
                candidates.append((match.start(), match.end(), tuple(parts)))
    month_first = _chinese(prepped)
    for match in _SLASHED.finditer(prepped):
        parts = _slashed(match, month_first)
        if parts:
            candidates.append((match.start(), match.end(), tuple(parts)))

    return tuple(pick_spans(candidates))


def date_like_spans(prepped: str) -> list[Span]:
    """Spans of prepped text whose numbers belong to a date, full or partial.

    Covers every match of :func:`scan_dates` plus month-year (``May 2026``, ``2026年5月``),
    a lone Chinese year (``2026年``), year-month (``2026-05``) and numeric day/month forms
    (``08/05``), which :func:`find_dates` does not interpret.
    """
    spans = [(start, end) for start, end, _ in scan_dates(prepped)]
    for pattern in _DATE_LIKE:
        spans.extend(m.span() for m in pattern.finditer(prepped))
    return spans


def find_dates(text: str, *, year: int | None = None) -> list[date]:
    """Every calendar date written in ``text``, in order of appearance.

    See the module docstring for the recognised forms and what is deliberately not read
    (notably ambiguous numeric forms such as ``08/05`` or ``5/8``; ``7/23`` has one reading).

    Args:
        text: Free text (a reply, a mail body, a note).
        year: The year given to dates written without one (``8 May``); when None such
            dates are skipped.

    Returns:
        The dates, repeats included; impossible dates (``30 February``) are left out.

    >>> find_dates("Fri 8 May or 2026年5月9日; not 08/05", year=2026)
    [datetime.date(2026, 5, 8), datetime.date(2026, 5, 9)]
    >>> find_dates("159.30 CNY, due 06-14; call 138-0000-4417", year=2026)
    [datetime.date(2026, 6, 14)]
    """
    found: list[date] = []
    prepped = prep(text)
    spans = list(scan_dates(prepped))
    if _chinese(prepped):
        # Chinese text also writes "9-25"; read it as a date here, but not in date_like_spans, so an
        # amount range ("5-10 元") stays amounts
        taken = [(a, b) for a, b, _ in spans]
        for m in _SHORT_MONTH_DAY.finditer(prepped):
            if all(m.end() <= a or m.start() >= b for a, b in taken):
                spans.append((m.start(), m.end(), ((None, int(m["mon"]), int(m["day"])),)))
        spans.sort(key=lambda x: x[0])
    for _, _, days in spans:
        for y, month, day in days:
            y = y if y is not None else year
            if y is None:
                continue
            try:
                found.append(date(y, month, day))
            except ValueError:
                continue  # impossible date such as 30 February: not a mention of any day
    return found


def _as_date(day: date | str) -> date:
    if isinstance(day, date):
        return day
    try:
        return date.fromisoformat(day)
    except (TypeError, ValueError) as err:
        raise ValueError(f"day must be a datetime.date or an ISO date 'YYYY-MM-DD', got {day!r}") from err


def mentions_date(text: str, day: date | str, *, year: int | None = None) -> bool:
    """Whether ``text`` writes the date ``day`` in any recognised form.

    Args:
        text: Free text.
        day: The date, as a :class:`datetime.date` or an ISO string ``"2026-05-08"``.
        year: The year assumed for dates written without one; defaults to ``day.year``.

    Returns:
        True when :func:`find_dates` finds ``day``.

    Raises:
        ValueError: ``day`` is neither a date nor an ISO date string.

    >>> mentions_date("Friday, May 8th", "2026-05-08"), mentions_date("8 May 2025", "2026-05-08")
    (True, False)
    """
    target = _as_date(day)
    return target in find_dates(text, year=target.year if year is None else year)


def mentions_any_date(text: str, days: Iterable[date | str], *, year: int | None = None) -> bool:
    """Whether ``text`` writes at least one of ``days`` (see :func:`mentions_date`).

    Raises:
        ValueError: One of ``days`` is neither a date nor an ISO date string.
    """
    targets = [_as_date(d) for d in days]
    prepped = prep(text)
    return any(t in find_dates(prepped, year=t.year if year is None else year) for t in targets)
