"""Times of day written in English or Chinese.

Recognised (case-insensitive, full-width input is fine):

- clock times ``17:00``, ``9:30``, ``17:00:30``, optionally with ``am``/``pm``/``a.m.``/``p.m.``
  (``5:30 p.m.``) or a Chinese day period before them (``上午9:30``);
- an hour with am/pm: ``5 pm``, ``5pm``, ``11 a.m.``;
- ``noon``, ``12 noon``, ``midday`` (12:00) and ``midnight``, ``12 midnight`` (00:00);
- the ``h`` notation: ``17h``, ``17h30``;
- Chinese: ``17点``, ``17点半``, ``下午5点``, ``晚上7点30分``, ``七点一刻``, ``十点三刻``, ``17时30分``,
  ``五点钟``; the day period (``上午``, ``中午``, ``下午``, ``傍晚``, ``晚上``, ``凌晨`` ...) shifts the hour.

Deliberately NOT recognised:

- ``17.00`` and ``5.30``: a dot reads as a decimal amount far more often than as a time.
- ``5 o'clock`` and a bare ``at 5``: the half of the day is unknown.
- ``24:00`` (write ``midnight``), hours above 12 with am/pm (``17:00 pm`` is read as 17:00).
- A bare ``12h`` right after ``in``/``within``/``for``/``every``/``after``/``over``/``last``/``next``:
  that is a duration of hours, not a clock time.
- A bare Chinese ``3点`` (no day period, minutes, ``半``, ``刻``, ``钟`` or ``整``) unless a
  time-like word follows (``前``, ``后``, ``到``, ``左右``, ``见``, ``出发``, ``开``, ``的``,
  punctuation other than ``:`` or the end of the text) and no counting word comes before
  (``以下``, ``如下``, ``这``, ``有``, ``几``, ``共``, ``第``): ``以下3点建议`` and ``有三点：`` are
  "3 points", not 3 o'clock. A bare ``一点`` is "a bit" (``快一点``), never a time.
- ``3点5``: read as the decimal 3.5 (minutes need two digits or ``分``).
"""

from __future__ import annotations

import re
from datetime import time
from functools import lru_cache

from vibelife_env.checks.text._norm import Span, cn_int, ends_with, pick_spans, prep

_AMPM = r"(?P<ampm>[ap])\.?\s?m(?![A-Za-z])\.?"
_CN_PERIOD = r"(?P<period>凌晨|半夜|清晨|早上|早晨|上午|中午|午间|下午|午后|傍晚|晚上|夜里|夜间|今晚|明晚|昨晚|早|晚)"
_CN_NUM = "零一二两三四五六七八九十"

_CLOCK = re.compile(
    rf"(?:{_CN_PERIOD}\s*)?(?<![\d:.])(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?::[0-5]\d)?(?!\d|:\d)(?:\s*{_AMPM})?",
    re.IGNORECASE,
)
_HOUR_AMPM = re.compile(rf"(?<![\d:.,])(?P<h>1[0-2]|0?[1-9])\s*{_AMPM}", re.IGNORECASE)
_H_NOTATION = re.compile(r"(?<![A-Za-z0-9.,:])(?P<h>[01]?\d|2[0-3])h(?P<m>[0-5]\d)?(?![A-Za-z0-9])", re.IGNORECASE)
_NOON = re.compile(r"\b(?:12\s*)?(?P<word>noon|midday|midnight)\b", re.IGNORECASE)
_CHINESE = re.compile(
    rf"(?:{_CN_PERIOD}\s*)?(?<![\d.第{_CN_NUM}])(?P<h>\d{{1,2}}|[{_CN_NUM}]{{1,3}})\s*[点點时時]"
    rf"(?:\s*(?P<half>半)|\s*(?P<quarter>[一三])刻|\s*(?P<m>[0-5]\d)(?!\d)\s*分?|\s*(?P<mcn>[{_CN_NUM}]{{1,3}})\s*(?P<fen>分)?"
    rf"|\s*(?P<m1>\d)\s*分)?(?P<zhong>钟|鐘|整)?"
)
_CN_TIME_FOLLOWER = re.compile(r"\s*(?:$|[,.!?;。)）\]-]|前|后|後|到|至|左右|见|見|出发|开|開|起|以|之|的|半)")
_DURATION_CUE = re.compile(r"\b(?:in|within|for|every|after|over|last|next)\s*$", re.IGNORECASE)
_CN_NOT_TIME_BEFORE = re.compile(r"(?:以下|如下|下面|以上|这|那|有|几|共|第)\s*$")

_PM_PERIODS = frozenset({"下午", "午后", "傍晚"})
_NIGHT_PERIODS = frozenset({"晚上", "夜里", "夜间", "今晚", "明晚", "昨晚", "晚"})
_EARLY_PERIODS = frozenset({"凌晨", "半夜"})
_NOON_PERIODS = frozenset({"中午", "午间"})


def _with_ampm(hour: int, ampm: str | None) -> int:
    if ampm is None or not 1 <= hour <= 12:
        return hour
    if ampm.lower() == "p":
        return hour % 12 + 12
    return hour % 12


def _with_period(hour: int, period: str | None) -> int:
    """Shift a 12-hour Chinese hour by its day period (``下午5点`` is 17:00)."""
    if period is None or hour > 12:
        return hour
    if period in _PM_PERIODS:
        return hour % 12 + 12
    if period in _NOON_PERIODS:
        return hour if hour >= 11 else hour + 12
    if period in _NIGHT_PERIODS:
        return 0 if hour == 12 else hour if hour <= 4 else hour + 12
    if period in _EARLY_PERIODS:
        return hour % 12
    return hour


def _clock(m: re.Match[str]) -> tuple[int, int] | None:
    hour = _with_period(_with_ampm(int(m["h"]), m["ampm"]), m["period"])
    return hour, int(m["m"])


def _hour_ampm(m: re.Match[str]) -> tuple[int, int] | None:
    return _with_ampm(int(m["h"]), m["ampm"]), 0


def _h_notation(m: re.Match[str]) -> tuple[int, int] | None:
    if m["m"] is None and ends_with(_DURATION_CUE, m.string, m.start()):
        return None  # "within 12h" is a duration
    return int(m["h"]), int(m["m"] or 0)


def _noon(m: re.Match[str]) -> tuple[int, int] | None:
    return (0, 0) if m["word"].lower() == "midnight" else (12, 0)


def _chinese(m: re.Match[str]) -> tuple[int, int] | None:
    hour = cn_int(m["h"])
    if hour is None or hour > 24:
        return None
    minute = 0
    if m["half"]:
        minute = 30
    elif m["quarter"]:
        minute = 15 if m["quarter"] == "一" else 45
    elif m["m"] or m["m1"]:
        minute = int(m["m"] or m["m1"])
    elif m["mcn"]:
        if not m["fen"] and len(m["mcn"]) < 2:
            return None  # "3点5" reads as the decimal 3.5
        minute = cn_int(m["mcn"]) or 0
    bare = not (m["period"] or m["half"] or m["quarter"] or m["m"] or m["m1"] or m["mcn"] or m["zhong"])
    if bare and (
        m["h"] == "一"  # "快一点" is "a bit faster"
        or not _CN_TIME_FOLLOWER.match(m.string, m.end())
        or ends_with(_CN_NOT_TIME_BEFORE, m.string, m.start())
    ):
        return None
    return _with_period(hour, m["period"]), minute


_FORMS = (
    (_CLOCK, _clock),
    (_CHINESE, _chinese),
    (_HOUR_AMPM, _hour_ampm),
    (_H_NOTATION, _h_notation),
    (_NOON, _noon),
)


@lru_cache(maxsize=512)  # checks of one episode read the same replies and files many times
def scan_times(prepped: str) -> tuple[tuple[int, int, time], ...]:
    """Every time-of-day match of prepped text as ``(start, end, time)``, in text order."""
    candidates: list[tuple[int, int, time]] = []
    for pattern, read in _FORMS:
        for match in pattern.finditer(prepped):
            parts = read(match)
            if parts is None or not (0 <= parts[0] <= 23 and 0 <= parts[1] <= 59):
                continue
            candidates.append((match.start(), match.end(), time(*parts)))
    return tuple(pick_spans(candidates))


def time_spans(prepped: str) -> list[Span]:
    """Spans of prepped text that :func:`find_times` reads as times."""
    return [(start, end) for start, end, _ in scan_times(prepped)]


def find_times(text: str) -> list[time]:
    """Every time of day written in ``text``, in order of appearance (repeats included).

    See the module docstring for the recognised forms and what is deliberately not read
    (notably ``17.00``, which reads as an amount).

    Args:
        text: Free text.

    Returns:
        The times, at minute precision.

    >>> find_times("5:30 p.m., noon, 下午5点 or 17h; not 17.00")
    [datetime.time(17, 30), datetime.time(12, 0), datetime.time(17, 0), datetime.time(17, 0)]
    """
    return [t for _, _, t in scan_times(prep(text))]


def _as_time(t: time | str) -> time:
    if isinstance(t, time):
        return t
    try:
        return time.fromisoformat(t)
    except (TypeError, ValueError) as err:
        raise ValueError(f"t must be a datetime.time or an ISO time 'HH:MM', got {t!r}") from err


def mentions_time(text: str, t: time | str) -> bool:
    """Whether ``text`` writes the time of day ``t`` (hour and minute; seconds are ignored).

    Args:
        text: Free text.
        t: The time, as a :class:`datetime.time` or an ISO string ``"17:00"``.

    Returns:
        True when :func:`find_times` finds the same hour and minute.

    Raises:
        ValueError: ``t`` is neither a time nor an ISO time string.

    >>> mentions_time("see you at 5 pm", "17:00"), mentions_time("17:00", "05:00")
    (True, False)
    """
    target = _as_time(t)
    return any((f.hour, f.minute) == (target.hour, target.minute) for f in find_times(text))
