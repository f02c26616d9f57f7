"""tau-bench retail SQLite -> JSON: rebuild the ``users``/``orders``/``products`` dicts from the tables.

The inverse of the importer, with the same key order as the files. The tools
use the same record builders for their ``json.dumps`` results, so what a tool
returns and what the exporter writes cannot drift apart.

The exporter reads with plain SQL on the session's own sqlite3 connection
(after a flush): tools build every result through it, and going through
SQLAlchemy's statement machinery for four small SELECTs cost more than the
rest of a tool call.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from typing import Any, Callable, Iterable

from sqlalchemy import JSON, Boolean
from sqlalchemy.orm import Session

from . import models as m


def ordered(values: dict[str, Any], key_order: list[str] | None, canonical: list[str]) -> dict[str, Any]:
    """``values`` in the record's key order (stored, or canonical restricted to present keys)."""
    keys = key_order if key_order is not None else [k for k in canonical if k in values]
    return {k: values[k] for k in keys}


def address_of(r: dict[str, Any]) -> dict[str, Any]:
    return ordered({k: r[k] for k in m.ADDRESS_KEYS}, r["address_key_order"], m.ADDRESS_KEYS)


def payment_method_record(pm: dict[str, Any]) -> dict[str, Any]:
    vals = {"source": pm["source"], "id": pm["id"]}
    for k in ("brand", "last_four", "balance"):
        if pm[k] is not None:
            vals[k] = pm[k]
    return ordered(vals, pm["key_order"], m.PAYMENT_METHOD_KEYS)


def user_record(u: dict[str, Any], payment_methods: Iterable[dict], order_ids: Iterable[str]) -> dict[str, Any]:
    vals = {
        "name": ordered({"first_name": u["first_name"], "last_name": u["last_name"]}, u["name_key_order"],
                        m.NAME_KEYS),
        "address": address_of(u),
        "email": u["email"],
        "payment_methods": {pm["id"]: payment_method_record(pm) for pm in payment_methods},
        "orders": list(order_ids),
    }
    return ordered(vals, u["key_order"], m.USER_KEYS)


def order_record(o: dict[str, Any], items: Iterable[dict], fulfillments: Iterable[dict],
                 payments: Iterable[dict]) -> dict[str, Any]:
    vals: dict[str, Any] = {
        "order_id": o["id"],
        "user_id": o["user_id"],
        "address": address_of(o),
        "items": [ordered({k: i[k] for k in m.ITEM_KEYS}, i["key_order"], m.ITEM_KEYS) for i in items],
        "fulfillments": [ordered({k: f[k] for k in m.FULFILLMENT_KEYS}, f["key_order"], m.FULFILLMENT_KEYS)
                         for f in fulfillments],
        "status": o["status"],
        "payment_history": [ordered({k: p[k] for k in m.PAYMENT_KEYS}, p["key_order"], m.PAYMENT_KEYS)
                            for p in payments],
    }
    for k in m.ORDER_OPTIONAL_KEYS:
        if o[k] is not None:
            vals[k] = o[k]
    return ordered(vals, o["key_order"], m.ORDER_KEYS)


def product_record(p: dict[str, Any], variants: Iterable[dict]) -> dict[str, Any]:
    vals = {
        "name": p["name"],
        "product_id": p["id"],
        "variants": {v["item_id"]: ordered({k: v[k] for k in m.VARIANT_KEYS}, v["key_order"], m.VARIANT_KEYS)
                     for v in variants},
    }
    return ordered(vals, p["key_order"], m.PRODUCT_KEYS)


def _decoder(col: Any) -> Callable[[Any], Any] | None:
    """How a raw sqlite3 value becomes the Python value the ORM would give."""
    if isinstance(col.type, JSON):
        return lambda v: None if v is None else json.loads(v)
    if isinstance(col.type, Boolean):
        return lambda v: None if v is None else bool(v)
    return None


_DECODERS: dict[str, list[tuple[str, Callable[[Any], Any] | None]]] = {
    t.name: [(c.name, _decoder(c)) for c in t.columns] for t in m.Base.metadata.sorted_tables
}


def _rows(conn: sqlite3.Connection, table: str, key: str, ids: list[str] | None, order: str) -> list[dict]:
    cols = _DECODERS[table]
    sql = f"SELECT {', '.join(c for c, _ in cols)} FROM {table}"
    if ids is not None:
        sql += f" WHERE {key} IN ({', '.join('?' * len(ids))})"
    out = []
    for raw in conn.execute(f"{sql} ORDER BY {order}", ids or ()):
        out.append({c: (v if dec is None else dec(v)) for (c, dec), v in zip(cols, raw)})
    return out


def _grouped(rows: list[dict], parent: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        out[r[parent]].append(r)
    return out


def export_state(
    session: Session,
    users: Iterable[str] | None = None,
    orders: Iterable[str] | None = None,
    products: Iterable[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """tau-bench's ``{"users", "orders", "products"}`` dicts rebuilt from the tables.

    Without ids, everything (in the files' order); with ids, only those records of that table
    (and nothing of a table whose ids are None while another's are given).
    """
    session.flush()
    conn = session.connection().connection.dbapi_connection
    assert isinstance(conn, sqlite3.Connection)
    want_all = users is None and orders is None and products is None
    out: dict[str, dict[str, Any]] = {"users": {}, "orders": {}, "products": {}}

    def sel(ids: Iterable[str] | None) -> tuple[bool, list[str] | None]:
        if want_all:
            return True, None
        return ids is not None, (sorted(set(ids)) if ids is not None else None)

    go, ids = sel(users)
    if go:
        pms = _grouped(_rows(conn, "payment_methods", "user_id", ids, "user_id, position"), "user_id")
        refs = _grouped(_rows(conn, "user_orders", "user_id", ids, "user_id, position"), "user_id")
        for u in _rows(conn, "users", "id", ids, "position"):
            out["users"][u["id"]] = user_record(u, pms.get(u["id"], []), [r["order_id"] for r in refs.get(u["id"], [])])
    go, ids = sel(orders)
    if go:
        items = _grouped(_rows(conn, "order_items", "order_id", ids, "order_id, position"), "order_id")
        fuls = _grouped(_rows(conn, "fulfillments", "order_id", ids, "order_id, position"), "order_id")
        pays = _grouped(_rows(conn, "payments", "order_id", ids, "order_id, position"), "order_id")
        for o in _rows(conn, "orders", "id", ids, "position"):
            oid = o["id"]
            out["orders"][oid] = order_record(o, items.get(oid, []), fuls.get(oid, []), pays.get(oid, []))
    go, ids = sel(products)
    if go:
        variants = _grouped(_rows(conn, "variants", "product_id", ids, "product_id, position"), "product_id")
        for p in _rows(conn, "products", "id", ids, "position"):
            out["products"][p["id"]] = product_record(p, variants.get(p["id"], []))
    return out


# Which exported record a row of each table belongs to: (tau-bench table, column holding its id).
RECORD_OF_TABLE: dict[str, tuple[str, str]] = {
    "users": ("users", "id"),
    "payment_methods": ("users", "user_id"),
    "user_orders": ("users", "user_id"),
    "orders": ("orders", "id"),
    "order_items": ("orders", "order_id"),
    "fulfillments": ("orders", "order_id"),
    "payments": ("orders", "order_id"),
    "products": ("products", "id"),
    "variants": ("products", "product_id"),
}
