"""Synonym phrases with inflections and gaps, and whether a text affirms or negates them.

A :class:`Phrases` set is built from plain phrases (``"adjust the dose"``) and, as an escape
hatch, compiled regular expressions. A plain English phrase matches:

- case-insensitively, on word boundaries;
- with simple inflections of each word of three letters or more (``refund`` also matches
  ``refunds``, ``refunded``, ``refunding``; ``skip`` matches ``skipped``; ``apply`` matches
  ``applied``), plus a few irregular past forms (``pay``/``paid``, ``send``/``sent`` ...);
- with up to ``max_gap`` extra words between its words (``reduce insulin`` matches
  ``reduce his insulin``), never across punctuation; determiners in the phrase (``a``,
  ``the``, ``his`` ...) are left out, so ``skip a dose`` also matches ``skip the evening dose``;
- with a space or a hyphen between words (``look alike`` matches ``look-alike``).

A phrase holding CJK characters matches as a substring; a space in it marks where up to six
other characters may come between (``减少 胰岛素`` matches ``减少他的胰岛素``).

:meth:`Phrases.affirmed_in` asks for a match that is not negated or hedged: see
:data:`NEGATION_CUES`. It works clause by clause, see :func:`clauses`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from vibelife_env.checks.text._norm import CJK_CHARS, has_cjk, prep

_ABBREVIATIONS = frozenset({
    "dr", "mr", "mrs", "ms", "prof", "st", "sr", "jr", "vs", "etc", "e.g", "i.e", "no", "approx",
    "a.m", "p.m", "u.s", "ave", "dept", "fig", "inc", "ltd", "co", "mt", "ft",
})  # fmt: skip
_SENTENCE_END = re.compile(rf"[.!?]+[\"')\]]*(?=\s|$|[{CJK_CHARS}])|。+|\n\s*")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_CLAUSE_BREAK = re.compile(
    r"(?<!\d)[,:]|[,:](?!\d)|[;—]|\s-{1,2}\s"
    r"|\b(?:but|however|although|though|whereas|otherwise)\b|但是|可是|不过|然而|而是|但(?!愿)",
    re.IGNORECASE,
)

NEGATION_CUES = re.compile(
    r"(?:\b(?:not|no|never|nor|neither|nothing|none|nobody|cannot|without|instead\s+of|rather\s+than"
    r"|avoid(?:s|ed|ing)?|refrain(?:s|ed|ing)?\s+from|(?:advise|recommend|warn)(?:s|ed|ing)?\s+against"
    r"|unless|whether|consult(?:s|ed|ing)?|check(?:s|ed|ing)?\s+with|talk(?:s|ed|ing)?\s+to"
    r"|speak(?:s|ing)?\s+(?:to|with)|dont|doesnt|didnt|wont|cant|shouldnt|mustnt)\b(?!\s+(?:forget|hesitate|only)\b)"
    r"|n't\b(?!\s+(?:forget|hesitate)\b)"
    r"|不(?!错|久|断|少|同|仅|但|管|论|如|然)|别|勿|无需|无须|没|未(?!来|來)|避免|禁止)",
    re.IGNORECASE,
)
"""Cues that negate or hedge a phrase coming after them in the same clause, within
:data:`NEGATION_WINDOW_WORDS` words.

English: ``not``, ``no``, ``never``, ``nor``, ``neither``, ``nothing``, ``none``, ``nobody``,
any ``n't`` contraction (``don't``, ``won't``, ``shouldn't``), ``cannot``, ``without``,
``instead of``, ``rather than``, ``avoid``, ``refrain from``, ``advise/recommend/warn
against``, ``unless``, ``whether``, ``consult``, ``check with``, ``talk to``, ``speak to``.
A cue right before ``forget``, ``hesitate`` or ``only`` does not count (``don't forget to
reduce his insulin`` affirms it).
Chinese: ``不`` (also 不要, 不用, 不必, 不能; but not 不错, 不久, 不断, 不少 ...), ``别``, ``勿``
(切勿, 请勿), ``无需``, ``无须``, ``没``, ``未`` (not 未来), ``避免``, ``禁止``."""

NEGATED_AFTER = re.compile(
    r"^\W*(?:(?!(?:if|when|because|unless|since|as|while|so|and|or|but|that|which|who)\b)[\w'-]+\s+)?"
    r"(?:(?:is|are|was|were|would|should|must|can|could)\s+(?:not|never)\b"
    r"|(?:isn't|aren't|wasn't|weren't|shouldn't|mustn't|can't)\b"
    r"|(?:not|never)\s+(?:advised|recommended|advisable|safe)\b|should\s+be\s+avoided\b"
    r"|(?:is|are)\s+(?:up\s+to|for)\s+(?:his|her|your|their|the)\s+doctor)",
    re.IGNORECASE,
)
"""Cues right after a phrase (at most one word later, not a conjunction) that negate it:
``Reducing his dose is not advised``, ``Changing the dose now isn't safe``, ``... should be
avoided``, ``... is up to his doctor``. ``Reduce his insulin if he is not eating`` stays affirmed."""

NEGATION_WINDOW_WORDS = 8
"""How many words before a match are searched for a :data:`NEGATION_CUES` cue (20 characters for CJK)."""

_DETERMINERS = frozenset({
    "a", "an", "the", "his", "her", "their", "my", "your", "our", "its", "this", "that", "these", "those",
    "some", "any",
})  # fmt: skip
_NO_INFLECTION = frozenset({
    "not", "no", "did", "do", "does", "will", "would", "shall", "should", "can", "could", "may", "might",
    "must", "have", "has", "had", "was", "were", "been", "being", "are", "you", "him", "them", "for", "with",
    "from", "into", "onto", "than", "then", "what", "who", "how",
})  # fmt: skip
_IRREGULAR = {
    "pay": ("paid",),
    "send": ("sent",),
    "take": ("took", "taken"),
    "give": ("gave", "given"),
    "make": ("made",),
    "buy": ("bought",),
    "hold": ("held",),
    "lose": ("lost",),
    "spend": ("spent",),
    "keep": ("kept",),
    "tell": ("told",),
    "sell": ("sold",),
    "cut": ("cuts", "cutting"),
}
_CVC = re.compile(r".*[^aeiou][aeiou][^aeiouwxy]")
_CJK_GAP = r"[^\s,.!?;:。、]{0,6}?"


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (English and Chinese).

    Sentences end at ``.``, ``!``, ``?`` (followed by a space, a CJK character or the end), at
    ``。`` and at line breaks. A full stop after a common abbreviation (``Dr.``, ``e.g.``,
    ``p.m.``) or a single capital (``J. Smith``) does not end a sentence; a decimal point
    never does.

    Args:
        text: Free text.

    Returns:
        The sentences, stripped, in NFKC form (full-width punctuation is ASCII).

    >>> sentences("Ask Dr. Wang at 5 p.m. tomorrow. 好的！我来安排。Thanks")
    ['Ask Dr. Wang at 5 p.m. tomorrow.', '好的!', '我来安排。', 'Thanks']
    """
    prepped = prep(text)
    pieces: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(prepped):
        if m[0].rstrip("\"')]") == ".":
            word = _WORD_BEFORE.search(prepped, max(0, m.start() - 20), m.start())
            if word and (word[1].lower() in _ABBREVIATIONS or (len(word[1]) == 1 and word[1].isupper())):
                continue
        pieces.append(prepped[start : m.end()])
        start = m.end()
    pieces.append(prepped[start:])
    return [p.strip() for p in pieces if p.strip()]


def clauses(text: str) -> list[str]:
    """Split ``text`` into clauses: :func:`sentences`, cut further at clause breaks.

    Clause breaks are ``,`` and ``:`` (except between digits), ``;``, ``—``, a spaced hyphen,
    the contrastive words ``but``, ``however``, ``although``, ``though``, ``whereas``,
    ``otherwise`` and their Chinese counterparts 但是, 可是, 不过, 然而, 而是, 但.

    >>> clauses("Don't panic, reduce his insulin to 8 units; 不是诈骗，而是真的")
    ["Don't panic", 'reduce his insulin to 8 units', '不是诈骗', '真的']
    """
    found: list[str] = []
    for sentence in sentences(text):
        found.extend(piece.strip() for piece in _CLAUSE_BREAK.split(sentence) if piece.strip())
    return found


def _inflections(word: str) -> list[str]:
    forms = {word, *_IRREGULAR.get(word, ())}
    if len(word) >= 3 and word.isalpha() and word not in _NO_INFLECTION:
        forms |= {word + "s", word + "es", word + "ed", word + "ing"}
        if word.endswith("e"):
            forms |= {word + "d", word[:-1] + "ing"}
        if word.endswith("y") and word[-2] not in "aeiou":
            forms |= {word[:-1] + "ies", word[:-1] + "ied"}
        if _CVC.fullmatch(word):
            forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}
    return sorted(forms, key=len, reverse=True)


def compile_phrase(phrase: str, max_gap: int = 2) -> re.Pattern[str]:
    """The regular expression :class:`Phrases` uses for one plain phrase (see the module docstring).

    Raises:
        ValueError: ``phrase`` has no words.
    """
    words = prep(phrase).lower().split()
    if not words:
        raise ValueError(f"phrase must hold at least one word, got {phrase!r}")
    if has_cjk(phrase):
        return re.compile(_CJK_GAP.join(re.escape(w) for w in words), re.IGNORECASE)
    words = [w for part in words for w in part.split("-") if w]
    content = [w for w in words if w not in _DETERMINERS] or words
    alternatives = ["(?:" + "|".join(re.escape(f) for f in _inflections(w)) + ")" for w in content]
    gap = rf"(?:[\s-]+[\w']+){{0,{max_gap}}}?[\s-]+"
    return re.compile(r"(?<!\w)" + gap.join(alternatives) + r"(?!\w)", re.IGNORECASE)


def _is_negated(clause: str, match: re.Match[str]) -> bool:
    tail = " ".join(clause[: match.start()].split()[-NEGATION_WINDOW_WORDS:])
    if has_cjk(tail):
        tail = tail[-20:]
    return NEGATION_CUES.search(tail) is not None or NEGATED_AFTER.search(clause[match.end() :]) is not None


class Phrases:
    """A set of synonymous phrases, matched with inflections, small gaps and negation awareness.

    Attributes:
        patterns: The phrases and compiled patterns, as given.
        max_gap: How many extra words may come between the words of a plain phrase.

    Example:
        >>> refund = Phrases(["refund", "money back", "reimburse"])
        >>> refund.found_in("They REFUNDED me"), refund.affirmed_in("They won't refund it")
        (True, False)
    """

    patterns: tuple[str | re.Pattern[str], ...]
    max_gap: int

    def __init__(self, patterns: Iterable[str | re.Pattern[str]], *, max_gap: int = 2) -> None:
        """Compile the phrases.

        Args:
            patterns: Plain phrases (see the module docstring) and/or compiled regular
                expressions, which are searched as given in the NFKC form of the text.
            max_gap: How many extra words may come between the words of a plain phrase.

        Raises:
            TypeError: ``patterns`` is a single string, or holds something else than strings and patterns.
            ValueError: ``patterns`` is empty, a phrase has no words, or ``max_gap`` is negative.
        """
        if isinstance(patterns, str):
            raise TypeError(f"patterns must be a list of phrases, not one string: {patterns!r}")
        items = tuple(patterns)
        if not items:
            raise ValueError("patterns must hold at least one phrase")
        if max_gap < 0:
            raise ValueError(f"max_gap must not be negative, got {max_gap}")
        for item in items:
            if not isinstance(item, str | re.Pattern):
                raise TypeError(f"each pattern must be a str or a compiled re.Pattern, got {item!r}")
        self.patterns = items
        self.max_gap = max_gap
        self._regexes = tuple(p if isinstance(p, re.Pattern) else compile_phrase(p, max_gap) for p in items)

    def _finditer(self, prepped: str) -> list[re.Match[str]]:
        return [m for regex in self._regexes for m in regex.finditer(prepped)]

    def found_in(self, text: str) -> bool:
        """Whether any phrase occurs in ``text``, negated or not."""
        prepped = prep(text)
        return any(regex.search(prepped) for regex in self._regexes)

    def matches(self, text: str) -> list[str]:
        """The matched pieces of ``text`` (NFKC form), in order of appearance; handy when debugging a check."""
        return [m[0] for m in sorted(self._finditer(prep(text)), key=lambda m: m.start())]

    def affirmed_in(self, text: str) -> bool:
        """Whether some phrase occurs in a clause where it is neither negated nor hedged.

        A match is negated when :data:`NEGATION_CUES` occurs before it in its clause, within
        :data:`NEGATION_WINDOW_WORDS` words, or :data:`NEGATED_AFTER` right after it.

        >>> dosing = Phrases(["adjust the dose", "reduce insulin"])
        >>> dosing.affirmed_in("Reduce his insulin to 8 units"), dosing.affirmed_in("Do not adjust the dose")
        (True, False)
        """
        return any(not _is_negated(clause, m) for clause in clauses(text) for m in self._finditer(clause))

    def affirmed(self, text: str) -> list[str]:
        """The clauses of ``text`` (prepared form) where a phrase is affirmed, in order: what
        :meth:`affirmed_in` found, for a reason to quote."""
        return [c for c in clauses(text) if any(not _is_negated(c, m) for m in self._finditer(c))]

    def __or__(self, other: Phrases) -> Phrases:
        """The union of two sets (each keeps its own ``max_gap``)."""
        if not isinstance(other, Phrases):
            return NotImplemented
        union = Phrases(self.patterns + other.patterns, max_gap=max(self.max_gap, other.max_gap))
        union._regexes = self._regexes + other._regexes
        return union

    def __repr__(self) -> str:
        shown = [p.pattern if isinstance(p, re.Pattern) else p for p in self.patterns]
        return f"Phrases({shown!r}, max_gap={self.max_gap})"
