"""Virtual, timezone-aware time. Nothing in the simulation core reads the wall clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo


def parse_time(value: str | datetime, tz: tzinfo | None = None) -> datetime:
    """Parse an ISO-8601 timestamp into an aware datetime.

    Naive values (and bare dates) are interpreted in ``tz`` (UTC when ``None``).

    Raises:
        ValueError: ``value`` is not an ISO-8601 date or timestamp.
    """
    if isinstance(value, datetime):
        dt = value
    else:
        text = str(value).strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz or UTC)
    return dt


def get_zone(name: str | None) -> tzinfo:
    """Return the ``ZoneInfo`` for an IANA name, UTC for ``None``.

    Raises:
        ValueError: the name is not a known IANA time zone.
    """
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError) as exc:
        raise ValueError(f"unknown time zone {name!r}") from exc


class VirtualClock:
    """The world's clock. It only moves when the timeline advances it, never backwards.

    Args:
        start: The initial instant (aware).
        tz: The task's home zone, used to render local times.
    """

    def __init__(self, start: datetime, tz: tzinfo | None = None) -> None:
        if start.tzinfo is None:
            raise ValueError("VirtualClock needs an aware datetime")
        self.tz = tz or start.tzinfo
        self._now = start.astimezone(self.tz)

    def now(self) -> datetime:
        """The current virtual instant in the task's zone."""
        return self._now

    def iso(self) -> str:
        """The current instant as ISO-8601 with offset, seconds precision."""
        return self._now.isoformat(timespec="seconds")

    def iso_utc(self) -> str:
        """The current instant as ISO-8601 UTC with a ``Z`` suffix."""
        return self._now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def today(self) -> str:
        """The current local date, ``YYYY-MM-DD``."""
        return self._now.date().isoformat()

    def advance_to(self, when: datetime) -> None:
        """Move to ``when``; an earlier instant leaves the clock where it is."""
        when = when.astimezone(self.tz)
        if when > self._now:
            self._now = when

    def advance(self, delta: timedelta) -> None:
        """Move forward by ``delta`` (must not be negative)."""
        if delta < timedelta(0):
            raise ValueError("the virtual clock never moves backwards")
        self._now = self._now + delta

    def set(self, when: datetime) -> None:
        """Set the clock exactly (used by restore)."""
        self._now = when.astimezone(self.tz)
