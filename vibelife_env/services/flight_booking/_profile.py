"""Which semantics a flight_booking database runs under: ours, or the public release's.

A *profile* is fixed when a world is made and never changes in an episode. It is part of
the database image, so every snapshot, fork and restore of the world keeps it without
anyone having to remember it: SQLite's ``application_id`` header field (``PRAGMA
application_id``, four bytes at offset 68 of the image) holds :data:`IDS` of the profile.
No table, seed, mutation, check or rubric reads that field, and the tables' contents (and
so :meth:`~vibelife_env.services.base.Service.digest`) do not depend on it.

- :data:`OWN` (``0``, every fresh SQLite database): our semantics, as the tool descriptions
  of :class:`~vibelife_env.services.flight_booking.service.FlightBookingService` state them;
- :data:`RELEASE`: the public release's shipped server code, for its public bundles
  (:class:`~vibelife_env.services.flight_booking.release.ReleaseFlightBookingService`;
  chosen per task by :mod:`vibelife_env.release.world`).
"""

from __future__ import annotations

import sqlite3

OWN = ""
RELEASE = "release"

#: The ``application_id`` of each profile (``0x564C4252``: "VLBR", VibeLife, the release).
IDS = {OWN: 0, RELEASE: 0x564C4252}
_NAMES = {v: k for k, v in IDS.items()}

#: Where SQLite keeps ``application_id`` in a database file (big-endian, 4 bytes).
_OFFSET = 68


def _name(value: int) -> str:
    if value not in _NAMES:
        raise ValueError(f"flight_booking database has an unknown profile id {value:#x}")
    return _NAMES[value]


def of_image(image: bytes) -> str:
    """The profile a serialized database runs under (:data:`OWN` for an image too short to have a header)."""
    if len(image) < _OFFSET + 4:
        return OWN
    return _name(int.from_bytes(image[_OFFSET : _OFFSET + 4], "big"))


def read(conn: sqlite3.Connection) -> str:
    """The profile of an open database."""
    return _name(int(conn.execute("PRAGMA application_id").fetchone()[0]))


def write(conn: sqlite3.Connection, profile: str) -> None:
    """Set the profile of an open database (outside any call: it is not rolled back with one).

    Raises:
        ValueError: unknown profile.
    """
    if profile not in IDS:
        raise ValueError(f"unknown flight_booking profile {profile!r}; known: {sorted(IDS)}")
    conn.execute(f"PRAGMA application_id = {IDS[profile]}")


def stamp(image: bytes, profile: str) -> bytes:
    """``image`` under ``profile`` (the same object when it already is).

    Raises:
        ValueError: unknown profile.
    """
    if of_image(image) == profile:
        return image
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.deserialize(image)
        write(conn, profile)
        return conn.serialize()
    finally:
        conn.close()
