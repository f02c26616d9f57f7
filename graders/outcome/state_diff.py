"""Row- and column-level diff of two SQLite states, done by SQLite itself.

The goal database is attached next to the episode's database and each table
is compared by SQLite: a join on the primary key finds rows whose counted
columns differ (``IS NOT``, so NULLs compare as values) or that exist on one
side only; tables without a primary key fall back to ``EXCEPT`` both ways.
Declared ignored columns are left out. Rows are reported as *changed* (with
each differing column's actual and expected value), *unexpected* (only in the
actual state) and *missing* (only in the goal).

Rows an episode created are matched by content, not by id (``new_after``: per table
with one integer key, the largest key of the initial state). An agent that issues the
same refunds in another order, or an episode whose ids start elsewhere
(``envs.state.database.NewIds``), made the same state: a new row of the actual state
that equals a new row of the goal in every counted column but the key is renamed to
that row's key, and the renaming is carried into the columns that reference it
(``order_items.refund_id``) before they are compared. Tables are matched parents
first (``MetaData.sorted_tables``).

Only what either side could have touched needs comparing: callers pass table
names (``tables``), or an ``envs.state.database.Touched`` that also narrows each table
to the primary keys written (so grading costs O(rows written), not O(state));
``tables=None`` compares everything.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterable, Mapping

from sqlalchemy import MetaData

from envs.records import RowChange, TableDiff


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def diff_connection(
    conn: sqlite3.Connection,
    goal: bytes,
    metadata: MetaData,
    tables: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    new_after: Mapping[str, int] | None = None,
) -> list[TableDiff]:
    """Diff the ``main`` database of ``conn`` against the serialized ``goal``; with
    ``new_after``, created rows are matched by content (see the module docstring)."""
    conn.execute("ATTACH DATABASE ':memory:' AS goal")
    try:
        conn.deserialize(goal, name="goal")
        return _diff_attached(conn, "main", "goal", metadata, tables, ignore, new_after)
    finally:
        conn.execute("DETACH DATABASE goal")


def diff_bytes(
    actual: bytes,
    goal: bytes,
    metadata: MetaData,
    tables: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    new_after: Mapping[str, int] | None = None,
) -> list[TableDiff]:
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(actual)
        return diff_connection(conn, goal, metadata, tables, ignore, new_after)
    finally:
        conn.close()


def _diff_attached(conn, a: str, b: str, metadata: MetaData, tables, ignore, new_after=None) -> list[TableDiff]:
    ignored: dict[str, set[str]] = {}
    for item in ignore:
        t, c = item.split(".", 1)
        ignored.setdefault(t, set()).add(c)
    names = sorted(metadata.tables) if tables is None else sorted(set(tables) & set(metadata.tables))
    keys_for = getattr(tables, "keys_for", None)
    found: dict[str, tuple[list[str], list[str], list, list]] = {}
    for name in names:
        t = metadata.tables[name]
        pk = [c.name for c in t.primary_key.columns]
        cols = [c.name for c in t.columns if c.name not in ignored.get(name, set()) or c.name in pk]
        keys = keys_for(name) if keys_for else None
        if pk and keys is not None:
            only_a, only_b = _pk_rows(conn, a, b, name, cols, pk, keys)
        elif pk:
            only_a, only_b = _pk_join(conn, a, b, name, cols, pk)
        else:
            sel = ", ".join(_q(c) for c in cols)
            only_a = conn.execute(
                f"SELECT {sel} FROM {a}.{_q(name)} EXCEPT SELECT {sel} FROM {b}.{_q(name)}"
            ).fetchall()
            only_b = conn.execute(
                f"SELECT {sel} FROM {b}.{_q(name)} EXCEPT SELECT {sel} FROM {a}.{_q(name)}"
            ).fetchall()
        found[name] = (cols, pk, only_a, only_b)
    if new_after and any(fa or fb for _, _, fa, fb in found.values()):
        _match_created(conn, a, b, metadata, found, new_after, keys_for)
    out: list[TableDiff] = []
    for name in names:
        cols, pk, only_a, only_b = found[name]
        if not only_a and not only_b:
            continue
        td = TableDiff(table=name)
        key_idx = [cols.index(k) for k in pk] if pk else list(range(len(cols)))
        rows_a = {tuple(r[i] for i in key_idx): r for r in only_a}
        rows_b = {tuple(r[i] for i in key_idx): r for r in only_b}
        key_names = pk or cols
        for key in sorted(rows_a.keys() | rows_b.keys(), key=repr):
            ra, rb = rows_a.get(key), rows_b.get(key)
            key_dict = dict(zip(key_names, key))
            if ra is not None and rb is not None:
                changed = {
                    c: {"actual": va, "expected": vb}
                    for c, va, vb in zip(cols, ra, rb)
                    if va != vb
                }
                td.changed.append(RowChange(key=key_dict, columns=changed))
            elif ra is not None:
                td.unexpected.append(dict(zip(cols, ra)))
            else:
                td.missing.append(dict(zip(cols, rb)))
        out.append(td)
    return out


def _match_created(conn, a: str, b: str, metadata: MetaData, found: dict, new_after: Mapping[str, int], keys_for) -> None:
    """Rename the actual state's created rows to the goal's created rows they equal (module
    docstring), editing ``found`` (table -> cols, pk, rows only in a, rows only in b) in place."""
    rename: dict[str, dict[Any, Any]] = {}  # table -> {actual key: goal key}, where they differ
    for t in metadata.sorted_tables:  # parents first: a child compares under its parents' renaming
        name = t.name
        if name not in found:
            continue
        cols, pk, only_a, only_b = found[name]
        refs = {cols.index(c.name): rename[fk.column.table.name]
                for c in t.columns if c.name in cols for fk in c.foreign_keys if rename.get(fk.column.table.name)}
        if refs and pk:
            # rows equal by their stored values may differ once the keys they point at are renamed
            rows_a = _rows(conn, a, name, cols, pk, keys_for(name) if keys_for else None)
            rows_b = _rows(conn, b, name, cols, pk, keys_for(name) if keys_for else None)
            for k, r in rows_a.items():
                rows_a[k] = tuple(refs[i].get(v, v) if i in refs else v for i, v in enumerate(r))
            only_a = [r for k, r in rows_a.items() if rows_b.get(k) != r]
            only_b = [r for k, r in rows_b.items() if rows_a.get(k) != r]
        limit = new_after.get(name)
        if limit is not None and len(pk) == 1 and only_a and only_b:
            i = cols.index(pk[0])

            def body(r: tuple) -> tuple:
                return r[:i] + r[i + 1 :]

            pool: dict[tuple, list[tuple]] = {}
            for r in sorted((r for r in only_b if isinstance(r[i], int) and r[i] > limit), key=lambda r: r[i]):
                pool.setdefault(body(r), []).append(r)
            matched_a, matched_b = set(), set()
            for r in sorted((r for r in only_a if isinstance(r[i], int) and r[i] > limit), key=lambda r: r[i]):
                same = pool.get(body(r))
                if same:
                    g = same.pop(0)
                    matched_a.add(r[i])
                    matched_b.add(g[i])
                    if g[i] != r[i]:
                        rename.setdefault(name, {})[r[i]] = g[i]
            only_a = [r for r in only_a if r[i] not in matched_a]
            only_b = [r for r in only_b if r[i] not in matched_b]
        found[name] = (cols, pk, only_a, only_b)


def _rows(conn, side: str, name: str, cols: list[str], pk: list[str], keys: set[tuple] | None) -> dict[tuple, tuple]:
    """The rows of ``side``'s table (only those with ``keys``, when given), by primary key."""
    sel = ", ".join(_q(c) for c in cols)
    key_idx = [cols.index(k) for k in pk]
    out: dict[tuple, tuple] = {}
    if keys is None:
        for r in conn.execute(f"SELECT {sel} FROM {side}.{_q(name)}"):
            out[tuple(r[j] for j in key_idx)] = r
        return out
    pkcols = ", ".join(_q(k) for k in pk)
    keys = sorted(keys, key=repr)
    step = max(1, 900 // len(pk))
    for j in range(0, len(keys), step):
        chunk = keys[j : j + step]
        cond = f"({pkcols}) IN (VALUES {', '.join('(' + ', '.join('?' * len(pk)) + ')' for _ in chunk)})"
        for r in conn.execute(f"SELECT {sel} FROM {side}.{_q(name)} WHERE {cond}", [v for k in chunk for v in k]):
            out[tuple(r[x] for x in key_idx)] = r
    return out


def _pk_rows(conn, a: str, b: str, name: str, cols: list[str], pk: list[str], keys: set[tuple]):
    """Like ``_pk_join`` but only for the given primary keys (rows a session wrote)."""
    if not keys:
        return [], []
    t = _q(name)
    sel = ", ".join(_q(c) for c in cols)
    pkcols = ", ".join(_q(k) for k in pk)
    keys = sorted(keys, key=repr)
    out_a, out_b = [], []
    # In chunks: SQLite limits the number of bound parameters per statement.
    step = max(1, 900 // len(pk))
    for i in range(0, len(keys), step):
        chunk = keys[i : i + step]
        cond = f"({pkcols}) IN (VALUES {', '.join('(' + ', '.join('?' * len(pk)) + ')' for _ in chunk)})"
        params = [v for k in chunk for v in k]
        ra = {tuple(r[cols.index(k)] for k in pk): r for r in conn.execute(f"SELECT {sel} FROM {a}.{t} WHERE {cond}", params)}
        rb = {tuple(r[cols.index(k)] for k in pk): r for r in conn.execute(f"SELECT {sel} FROM {b}.{t} WHERE {cond}", params)}
        for k in ra.keys() | rb.keys():
            if ra.get(k) != rb.get(k):
                if k in ra:
                    out_a.append(ra[k])
                if k in rb:
                    out_b.append(rb[k])
    return out_a, out_b


def _pk_join(conn, a: str, b: str, name: str, cols: list[str], pk: list[str]):
    """Rows of a (resp. b) that differ from, or are absent in, the other side."""
    t = _q(name)
    on = " AND ".join(f"x.{_q(k)} = y.{_q(k)}" for k in pk)
    differs = " OR ".join(f"x.{_q(c)} IS NOT y.{_q(c)}" for c in cols if c not in pk) or "0"
    sel_x = ", ".join(f"x.{_q(c)}" for c in cols)
    absent = f"y.{_q(pk[0])} IS NULL"
    only_a = conn.execute(
        f"SELECT {sel_x} FROM {a}.{t} x LEFT JOIN {b}.{t} y ON {on} WHERE {absent} OR {differs}"
    ).fetchall()
    # From b: the rows a lacks, plus b's side of the rows that differ.
    only_b = conn.execute(
        f"SELECT {sel_x} FROM {b}.{t} x LEFT JOIN {a}.{t} y ON {on} WHERE {absent} OR {differs}"
    ).fetchall()
    return only_a, only_b


def render_diff(diffs: list[TableDiff], limit: int = 20) -> str:
    """A short human-readable rendering of a diff for the terminal."""
    if not diffs:
        return "no difference"
    lines: list[str] = []
    for d in diffs:
        for ch in d.changed:
            cols = ", ".join(f"{c}: {v['actual']!r} (expected {v['expected']!r})" for c, v in ch.columns.items())
            lines.append(f"{d.table} {ch.key}: {cols}")
        for r in d.unexpected:
            lines.append(f"{d.table}: unexpected row {r}")
        for r in d.missing:
            lines.append(f"{d.table}: missing row {r}")
    more = f"\n... and {len(lines) - limit} more" if len(lines) > limit else ""
    return "\n".join(lines[:limit]) + more
