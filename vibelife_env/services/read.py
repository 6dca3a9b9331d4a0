"""What the service readers take: anything that runs a query on a service (a check context).

Readers (``services.<name>.read``) are the read half of the typed world access the seed
modules are the write half of: checks and probes call them instead of writing SELECT text, so
a service's table change is found in its own package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class Reader(Protocol):
    """An object that runs a read-only query on one service's database and returns row dicts."""

    def sql(self, service: str, query: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...
