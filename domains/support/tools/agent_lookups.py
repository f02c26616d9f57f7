"""Agent tools of the support domain that only read: identity, customers, orders, tracking, refunds, products.

What a marketplace's support console shows; none of them changes the database.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from domains.support.models import TODAY
from envs.domain.tools import ToolError, tool

from .common import (
    CustomerId,
    Email,
    OrderId,
    PersonName,
    ProductId,
    Zip,
    _charges,
    _customer,
    _default_address,
    _iso,
    _item_view,
    _items,
    _order,
    _refund_lines,
    _refund_view,
    _refunds,
    _shipment,
    _unit_counts,
    money,
    rows_of,
)


@tool
def find_customer_by_email(session: Session, email: Email) -> dict:
    """Find a customer account by its email address (case-insensitive).

    Args:
        email: The email address the customer gave.
    """
    with rows_of(session) as r:
        found = r.select_where("customers", "lower(email) = ?", None, email.lower())
    c = found[0] if found else None
    if c is None:
        raise ToolError("no customer account with that email")
    return {"customer_id": c.id, "first_name": c.first_name, "last_name": c.last_name}


@tool
def find_customer_by_name_zip(session: Session, first_name: PersonName, last_name: PersonName, zip: Zip) -> dict:
    """Find a customer by full name and the zip code of their default address (both must match).

    Args:
        first_name: The customer's first name.
        last_name: The customer's last name.
        zip: The zip code of the customer's default address, as the customer states it.
    """
    with rows_of(session) as r:
        rows = r.execute(
            "SELECT customers.id, customers.first_name, customers.last_name FROM customers"
            " JOIN addresses ON addresses.customer_id = customers.id"
            " WHERE lower(customers.first_name) = ? AND lower(customers.last_name) = ?"
            " AND addresses.is_default IS 1 AND addresses.zip = ? ORDER BY customers.id",
            first_name.strip().lower(), last_name.strip().lower(), zip,
        )
    if not rows:
        raise ToolError("no customer with that name and default-address zip code")
    if len(rows) > 1:
        raise ToolError("more than one customer matches; ask for the account email instead")
    cid, fn, ln = rows[0]
    return {"customer_id": cid, "first_name": fn, "last_name": ln, "verified_zip": zip}


@tool
def get_customer(session: Session, customer_id: CustomerId) -> dict:
    """A customer's profile: name, email, default address (with zip), payment methods, store credit.

    Args:
        customer_id: The customer's id.
    """
    with rows_of(session) as r:
        c = _customer(r, customer_id)
        addr = _default_address(r, c.id)
        pms = r.select("payment_methods", "id", customer_id=c.id)
        credit = r.scalar("SELECT coalesce(sum(amount_cents), 0) FROM store_credit WHERE customer_id = ?", c.id)
        n_orders = r.scalar("SELECT count(*) FROM orders WHERE customer_id = ?", c.id)
    return {
        "customer_id": c.id,
        "first_name": c.first_name,
        "last_name": c.last_name,
        "email": c.email,
        "phone": c.phone,
        "status": c.status,
        "member_since": _iso(c.member_since),
        "default_address": None
        if addr is None
        else {"line1": addr.line1, "city": addr.city, "state": addr.state, "zip": addr.zip},
        "payment_methods": [
            {"payment_method_id": p.id, "kind": p.kind, "brand": p.brand, "last4": p.last4, "status": p.status}
            for p in pms
        ],
        "store_credit_balance": money(credit),
        "order_count": n_orders,
    }


@tool
def list_orders(session: Session, customer_id: CustomerId) -> list[dict]:
    """A customer's orders, newest first: id, date, status, total and item names.

    Args:
        customer_id: The customer's id.
    """
    with rows_of(session) as r:
        _customer(r, customer_id)
        orders = r.select("orders", "placed_at DESC, id", customer_id=customer_id)
        return [
            {
                "order_id": o.id,
                "placed_at": _iso(o.placed_at),
                "status": o.status,
                "total": money(o.total_cents),
                "items": [it.name for it in _items(r, o.id)],
            }
            for o in orders
        ]


@tool
def get_order(session: Session, order_id: OrderId) -> dict:
    """An order in full: items (with item ids and statuses), totals, shipping address, charges and refunds.

    Args:
        order_id: The order id.
    """
    with rows_of(session) as r:
        o = _order(r, order_id)
        items = _items(r, o.id)
        pm = r.get("payment_methods", o.payment_method_id)
        ship = _shipment(r, o.id)
        refunds = _refunds(r, o.id)
        charges = _charges(r, o.id)
        counts = _unit_counts(r, items)
        lines = _refund_lines(r, refunds)
    return {
        "order_id": o.id,
        "customer_id": o.customer_id,
        "status": o.status,
        "placed_at": _iso(o.placed_at),
        "shipping_address": {"line1": o.ship_line1, "city": o.ship_city, "state": o.ship_state, "zip": o.ship_zip},
        "payment_method": None
        if pm is None
        else {"payment_method_id": pm.id, "brand": pm.brand, "last4": pm.last4, "status": pm.status},
        "items": [_item_view(it, counts) for it in items],
        "subtotal": money(o.subtotal_cents),
        "shipping": money(o.shipping_cents),
        "shipping_cents": o.shipping_cents,
        "total": money(o.total_cents),
        "total_cents": o.total_cents,
        "charges": [
            {
                "charge_id": c.id,
                "amount": money(c.amount_cents),
                "amount_cents": c.amount_cents,
                "status": c.status,
                "created_at": _iso(c.created_at),
            }
            for c in charges
        ],
        "refunds": [_refund_view(x, items, lines) for x in refunds],
        "shipment_status": ship.status if ship else "not_created",
    }


@tool
def get_shipment_tracking(session: Session, order_id: OrderId) -> dict:
    """The carrier's tracking for an order: status, dates, and where the driver left the parcel.

    Args:
        order_id: The order id.
    """
    with rows_of(session) as r:
        o = _order(r, order_id)
        sh = _shipment(r, o.id)
    if sh is None:
        return {"order_id": o.id, "status": "not_shipped", "note": "No shipping label has been created yet."}
    days = (TODAY - sh.delivered_at.date()).days if sh.delivered_at else None
    return {
        "order_id": o.id,
        "shipment_id": sh.id,
        "carrier": sh.carrier,
        "tracking_number": sh.tracking_number,
        "status": sh.status,
        "shipped_at": _iso(sh.shipped_at),
        "estimated_delivery": _iso(sh.estimated_delivery) if sh.status not in ("delivered", "cancelled") else None,
        "delivered_at": _iso(sh.delivered_at),
        "days_since_delivery": days,
        "delivery_note": sh.delivery_note,
    }


@tool
def get_refund_status(session: Session, order_id: OrderId) -> dict:
    """The refunds issued for an order: amount, destination, status, and the date they should post by.

    Args:
        order_id: The order id.
    """
    with rows_of(session) as r:
        o = _order(r, order_id)
        items = _items(r, o.id)
        refunds = _refunds(r, o.id)
        lines = _refund_lines(r, refunds)
    return {
        "order_id": o.id,
        "refunds": [_refund_view(x, items, lines) for x in refunds],
        "refunded_total": money(sum(r.amount_cents for r in refunds if r.status != "failed")),
        "today": TODAY.isoformat(),
    }


@tool
def get_product(session: Session, product_id: ProductId) -> dict:
    """A product: name, seller, price and units in stock.

    Args:
        product_id: The product id.
    """
    with rows_of(session) as r:
        p = r.get("products", product_id)
        if p is None:
            raise ToolError(f"no product {product_id}")
        seller = r.get("sellers", p.seller_id)
    return {
        "product_id": p.id,
        "name": p.name,
        "category": p.category,
        "price": money(p.price_cents),
        "stock": p.stock,
        "seller": seller.name if seller else None,
    }
