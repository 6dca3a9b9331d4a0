"""What the service readers take: anything that runs a query on a service (a check context).

Readers (``services.<name>.read``) are the read half of the typed world access the seed
modules are the write half of: checks and probes call them instead of writing SELECT text, so
a service's table change is found in its own package. A reader is a plain function taking a
:class:`Reader` first and returning row dicts (or a simple value); every list it returns has a
stated order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class Reader(Protocol):
    """An object that runs a read-only query on one service's database and returns row dicts."""

    def sql(self, service: str, query: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...


class _Initial:
    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx

    def sql(self, service: str, query: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return list(self._ctx.initial_sql(service, query, params))


def initial(ctx: Any) -> Reader:
    """A reader of the world as the episode began: ``ctx.initial_sql`` behind the :class:`Reader`
    face (see :meth:`~vibelife_env.checks.context.CheckContext.initial_sql`)."""
    return _Initial(ctx)


class _World:
    def __init__(self, world: Any) -> None:
        self._world = world

    def sql(self, service: str, query: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return list(self._world.services[service].query(query, params))


def world(world: Any) -> Reader:
    """A reader straight on a world's services (``world.services[name].query``), for the world
    scripts that read before they write (a check reads through its context instead)."""
    return _World(world)


def where(**columns: Any) -> tuple[list[str], list[Any]]:
    """The conditions and parameters that hold each given column to its value, for a reader's
    optional filters: ``None`` leaves a column free, a string or number is ``col = ?`` and any
    other sequence is ``col IN (?, ...)``.

    >>> where(user_id="u1", status=("a", "b"), kind=None)
    (['user_id = ?', 'status IN (?, ?)'], ['u1', 'a', 'b'])
    """
    conds: list[str] = []
    params: list[Any] = []
    for col, value in columns.items():
        if value is None:
            continue
        if isinstance(value, (str, int, float, bytes)):
            conds.append(f"{col} = ?")
            params.append(value)
        else:
            values = list(value)
            conds.append(f"{col} IN ({', '.join('?' * len(values))})")
            params.extend(values)
    return conds, params


def select(table: str, conds: Sequence[str], order: str) -> str:
    """``SELECT * FROM table [WHERE c1 AND c2 ...] ORDER BY order``."""
    return f"SELECT * FROM {table}" + (" WHERE " + " AND ".join(conds) if conds else "") + f" ORDER BY {order}"
