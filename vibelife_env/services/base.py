"""The service framework: an in-memory SQLite backend exposing typed, atomic tools.

A service subclass declares::

    class NotesService(Service):
        name = "notes"
        SCHEMA = "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);"

        @tool
        def add_note(self, body: str) -> dict:
            '''Store a note.

            Args:
                body: The note text.
            '''
            cur = self.execute("INSERT INTO notes (body) VALUES (?)", (body,))
            return {"id": cur.lastrowid}

Every call is atomic. It runs inside a SQLite savepoint, and the world's generator state
(and clock) are saved first: if the tool fails (a :class:`ToolError` for agent mistakes,
an error result, anything else for bugs), the savepoint is rolled back and the generator
put back, so the tables and every id drawn later are exactly as if the call never
happened, and the agent receives ``{"error": ..., "code": ...}``. Services keep no other
Python state: anything that must persist between calls lives in their tables.

Time comes only from ``self.ctx.clock`` and randomness only from ``self.ctx.rng``, both
owned by the world, so a run is a pure function of task, seed and actions.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from vibelife_env.clock import VirtualClock
from vibelife_env.errors import ToolError
from vibelife_env.services.tooling import ToolProvider, tool

__all__ = ["Service", "ServiceContext", "ToolError", "open_db", "schema_from", "tool"]


@dataclass(frozen=True)
class _CallState:
    """What a failed call must give back besides its rows (see :meth:`Service.checkpoint`)."""

    rng_state: Mapping[str, Any]
    now: datetime


@dataclass
class ServiceContext:
    """What the world lends every service: its clock and its seeded generator."""

    clock: VirtualClock
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))


def schema_from(module_file: str, filename: str = "schema.sql") -> str:
    """Read the DDL file that sits beside a service module (``SCHEMA = schema_from(__file__)``)."""
    return (Path(module_file).parent / filename).read_text(encoding="utf-8")


def open_db() -> sqlite3.Connection:
    """A fresh in-memory database in autocommit mode (savepoints give atomicity)."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _load_image(conn: sqlite3.Connection, image: bytes) -> None:
    """Deserialize ``image`` into a fresh connection, foreign keys on."""
    conn.deserialize(image)
    conn.execute("PRAGMA foreign_keys = ON")


@functools.cache
def _schema_columns(schema: str) -> dict[str, tuple[str, ...]]:
    """Column names of every table ``schema`` (DDL) creates."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema)
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: tuple(r[1] for r in db.execute(f'PRAGMA table_info("{t}")')) for t in tables}
    finally:
        db.close()


class Service(ToolProvider):
    """Base of the 22 mock backends.

    Class attributes:
        name: Service key, e.g. ``"email"``; agent tools are ``email__<tool>``.
        SCHEMA: DDL creating the service's tables (the public spec's names and columns).
    """

    SCHEMA: ClassVar[str] = ""

    def __init__(self, ctx: ServiceContext, image: bytes | None = None) -> None:
        self.ctx = ctx
        self.conn = open_db()
        if image is not None:
            _load_image(self.conn, image)
        else:
            self.conn.executescript(self.SCHEMA)
            self.on_create()

    # ----------------------------------------------------------------- lifecycle
    def on_create(self) -> None:
        """Hook run once on a fresh database, before seed data (e.g. insert defaults)."""

    def after_seed(self) -> None:
        """Hook run once after seed data is loaded (e.g. create system folders)."""

    def sync_clock(self) -> None:
        """Hook run before every tool call, inside the call's savepoint.

        Services whose state follows the clock (holds that lapse, no-shows, scheduled
        events that fire) apply what the current time implies here, so every tool, read or
        write, sees a consistent world. If the call then fails, this is rolled back with
        it and simply re-applied on the next call.
        """

    def after_mutation(self) -> None:
        """Hook run after a timeline mutation wrote to this service's tables directly.

        Services with denormalised columns (e.g. email folder counts) refresh them here.
        """

    def serialize(self) -> bytes:
        """The database image (cheap to copy, exact on restore)."""
        return self.conn.serialize()

    def restore(self, image: bytes) -> None:
        """Replace the whole database with a serialized image, on a new connection.

        Deserializing into the connection in use would keep SQLite's prepared statements and
        schema state from the old image: SQLite 3.40 then crashes re-preparing some of them
        (an ``IN (SELECT ... json_each(...))`` mutation on a second episode segfaulted in
        ``sqlite3CodeRhsOfIN``). A fresh connection starts from the image alone.
        """
        conn = open_db()
        _load_image(conn, image)
        old, self.conn = self.conn, conn
        old.close()

    def digest(self) -> str:
        """SHA-256 of the logical contents (every table's rows, ordered)."""
        h = hashlib.sha256()
        tables = [
            r[0]
            for r in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        for t in tables:
            h.update(t.encode())
            for row in self.conn.execute(f'SELECT * FROM "{t}" ORDER BY rowid'):
                h.update(json.dumps(list(row), default=str, ensure_ascii=False).encode())
        return h.hexdigest()

    # ------------------------------------------------------------------ calling
    def checkpoint(self) -> _CallState:
        """Open the call's savepoint and remember the generator and the clock."""
        self.conn.execute("SAVEPOINT vl_call")
        return _CallState(self.ctx.rng.bit_generator.state, self.ctx.clock.now())

    def rollback(self, saved: _CallState) -> None:
        """Undo the call: its rows, the ids it drew from the generator, any clock move."""
        self.conn.execute("ROLLBACK TO vl_call")
        self.conn.execute("RELEASE vl_call")
        self.ctx.rng.bit_generator.state = saved.rng_state
        if self.ctx.clock.now() != saved.now:
            self.ctx.clock.set(saved.now)

    def commit(self, saved: _CallState) -> None:
        """Keep the call's changes."""
        self.conn.execute("RELEASE vl_call")

    def before_call(self) -> None:
        """Apply the clock (:meth:`sync_clock`) inside the call's savepoint."""
        self.sync_clock()

    # ------------------------------------------------------------------ SQL helpers
    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> sqlite3.Cursor:
        """Execute one statement."""
        return self.conn.execute(sql, params)

    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[dict[str, Any]]:
        """Rows as plain dicts."""
        return [dict(r) for r in self.conn.execute(sql, params)]

    def query_one(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> dict[str, Any] | None:
        """The first row as a dict, or ``None``."""
        row = self.conn.execute(sql, params).fetchone()
        return dict(row) if row is not None else None

    def aggregate(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> dict[str, Any]:
        """The one row of an aggregate query (``SELECT COUNT(*) AS n ...``) as a dict.

        Raises:
            RuntimeError: the query returned no row (it was not an aggregate).
        """
        row = self.query_one(sql, params)
        if row is None:
            raise RuntimeError(f"aggregate query returned no row: {sql}")
        return row

    def insert(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> int:
        """Execute an ``INSERT`` and return the new row's rowid.

        Raises:
            RuntimeError: the statement set no rowid (it was not an ``INSERT``).
        """
        rowid = self.execute(sql, params).lastrowid
        if rowid is None:
            raise RuntimeError(f"statement inserted no row: {sql}")
        return rowid

    def require(self, sql: str, params: Sequence[Any], code: str, message: str) -> dict[str, Any]:
        """The first row, or raise :class:`ToolError` ``code`` (typically ``*_NOT_FOUND``)."""
        row = self.query_one(sql, params)
        if row is None:
            raise ToolError(code, message)
        return row

    def columns(self, table: str) -> list[str]:
        """Column names of a table."""
        return [r[1] for r in self.conn.execute(f'PRAGMA table_info("{table}")')]

    # ----------------------------------------------------------- time and ids
    def now(self) -> datetime:
        """The world's current time."""
        return self.ctx.clock.now()

    def tz(self) -> tzinfo:
        """The zone of the world's clock (the task's home zone)."""
        zone = self.now().tzinfo
        if zone is None:
            raise RuntimeError("the world clock returned a naive datetime")
        return zone

    def now_iso(self) -> str:
        """Current time, ISO-8601 with the task's offset."""
        return self.ctx.clock.iso()

    def now_utc(self) -> str:
        """Current time, ISO-8601 UTC with ``Z``."""
        return self.ctx.clock.now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def next_seq(self, key: str, table: str = "_counters") -> int:
        """Increment and return the counter ``key`` of a counters control table.

        The public mock servers take ids from such a table (e.g. ``sub_%06d``); seeds may
        pre-set a counter past their own rows. The key column is ``key`` or ``name``,
        whichever the table has.
        """
        col = self._counter_key_column(table)
        ((value,),) = self.execute(
            f'INSERT INTO "{table}" ("{col}", value) VALUES (?, 1) '
            f'ON CONFLICT("{col}") DO UPDATE SET value = value + 1 RETURNING value',
            (key,),
        ).fetchall()
        return int(value)

    def mint_id(
        self,
        pattern: str,
        counter: str,
        table: str,
        column: str,
        *,
        alias: str | None = None,
        counters: str = "_counters",
    ) -> str:
        """The next id ``pattern.format(n)`` from ``counter``, skipping ids already in ``table.column``.

        Seeds often insert rows in the same id format without moving the counter; skipping
        taken ids keeps new ids unique. With ``alias``, a counter a seed set under that
        other name is honoured too (the larger value wins).
        """
        if alias is not None:
            col = self._counter_key_column(counters)
            row = self.query_one(f'SELECT MAX(value) AS v FROM "{counters}" WHERE "{col}" IN (?, ?)', (counter, alias))
            if row and row["v"] is not None:
                self.execute(
                    f'INSERT INTO "{counters}" ("{col}", value) VALUES (?, ?) '
                    f'ON CONFLICT("{col}") DO UPDATE SET value = excluded.value',
                    (counter, int(row["v"])),
                )
        while True:
            value = pattern.format(self.next_seq(counter, counters))
            if self.query_one(f'SELECT 1 FROM "{table}" WHERE "{column}" = ?', (value,)) is None:
                return value

    def _counter_key_column(self, table: str) -> str:
        # the class's own DDL names it (read once per schema); a table a seed created is read live
        cols = _schema_columns(type(self).SCHEMA).get(table) or self.columns(table)
        if "key" in cols:
            return "key"
        if "name" in cols:
            return "name"
        raise ValueError(f"counters table {table!r} has neither a 'key' nor a 'name' column")

    def new_id(self, prefix: str, table: str | None = None, column: str | None = None) -> str:
        """A fresh id from the world's seeded generator, unique in ``table.column`` if given."""
        while True:
            value = f"{prefix}{int(self.ctx.rng.integers(0, 16**8)):08x}"
            if table is None or column is None:
                return value
            if self.query_one(f'SELECT 1 FROM "{table}" WHERE "{column}" = ?', (value,)) is None:
                return value

    # ------------------------------------------------------------ seeding / mutations
    def load_sql(self, script: str) -> None:
        """Run a SQL script (seed or mutation) atomically.

        Raises:
            sqlite3.Error: the script failed; nothing of it was applied.
        """
        conn = self.conn
        conn.execute("SAVEPOINT vl_sql")
        try:
            for statement in _split_sql(script):
                conn.execute(statement)
        except sqlite3.Error:
            conn.execute("ROLLBACK TO vl_sql")
            conn.execute("RELEASE vl_sql")
            raise
        conn.execute("RELEASE vl_sql")

    def insert_rows(self, table: str, rows: Iterable[Mapping[str, Any]]) -> int:
        """Insert row dicts (values that are lists/dicts are stored as JSON)."""
        n = 0
        for row in rows:
            cols = list(row)
            sql = f'INSERT INTO "{table}" ({", ".join(_q(c) for c in cols)}) VALUES ({", ".join("?" for _ in cols)})'
            self.conn.execute(sql, [_sql_value(row[c]) for c in cols])
            n += 1
        return n

    def update_rows(self, table: str, set_values: Mapping[str, Any], where: Mapping[str, Any]) -> int:
        """``UPDATE table SET ... WHERE col = ? AND ...``; returns the row count."""
        if not set_values:
            raise ValueError("update needs at least one column in 'set'")
        sets = ", ".join(f"{_q(c)} = ?" for c in set_values)
        cond, params = _where(where)
        cur = self.conn.execute(f'UPDATE "{table}" SET {sets}{cond}', [*map(_sql_value, set_values.values()), *params])
        return cur.rowcount

    def upsert_rows(self, table: str, values: Mapping[str, Any], conflict_keys: Sequence[str]) -> int:
        """Insert, or update the row matching ``conflict_keys``."""
        where = {k: values[k] for k in conflict_keys}
        cond, params = _where(where)
        exists = self.conn.execute(f'SELECT 1 FROM "{table}"{cond} LIMIT 1', params).fetchone()
        if exists:
            rest = {k: v for k, v in values.items() if k not in conflict_keys}
            return self.update_rows(table, rest, where) if rest else 1
        return self.insert_rows(table, [values])

    def delete_rows(self, table: str, where: Mapping[str, Any]) -> int:
        """``DELETE FROM table WHERE ...``; refuses an empty ``where``."""
        if not where:
            raise ValueError("delete needs a non-empty 'where'")
        cond, params = _where(where)
        return self.conn.execute(f'DELETE FROM "{table}"{cond}', params).rowcount


def _q(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"invalid column name {name!r}")
    return f'"{name}"'


def _sql_value(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return int(value)
    return value


def _where(where: Mapping[str, Any]) -> tuple[str, list[Any]]:
    if not where:
        return "", []
    parts, params = [], []
    for col, val in where.items():
        if val is None:
            parts.append(f"{_q(col)} IS NULL")
        else:
            parts.append(f"{_q(col)} = ?")
            params.append(_sql_value(val))
    return " WHERE " + " AND ".join(parts), params


_TXN_CONTROL = ("BEGIN", "COMMIT", "END", "ROLLBACK")


def _split_sql(script: str) -> list[str]:
    """Split a script into complete statements (respecting quotes, comments, triggers).

    Transaction-control statements (``BEGIN``/``COMMIT``/``END``) are dropped: the caller
    already wraps the script in a savepoint so that it applies all or nothing.
    """
    statements: list[str] = []
    start = 0
    for i, ch in enumerate(script):
        if ch == ";" and sqlite3.complete_statement(script[start : i + 1]):
            _keep(script[start : i + 1], statements)
            start = i + 1
    _keep(script[start:], statements)
    return statements


def _keep(chunk: str, out: list[str]) -> None:
    body = "\n".join(ln for ln in chunk.splitlines() if not ln.strip().startswith("--")).strip()
    if not body or body == ";":
        return
    first = body.split(None, 1)[0].rstrip(";").upper()
    if first in _TXN_CONTROL:
        return
    out.append(chunk)
