"""A record's ``json.dumps`` text written straight from its rows: the cold read of a tool call.

``records.read_record`` rebuilds the record as dicts (the exporter's builders) and ``json.dumps``
encodes it; for a first read that was most of a tool call (decode every JSON column, build a dict per
row, order its keys, encode it all again). Here the same text is formatted from the raw rows in one
pass: strings and numbers through the encoders ``json.dumps`` itself uses, and a JSON column's stored
text spliced in as it is, since it was written by ``json.dumps`` with the same defaults (the ORM's JSON
type, ``rawrows`` and the importer all serialise that way, so loading and dumping it again gives
the same characters).

Only the common shape is formatted here: rows in their canonical key order (every ``key_order``
column NULL) with plain values. Anything else returns ``None`` and the caller takes the exporter's
path, so an unusual record is never printed differently; ``tests/test_tool_speed.py`` checks every
record of every task's initial state, and after the gold writes, against that path.
"""

from __future__ import annotations

import sqlite3
from json.encoder import encode_basestring_ascii as _str  # json.dumps's own (C) string encoder

_INF = float("inf")


class Unusual(Exception):
    """A row this formatter does not handle; the caller uses the exporter's path."""


def _val(v: object) -> str:
    """One scalar as ``json.dumps`` writes it."""
    c = v.__class__
    if c is str:
        return _str(v)
    if c is float:
        if v != v:
            return "NaN"
        if v == _INF:
            return "Infinity"
        if v == -_INF:
            return "-Infinity"
        return float.__repr__(v)
    if c is int:
        return int.__repr__(v)
    if v is None:
        return "null"
    raise Unusual


def _s(v: object) -> str:
    """A text column's value: almost always a string (the C encoder directly), else as ``_val``."""
    return _str(v) if v.__class__ is str else _val(v)


_NO_OPTIONAL = (None,) * 7  # an order with none of models.ORDER_OPTIONAL_KEYS


def _json(v: object) -> str:
    """A JSON column's stored text (``json.dumps`` output), or null for SQL NULL."""
    if v is None:
        return "null"
    if v.__class__ is not str:
        raise Unusual
    return v


def _bool(v: object) -> str:
    if v is None:
        return "null"
    if v.__class__ is not int:
        raise Unusual
    return "true" if v else "false"


_ADDRESS = '{"address1": %s, "address2": %s, "city": %s, "country": %s, "state": %s, "zip": %s}'

_ORDER_SQL = ("SELECT id, user_id, address1, address2, city, country, state, zip, status, cancel_reason, "
              "return_items, return_payment_method_id, exchange_items, exchange_new_items, "
              "exchange_payment_method_id, exchange_price_difference, key_order, address_key_order "
              "FROM orders WHERE id = ?")
_ITEMS_SQL = ("SELECT name, product_id, item_id, price, options, key_order FROM order_items "
              "WHERE order_id = ? ORDER BY position")
_FULFILLMENTS_SQL = "SELECT tracking_id, item_ids, key_order FROM fulfillments WHERE order_id = ? ORDER BY position"
_PAYMENTS_SQL = ("SELECT transaction_type, amount, payment_method_id, key_order FROM payments "
                 "WHERE order_id = ? ORDER BY position")
# (key text, column index in _ORDER_SQL, encoder): present only when not NULL (models.ORDER_OPTIONAL_KEYS)
_ORDER_OPTIONAL = [('"cancel_reason": ', 9, _val), ('"return_items": ', 10, _json),
                   ('"return_payment_method_id": ', 11, _val), ('"exchange_items": ', 12, _json),
                   ('"exchange_new_items": ', 13, _json), ('"exchange_payment_method_id": ', 14, _val),
                   ('"exchange_price_difference": ', 15, _val)]


def order_text(conn: sqlite3.Connection, order_id: str) -> str | None:
    """The order's text; ``""`` when there is no such order; None when the exporter must build it."""
    rows = conn.execute(_ORDER_SQL, (order_id,)).fetchall()
    if not rows:
        return ""
    o = rows[0]
    if o[16] is not None or o[17] is not None:
        return None
    try:
        items = []
        for name, pid, iid, price, options, ko in conn.execute(_ITEMS_SQL, (order_id,)):
            if ko is not None or options.__class__ is not str:
                return None
            items.append('{"name": %s, "product_id": %s, "item_id": %s, "price": %s, "options": %s}'
                         % (_s(name), _s(pid), _s(iid), _val(price), options))
        fuls = []
        for tracking, item_ids, ko in conn.execute(_FULFILLMENTS_SQL, (order_id,)):
            if ko is not None:
                return None
            fuls.append('{"tracking_id": %s, "item_ids": %s}' % (_json(tracking), _json(item_ids)))
        pays = []
        for kind, amount, pm, ko in conn.execute(_PAYMENTS_SQL, (order_id,)):
            if ko is not None:
                return None
            pays.append('{"transaction_type": %s, "amount": %s, "payment_method_id": %s}'
                        % (_s(kind), _val(amount), _s(pm)))
        head = '{"order_id": %s, "user_id": %s, "address": %s, "items": [%s], "fulfillments": [%s], ' \
               '"status": %s, "payment_history": [%s]' % (
                   _s(o[0]), _s(o[1]), _ADDRESS % tuple(map(_s, o[2:8])), ", ".join(items),
                   ", ".join(fuls), _s(o[8]), ", ".join(pays))
        tail = "".join([", " + key + enc(o[i]) for key, i, enc in _ORDER_OPTIONAL if o[i] is not None]) \
            if o[9:16] != _NO_OPTIONAL else ""
    except Unusual:
        return None
    return head + tail + "}"


_USER_SQL = ("SELECT first_name, last_name, address1, address2, city, country, state, zip, email, key_order, "
             "name_key_order, address_key_order FROM users WHERE id = ?")
_PMS_SQL = ("SELECT id, source, brand, last_four, balance, key_order FROM payment_methods WHERE user_id = ? "
            "ORDER BY position")
_USER_ORDERS_SQL = "SELECT order_id FROM user_orders WHERE user_id = ? ORDER BY position"


def user_text(conn: sqlite3.Connection, user_id: str) -> str | None:
    """The user's text; ``""`` when there is no such user; None when the exporter must build it."""
    rows = conn.execute(_USER_SQL, (user_id,)).fetchall()
    if not rows:
        return ""
    u = rows[0]
    if u[9] is not None or u[10] is not None or u[11] is not None:
        return None
    try:
        pms = []
        for pid, source, brand, last_four, balance, ko in conn.execute(_PMS_SQL, (user_id,)):
            if ko is not None:
                return None
            parts = ['"source": ' + _val(source)]
            if brand is not None:
                parts.append('"brand": ' + _val(brand))
            if last_four is not None:
                parts.append('"last_four": ' + _val(last_four))
            if balance is not None:
                parts.append('"balance": ' + _val(balance))
            pid_text = _val(pid)
            parts.append('"id": ' + pid_text)
            pms.append(pid_text + ": {" + ", ".join(parts) + "}")
        orders = [_s(r[0]) for r in conn.execute(_USER_ORDERS_SQL, (user_id,))]
        return '{"name": {"first_name": %s, "last_name": %s}, "address": %s, "email": %s, ' \
               '"payment_methods": {%s}, "orders": [%s]}' % (
                   _s(u[0]), _s(u[1]), _ADDRESS % tuple(map(_s, u[2:8])), _s(u[8]),
                   ", ".join(pms), ", ".join(orders))
    except Unusual:
        return None


_PRODUCT_SQL = "SELECT name, id, key_order FROM products WHERE id = ?"
_VARIANTS_SQL = ("SELECT item_id, options, available, price, key_order FROM variants WHERE product_id = ? "
                 "ORDER BY position")


def product_text(conn: sqlite3.Connection, product_id: str) -> str | None:
    """The product's text; ``""`` when there is no such product; None when the exporter must build it."""
    rows = conn.execute(_PRODUCT_SQL, (product_id,)).fetchall()
    if not rows:
        return ""
    p = rows[0]
    if p[2] is not None:
        return None
    try:
        variants = []
        for iid, options, available, price, ko in conn.execute(_VARIANTS_SQL, (product_id,)):
            if ko is not None:
                return None
            iid_text = _val(iid)
            variants.append('%s: {"item_id": %s, "options": %s, "available": %s, "price": %s}'
                            % (iid_text, iid_text, _json(options), _bool(available), _val(price)))
        return '{"name": %s, "product_id": %s, "variants": {%s}}' % (_val(p[0]), _val(p[1]), ", ".join(variants))
    except Unusual:
        return None


TEXT_OF = {"orders": order_text, "users": user_text, "products": product_text}
