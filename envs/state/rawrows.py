"""Rows read and written on an episode's raw sqlite3 connection: tool calls without the ORM's cost.

A tool call through the ORM pays for identity-map loads, lazy relationship loads, a unit-of-work
flush and a commit: 1-6 ms for a write, where the SQL itself takes tens of microseconds. ``RowSet``
does what those tools need and nothing else: ``select`` rows of one table by column equality, change
their attributes, ``insert`` new ones, ``save``. Values go through the column types' own SQLAlchemy
processors (JSON, Boolean, DateTime, ...), so a row written here is stored exactly as the ORM would
store it, and reads give the Python values the ORM would give.

Exact write tracking is kept: ``save`` records the primary key of every row it updates or inserts in
the episode's ``touched`` (what the grader compares), as the ORM flush hook does.

Use it as a context manager over the tool's session::

    with rows_of(session) as rows:
        order = rows.get("orders", order_id)
        order.status = "cancelled"
        rows.save()

Entering flushes and commits any pending ORM work first (so both views agree); leaving with an
exception rolls the connection back, so a failed call changes nothing; leaving normally saves what
is unsaved and commits. ORM objects loaded earlier are expired, so they reload what was written.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from sqlalchemy import Table
from sqlalchemy.orm import Session


class _Codec:
    """One table's columns with their bind (Python -> sqlite3) and result (sqlite3 -> Python) processors."""

    def __init__(self, table: Table, dialect: Any) -> None:
        self.name = table.name
        self.columns = [c.name for c in table.columns]
        self.pk = [c.name for c in table.primary_key.columns]
        self.bind: dict[str, Callable[[Any], Any] | None] = {}
        self.result: dict[str, Callable[[Any], Any] | None] = {}
        self.defaults: dict[str, Any] = {}
        for c in table.columns:
            self.bind[c.name] = c.type._cached_bind_processor(dialect)
            self.result[c.name] = c.type._cached_result_processor(dialect, None)
            if c.default is not None and getattr(c.default, "is_scalar", False):
                self.defaults[c.name] = c.default.arg
        self.index = {c: i for i, c in enumerate(self.columns)}
        self.pk_index = [self.index[c] for c in self.pk]
        self.select_sql = f'SELECT {", ".join(f"{chr(34)}{c}{chr(34)}" for c in self.columns)} FROM "{self.name}"'

    def encode(self, col: str, value: Any) -> Any:
        p = self.bind[col]
        return value if p is None else p(value)

    def decode_one(self, col: str, raw: Any) -> Any:
        p = self.result[col]
        return raw if p is None else p(raw)


_CODECS: dict[tuple[int, int], dict[str, _Codec]] = {}


def _codecs(metadata: Any, dialect: Any) -> dict[str, _Codec]:
    key = (id(metadata), id(dialect))
    got = _CODECS.get(key)
    if got is None:
        got = _CODECS[key] = {t.name: _Codec(t, dialect) for t in metadata.sorted_tables}
    return got


class Row:
    """One row: its columns as attributes, decoded on first use. Changes are written by ``RowSet.save``."""

    __slots__ = ("_codec", "_raw", "_values", "_orig", "_set", "_new", "_pending")

    def __init__(self, codec: _Codec, raw: tuple | None, values: dict[str, Any], pending: list) -> None:
        object.__setattr__(self, "_codec", codec)
        object.__setattr__(self, "_pending", pending)  # the RowSet's rows to save; joined on first change
        object.__setattr__(self, "_raw", raw)  # as stored; None for a new row (then values are complete)
        object.__setattr__(self, "_values", values)  # decoded or assigned
        object.__setattr__(self, "_orig", dict(values))  # as read (or as made), for change detection
        object.__setattr__(self, "_set", set())  # columns assigned since the last save
        object.__setattr__(self, "_new", raw is None)

    def _load(self, name: str) -> Any:
        i = self._codec.index.get(name)
        if i is None or self._raw is None:
            raise AttributeError(f"{self._codec.name} has no column {name!r}")
        v = self._codec.decode_one(name, self._raw[i])
        self._values[name] = v
        self._orig[name] = v
        return v

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            return self._load(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._values:
            self._load(name)
        self._values[name] = value
        if not self._set and not self._new:
            self._pending.append(self)
        self._set.add(name)

    def key(self) -> tuple:
        return tuple(getattr(self, c) for c in self._codec.pk)

    def __repr__(self) -> str:
        return f"<{self._codec.name} {self.key()}>"


class RowSet:
    """The rows one tool call has read or inserted (see module docstring)."""

    def __init__(self, conn: sqlite3.Connection, codecs: dict[str, _Codec], touched: Any, new_ids: Any = None) -> None:
        self.conn = conn
        self._new_ids = new_ids
        self._codecs = codecs
        self._touched = touched
        self._pending: list[Row] = []  # new rows and changed rows, in the order they were made or changed
        self._sql: dict[tuple, str] = {}
        self._identity: dict[tuple[str, tuple], Row] = {}  # one object per row, as in an ORM session

    def next_id(self, table: str, column: str = "id") -> int:
        """The id for a new row of ``table``: the episode's sequence (``envs.state.database.NewIds``)."""
        if self._pending:
            self.save()
        if self._new_ids is None:
            return (self.conn.execute(f'SELECT max("{column}") FROM "{table}"').fetchone()[0] or 0) + 1
        return self._new_ids.next(self.conn, table, column)

    def select(self, table: str, order_by: str | None = None, **where: Any) -> list[Row]:
        """Rows of ``table`` whose columns equal ``where`` (SQL ``IS``: None matches NULL), in ``order_by``."""
        codec = self._codecs[table]
        return self.select_where(table, " AND ".join([f'"{c}" IS ?' for c in where]), order_by,
                                 *[codec.encode(c, v) for c, v in where.items()])

    def select_where(self, table: str, where_sql: str, order_by: str | None = None, *params: Any) -> list[Row]:
        """Rows of ``table`` matching a SQL condition (``params`` already as stored), in ``order_by``.

        Unsaved changes are saved first (as the ORM's autoflush does), and a row already read is
        returned as the same object, with the values this call gave it.
        """
        if self._pending:
            self.save()
        codec = self._codecs[table]
        sql = self._sql.get((table, where_sql, order_by))
        if sql is None:
            sql = codec.select_sql
            if where_sql:
                sql += " WHERE " + where_sql
            if order_by:
                sql += f" ORDER BY {order_by}"
            self._sql[(table, where_sql, order_by)] = sql
        out = []
        pk_idx = codec.pk_index
        for raw in self.conn.execute(sql, params):
            ident = (table, tuple(raw[i] for i in pk_idx))
            row = self._identity.get(ident)
            if row is None:
                row = self._identity[ident] = Row(codec, raw, {}, self._pending)
            out.append(row)
        return out

    def encode(self, table: str, column: str, value: Any) -> Any:
        """``value`` as the column stores it (for a ``select_where`` parameter)."""
        return self._codecs[table].encode(column, value)

    def execute(self, sql: str, *params: Any) -> list[tuple]:
        """The raw tuples of a read-only SQL query, after saving."""
        self.save()
        return self.conn.execute(sql, params).fetchall()

    def first(self, table: str, order_by: str | None = None, **where: Any) -> Row | None:
        rows = self.select(table, order_by, **where)
        return rows[0] if rows else None

    def get(self, table: str, *key: Any) -> Row | None:
        """The row with this primary key, or None."""
        return self.first(table, None, **dict(zip(self._codecs[table].pk, key, strict=True)))

    def scalar(self, sql: str, *params: Any) -> Any:
        """One value of a read-only SQL query (e.g. ``SELECT max(id) FROM refunds``), after saving."""
        self.save()
        row = self.conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def insert(self, table: str, **values: Any) -> Row:
        """A new row (column defaults filled in as the ORM would); written by ``save``."""
        codec = self._codecs[table]
        unknown = set(values) - set(codec.columns)
        if unknown:
            raise AttributeError(f"{table} has no column(s) {', '.join(sorted(unknown))}")
        full = {c: values.get(c, codec.defaults.get(c)) for c in codec.columns}
        row = Row(codec, None, full, self._pending)
        self._pending.append(row)
        return row

    def save(self) -> None:
        """Write every inserted or changed row (in the order they were made), record their keys.

        A column counts as changed as the ORM counts it: assigned, and not ``==`` its old value.
        """
        pending, self._pending[:] = list(self._pending), []
        for row in pending:
            codec = row._codec
            vals = row._values
            if row._new:
                cols = [c for c in codec.columns if vals[c] is not None or c not in codec.pk]
                cur = self.conn.execute(
                    f'INSERT INTO "{codec.name}" ({", ".join(f"{chr(34)}{c}{chr(34)}" for c in cols)}) '
                    f'VALUES ({", ".join("?" * len(cols))})', [codec.encode(c, vals[c]) for c in cols])
                if len(codec.pk) == 1 and vals[codec.pk[0]] is None:  # autoincrement key
                    vals[codec.pk[0]] = cur.lastrowid
                object.__setattr__(row, "_new", False)
                self._identity[(codec.name, tuple(codec.encode(c, vals[c]) for c in codec.pk))] = row
            else:
                changed = [c for c in codec.columns if c in row._set and not row._orig[c] == vals[c]]
                if not changed:
                    row._set.clear()
                    continue
                old_key = tuple(row._orig[c] if c in row._orig else getattr(row, c) for c in codec.pk)
                self.conn.execute(
                    f'UPDATE "{codec.name}" SET {", ".join(f"{chr(34)}{c}{chr(34)} = ?" for c in changed)} '
                    f'WHERE {" AND ".join(f"{chr(34)}{c}{chr(34)} IS ?" for c in codec.pk)}',
                    [codec.encode(c, vals[c]) for c in changed] + [codec.encode(c, k) for c, k in zip(codec.pk, old_key)])
                if old_key != row.key():  # the row under the old key is gone: that changed too
                    self._touched.rows.setdefault(codec.name, set()).add(old_key)
                    self._identity[(codec.name, tuple(codec.encode(c, vals[c]) for c in codec.pk))] = row
            row._orig.update(vals)
            row._set.clear()
            self._touched.rows.setdefault(codec.name, set()).add(row.key())


@contextmanager
def rows_of(session: Session) -> Iterator[RowSet]:
    """A ``RowSet`` over the episode behind ``session`` (see module docstring)."""
    st = session.info.get("episode_state")
    if st is None:
        raise RuntimeError("rows_of needs a session made by EpisodeState")
    st.sync()
    rows = RowSet(st.conn, _codecs(st.base.metadata, st.engine.dialect), st.touched, st.new_ids)
    try:
        yield rows
        rows.save()
    except BaseException:
        st.conn.rollback()
        raise
    st.conn.commit()
    if st.session.identity_map:
        st.session.expire_all()
