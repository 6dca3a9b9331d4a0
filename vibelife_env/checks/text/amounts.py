"""Numbers and sums of money written in English or Chinese.

Recognised (full-width input is fine):

- plain numbers with or without thousands grouping by comma, apostrophe or space (thin
  and no-break spaces count as spaces): ``12345.5``, ``12,345.50``, ``12'345.50``,
  ``12 345.50``; a grouping is read only when exact (``1,2345`` is not 12345);
- a currency before (``¥``, ``$``, ``US$``, ``HK$``, ``€``, ``£``, ``CNY``, ``RMB``, ``USD``,
  ``EUR``, ``JPY``, ``GBP``, ``HKD``) or after (the same symbols and codes, ``元``, ``块``,
  ``块钱``, ``圆``, ``円``, ``日元``, ``美元``, ``欧元``, ``英镑``, ``港元``, ``人民币``, ``yuan``,
  ``dollars``, ``euros``, ``yen``, ``bucks``);
- a negative sign before the number or the currency (``-12.50``, ``¥-12``, ``-¥12``);
- the Chinese multipliers ``万`` (10^4) and ``亿`` (10^8), and ``千`` before a currency:
  ``1.23万`` is 12300, ``3万元`` is 30000, ``5千元`` is 5000;
- Chinese numerals before ``元``/``块钱``: ``三百元``, ``两万元``.

Numbers that are part of something else are NOT amounts:

- dates and date-like text (``2026-05-08``, ``8 May 2026``, ``May 2026``, ``2026年``,
  ``2026-05``, ``08/05``); a year from 1900 to 2199 after ``in``, ``since``, ``by``, ``until``,
  ``till``, ``before``, ``after``, ``from``, ``during``, ``of`` or ``year``, unless a currency
  or a decimal part follows (``in 2026`` is a year, ``in 2000 yuan`` and ``of 2188.00`` are money);
- times (``17:00``, ``5 pm``, ``17h``, ``下午5点``) and anything clock-shaped (``24:00``);
- phone numbers and account-like digit runs: a ``+`` followed by at least 7 digits in groups
  (``+86 138 0000 4417``); two or more digit groups joined by spaces or hyphens, with at
  least 7 digits in all, that are not an exact thousands grouping (``138 0000 4417``,
  ``010-12345678``, ``021-6234 5678``); any run of 11 or more digits; integers with a
  leading zero (``0042``);
- identifiers: a number glued to letters before it (``ABC123``, ``MU5101``, ``ABC-123``), or
  followed by two or more capitals or by letters and another digit (``123ABC``, ``3A5``), a
  dotted version (``1.2.3``), and a number right after an identifier cue: ``PNR``, ``ref``,
  ``reference``, ``confirmation``, ``invoice``, ``tracking``, ``passport``, ``phone``, ``tel``,
  ``mobile``, ``ext``, ``PIN``, ``zip``, ``ending (in)``, ``flight``, ``train``, ``room``,
  ``gate``, ``seat``, ``platform``, ``ID``, ``number``, ``No.``, ``#``, ``order``/``booking``/
  ``ticket``/``account``/``card`` followed by ``no.``/``number``/``#``/``id``, and 编号, 单号,
  订单号, 电话, 手机, 尾号, 账号, 卡号, 房间, 航班, 车次, 座位, 验证码, 第;
- English ordinals (``3rd``).

Deliberately NOT recognised: decimal commas (``12,50 €`` reads as 12 and 50), ``k``/``m``
suffixes and ``million``, English number words, and accounting brackets. Quantities with a
unit (``6 months``, ``2kg``, ``5%``) ARE amounts; pass ``money_only=True`` to keep only
numbers written with a currency.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from vibelife_env.checks.text._norm import CJK_CHARS, CN_NUMERAL_CHARS, Span, cn_int, ends_with, prep
from vibelife_env.checks.text.dates import date_like_spans
from vibelife_env.checks.text.times import time_spans

_CODES = "CNY|RMB|USD|EUR|JPY|GBP|HKD"
_PRE = rf"(?:(?:US|HK)\$|[$¥€£]|(?<![A-Za-z])(?:{_CODES})(?![A-Za-z]))"
_YUAN = "元(?![素旦宵老首帅凶月气])"
_POST = (
    rf"(?:块钱|日元|美元|欧元|英镑|港元|港币|人民币|{_YUAN}|块(?![{CJK_CHARS}])|圆|円"
    rf"|[€£¥$](?!\s?\d)|(?:yuan|{_CODES}|dollars?|euros?|yen|bucks)(?![A-Za-z]))"
)
_CURRENCY_AHEAD = rf"\s?(?:[万萬亿億千元块圆円€£¥$]|(?:yuan|{_CODES}|dollars?|euros?|yen|bucks)(?![A-Za-z]))"
_YEAR_AFTER_CUE = re.compile(
    rf"\b(?:in|since|by|until|till|before|after|from|during|of|year)\s+(?P<year>(?:19|20|21)\d{{2}})(?!\d|\.\d)(?!{_CURRENCY_AHEAD})",
    re.IGNORECASE,
)
_START = rf"(?<![A-Za-z]-)(?:(?<=[$¥€£])|(?<={_CODES})|(?<![A-Za-z0-9_.]))"
_NUMBER = r"(?P<int>\d{1,3}(?P<sep>[,' ])\d{3}(?:(?P=sep)\d{3})*(?!\d)|\d+)(?:\.(?P<frac>\d+))?(?!\d|\.\d)"
_AMOUNT = re.compile(
    rf"(?:(?<![A-Za-z0-9])(?P<neg_a>-)\s?)?(?:(?P<pre>{_PRE})\s?)?(?:(?<![A-Za-z0-9])(?P<neg_b>-))?"
    rf"{_START}{_NUMBER}"
    rf"(?:\s?(?P<mult>万|萬|亿|億|千(?=\s?(?:元|块|円|人民币|美元|欧元|日元))))?"
    rf"(?:\s?(?P<post>{_POST}))?",
    re.IGNORECASE,
)
_CN_AMOUNT = re.compile(rf"(?<![\d.{CN_NUMERAL_CHARS}])(?P<cn>[{CN_NUMERAL_CHARS}]+)\s*(?:{_YUAN}|块钱)")
_MULTIPLIERS = {"万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000, "千": 1000}

_PHONE = re.compile(r"\+\d{1,3}[\s-]?(?:\(\d+\)[\s-]?)?\d+(?:[\s-]\(?\d+\)?)*")
_DIGIT_RUN = re.compile(r"(?<![\d.,])\d+(?:[ -]\d+)+(?!\d)")
_CLOCK_SHAPED = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
_EXACT_GROUPING = re.compile(r"\d{1,3}(?: \d{3})+")
_LONG_DIGITS = re.compile(r"\d{11,}")
_ID_CUE = re.compile(
    r"(?:\b(?:pnr|ref(?:erence)?|confirmation|invoice|tracking|passport|tel|phone|mobile|cell|fax|ext(?:ension)?"
    r"|pin|zip|postcode|ending(?:\s+in)?|flight|train|room|gate|seat|platform|id|number)\b"
    r"|\b(?:order|booking|reservation|ticket|account|acct|card|case|policy|member(?:ship)?|customer)"
    r"\s*(?:no\b\.?|number|num\b|#|id\b|ref\b|code\b)"
    r"|\bno\.|#|编号|单号|订单号?|电话|手机号?|尾号|账号|卡号|房间号?|房号|航班号?|车次|座位号?|身份证号?|验证码|邮编|工号|学号|第)"
    r"[\s:#.-]*$",
    re.IGNORECASE,
)
_ORDINAL = re.compile(r"(?:st|nd|rd|th)(?![A-Za-z])", re.IGNORECASE)
_ID_SUFFIX = re.compile(rf"(?!(?:{_CODES}|AM|PM)(?![A-Za-z]))[A-Z]{{2,}}|[A-Za-z]+\d")


def _masked(prepped: str) -> str:
    """Prepped text with the digits of dates, times, phone numbers and digit runs hidden.

    Dates and times are masked first, so that a run of digits never extends across one, and
    amounts are then read from the masked text, so that none can start inside a date.
    """
    chars = list(prepped)

    def mask(spans: Iterable[Span]) -> str:
        for start, end in spans:
            chars[start:end] = "\0" * (end - start)
        return "".join(chars)

    dated = mask(
        [*date_like_spans(prepped), *time_spans(prepped)]
        + [m.span() for m in _CLOCK_SHAPED.finditer(prepped)]
        + [m.span("year") for m in _YEAR_AFTER_CUE.finditer(prepped)]
    )
    runs = [m for m in _DIGIT_RUN.finditer(dated) if _digits(m[0]) >= 7 and not _EXACT_GROUPING.fullmatch(m[0])]
    return mask(
        [m.span() for m in _PHONE.finditer(dated) if _digits(m[0]) >= 7]
        + [m.span() for m in _LONG_DIGITS.finditer(dated)]
        + [m.span() for m in runs]
    )


def _digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


def _is_part_of_id(text: str, m: re.Match[str], end: int) -> bool:
    """Whether the number matched by ``m`` (ending at ``end``) is an identifier, an ordinal or has a leading zero."""
    if m["pre"] is None and ends_with(_ID_CUE, text, m.start()):
        return True
    if _ORDINAL.match(text, end) or _ID_SUFFIX.match(text, end):
        return True
    return m["sep"] is None and len(m["int"]) > 1 and m["int"].startswith("0")


def _is_bullet(text: str, m: re.Match[str]) -> bool:
    """Whether the matched leading ``-`` is a list bullet ("- 4 reviews" opening a line), not a sign."""
    if not m["neg_a"]:
        return False
    at = m.start("neg_a")
    return not text[text.rfind("\n", 0, at) + 1 : at].strip() and text[at + 1 : at + 2].isspace()


def _value(m: re.Match[str], bullet: bool = False) -> Decimal:
    digits = m["int"].replace(m["sep"], "") if m["sep"] else m["int"]
    value = Decimal(f"{digits}.{m['frac']}" if m["frac"] else digits)
    if m["mult"]:
        value *= _MULTIPLIERS[m["mult"]]
    return -value if ((m["neg_a"] and not bullet) or m["neg_b"]) else value


@lru_cache(maxsize=512)  # checks of one episode read the same replies and files many times
def _scan(prepped: str) -> tuple[tuple[int, Decimal, bool], ...]:
    """``(position, value, written as money)`` of every amount in prepped text."""
    masked = _masked(prepped)
    found: list[tuple[int, Decimal, bool]] = []
    for m in _AMOUNT.finditer(masked):
        end = m.end("frac") if m["frac"] else m.end("int")
        if not _is_part_of_id(masked, m, end):
            found.append((m.start("int"), _value(m, _is_bullet(masked, m)), bool(m["pre"] or m["post"])))
    for m in _CN_AMOUNT.finditer(masked):
        value = cn_int(m["cn"])
        if value and m["cn"][0] in "一二两兩三四五六七八九十廿卅":
            found.append((m.start(), Decimal(value), True))
    return tuple(sorted(found, key=lambda item: item[0]))


def find_amounts(text: str, *, money_only: bool = False) -> list[Decimal]:
    """Every number or sum of money written in ``text``, in order of appearance.

    See the module docstring for the recognised forms and, precisely, which numbers are
    left out because they belong to a date, time, phone number or identifier.

    Args:
        text: Free text.
        money_only: Keep only numbers written with a currency (symbol, code or word).

    Returns:
        The values, repeats included (``"1.23万"`` gives ``Decimal("12300.00")``).

    >>> find_amounts("Paid ¥12,345.50 on 2026-05-08 at 17:00, ref PNR ABC123, 3 bags")
    [Decimal('12345.50'), Decimal('3')]
    >>> find_amounts("1.23万元 and 6 months", money_only=True)
    [Decimal('12300.00')]
    """
    return [value for _, value, money in _scan(prep(text)) if money or not money_only]


def _as_decimal(value: Decimal | int | float | str, name: str) -> Decimal:
    if isinstance(value, Decimal):
        return value
    try:
        return Decimal(str(value))
    except InvalidOperation as err:
        raise ValueError(f"{name} must be a number, got {value!r}") from err


def mentions_amount(
    text: str,
    value: Decimal | int | float | str,
    *,
    tolerance: Decimal | int | float | str = Decimal("0.01"),
    money_only: bool = False,
) -> bool:
    """Whether ``text`` writes a number within ``tolerance`` of ``value``.

    The sign counts: ``-500`` does not mention ``500``.

    Args:
        text: Free text.
        value: The expected number (a float is read through its shortest ``repr``).
        tolerance: The largest accepted absolute difference (inclusive).
        money_only: Only consider numbers written with a currency.

    Returns:
        True when :func:`find_amounts` finds a close enough value.

    Raises:
        ValueError: ``value`` or ``tolerance`` is not a number, or ``tolerance`` is negative.

    >>> mentions_amount("CNY 12 345.50", "12345.5"), mentions_amount("+86 138 0000 4417", 4417)
    (True, False)
    """
    target = _as_decimal(value, "value")
    tol = _as_decimal(tolerance, "tolerance")
    if tol < 0:
        raise ValueError(f"tolerance must not be negative, got {tolerance!r}")
    return any(abs(found - target) <= tol for found in find_amounts(text, money_only=money_only))


def mentions_share(text: str, total: Decimal | int | float | str, parts: int, *, money_only: bool = False) -> bool:
    """Whether ``text`` writes ``total / parts`` (a per-head cost, an average) as a person
    would: rounded to the places they wrote, at most two (``2490 / 9``: ``276.67``,
    ``276.7`` and ``277`` all count; ``276.70`` and ``276`` do not).

    A written number counts when it is within half a unit of its last written place of
    the exact quotient (``277`` is within 0.5 of 276.666…).

    Raises:
        ValueError: ``total`` is not a number or ``parts`` is not positive.

    >>> mentions_share("2,490 ÷ 9 = 276.7 CNY/人", 2490, 9), mentions_share("about 276 each", 2490, 9)
    (True, False)
    """
    if parts <= 0:
        raise ValueError(f"parts must be positive, got {parts!r}")
    exact = _as_decimal(total, "total") / parts
    for found in find_amounts(text, money_only=money_only):
        exponent = found.as_tuple().exponent
        places = min(2, -exponent) if isinstance(exponent, int) and exponent < 0 else 0
        if abs(found - exact) <= Decimal(5) / (Decimal(10) ** (places + 1)):
            return True
    return False
