"""World writes as data: SQL statements built from a service's own schema.

Families and probes seed services and mutate them on the timeline with SQL statements (a
task bundle's ``seeds/*.sql`` and its ``sql`` mutations are SQL too). This module is the one
place that text is written, checked against the service's ``schema.sql`` as it is built: a
table or a column the service does not have is an error that names it and lists the ones
it has, at build time, instead of a failed seed when the world opens.

- :func:`q`: a value as an SQL literal;
- :class:`Raw`: an SQL expression passed through unquoted (a sub-select, ``NULL`` logic);
- :func:`insert`: one ``INSERT`` of one or more rows (dicts with the same keys);
- :func:`insert_select`: one ``INSERT ... SELECT`` (rows copied from a read);
- :func:`update`: one ``UPDATE ... SET ... WHERE`` with equality conditions;
- :func:`columns`: a service's tables and their columns.

Each service's ``seed`` module (``vibelife_env.services.email.seed`` ...) builds its common
rows (a mailbox, an inbox message, a primary calendar, a workspace) on top of these.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

_SERVICES = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Raw:
    """An SQL expression written as is (not quoted), e.g. a sub-select."""

    sql: str


def q(value: Any) -> str:
    """A SQL literal: ``NULL``, a number (a bool as 0/1), a :class:`Raw` expression, or a
    quoted string.

    >>> import numpy as np
    >>> q("it's"), q(None), q(True), q(2.5), q(np.float64(2.5)), q(Raw("CURRENT_DATE"))
    ("'it''s'", 'NULL', '1', '2.5', '2.5', 'CURRENT_DATE')
    """
    if value is None:
        return "NULL"
    if isinstance(value, Raw):
        return value.sql
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):  # numpy floats too (their repr names the type)
        return repr(float(value))
    if isinstance(value, int):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


@cache
def columns(service: str) -> dict[str, tuple[str, ...]]:
    """``{table: columns}`` of ``service`` as its ``schema.sql`` creates them.

    Raises:
        ValueError: no service folder (or no schema) of that name.
    """
    schema = _SERVICES / service / "schema.sql"
    if not schema.is_file():
        known = sorted(p.parent.name for p in _SERVICES.glob("*/schema.sql") if not p.parent.name.startswith("_"))
        raise ValueError(f"unknown service {service!r}; services with a schema: {', '.join(known)}")
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema.read_text(encoding="utf-8"))
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: tuple(r[1] for r in db.execute(f"PRAGMA table_info({t})")) for t in tables}
    finally:
        db.close()


def _table(service: str, table: str, names: list[str]) -> None:
    tables = columns(service)
    if table not in tables:
        raise ValueError(f"service {service!r} has no table {table!r}; its tables: {', '.join(sorted(tables))}")
    unknown = [n for n in names if n not in tables[table]]
    if unknown:
        raise ValueError(
            f"table {service}.{table} has no column {', '.join(map(repr, unknown))}; "
            f"its columns: {', '.join(tables[table])}"
        )


def insert(
    service: str, table: str, *rows: Mapping[str, Any], or_ignore: bool = False, or_replace: bool = False
) -> str:
    """One ``INSERT`` of ``rows`` (the same keys in each, values quoted with :func:`q`);
    ``or_ignore``/``or_replace`` pick SQLite's conflict clause.

    >>> insert("email", "folders", {"name": "INBOX"}, {"name": "Spam"})
    "INSERT INTO folders (name) VALUES ('INBOX'), ('Spam');"

    Raises:
        ValueError: no rows, rows with different keys, or a table or column ``service``
            does not have.
    """
    if not rows:
        raise ValueError(f"insert into {service}.{table}: no rows")
    if or_ignore and or_replace:
        raise ValueError(f"insert into {service}.{table}: or_ignore and or_replace together")
    cols = list(rows[0])
    for r in rows[1:]:
        if list(r) != cols:
            raise ValueError(f"insert into {service}.{table}: rows name different columns ({cols} and {list(r)})")
    _table(service, table, cols)
    values = ", ".join("(" + ", ".join(q(r[c]) for c in cols) + ")" for r in rows)
    verb = "INSERT OR IGNORE INTO" if or_ignore else "INSERT OR REPLACE INTO" if or_replace else "INSERT INTO"
    return f"{verb} {table} ({', '.join(cols)}) VALUES {values};"


def insert_select(service: str, table: str, cols: list[str], select: str, *, or_replace: bool = False) -> str:
    """One ``INSERT INTO table (cols) SELECT ...``: rows copied from what ``select`` reads.

    >>> insert_select("brokerage", "fund_navs", ["fund_code", "date", "nav_minor"],
    ...               "SELECT fund_code, '2026-05-01', current_nav_minor FROM funds", or_replace=True)
    "INSERT OR REPLACE INTO fund_navs (fund_code, date, nav_minor) SELECT fund_code, '2026-05-01', current_nav_minor FROM funds;"

    Raises:
        ValueError: an unknown table or column, or ``select`` that is not a SELECT.
    """
    _table(service, table, cols)
    if not select.lstrip().upper().startswith("SELECT"):
        raise ValueError(f"insert into {service}.{table}: expected a SELECT, got {select[:40]!r}")
    verb = "INSERT OR REPLACE INTO" if or_replace else "INSERT INTO"
    return f"{verb} {table} ({', '.join(cols)}) {select.strip().rstrip(';')};"


def update(service: str, table: str, where: Mapping[str, Any], **values: Any) -> str:
    """One ``UPDATE table SET col = value, ... WHERE key = value AND ...``.

    >>> update("banking", "accounts", {"account_id": "acc_1"}, frozen=1)
    "UPDATE accounts SET frozen = 1 WHERE account_id = 'acc_1';"

    Raises:
        ValueError: nothing to set, no condition, or an unknown table or column.
    """
    if not values or not where:
        raise ValueError(f"update of {service}.{table} needs values to set and a condition")
    _table(service, table, [*values, *where])
    sets = ", ".join(f"{k} = {q(v)}" for k, v in values.items())
    cond = " AND ".join(f"{k} = {q(v)}" for k, v in where.items())
    return f"UPDATE {table} SET {sets} WHERE {cond};"
