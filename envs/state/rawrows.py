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
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator

from sqlalchemy import Table
from sqlalchemy.orm import Session


class _Codec:
    """One table's columns with their bind (Python -> sqlite3) and result (sqlite3 -> Python) processors.

    Also the table's row class (``row_class``): a ``Row`` whose columns without a result processor
    (ints, text: most of them) are set from the stored tuple when the row is made, and whose other
    columns (datetimes, booleans, JSON) are decoded on first read by a class-level descriptor. Both
    end up as plain instance attributes, so reading a column costs what reading any attribute costs.
    """

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
        self.sql: dict[tuple, str] = {}  # (where SQL, order_by) -> the statement, built once
        self.where_sql: dict[tuple, str] = {}  # equality columns -> their WHERE clause
        self.plain = [c for c in self.columns if self.result[c] is None]
        idx = [self.index[c] for c in self.plain]
        self.plain_of: Callable[[tuple], Iterable[Any]] = (
            (lambda raw: ()) if not idx
            else (lambda raw, i=idx[0]: (raw[i],)) if len(idx) == 1
            else itemgetter(*idx))
        lazy = {c: _Decoded(c, self.index[c], self.result[c]) for c in self.columns if self.result[c] is not None}
        self.row_class: type[Row] = type(f"Row_{self.name}", (Row,), {"_row_codec": self, **lazy})

    def encode(self, col: str, value: Any) -> Any:
        p = self.bind[col]
        return value if p is None else p(value)

    def decode_one(self, col: str, raw: Any) -> Any:
        p = self.result[col]
        return raw if p is None else p(raw)


class _Decoded:
    """A column with a result processor: decoded from the stored tuple on first read, then an
    instance attribute (a non-data descriptor, as ``functools.cached_property``)."""

    __slots__ = ("name", "i", "fn")

    def __init__(self, name: str, i: int, fn: Callable[[Any], Any]) -> None:
        self.name, self.i, self.fn = name, i, fn

    def __get__(self, row: Any, owner: Any = None) -> Any:
        if row is None:
            return self
        v = self.fn(row.__dict__["_row_raw"][self.i])
        row.__dict__[self.name] = v
        return v


_CODECS: dict[tuple[int, int], dict[str, _Codec]] = {}


def _codecs(metadata: Any, dialect: Any) -> dict[str, _Codec]:
    key = (id(metadata), id(dialect))
    got = _CODECS.get(key)
    if got is None:
        got = _CODECS[key] = {t.name: _Codec(t, dialect) for t in metadata.sorted_tables}
    return got


def _new_row(codec: _Codec, raw: tuple | None, values: dict[str, Any], pending: list) -> "Row":
    """A row of ``codec``'s table: read (``raw`` as stored) or new (``raw`` None, ``values`` complete)."""
    row = codec.row_class.__new__(codec.row_class)
    d = row.__dict__
    if raw is not None:
        d.update(zip(codec.plain, codec.plain_of(raw)))
    else:
        d.update(values)
    d["_row_raw"] = raw  # as stored; None for a new row
    d["_row_pending"] = pending  # the RowSet's rows to save; joined on first change
    d["_row_orig"] = {}  # each column's value before its first assignment since the last save
    d["_row_set"] = set()  # columns assigned since the last save
    d["_row_new"] = raw is None
    return row


class Row:
    """One row: its columns as attributes (decoded on first use). Changes are written by ``RowSet.save``.

    Made by a table's ``row_class`` (see ``_Codec``); the bookkeeping lives in ``_row_*`` attributes.
    """

    _row_codec: _Codec

    def __getattr__(self, name: str) -> Any:  # only reached for a name that is no column
        raise AttributeError(f"{self._row_codec.name} has no column {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._row_codec.index:
            raise AttributeError(f"{self._row_codec.name} has no column {name!r}")
        d = self.__dict__
        orig = d["_row_orig"]
        if name not in orig:
            orig[name] = getattr(self, name)
        d[name] = value
        if not d["_row_set"] and not d["_row_new"]:
            d["_row_pending"].append(self)
        d["_row_set"].add(name)

    def key(self) -> tuple:
        return tuple(getattr(self, c) for c in self._row_codec.pk)

    def __repr__(self) -> str:
        return f"<{self._row_codec.name} {self.key()}>"


class RowSet:
    """The rows one tool call has read or inserted (see module docstring)."""

    def __init__(self, conn: sqlite3.Connection, codecs: dict[str, _Codec], touched: Any, new_ids: Any = None) -> None:
        self.conn = conn
        self._new_ids = new_ids
        self._codecs = codecs
        self._touched = touched
        self._pending: list[Row] = []  # new rows and changed rows, in the order they were made or changed
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
        cols = tuple(where)
        where_sql = codec.where_sql.get(cols)
        if where_sql is None:
            where_sql = codec.where_sql[cols] = " AND ".join([f'"{c}" IS ?' for c in cols])
        bind = codec.bind
        return self.select_where(table, where_sql, order_by,
                                 *[v if bind[c] is None else bind[c](v) for c, v in where.items()])

    def select_where(self, table: str, where_sql: str, order_by: str | None = None, *params: Any) -> list[Row]:
        """Rows of ``table`` matching a SQL condition (``params`` already as stored), in ``order_by``.

        Unsaved changes are saved first (as the ORM's autoflush does), and a row already read is
        returned as the same object, with the values this call gave it.
        """
        if self._pending:
            self.save()
        codec = self._codecs[table]
        sql = codec.sql.get((where_sql, order_by))
        if sql is None:
            sql = codec.select_sql
            if where_sql:
                sql += " WHERE " + where_sql
            if order_by:
                sql += f" ORDER BY {order_by}"
            codec.sql[(where_sql, order_by)] = sql
        out = []
        pk_idx = codec.pk_index
        identity = self._identity
        for raw in self.conn.execute(sql, params):
            ident = (table, raw[pk_idx[0]]) if len(pk_idx) == 1 else (table, tuple(raw[i] for i in pk_idx))
            row = identity.get(ident)
            if row is None:
                row = identity[ident] = _new_row(codec, raw, {}, self._pending)
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
        row = _new_row(codec, None, full, self._pending)
        self._pending.append(row)
        return row

    @staticmethod
    def _ident(codec: _Codec, vals: dict) -> tuple:
        """The identity-map key of a row's values (its primary key as stored), as ``select_where`` makes it."""
        stored = [codec.encode(c, vals[c]) for c in codec.pk]
        return (codec.name, stored[0]) if len(stored) == 1 else (codec.name, tuple(stored))

    def save(self) -> None:
        """Write every inserted or changed row (in the order they were made), record their keys.

        A column counts as changed as the ORM counts it: assigned, and not ``==`` its old value.
        """
        pending, self._pending[:] = list(self._pending), []
        for row in pending:
            codec = row._row_codec
            vals = row.__dict__
            orig = vals["_row_orig"]
            assigned = vals["_row_set"]
            if vals["_row_new"]:
                cols = [c for c in codec.columns if vals[c] is not None or c not in codec.pk]
                cur = self.conn.execute(
                    f'INSERT INTO "{codec.name}" ({", ".join(f"{chr(34)}{c}{chr(34)}" for c in cols)}) '
                    f'VALUES ({", ".join("?" * len(cols))})', [codec.encode(c, vals[c]) for c in cols])
                if len(codec.pk) == 1 and vals[codec.pk[0]] is None:  # autoincrement key
                    vals[codec.pk[0]] = cur.lastrowid
                vals["_row_new"] = False
                self._identity[self._ident(codec, vals)] = row
            else:
                changed = [c for c in codec.columns if c in assigned and not orig[c] == vals[c]]
                if not changed:
                    assigned.clear()
                    orig.clear()
                    continue
                old_key = tuple(orig[c] if c in orig else getattr(row, c) for c in codec.pk)
                self.conn.execute(
                    f'UPDATE "{codec.name}" SET {", ".join(f"{chr(34)}{c}{chr(34)} = ?" for c in changed)} '
                    f'WHERE {" AND ".join(f"{chr(34)}{c}{chr(34)} IS ?" for c in codec.pk)}',
                    [codec.encode(c, vals[c]) for c in changed] + [codec.encode(c, k) for c, k in zip(codec.pk, old_key)])
                if old_key != row.key():  # the row under the old key is gone: that changed too
                    self._touched.rows.setdefault(codec.name, set()).add(old_key)
                    self._identity[self._ident(codec, vals)] = row
            orig.clear()
            assigned.clear()
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
