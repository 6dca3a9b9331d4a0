"""Which options a text proposes: naming an option to rule it out is not proposing it.

A careful proposal often names the options it rejects ("Riverside Hall is over budget, so I
suggest Oak Court"). A check that counts every name mentioned then sees two proposals, or
an invalid one. :func:`proposed` counts an option only where a clause names it without
ruling it out (a clause here does not end at a colon: "Pier 9: no lift" is one): no negation before it in the clause (:data:`~vibelife_env.checks.text.phrases.NEGATION_CUES`,
as :meth:`Phrases.affirmed_in` reads them) and no rejection phrase in it (:data:`REJECTED`).
When every mention of every option is a rejection, the mentions themselves are returned,
so a proposal worded negatively ("nothing beats Oak Court") is not lost.

Example:
    >>> venues = ["Riverside Hall", "Oak Court", "Pier 9"]
    >>> proposed("Riverside Hall is over budget, so I suggest Oak Court; Pier 9 has no lift.", venues)
    ['Oak Court']
    >>> proposed("Book Oak Court rather than Pier 9.", venues)
    ['Oak Court']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from vibelife_env.checks.text._norm import prep
from vibelife_env.checks.text.phrases import NEGATION_CUES, NEGATION_WINDOW_WORDS, Phrases, sentences

T = TypeVar("T")

REJECTED = Phrases(
    [
        "rule out",
        "ruled out",
        "left out",
        "leave out",
        "leaving out",
        "omit",
        "omitted",
        "exclude",
        "excluded",
        "reject",
        "rejected",
        "disqualified",
        "too expensive",
        "too far",
        "too small",
        "too late",
        "too early",
        "over budget",
        "over the budget",
        "above the budget",
        "exceeds",
        "exceed",
        "unavailable",
        "sold out",
        "out of stock",
        "fully booked",
        "booked out",
        "is full",
        "are full",
        "has no",
        "have no",
        "lacks",
        "fails",
        "failed",
        "clash",
        "clashes",
        "conflict",
        "conflicts",
        "排除",
        "不符合",
        "不满足",
        "超出预算",
        "超预算",
        "太贵",
        "太远",
        "已满",
        "冲突",
        "没有",
        "无法",
    ]
)
"""Phrases that rule out an option named in the same clause (over budget, no lift, full, a
clash, excluded; 排除, 不符合, 超出预算 ...)."""


REMOVED = Phrases(
    [
        "removed",
        "delisted",
        "de-listed",
        "withdrawn",
        "taken down",
        "taken off",
        "no longer listed",
        "no longer available",
        "no longer on",
        "已下架",
        "下架",
        "已移除",
        "移除",
    ]
)
"""Phrases that take an option off a list the agent keeps (removed, delisted, withdrawn, no
longer listed; 下架, 移除): for a file that must hold exactly the options kept, where "Removed
2026-05-26: Cedar Heights (lst_55788), delisted" records a change, not a pick. Widen
:data:`REJECTED` with it (``REJECTED | REMOVED``) for such a file only: in a reply, "I removed
the old viewing and booked B" names B to keep it."""

#: Where a sentence splits into the parts an option is judged in: like :func:`~vibelife_env.checks.text.phrases.clauses`
#: but not at a colon, so "Pier 9: no lift" stays one part, and also at "so".
_CONTINUES = r"(?!\s*(?:such as|like|including|e\.g\.|for example|for instance|namely|比如|例如|包括|像是))"
_PART_BREAK = re.compile(
    rf"(?<!\d),{_CONTINUES}|,(?!\d){_CONTINUES}|[;—]|\s-{{1,2}}\s|\b(?:but|however|although|though|whereas|otherwise|so)\b"
    r"|但是|可是|不过|然而|而是|所以|但(?!愿)",
    re.IGNORECASE,
)


def parts(text: str) -> list[str]:
    """The parts of ``text`` an option is judged in (sentences, split at clause breaks but not at
    colons, nor at a comma that goes on with examples: "I left out trains outside your rules,
    such as G9982" is one part, nor inside brackets: in "lst_84716 ('Maple Court', 4,700 CNY)
    excluded" the aside's commas do not cut the listing off from its verdict).

    >>> parts("I left out S3: it clashes. S1 works, so book it.")
    ['I left out S3: it clashes.', 'S1 works', 'book it.']
    >>> parts("B2 (Maple Court, 4,700) excluded: a re-post, no agency.")
    ['B2 (Maple Court, 4,700) excluded: a re-post', 'no agency.']
    """
    return [p.strip() for sentence in sentences(text) for p in _split_outside_brackets(sentence) if p.strip()]


_OPEN, _CLOSE = "([{（【", ")]}）】"


def _split_outside_brackets(sentence: str) -> list[str]:
    """``sentence`` split at the clause breaks of :data:`_PART_BREAK` that are not inside brackets
    (an unclosed bracket holds to the end of the sentence; a stray closing one is ignored)."""
    depth, inside = 0, []
    for ch in sentence:
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE and depth:
            depth -= 1
        inside.append(depth > 0)
    out, start = [], 0
    for m in _PART_BREAK.finditer(sentence):
        if m.start() < len(inside) and inside[m.start()]:
            continue
        out.append(sentence[start : m.start()])
        start = m.end()
    out.append(sentence[start:])
    return out


_LABEL = re.compile(r"^[\s>*_-]*([^:：\n]{1,60})[:：]")


def _verdicts_joined(pieces: list[str], rejected: Phrases) -> list[str]:
    """``pieces`` with a bare verdict joined to the part before it: in "LET-0711-A (7/11): a wedding
    that day, excluded" the comma leaves "excluded" alone, and it rules out what precedes it."""
    out: list[str] = []
    for piece in pieces:
        rest = prep(piece)
        for hit in rejected.matches(piece):
            rest = rest.replace(hit, " ", 1)
        bare = (
            bool(out) and rest != prep(piece) and not re.sub(r"[\W_]|\b(?:so|and|thus|hence)\b|所以|因此|故", "", rest)
        )
        if bare:
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _labelled_out(line: str, rejected: Phrases) -> bool:
    """True for a line that opens with a label ruling out all it lists ("Trains excluded: G5763
    06:00 (before 06:30), G7651 arrives 10:05"; "Not shortlisted: ..."), as a heading would."""
    m = _LABEL.match(line)
    return m is not None and rejected.found_in(m.group(1))


#: "PRT-0919-A is out: it falls on your shift" rules it out; "results are out on 10-06" does not.
_IS_OUT = re.compile(
    r"\b(?:is|are|'s)\s+(?:out|off the table|a no-go)\b(?!\s+(?:on|by|in|at|from|now|today|tomorrow|soon|of)\b)",
    re.IGNORECASE,
)


def _ruled_out(clause: str, name: str, rejected: Phrases) -> bool:
    """True when ``clause`` names ``name`` only to rule it out."""
    if rejected.found_in(clause) or _IS_OUT.search(clause):
        return True
    at = clause.lower().find(name.lower())
    before = clause[: at if at >= 0 else len(clause)]
    window = " ".join(before.split()[-NEGATION_WINDOW_WORDS:])
    return NEGATION_CUES.search(window) is not None


HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
"""A Markdown heading line: its ``#`` marks (the level) and its title."""


def _negated_heading(title: str) -> bool:
    """A heading that opens with a negation ("Not shortlisted", "No-go", "未入选"): an aside
    such as "Proposed plan (nothing booked yet)" does not rule out what the section lists."""
    head = re.split(r"[(（\[:：,，;；—–]|\s-\s", title, maxsplit=1)[0]
    first = " ".join(head.split()[:2])
    return bool(first) and (m := NEGATION_CUES.search(first)) is not None and m.start() == 0


def sections(text: str, rejected: Phrases = REJECTED) -> list[tuple[bool, str]]:
    r"""``text`` cut at Markdown headings: ``(rules_out, body)`` per section, where ``rules_out``
    is true under a heading that rules out what it lists ("## Excluded", "## Not shortlisted",
    "## Ruled out") and in every section nested below it.

    >>> sections("# Shortlist\n- A\n## Excluded\n- B\n### Too far\n- C\n# Notes\n- D")
    [(False, '- A'), (True, '- B'), (True, '- C'), (False, '- D')]
    """
    out: list[tuple[bool, str]] = []
    stack: list[tuple[int, bool]] = []  # (heading level, rules out)
    body: list[str] = []
    state = False
    for line in text.splitlines():
        m = HEADING.match(line)
        if m is None:
            body.append(line)
            continue
        if any(x.strip() for x in body):
            out.append((state, "\n".join(x for x in body if x.strip())))
        body = []
        level, title = len(m.group(1)), m.group(2)
        while stack and stack[-1][0] >= level:
            stack.pop()
        own = rejected.found_in(title) or _negated_heading(title)
        state = own or any(flag for _, flag in stack)
        stack.append((level, state))
    if any(x.strip() for x in body):
        out.append((state, "\n".join(x for x in body if x.strip())))
    return out


def proposed(
    text: str,
    options: Sequence[T],
    mentions: Callable[[str, T], bool] | None = None,
    rejected: Phrases = REJECTED,
    fallback: bool = True,
) -> list[T]:
    """The options ``text`` proposes, in ``options`` order (see the module docstring).

    A Markdown file is read by section: what a section headed "Excluded" (or any heading that
    rules out, :func:`sections`) lists is ruled out, whatever its lines say.

    Args:
        text: A reply, a mail, a note, a workspace file.
        options: The options (names, codes, or objects with ``mentions`` to find them).
        mentions: ``mentions(clause, option)``: whether a clause names the option (default:
            case-insensitive substring of ``str(option)``).
        rejected: The rejection phrases (a domain may widen :data:`REJECTED`: ``REJECTED | Phrases([...])``).
        fallback: When every mention is a rejection, return the mentions (default); ``False``
            returns nothing then (for a list that must hold exactly the options kept).
    """
    find = mentions or (lambda clause, option: str(option).lower() in clause.lower())
    pieces = [
        (out or _labelled_out(line, rejected), part)
        for out, body in sections(text, rejected)
        for line in body.splitlines()
        for part in _verdicts_joined(parts(line), rejected)
    ]
    named: list[T] = []
    kept: list[T] = []
    for option in options:
        hits = [(out, c) for out, c in pieces if find(c, option)]
        if not hits:
            continue
        named.append(option)
        if any(not out and not _ruled_out(c, str(option), rejected) for out, c in hits):
            kept.append(option)
    return kept if kept or not fallback else named
