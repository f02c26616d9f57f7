"""Lookups and writes the retail tools share, with Python dict semantics.

tau-bench looks records up in dicts keyed by strings: ``_key`` reproduces what
``key in some_dict`` does with a non-string (unhashables raise, the rest miss).
Outputs are ``json.dumps`` of the record as the exporter rebuilds it, so a
tool's output and the exported state are one code path.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.orm import Session, object_session

from envs.domain.tools import ToolError

from .. import models as m
from ..exporter import export_state


def _key(key: Any) -> str | None:
    """``key in some_dict`` for a dict keyed by strings: unhashables raise, non-strings miss."""
    hash(key)  # TypeError: unhashable type: 'list', as the dict lookup would raise
    return key if isinstance(key, str) else None


def _order(session: Session, order_id: Any) -> m.Order | None:
    k = _key(order_id)
    return session.get(m.Order, k) if k is not None else None


def _order_in(session: Session, order_id: Any, status: str, action: str) -> m.Order:
    """The order, which must be in ``status`` for ``action`` (tau-bench's two error strings)."""
    order = _order(session, order_id)
    if order is None:
        raise ToolError("order not found")
    if order.status != status:
        raise ToolError(f"non-{status} order cannot be {action}")
    return order


def _payment_methods(session: Session, user_id: str) -> dict[str, m.PaymentMethod]:
    user = session.get(m.User, user_id)
    if user is None:
        raise KeyError(user_id)
    return {pm.id: pm for pm in user.payment_methods}


def _variants(session: Session, product_id: str) -> dict[str, m.Variant]:
    product = session.get(m.Product, product_id)
    if product is None:
        raise KeyError(product_id)
    return {v.item_id: v for v in product.variants}


def _balance(pm: m.PaymentMethod) -> float | int:
    if pm.balance is None:  # tau-bench: payment_method["balance"] on a card without one
        raise KeyError("balance")
    return pm.balance


def _set_optional(order: m.Order, key: str, value: Any) -> None:
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
    first), so a tool's output and the exported state are one code path. None if absent."""
    rec = export_state(session, **{table: [record_id]})[table].get(record_id)
    return None if rec is None else json.dumps(rec)


def _dump_order(order: m.Order) -> str:
    session = object_session(order)
    assert session is not None
    return _dump(session, "orders", order.id) or ""


# tau-bench's tools write a new address dict in this key order.
_TOOL_ADDRESS_ORDER = ["address1", "address2", "city", "state", "country", "zip"]


def _write_address(rec: m.User | m.Order, fields: dict[str, Any]) -> None:
    for k, v in fields.items():
        if not isinstance(v, str):
            raise ToolError(f"address field {k!r} must be a string, got {type(v).__name__}")
    for k in _TOOL_ADDRESS_ORDER:
        setattr(rec, k, fields[k])
    rec.address_key_order = None if _TOOL_ADDRESS_ORDER == m.ADDRESS_KEYS else list(_TOOL_ADDRESS_ORDER)
