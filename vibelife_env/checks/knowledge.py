"""The common knowledge a latent rule may rest on (issue #27, item 3).

A latent fact is planted in the world with no question about it: a passport's expiry date in a
travel note, a weekly lesson in the calendar. What follows from it is nobody's instruction; an
assistant infers it from the fact and one sentence every adult knows. A check that enforces
such a consequence records its rule as ``Rule(key, consequence, "latent:<entry>", fact=...)``
(:class:`vibelife_env.checks.kinds.Rule`), and the discoverability gate of ``vibelife validate``
accepts it only when ``<entry>`` is in this list and a tool call of the oracle returns the
planted fact before the check decides.

The list is short on purpose: each entry is a sentence a careful person would apply without
being told, and nothing a domain expert alone would know (those rules live in the world: a
statute, an agency's page, a merchant's terms). Adding an entry is a design decision; it goes
in this module's list with the sentence the audit reads.
"""

from __future__ import annotations

#: ``key -> the sentence of common knowledge`` (see the module docstring).
KNOWLEDGE: dict[str, str] = {
    "one_place_at_a_time": (
        "A person cannot be in two places at once: a plan that needs them somewhere while an "
        "appointment already in their diary needs them elsewhere is a clash to raise with them."
    ),
    "someone_home": "A visit to the home (a tradesperson, a delivery to be signed for) needs someone there to let it in.",
    "passport_six_months": (
        "Many countries refuse entry, and airlines refuse boarding, on a passport that expires "
        "within six months of arrival."
    ),
    "public_holiday_closed": "Offices, banks and most public services are closed on public holidays.",
    "child_fare_age": "Fares, tickets and seats for children depend on the child's age on the day of travel.",
    "document_language": (
        "A document for an authority abroad is read in that country's language; one in another "
        "language needs a certified translation."
    ),
    "overdraft": "A payment larger than an account's balance fails or overdraws it.",
    "night_arrival": "A traveller who lands after midnight needs a room booked from the evening before.",
}


def knowledge(key: str) -> str:
    """The sentence of common knowledge ``key`` names.

    Raises:
        KeyError: ``key`` is not on the list (the message lists the entries).
    """
    if key not in KNOWLEDGE:
        raise KeyError(f"{key!r} is not on the common-knowledge list; entries: {', '.join(sorted(KNOWLEDGE))}")
    return KNOWLEDGE[key]
