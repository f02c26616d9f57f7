"""One record (user, order, product) as tau-bench prints it, read on the raw connection and cached.

The hot path of an RL run is the same few records read again and again from the same initial
state. A record's text depends only on its rows, so while an episode has not touched any of them
(``EpisodeState.touched``: rows by primary key, or whole tables, kept exact by the state store) it
reads exactly as it did in the bytes the episode was loaded from. Those texts are cached per loaded
bytes object and shared by every episode loaded from it; a record the episode has touched is read
fresh every time. A record's text is formatted from its rows in one pass (``record_text``, checked
against the exporter on every record); a shape that formatter leaves alone is built by the
exporter's own builders, so the tool output and the exported state never drift apart.
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from typing import Any

from sqlalchemy.orm import Session

from .. import models as m
from .record_text import TEXT_OF
from ..exporter import _DECODERS, RECORD_OF_TABLE, export_state, order_record, product_record, user_record

# record kind -> [(table, index of the record's id in that table's primary key)]
_ROWS_OF: dict[str, list[tuple[str, int]]] = {}
for _table, (_kind, _col) in RECORD_OF_TABLE.items():
    _pk = [c.name for c in m.Base.metadata.tables[_table].primary_key.columns]
    _ROWS_OF.setdefault(_kind, []).append((_table, _pk.index(_col)))

_MAX_SOURCES = 16  # initial states whose texts are kept (LRU); one holds at most every record, ~2 MB for retail
_MISSING = object()


class _TextCache:
    """Record texts (and whole-table query results, ``cached_rows``) per loaded bytes object.

    Holds the bytes themselves, so an id is never reused while its entry lives."""

    def __init__(self) -> None:
        self._by_source: OrderedDict[int, tuple[bytes, dict[tuple[str, str], str | None]]] = OrderedDict()

    def texts(self, source: bytes) -> dict[tuple[str, str], str | None]:
        key = id(source)
        hit = self._by_source.get(key)
        if hit is not None and hit[0] is source:
            self._by_source.move_to_end(key)
            return hit[1]
        texts: dict[tuple[str, str], str | None] = {}
        self._by_source[key] = (source, texts)
        while len(self._by_source) > _MAX_SOURCES:
            self._by_source.popitem(last=False)
        return texts

    def clear(self) -> None:
        self._by_source.clear()


CACHE = _TextCache()


def touched_record(touched: Any, kind: str, record_id: str) -> bool:
    """Has the episode written any row of this record (or a whole table it is built from)?"""
    for table, idx in _ROWS_OF[kind]:
        if table in touched.full:
            return True
        keys = touched.rows.get(table)
        if keys and any(k[idx] == record_id for k in keys):
            return True
    return False


class _Reader:
    """One table's rows of one record, as ``exporter._rows`` gives them, with the SQL built once."""

    def __init__(self, table: str, key: str, order: str) -> None:
        cols = _DECODERS[table]
        self.columns = [c for c, _ in cols]
        self.decoded = [(c, dec) for c, dec in cols if dec is not None]
        self.sql = f"SELECT {', '.join(self.columns)} FROM {table} WHERE {key} = ? ORDER BY {order}"

    def __call__(self, conn: sqlite3.Connection, record_id: str) -> list[dict[str, Any]]:
        out = []
        for raw in conn.execute(self.sql, (record_id,)):
            row = dict(zip(self.columns, raw))
            for c, dec in self.decoded:
                row[c] = dec(row[c])
            out.append(row)
        return out


_READERS = {
    "orders": [_Reader("orders", "id", "position"), _Reader("order_items", "order_id", "position"),
               _Reader("fulfillments", "order_id", "position"), _Reader("payments", "order_id", "position")],
    "users": [_Reader("users", "id", "position"), _Reader("payment_methods", "user_id", "position"),
              _Reader("user_orders", "user_id", "position")],
    "products": [_Reader("products", "id", "position"), _Reader("variants", "product_id", "position")],
}


def read_record(conn: sqlite3.Connection, kind: str, record_id: str) -> dict[str, Any] | None:
    """The record rebuilt from its rows (the exporter's builders), or None if absent."""
    readers = _READERS.get(kind)
    if readers is None:
        raise ValueError(f"unknown record kind {kind!r}")
    rows = readers[0](conn, record_id)
    if not rows:
        return None
    parts = [r(conn, record_id) for r in readers[1:]]
    if kind == "orders":
        return order_record(rows[0], *parts)
    if kind == "users":
        return user_record(rows[0], parts[0], [r["order_id"] for r in parts[1]])
    return product_record(rows[0], parts[0])


def dump_record(session: Session, kind: str, record_id: str) -> str | None:
    """``json.dumps`` of one record as the exporter builds it, None if absent (see module docstring).

    Pending ORM changes are flushed and committed first, so what is read is the episode's state.
    A session without an episode behind it is read through ``export_state``, uncached.
    """
    st = session.info.get("episode_state")
    if st is None:
        rec = export_state(session, **{kind: [record_id]})[kind].get(record_id)
        return None if rec is None else json.dumps(rec)
    st.sync()
    cacheable = st.source is not None and not touched_record(st.touched, kind, record_id)
    if cacheable:
        texts = CACHE.texts(st.source)
        out = texts.get((kind, record_id), _MISSING)
        if out is not _MISSING:
            return out  # type: ignore[return-value]
    out = TEXT_OF[kind](st.conn, record_id)  # formatted from the rows in one pass (record_text)
    if out is None:  # a shape the formatter leaves to the exporter's builders
        rec = read_record(st.conn, kind, record_id)
        out = None if rec is None else json.dumps(rec)
    else:
        out = out or None  # "": no such record
    if cacheable:
        texts[(kind, record_id)] = out
    return out


def cached_rows(session: Session, table: str, sql: str) -> list[tuple]:
    """The rows of a read-only query over ``table`` alone, cached per loaded bytes while the
    episode has not written any row of that table (same rule as the record texts)."""
    st = session.info.get("episode_state")
    if st is None:
        return [tuple(r) for r in session.connection().exec_driver_sql(sql)]
    st.sync()
    t = st.touched
    cacheable = st.source is not None and table not in t.full and not t.rows.get(table)
    if cacheable:
        texts: dict = CACHE.texts(st.source)
        hit = texts.get(("query", sql), _MISSING)
        if hit is not _MISSING:
            return hit  # type: ignore[return-value]
    out = st.conn.execute(sql).fetchall()
    if cacheable:
        texts[("query", sql)] = out
    return out
