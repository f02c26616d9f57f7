"""Lookups and writes the retail tools share, with Python dict semantics.

tau-bench looks records up in dicts keyed by strings: ``_key`` reproduces what
``key in some_dict`` does with a non-string (unhashables raise, the rest miss).
Outputs are ``json.dumps`` of the record as the exporter rebuilds it, so a
tool's output and the exported state are one code path.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from envs.domain.tools import ToolError
from envs.state.rawrows import Row, RowSet

from .. import models as m
from .records import dump_record


def _key(key: Any) -> str | None:
    """``key in some_dict`` for a dict keyed by strings: unhashables raise, non-strings miss."""
    hash(key)  # TypeError: unhashable type: 'list', as the dict lookup would raise
    return key if isinstance(key, str) else None


def _order(rows: RowSet, order_id: Any) -> Row | None:
    k = _key(order_id)
    return rows.get("orders", k) if k is not None else None


def _order_in(rows: RowSet, order_id: Any, status: str, action: str) -> Row:
    """The order, which must be in ``status`` for ``action`` (tau-bench's two error strings)."""
    order = _order(rows, order_id)
    if order is None:
        raise ToolError("order not found")
    if order.status != status:
        raise ToolError(f"non-{status} order cannot be {action}")
    return order


def _order_items(rows: RowSet, order: Row) -> list[Row]:
    return rows.select("order_items", "position", order_id=order.id)


def _order_payments(rows: RowSet, order: Row) -> list[Row]:
    return rows.select("payments", "position", order_id=order.id)


def _payment_methods(rows: RowSet, user_id: str) -> dict[str, Row]:
    if rows.get("users", user_id) is None:
        raise KeyError(user_id)
    return {pm.id: pm for pm in rows.select("payment_methods", "position", user_id=user_id)}


def _variant(rows: RowSet, product_id: str, item_id: Any) -> Row | None:
    """The product's variant ``item_id`` or None, with the semantics of tau-bench's
    ``products[product_id]["variants"]`` dict (KeyError for no such product, then ``_key``)."""
    if rows.get("products", product_id) is None:
        raise KeyError(product_id)
    k = _key(item_id)
    return None if k is None else rows.get("variants", product_id, k)


def _balance(pm: Row) -> float | int:
    if pm.balance is None:  # tau-bench: payment_method["balance"] on a card without one
        raise KeyError("balance")
    return pm.balance


def _set_optional(order: Row, key: str, value: Any) -> None:
    """Set an order key that may be absent; a new key goes last, as in a Python dict."""
    present = [k for k in m.ORDER_KEYS if k in m.ORDER_BASE_KEYS or getattr(order, k) is not None]
    keys = list(order.key_order) if order.key_order is not None else present
    setattr(order, key, value)
    if key not in keys:
        keys.append(key)
    canonical = [k for k in m.ORDER_KEYS if k in m.ORDER_BASE_KEYS or getattr(order, k) is not None]
    order.key_order = None if keys == canonical else keys


def _dump(session: Session, table: str, record_id: str) -> str | None:
    """``json.dumps`` of one record as the exporter rebuilds it (pending ORM changes are flushed
    first), so a tool's output and the exported state are one code path. None if absent.
    Cached while the episode has not touched the record (``records``)."""
    return dump_record(session, table, record_id)


def _dump_order(session: Session, rows: RowSet, order: Row) -> str:
    """The order as tau-bench prints it, after this call's changes are saved."""
    rows.save()
    return _dump(session, "orders", order.id) or ""


# tau-bench's tools write a new address dict in this key order.
_TOOL_ADDRESS_ORDER = ["address1", "address2", "city", "state", "country", "zip"]


def _write_address(rec: Row, fields: dict[str, Any]) -> None:
    for k, v in fields.items():
        if not isinstance(v, str):
            raise ToolError(f"address field {k!r} must be a string, got {type(v).__name__}")
    for k in _TOOL_ADDRESS_ORDER:
        setattr(rec, k, fields[k])
    rec.address_key_order = None if _TOOL_ADDRESS_ORDER == m.ADDRESS_KEYS else list(_TOOL_ADDRESS_ORDER)
