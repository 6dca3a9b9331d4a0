"""Names of people and places, compared after normalisation.

:func:`norm_name` folds case, strips Latin diacritics, makes full-width characters
half-width and turns every run of whitespace and punctuation into one space.
:func:`mentions_name` then matches Latin-script names on whole words and CJK names as
substrings.

Deliberately NOT recognised: initials (``G. Li``), titles and nicknames (``Mr Li``, ``Dad``)
unless the caller passes them as aliases, transliteration between scripts (``Li Guoqiang``
vs ``李国强``: pass both), and misspellings.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from vibelife_env.checks.text._norm import CJK_CHARS, has_cjk

_LETTERS = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe", "ı": "i"})
_SCRIPT_EDGE = re.compile(f"(?<=[{CJK_CHARS}])(?=[^{CJK_CHARS}])|(?<=[^{CJK_CHARS}])(?=[{CJK_CHARS}])")


def norm_name(s: str) -> str:
    """Normalise a name or a text for comparison.

    Case is folded, Latin diacritics are removed (``é`` to ``e``, ``ø`` to ``o``), full-width
    characters become half-width, and every run of characters that are neither letters nor
    digits becomes a single space.

    Args:
        s: A name or any text.

    Returns:
        The normalised string, without leading or trailing spaces.

    >>> norm_name("  ZHANG  Wěi-Ｌｉ, Jr. "), norm_name("李 国强")
    ('zhang wei li jr', '李 国强')
    """
    folded = unicodedata.normalize("NFKC", s).casefold().translate(_LETTERS)
    decomposed = unicodedata.normalize("NFD", folded)
    stripped = unicodedata.normalize("NFC", "".join(ch for ch in decomposed if not "\u0300" <= ch <= "\u036f"))
    kept = "".join(ch if unicodedata.category(ch)[0] in "LN" else " " for ch in stripped)
    return " ".join(kept.split())


def name_tokens(text: str) -> list[str]:
    """Words of ``text`` after :func:`norm_name`, with CJK runs split from Latin ones."""
    return _SCRIPT_EDGE.sub(" ", norm_name(text)).split()


def _boundaries(tokens: Iterable[str]) -> set[int]:
    """Character offsets where one token ends and the next begins, in the joined string."""
    offsets: set[int] = set()
    total = 0
    for token in tokens:
        total += len(token)
        offsets.add(total)
    offsets.discard(total)
    return offsets


def _window_matches(window: list[str], name: list[str]) -> bool:
    """Whether text ``window`` spells ``name`` with compatible word breaks.

    The text may split a name word further (``Guo Qiang`` for ``Guoqiang``) into pieces of at
    least two letters, or join name words that the name splits (``Guoqiang`` for ``Guo Qiang``)
    as long as it keeps at least two words when the name has more than one.
    """
    if "".join(window) != "".join(name):
        return False
    text_breaks, name_breaks = _boundaries(window), _boundaries(name)
    if name_breaks <= text_breaks:
        return len(window) == len(name) or all(len(piece) >= 2 for piece in window)
    return text_breaks <= name_breaks and len(window) >= min(2, len(name))


def tokens_contain(haystack: list[str], needle: list[str]) -> bool:
    """Whether consecutive ``haystack`` words spell the ``needle`` words (see :func:`_window_matches`)."""
    target = "".join(needle)
    for start in range(len(haystack)):
        joined = ""
        for end in range(start, len(haystack)):
            joined += haystack[end]
            if len(joined) > len(target) or not target.startswith(joined):
                break
            if joined == target and _window_matches(haystack[start : end + 1], needle):
                return True
    return False


def _orders(tokens: list[str]) -> list[list[str]]:
    """The name as given, and with its first or last word moved to the other end."""
    if len(tokens) < 2:
        return [tokens]
    return [tokens, tokens[1:] + tokens[:1], tokens[-1:] + tokens[:-1]]


def mentions_name(text: str, name: str, aliases: Iterable[str] = ()) -> bool:
    """Whether ``text`` mentions ``name`` or one of its ``aliases``.

    Latin-script names match whole words after :func:`norm_name`, in the given order or with
    the family name moved to the other end (``Guoqiang Li`` for ``Li Guoqiang``); hyphens and
    spacing inside a name may differ (``Guo-qiang``). CJK names match as substrings, ignoring
    spaces (``李国强先生`` mentions ``李国强``).

    Args:
        text: Free text.
        name: The name.
        aliases: Other ways to refer to the same person (``"Dad"``, ``"李国强"``), given by the caller.

    Returns:
        True when any of them is mentioned.

    Raises:
        ValueError: ``name`` and every alias are empty after normalisation.

    >>> mentions_name("Dear GUOQIANG LI,", "Li Guoqiang"), mentions_name("Lin A", "Li Na")
    (True, False)
    """
    given = (name, *aliases)
    candidates = [norm_name(c) for c in given]
    if not any(candidates):
        raise ValueError(f"name and aliases are all empty after normalisation: {given!r}")
    tokens = name_tokens(text)
    squeezed = "".join(tokens)
    for candidate in filter(None, candidates):
        if has_cjk(candidate):
            if candidate.replace(" ", "") in squeezed:
                return True
        elif any(tokens_contain(tokens, order) for order in _orders(candidate.split())):
            return True
    return False
