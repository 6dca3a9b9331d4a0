"""Shared pieces of the text checks: normalisation, number words and span bookkeeping.

Every public finder first runs :func:`prep` over its input, so the regular expressions of
the sibling modules only ever see NFKC text: full-width digits and letters are half-width,
full-width punctuation (``，：！？``) is ASCII, and typographic quotes, dashes and minus
signs are their ASCII counterparts. Positions (spans) are positions in the prepped text.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")

_ASCII_PUNCT = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u02bc": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2212": "-",
    }
)

CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
"""Character-class body for Han, kana and Hangul (for use inside ``[...]``)."""

_CJK_RE = re.compile(f"[{CJK_CHARS}]")


def prep(text: str) -> str:
    """NFKC-normalise ``text`` and map typographic quotes, dashes and minus signs to ASCII.

    Args:
        text: Any text.

    Returns:
        The normalised text (``"１７：００"`` becomes ``"17:00"``, ``"don’t"`` becomes ``"don't"``).
    """
    return unicodedata.normalize("NFKC", text).translate(_ASCII_PUNCT)


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds at least one Han, kana or Hangul character."""
    return _CJK_RE.search(text) is not None


# --- Chinese numerals -------------------------------------------------------------------

CN_DIGIT_CHARS = "零〇一二两兩三四五六七八九"
CN_NUMERAL_CHARS = CN_DIGIT_CHARS + "十拾廿卅百佰千仟万萬亿億"
"""Every character :func:`cn_int` understands."""

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4}
_CN_DIGITS |= {"五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_CN_TENS = {"廿": 20, "卅": 30}
_CN_BIG = {"万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000}


def cn_int(numeral: str) -> int | None:
    """Value of a Chinese numeral, or None when it is malformed.

    Handles positional forms (``"十八"``, ``"二十一"``, ``"三千五百"``, ``"两万"``, ``"廿三"``)
    and digit-by-digit forms (``"二〇二六"``). Arabic digits are accepted too.

    Args:
        numeral: The numeral, without surrounding text.

    Returns:
        The integer value, or None for an empty or malformed numeral (``"一二十"``).

    >>> cn_int("十八"), cn_int("二〇二六"), cn_int("两万"), cn_int("一二十")
    (18, 2026, 20000, None)
    """
    if not numeral:
        return None
    if numeral.isdigit() and numeral.isascii():
        return int(numeral)
    if len(numeral) > 1 and all(ch in _CN_DIGITS for ch in numeral):
        return int("".join(str(_CN_DIGITS[ch]) for ch in numeral))
    total = section = 0
    digit: int | None = None
    for ch in numeral:
        if ch in _CN_DIGITS:
            if digit is not None and digit != 0:
                return None
            digit = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            section += (1 if digit is None else digit) * _CN_UNITS[ch]
            digit = None
        elif ch in _CN_TENS:
            section += _CN_TENS[ch]
            digit = None
        elif ch in _CN_BIG:
            total += (section + (digit or 0)) * _CN_BIG[ch]
            section, digit = 0, None
        else:
            return None
    return total + section + (digit or 0)


# --- English number words ---------------------------------------------------------------

_EN_SMALL = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
)  # fmt: skip
_EN_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_EN_VALUES = {w: i for i, w in enumerate(_EN_SMALL)} | {w: 20 + 10 * i for i, w in enumerate(_EN_TENS)}

EN_NUMBER = (
    r"(?:(?:" + "|".join(_EN_TENS) + r")(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|" + "|".join(sorted(_EN_SMALL, key=len, reverse=True)) + r")"
)
"""Regex (no groups) for an English cardinal from zero to ninety-nine."""


def en_int(words: str) -> int | None:
    """Value of an English cardinal from zero to ninety-nine (``"twenty-four"``), else None."""
    total = 0
    for part in re.split(r"[- ]+", words.strip().lower()):
        if part not in _EN_VALUES:
            return None
        total += _EN_VALUES[part]
    return total


# --- spans ------------------------------------------------------------------------------


def ends_with(pattern: re.Pattern[str], text: str, end: int, window: int = 40) -> bool:
    """Whether ``pattern`` (anchored with ``$``) matches the ``window`` characters before ``end``.

    Looking back over a bounded window keeps the finders linear in the length of the text.
    """
    return pattern.search(text, max(0, end - window), end) is not None


Span = tuple[int, int]


def pick_spans(candidates: Iterable[tuple[int, int, T]]) -> list[tuple[int, int, T]]:
    """Keep candidates that do not overlap an earlier-listed one, in text order.

    Candidates are given in priority order (most specific pattern first); a candidate is
    dropped when it overlaps one already kept.

    Args:
        candidates: ``(start, end, payload)`` triples in priority order.

    Returns:
        The kept triples, sorted by start.
    """
    kept: list[tuple[int, int, T]] = []  # sorted by start; spans that do not overlap
    starts: list[int] = []
    for start, end, payload in candidates:
        i = bisect.bisect_left(starts, start)
        j = i  # kept spans starting at or after ``start``: those that begin before ``end`` may overlap
        clash = False
        while j < len(kept) and kept[j][0] < end and not clash:
            clash = start < kept[j][1]
            j += 1
        j = i - 1  # earlier spans: the nearest non-empty one ends last (they do not overlap)
        while j >= 0 and not clash:
            s, e, _ = kept[j]
            clash = start < e
            if e > s:
                break
            j -= 1
        if not clash:  # after kept spans with the same start, as a stable sort by start would
            at = bisect.bisect_right(starts, start)
            kept.insert(at, (start, end, payload))
            starts.insert(at, start)
    return kept


def overlaps(span: Span, spans: Iterable[Span]) -> bool:
    """Whether ``span`` overlaps any of ``spans``."""
    start, end = span
    return any(start < e and s < end for s, e in spans)
