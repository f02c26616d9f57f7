"""The state store: a template database built once per process, copied per episode.

A domain's database is built once (schema + deterministic seed), then frozen
as bytes with ``sqlite3.Connection.serialize``. A task's initial state is the
template plus the task's patch, frozen the same way and cached. Resetting an
episode is ``deserialize`` of those bytes into the episode's own in-memory
connection: a memory copy, never a rebuild or a reseed.

Each ``EpisodeState`` owns one in-memory SQLite connection, one SQLAlchemy
engine bound to it, and one ``Session``. Rows written through the ORM are
recorded (``touched``: table -> primary keys) so the grader only compares what
could differ; a bulk ORM statement (``session.execute(update(...))``) marks its
whole table. Tools mutate state only through the ORM session or through
``envs.state.rawrows`` (rows on the raw connection, which records every key it
writes the same way), so this is exact; read caches rely on it too.
"""

from __future__ import annotations

import random
import sqlite3
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect as sa_inspect, insert, update
from sqlalchemy.orm import DeclarativeBase, Session
from sqlalchemy.pool import StaticPool
from sqlalchemy.util import LRUCache


def _connect() -> sqlite3.Connection:
    # check_same_thread=False: the runner may hand an episode between asyncio tasks;
    # an episode's connection is still used by one task at a time.
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    return conn


class Touched:
    """What a sequence of writes may have changed: rows by primary key, or whole tables."""

    def __init__(self, rows: dict[str, set[tuple]] | None = None, full: set[str] | None = None):
        self.rows: dict[str, set[tuple]] = rows or {}
        self.full: set[str] = full or set()

    def __iter__(self):
        return iter(set(self.rows) | self.full)

    def __or__(self, other: "Touched") -> "Touched":
        rows = {t: set(k) for t, k in self.rows.items()}
        for t, k in other.rows.items():
            rows.setdefault(t, set()).update(k)
        return Touched(rows, self.full | other.full)

    def keys_for(self, table: str) -> set[tuple] | None:
        """Primary keys to compare in ``table``; None means the whole table."""
        return None if table in self.full else self.rows.get(table, set())

    def copy(self) -> "Touched":
        return Touched({t: set(k) for t, k in self.rows.items()}, set(self.full))


class _SharedDialect:
    """What every episode engine of one schema shares: one initialized dialect and one
    compiled-statement cache. SQLAlchemy keys compiled statements on the dialect object,
    so engines from separate ``create_engine`` calls never reuse each other's work: each
    new episode would recompile every statement its tools run (about 4 ms for one read
    and one write)."""

    def __init__(self) -> None:
        first = create_engine("sqlite://", creator=_connect, poolclass=StaticPool)
        with first.connect():  # runs the dialect's one-time initialize
            pass
        self.dialect = first.dialect
        self.url = first.url
        self.on_connect = first.dialect.on_connect_url(first.url)  # per-connection setup (SQL functions)
        self.cache = LRUCache(2000)
        first.dispose()

    def engine(self, conn: sqlite3.Connection) -> Engine:
        """An engine over ``conn`` alone, with the shared dialect and cache."""
        if self.on_connect is not None:
            self.on_connect(conn)
        pool = StaticPool(lambda: conn, dialect=self.dialect)
        return Engine(pool, self.dialect, self.url, query_cache_size=0, execution_options={"compiled_cache": self.cache})


_SHARED: dict[int, _SharedDialect] = {}


# The widest gap between the ids a template holds and an episode's first new one (see NewIds).
ID_GAP_MAX = 400


class NewIds:
    """The ids an episode gives new rows: one past the table's largest, and, in an episode
    with a ``seed``, at least a gap past the ids the table held when the episode first asked,
    the gap drawn from the seed and the table (other customers' rows in the meantime), so two
    episodes of a task do not both hand out refund 144. Without a seed (goal replays, tests)
    the gap is 0. The grader matches new rows by content, not by id
    (graders.outcome.state_diff), so the gap never decides a grade."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._floor: dict[str, int] = {}  # the table's largest id when the episode first asked

    def next(self, conn: sqlite3.Connection, table: str, column: str = "id") -> int:
        """The id of the next new row of ``table`` (integer key ``column``)."""
        top = conn.execute(f'SELECT max("{column}") FROM "{table}"').fetchone()[0] or 0
        if self.seed is None:
            return top + 1
        floor = self._floor.setdefault(table, top)  # a rolled-back first call leaves the floor as it was
        gap = random.Random(f"{self.seed}:{table}").randint(1, ID_GAP_MAX)
        return max(top + 1, floor + 1 + gap)


class EpisodeState:
    """One episode's private database, reachable as a SQLAlchemy session."""

    def __init__(self, base: type[DeclarativeBase], data: bytes | None = None):
        self.base = base
        self.conn = _connect()
        if data is not None:
            self.conn.deserialize(data)
        shared = _SHARED.get(id(base.metadata))
        if shared is None:
            shared = _SHARED[id(base.metadata)] = _SharedDialect()
        self.engine = shared.engine(self.conn)
        self.session = Session(self.engine, expire_on_commit=True, autoflush=True)
        # Tools reach their episode (raw connection, ``touched``) through the session they are given.
        self.session.info["episode_state"] = self
        self.touched = Touched()
        self.new_ids = NewIds()  # the episode sets its seed (envs.episode.step.Episode)
        # The bytes the database was last loaded from (None: built in place). Read caches key on it:
        # while a record's rows are untouched, it reads as it did in those bytes.
        self.source: bytes | None = data
        event.listen(self.session, "after_flush", self._track)
        event.listen(self.session, "do_orm_execute", self._track_bulk)

    @property
    def dirty_tables(self) -> set[str]:
        return set(self.touched)

    def _track(self, session: Session, _ctx: Any) -> None:
        for obj in list(session.new) + list(session.dirty) + list(session.deleted):
            mapper = sa_inspect(obj).mapper
            if len(mapper.tables) != 1:
                for t in mapper.tables:
                    self.touched.full.add(t.name)
                continue
            key = tuple(mapper.primary_key_from_instance(obj))
            self.touched.rows.setdefault(mapper.local_table.name, set()).add(key)

    def _track_bulk(self, state: Any) -> None:
        if state.is_insert or state.is_update or state.is_delete:
            table = getattr(state.statement, "table", None)
            name = getattr(table, "name", None)
            if name:
                self.touched.full.add(name)
            else:  # cannot tell which table: compare them all
                self.touched.full.update(self.base.metadata.tables)

    def load(self, data: bytes) -> None:
        """Replace the whole database with ``data`` (a reset): drops all ORM state."""
        self.session.rollback()
        self.session.expunge_all()
        self.conn.deserialize(data)
        self.touched = Touched()
        self.new_ids = NewIds()
        self.source = data

    def sync(self) -> None:
        """Flush pending ORM changes and end the session's transaction, so the raw connection
        (``self.conn``) holds everything and ``touched`` covers it. Cheap when there is nothing
        to do (the common case between tool calls)."""
        s = self.session
        if s.in_transaction() or s.new or s.dirty or s.deleted:
            s.commit()

    def snapshot(self) -> bytes:
        """The database as bytes (flushes pending ORM changes first)."""
        self.session.flush()
        self.session.commit()
        return self.conn.serialize()

    def close(self) -> None:
        self.session.close()
        self.engine.engine.dispose()
        self.conn.close()


def build_template(base: type[DeclarativeBase], seed_fn, seed: int) -> bytes:
    """Create the schema, run the domain's seed function, return the frozen bytes.

    The result is byte-for-byte identical for the same seed (tests check it).
    """
    st = EpisodeState(base)
    base.metadata.create_all(st.engine)
    seed_fn(st.session, seed)
    st.session.commit()
    st.conn.commit()
    st.conn.execute("VACUUM")  # canonical page layout: same seed, same bytes
    data = st.conn.serialize()
    st.close()
    return data


def apply_patch(base: type[DeclarativeBase], data: bytes, patch: "InitialStatePatch | None") -> bytes:
    """Apply a task's ``initial_state`` (rows to update, insert, delete) on top of ``data``."""
    if patch is None or patch.is_empty():
        return data
    st = EpisodeState(base, data)
    tables = base.metadata.tables
    with st.engine.begin() as conn:
        for op in patch.update:
            t = _table(tables, op.table, "update")
            stmt = update(t).values(**_check_cols(t, op.set, op.table))
            for col, val in _check_cols(t, op.where, op.table).items():
                stmt = stmt.where(t.c[col] == val)
            res = conn.execute(stmt)
            if res.rowcount == 0:
                raise ValueError(f"initial_state.update on {op.table} matched no row for {op.where}")
        for op in patch.insert:
            t = _table(tables, op.table, "insert")
            conn.execute(insert(t).values(**_check_cols(t, op.row, op.table)))
        for op in patch.delete:
            t = _table(tables, op.table, "delete")
            stmt = t.delete()
            for col, val in _check_cols(t, op.where, op.table).items():
                stmt = stmt.where(t.c[col] == val)
            if conn.execute(stmt).rowcount == 0:
                raise ValueError(f"initial_state.delete on {op.table} matched no row for {op.where}")
    st.conn.commit()
    st.conn.execute("VACUUM")
    out = st.conn.serialize()
    st.close()
    return out


def _table(tables, name: str, what: str):
    if name not in tables:
        raise ValueError(f"initial_state.{what}: unknown table {name!r} (known: {', '.join(sorted(tables))})")
    return tables[name]


def _check_cols(t, values: dict, tname: str) -> dict:
    for col in values:
        if col not in t.c:
            raise ValueError(f"initial_state: table {tname!r} has no column {col!r}")
    return _coerce(t, values)


def _coerce(t, values: dict) -> dict:
    """YAML gives strings for dates; let the column types parse them."""
    import datetime as dt

    from sqlalchemy import Date, DateTime

    out = {}
    for col, val in values.items():
        ctype = t.c[col].type
        if isinstance(val, str) and isinstance(ctype, DateTime):
            val = dt.datetime.fromisoformat(val)
        elif isinstance(val, str) and isinstance(ctype, Date):
            val = dt.date.fromisoformat(val)
        out[col] = val
    return out


# Imported late to avoid a cycle (specs imports nothing from here).
from envs.spec.schema import InitialStatePatch  # noqa: E402
