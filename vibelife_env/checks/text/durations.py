"""Lengths of time in days, weeks, months and years, written in English or Chinese.

Recognised (case-insensitive): ``6 months``, ``six months``, ``6-month``, ``18 months``,
``1.5 years``, ``twenty-four months``, ``two and a half years``, ``a year and a half``,
``half a year``, ``half-year``, ``a month``, ``a couple of weeks``, ``a fortnight`` (2 weeks),
``3 wks``, ``2 yrs``; Chinese ``六个月``, ``6个月``, ``十八个月``, ``半年``, ``半个月``, ``一年半``,
``一个半月``, ``三周``, ``两个星期``, ``三天``, ``两年``.

Units are normalised to ``"day"``, ``"week"``, ``"month"`` and ``"year"``; amounts keep the
unit they were written in (``half a year`` is ``(Decimal("0.5"), "year")``).

Deliberately NOT recognised:

- frequency adjectives: ``6 monthly payments`` is six payments, not six months; likewise
  ``weekly``, ``yearly``, ``half-yearly``;
- ``a day``/``a month`` used as a rate: after ``once``, ``twice``, ``thrice``, ``times``, ``per``,
  ``each``, ``every`` or a number/currency (``twice a day``, ``¥3000 a month``);
- hours, minutes, ``日`` as a unit (``3日`` is usually a day of the month), ``5月`` (May),
  ``上半年`` (the first half of a year), ordinals (``第三周``), ``一周年`` (an anniversary),
  ``2026年`` and ``一年级`` (a school grade), and the first number of a range (``6-12 months``
  yields only 12 months).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from vibelife_env.checks.text._norm import EN_NUMBER, cn_int, en_int, ends_with, pick_spans, prep

Duration = tuple[Decimal, str]

_EN_UNITS = {
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "wk": "week",
    "wks": "week",
    "fortnight": "fortnight",
    "fortnights": "fortnight",
    "month": "month",
    "months": "month",
    "mo": "month",
    "mos": "month",
    "mth": "month",
    "mths": "month",
    "year": "year",
    "years": "year",
    "yr": "year",
    "yrs": "year",
}
_UNIT = r"(?P<unit>" + "|".join(sorted(_EN_UNITS, key=len, reverse=True)) + r")(?![A-Za-z])"
_HALF = Decimal("0.5")

_EN_COUNT = re.compile(
    rf"(?<![A-Za-z0-9.,])(?P<n>\d+(?:\.\d+)?|{EN_NUMBER}|an?)(?![A-Za-z])(?P<half>\s+and\s+a\s+half)?"
    rf"(?:\s*-\s*|\s+)(?:couple\s+of\s+)?{_UNIT}",
    re.IGNORECASE,
)
_EN_AND_A_HALF = re.compile(rf"\b(?:an?|one)\s+{_UNIT}\s+and\s+a\s+half\b", re.IGNORECASE)
_EN_HALF = re.compile(rf"\b(?:half\s+an?\s+|(?<!and\s)an?\s+half[\s-]+|(?<!\ba\s)half[\s-]+){_UNIT}", re.IGNORECASE)
_RATE_BEFORE = re.compile(
    r"(?:\b(?:once|twice|thrice|times|per|each|every|yuan|rmb|cny|usd|eur|dollars?|euros?|bucks)|[\d$¥€£元块])\s*$",
    re.IGNORECASE,
)

_CN_UNITS = {"天": "day", "周": "week", "週": "week", "星期": "week", "礼拜": "week", "禮拜": "week"}
_CN_UNITS |= {"月": "month", "年": "year"}
_CN_NUM = "零〇一二两兩三四五六七八九十百"
_CN_COUNT = re.compile(
    rf"(?<![\d.第{_CN_NUM}])(?P<n>\d+(?:\.\d+)?|[{_CN_NUM}]+)\s*(?P<ge>[个個]半|[个個])?\s*"
    r"(?P<unit>天|周(?!年)|週(?!年)|星期|礼拜|禮拜|月|年(?!级|級|\s*\d{1,2}\s*月))(?P<half>半)?"
)
_CN_HALF = re.compile(
    r"(?<![上下前后後\d一二两三四五六七八九十])半\s*(?P<ge>[个個])?\s*(?P<unit>天|年|月|周|星期|礼拜)"
)


def _count(raw: str) -> Decimal | None:
    lowered = raw.lower()
    if lowered in ("a", "an"):
        return Decimal(1)
    if lowered[0].isdigit():
        return Decimal(raw)
    words = en_int(lowered)
    if words is not None:
        return Decimal(words)
    value = cn_int(raw)
    return None if value is None else Decimal(value)


def _normalised(amount: Decimal, unit: str) -> Duration:
    return (amount * 2, "week") if unit == "fortnight" else (amount, unit)


def _scan(prepped: str) -> list[tuple[int, int, Duration]]:
    candidates: list[tuple[int, int, Duration]] = []
    for m in _EN_AND_A_HALF.finditer(prepped):
        candidates.append((m.start(), m.end(), _normalised(Decimal("1.5"), _EN_UNITS[m["unit"].lower()])))
    for m in _EN_HALF.finditer(prepped):
        candidates.append((m.start(), m.end(), _normalised(_HALF, _EN_UNITS[m["unit"].lower()])))
    for m in _EN_COUNT.finditer(prepped):
        n = _count(m["n"])
        if n is None or (m["n"].lower() in ("a", "an") and ends_with(_RATE_BEFORE, prepped, m.start())):
            continue
        if "couple" in m[0].lower():
            n = Decimal(2)
        candidates.append(
            (m.start(), m.end(), _normalised(n + (_HALF if m["half"] else 0), _EN_UNITS[m["unit"].lower()]))
        )
    for m in _CN_COUNT.finditer(prepped):
        n = _count(m["n"])
        unit = _CN_UNITS[m["unit"]]
        if n is None or (unit == "month" and not m["ge"]) or (unit == "year" and n >= 1000):
            continue
        half = bool(m["half"]) or (m["ge"] or "").endswith("半")
        candidates.append((m.start(), m.end(), (n + (_HALF if half else 0), unit)))
    for m in _CN_HALF.finditer(prepped):
        unit = _CN_UNITS[m["unit"]]
        if unit != "month" or m["ge"]:
            candidates.append((m.start(), m.end(), (_HALF, unit)))
    return pick_spans(candidates)


def find_durations(text: str) -> list[Duration]:
    """Every length of time written in ``text``, in order of appearance (repeats included).

    See the module docstring for the recognised forms and what is deliberately not read.

    Args:
        text: Free text.

    Returns:
        ``(amount, unit)`` pairs with ``unit`` one of ``"day"``, ``"week"``, ``"month"``, ``"year"``.

    >>> find_durations("a 6-month lease, renewable for half a year or 六个月; 6 monthly payments")
    [(Decimal('6'), 'month'), (Decimal('0.5'), 'year'), (Decimal('6'), 'month')]
    """
    return [duration for _, _, duration in _scan(prep(text))]


_TO_BASE = {
    "day": ("day", 1),
    "week": ("day", 7),
    "fortnight": ("day", 14),
    "month": ("month", 1),
    "year": ("month", 12),
}


def _in_base(amount: Decimal, unit: str) -> tuple[str, Decimal]:
    base, factor = _TO_BASE[unit]
    return base, amount * factor


def mentions_duration(text: str, amount: Decimal | int | float | str, unit: str) -> bool:
    """Whether ``text`` writes a length of time equal to ``amount`` ``unit``.

    Days and weeks compare with each other (a fortnight is 14 days), and months and years
    compare with each other (half a year is 6 months, 12 months is a year); the two families
    never compare (30 days is not a month, 52 weeks is not a year).

    Args:
        text: Free text.
        amount: The expected amount (a float is read through its shortest ``repr``).
        unit: ``"day"``, ``"week"``, ``"fortnight"``, ``"month"`` or ``"year"``; a plural ``s`` is allowed.

    Returns:
        True when :func:`find_durations` finds an equal length of time.

    Raises:
        ValueError: ``unit`` is not one of the units above, or ``amount`` is not a number.

    >>> mentions_duration("cover for half a year", 6, "months"), mentions_duration("30 days", 1, "month")
    (True, False)
    """
    key = unit.lower().removesuffix("s")
    if key not in _TO_BASE:
        raise ValueError(f"unit must be one of day, week, fortnight, month, year; got {unit!r}")
    try:
        expected = _in_base(Decimal(str(amount)), key)
    except InvalidOperation as err:
        raise ValueError(f"amount must be a number, got {amount!r}") from err
    return any(_in_base(n, u) == expected for n, u in find_durations(text))
