"""Agent tools and user tools of the support domain.

Agent tools are what a marketplace's support console offers: look customers
and orders up, track shipments, cancel, refund, replace, claim, re-address,
ticket and escalate. They enforce in code what the back office would enforce
(nothing refunded twice, never more than was paid, no cancellation after
dispatch, stock never negative); what is a matter of judgement (identity
checks, the 30-day window, asking before acting) is left to the agent and
written in ``policy.md``.

User tools are the customer's own world: the doorstep, the neighbours, the
app and the bank statement. The agent cannot call them and vice versa.

Every timestamp a tool writes is the domain's fixed ``NOW``.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.support.models import (
    NOW,
    REFUND_POSTING_DAYS,
    TODAY,
    Address,
    BankStatementLine,
    CarrierClaim,
    Charge,
    Customer,
    Escalation,
    HomeDelivery,
    Order,
    OrderItem,
    PaymentMethod,
    Product,
    Refund,
    Replacement,
    Seller,
    Shipment,
    StoreCreditEntry,
    Ticket,
)
from envs.domain.tools import ToolError, tool

# --- argument types -------------------------------------------------------------------

OrderId = Annotated[str, Field(description="Order id, e.g. O-00042.", pattern=r"^O-\d{5}$")]
CustomerId = Annotated[str, Field(description="Customer id, e.g. C-00042.", pattern=r"^C-\d{5}$")]
ChargeId = Annotated[str, Field(description="Charge id, e.g. CH-00042.", pattern=r"^CH-\d{5}$")]
ProductId = Annotated[str, Field(description="Product id, e.g. P-0042.", pattern=r"^P-\d{4}$")]
Email = Annotated[
    str, Field(description="The customer's email address.", pattern=r"^[^@\s]{1,64}@[^@\s]{1,60}\.[A-Za-z]{2,}$")
]
Zip = Annotated[str, Field(description="A 5-digit US zip code.", pattern=r"^\d{5}$")]
PersonName = Annotated[str, Field(description="A name as the customer spells it.", pattern=r"^[A-Za-z][A-Za-z' .-]{0,39}$")]
ItemIds = Annotated[
    list[int], Field(description="Order item ids (from get_order), each once.", min_length=1, max_length=20)
]
Text200 = Annotated[str, Field(min_length=1, max_length=200)]
Text2000 = Annotated[str, Field(min_length=1, max_length=2000)]

RefundDestination = Literal["original_payment", "store_credit"]
RefundReason = Literal["damaged", "missing_item", "not_delivered", "lost_package", "wrong_item", "other"]
ReplacementReason = Literal["damaged", "missing_item", "not_delivered", "lost_package", "wrong_item"]
ClaimReason = Literal["lost_in_transit", "delivered_not_received"]
TicketCategory = Literal["refund_trace", "delivery_issue", "product_question", "account", "other"]
EscalationReason = Literal["customer_request", "legal_threat", "outside_policy_exception", "other"]

UNSHIPPED_ORDER = ("placed", "processing")
UNSHIPPED_SHIPMENT = (None, "label_created")


def money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def _iso(v) -> str | None:
    return v.isoformat() if v is not None else None


# --- lookups shared by the tools ----------------------------------------------------------


def _order(s: Session, order_id: str) -> Order:
    o = s.get(Order, order_id)
    if o is None:
        raise ToolError(f"no order {order_id}")
    return o


def _customer(s: Session, customer_id: str) -> Customer:
    c = s.get(Customer, customer_id)
    if c is None:
        raise ToolError(f"no customer {customer_id}")
    return c


def _shipment(s: Session, order_id: str) -> Shipment | None:
    return s.scalars(select(Shipment).where(Shipment.order_id == order_id).order_by(Shipment.id)).first()


def _items(s: Session, order_id: str) -> list[OrderItem]:
    return list(s.scalars(select(OrderItem).where(OrderItem.order_id == order_id).order_by(OrderItem.id)))


def _charges(s: Session, order_id: str) -> list[Charge]:
    return list(s.scalars(select(Charge).where(Charge.order_id == order_id).order_by(Charge.created_at, Charge.id)))


def _refunds(s: Session, order_id: str) -> list[Refund]:
    return list(s.scalars(select(Refund).where(Refund.order_id == order_id).order_by(Refund.id)))


def _default_address(s: Session, customer_id: str) -> Address | None:
    return s.scalars(
        select(Address).where(Address.customer_id == customer_id, Address.is_default.is_(True)).order_by(Address.id)
    ).first()


def _next_id(s: Session, model) -> int:
    return (s.scalar(select(func.max(model.id))) or 0) + 1


def _paid_cents(s: Session, order_id: str) -> int:
    """What the customer paid for the order: captured charges (duplicates given back are 'refunded')."""
    return sum(c.amount_cents for c in _charges(s, order_id) if c.status == "captured")


def _refunded_cents(s: Session, order_id: str) -> int:
    """Money already given back for the order itself (not counting duplicate charges given back)."""
    return sum(r.amount_cents for r in _refunds(s, order_id) if r.charge_id is None and r.status != "failed")


def _pick_items(s: Session, order: Order, item_ids: list[int], verb: str) -> list[OrderItem]:
    if len(set(item_ids)) != len(item_ids):
        raise ToolError("item_ids lists an item more than once")
    by_id = {it.id: it for it in _items(s, order.id)}
    picked = []
    for iid in item_ids:
        it = by_id.get(iid)
        if it is None:
            raise ToolError(f"item {iid} is not part of order {order.id}")
        if it.status != "ordered":
            raise ToolError(f"item {iid} ({it.name}) is already {it.status}; it cannot be {verb}")
        picked.append(it)
    return picked


def _new_refund(
    s: Session, order: Order, amount: int, destination: str, reason: str, charge_id: str | None = None
) -> Refund:
    to_credit = destination == "store_credit"
    r = Refund(
        id=_next_id(s, Refund),
        order_id=order.id,
        charge_id=charge_id,
        amount_cents=amount,
        destination=destination,
        reason=reason,
        status="completed" if to_credit else "pending",
        created_at=NOW,
        expected_post_by=None if to_credit else TODAY + dt.timedelta(days=REFUND_POSTING_DAYS),
    )
    s.add(r)
    s.flush()
    if to_credit:
        s.add(
            StoreCreditEntry(
                id=_next_id(s, StoreCreditEntry),
                customer_id=order.customer_id,
                amount_cents=amount,
                reason="refund",
                refund_id=r.id,
                created_at=NOW,
            )
        )
    return r


def _refund_view(r: Refund, items: list[OrderItem] | None = None) -> dict:
    out = {
        "refund_id": r.id,
        "amount": money(r.amount_cents),
        "amount_cents": r.amount_cents,
        "destination": r.destination,
        "reason": r.reason,
        "status": r.status,
        "issued_at": _iso(r.created_at),
        "expected_post_by": _iso(r.expected_post_by),
    }
    if r.charge_id:
        out["charge_id"] = r.charge_id
    if items is not None:
        out["item_ids"] = [it.id for it in items if it.refund_id == r.id]
    return out


# --- agent tools: identity and lookups ---------------------------------------------------------


@tool
def find_customer_by_email(session: Session, email: Email) -> dict:
    """Find a customer account by its email address (case-insensitive).

    Args:
        email: The email address the customer gave.
    """
    c = session.scalars(select(Customer).where(func.lower(Customer.email) == email.lower())).first()
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
    rows = session.execute(
        select(Customer.id, Customer.first_name, Customer.last_name)
        .join(Address, Address.customer_id == Customer.id)
        .where(
            func.lower(Customer.first_name) == first_name.strip().lower(),
            func.lower(Customer.last_name) == last_name.strip().lower(),
            Address.is_default.is_(True),
            Address.zip == zip,
        )
        .order_by(Customer.id)
    ).all()
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
    c = _customer(session, customer_id)
    addr = _default_address(session, c.id)
    pms = session.scalars(select(PaymentMethod).where(PaymentMethod.customer_id == c.id).order_by(PaymentMethod.id))
    credit = session.scalar(
        select(func.coalesce(func.sum(StoreCreditEntry.amount_cents), 0)).where(StoreCreditEntry.customer_id == c.id)
    )
    n_orders = session.scalar(select(func.count()).select_from(Order).where(Order.customer_id == c.id))
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
    _customer(session, customer_id)
    orders = session.scalars(
        select(Order).where(Order.customer_id == customer_id).order_by(Order.placed_at.desc(), Order.id)
    )
    return [
        {
            "order_id": o.id,
            "placed_at": _iso(o.placed_at),
            "status": o.status,
            "total": money(o.total_cents),
            "items": [it.name for it in _items(session, o.id)],
        }
        for o in orders
    ]


@tool
def get_order(session: Session, order_id: OrderId) -> dict:
    """An order in full: items (with item ids and statuses), totals, shipping address, charges and refunds.

    Args:
        order_id: The order id.
    """
    o = _order(session, order_id)
    items = _items(session, o.id)
    pm = session.get(PaymentMethod, o.payment_method_id)
    ship = _shipment(session, o.id)
    refunds = _refunds(session, o.id)
    return {
        "order_id": o.id,
        "customer_id": o.customer_id,
        "status": o.status,
        "placed_at": _iso(o.placed_at),
        "shipping_address": {"line1": o.ship_line1, "city": o.ship_city, "state": o.ship_state, "zip": o.ship_zip},
        "payment_method": None
        if pm is None
        else {"payment_method_id": pm.id, "brand": pm.brand, "last4": pm.last4, "status": pm.status},
        "items": [
            {
                "item_id": it.id,
                "product_id": it.product_id,
                "name": it.name,
                "quantity": it.quantity,
                "unit_price": money(it.unit_price_cents),
                "line_total": money(it.quantity * it.unit_price_cents),
                "line_total_cents": it.quantity * it.unit_price_cents,
                "status": it.status,
            }
            for it in items
        ],
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
            for c in _charges(session, o.id)
        ],
        "refunds": [_refund_view(r, items) for r in refunds],
        "shipment_status": ship.status if ship else "not_created",
    }


@tool
def get_shipment_tracking(session: Session, order_id: OrderId) -> dict:
    """The carrier's tracking for an order: status, dates, and where the driver left the parcel.

    Args:
        order_id: The order id.
    """
    o = _order(session, order_id)
    sh = _shipment(session, o.id)
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
    o = _order(session, order_id)
    items = _items(session, o.id)
    refunds = _refunds(session, o.id)
    return {
        "order_id": o.id,
        "refunds": [_refund_view(r, items) for r in refunds],
        "refunded_total": money(sum(r.amount_cents for r in refunds if r.status != "failed")),
        "today": TODAY.isoformat(),
    }


@tool
def get_product(session: Session, product_id: ProductId) -> dict:
    """A product: name, seller, price and units in stock.

    Args:
        product_id: The product id.
    """
    p = session.get(Product, product_id)
    if p is None:
        raise ToolError(f"no product {product_id}")
    seller = session.get(Seller, p.seller_id)
    return {
        "product_id": p.id,
        "name": p.name,
        "category": p.category,
        "price": money(p.price_cents),
        "stock": p.stock,
        "seller": seller.name if seller else None,
    }


# --- agent tools: actions -----------------------------------------------------------------------


@tool(mutates=True)
def cancel_order(session: Session, order_id: OrderId) -> dict:
    """Cancel an order that has not been dispatched yet; whatever was charged is refunded to the original payment.

    Args:
        order_id: The order id.
    """
    o = _order(session, order_id)
    sh = _shipment(session, o.id)
    if o.status == "cancelled":
        raise ToolError(f"order {o.id} is already cancelled")
    if o.status not in UNSHIPPED_ORDER or (sh.status if sh else None) not in UNSHIPPED_SHIPMENT:
        raise ToolError(f"order {o.id} has already been dispatched (status {o.status}); it can no longer be cancelled")
    items = _items(session, o.id)
    for it in items:
        if it.status == "ordered":
            it.status = "cancelled"
            p = session.get(Product, it.product_id)
            if p is not None:
                p.stock += it.quantity
    o.status = "cancelled"
    o.cancelled_at = NOW
    if sh is not None:
        sh.status = "cancelled"
    owed = _paid_cents(session, o.id) - _refunded_cents(session, o.id)
    refund = _new_refund(session, o, owed, "original_payment", "cancelled") if owed > 0 else None
    return {
        "order_id": o.id,
        "status": "cancelled",
        "refund": _refund_view(refund) if refund else None,
        "note": None if refund else "Nothing had been charged; the card authorization is released.",
    }


@tool(mutates=True)
def refund_items(
    session: Session,
    order_id: OrderId,
    item_ids: ItemIds,
    destination: RefundDestination,
    reason: RefundReason,
) -> dict:
    """Refund items of a dispatched order (each item at most once; never more than was paid).

    When the refund covers the last unrefunded items, the shipping fee is refunded too.

    Args:
        order_id: The order id.
        item_ids: The order item ids to refund.
        destination: original_payment (posts in about a week) or store_credit (immediate).
        reason: Why the items are refunded.
    """
    o = _order(session, order_id)
    if o.status == "cancelled":
        raise ToolError(f"order {o.id} is cancelled; its refund was issued at cancellation")
    if o.status in UNSHIPPED_ORDER:
        raise ToolError(f"order {o.id} has not been dispatched; cancel it instead of refunding items")
    picked = _pick_items(session, o, item_ids, "refunded")
    amount = sum(it.quantity * it.unit_price_cents for it in picked)
    others_open = [it for it in _items(session, o.id) if it.status == "ordered" and it not in picked]
    if not others_open:
        amount += o.shipping_cents
    paid, refunded = _paid_cents(session, o.id), _refunded_cents(session, o.id)
    if refunded + amount > paid:
        raise ToolError(
            f"refund of {money(amount)} would exceed what was paid for {o.id} "
            f"({money(paid)} paid, {money(refunded)} already refunded)"
        )
    r = _new_refund(session, o, amount, destination, reason)
    for it in picked:
        it.status, it.refund_id = "refunded", r.id
    session.flush()
    return _refund_view(r, _items(session, o.id))


@tool(mutates=True)
def refund_duplicate_charge(session: Session, charge_id: ChargeId) -> dict:
    """Refund a charge that duplicates an earlier capture for the same order.

    Args:
        charge_id: The duplicate charge (the later of two identical captures).
    """
    ch = session.get(Charge, charge_id)
    if ch is None:
        raise ToolError(f"no charge {charge_id}")
    if ch.status != "captured":
        raise ToolError(f"charge {ch.id} is {ch.status}; only a captured charge can be refunded as a duplicate")
    o = _order(session, ch.order_id)
    others = [c for c in _charges(session, o.id) if c.id != ch.id and c.status == "captured"]
    earlier_same = [c for c in others if c.amount_cents == ch.amount_cents and (c.created_at, c.id) < (ch.created_at, ch.id)]
    if not earlier_same or sum(c.amount_cents for c in others) < o.total_cents:
        raise ToolError(f"charge {ch.id} is not a duplicate: no earlier identical capture covers order {o.id}")
    ch.status = "refunded"
    r = _new_refund(session, o, ch.amount_cents, "original_payment", "duplicate_charge", charge_id=ch.id)
    return _refund_view(r)


@tool(mutates=True)
def open_carrier_claim(session: Session, order_id: OrderId, reason: ClaimReason) -> dict:
    """Open a claim with the carrier for a parcel that was lost or marked delivered but never received.

    Args:
        order_id: The order id.
        reason: lost_in_transit (carrier status lost) or delivered_not_received (marked delivered).
    """
    o = _order(session, order_id)
    sh = _shipment(session, o.id)
    if sh is None or sh.status in ("label_created", "cancelled"):
        raise ToolError(f"order {o.id} was never handed to a carrier")
    if reason == "lost_in_transit" and sh.status != "lost":
        raise ToolError(f"the carrier has not declared shipment {sh.id} lost (status {sh.status})")
    if reason == "delivered_not_received" and sh.status != "delivered":
        raise ToolError(f"shipment {sh.id} is not marked delivered (status {sh.status})")
    if session.scalars(select(CarrierClaim).where(CarrierClaim.shipment_id == sh.id)).first() is not None:
        raise ToolError(f"a claim for shipment {sh.id} is already open")
    claim = CarrierClaim(
        id=_next_id(session, CarrierClaim),
        order_id=o.id,
        shipment_id=sh.id,
        carrier=sh.carrier,
        reason=reason,
        status="open",
        created_at=NOW,
    )
    session.add(claim)
    return {"claim_id": claim.id, "order_id": o.id, "carrier": sh.carrier, "status": "open"}


@tool(mutates=True)
def send_replacement(session: Session, order_id: OrderId, item_ids: ItemIds, reason: ReplacementReason) -> dict:
    """Ship replacements for items of a dispatched order, from stock (fails if out of stock).

    Args:
        order_id: The order id.
        item_ids: The order item ids to replace.
        reason: Why the items are replaced.
    """
    o = _order(session, order_id)
    if o.status in UNSHIPPED_ORDER or o.status == "cancelled":
        raise ToolError(f"order {o.id} is {o.status}; only dispatched orders can get replacements")
    picked = _pick_items(session, o, item_ids, "replaced")
    for it in picked:
        p = session.get(Product, it.product_id)
        if p is None or p.stock < it.quantity:
            raise ToolError(f"{it.name} is out of stock ({p.stock if p else 0} left); offer a refund instead")
    out = []
    for it in picked:
        p = session.get(Product, it.product_id)
        p.stock -= it.quantity
        it.status = "replaced"
        rep = Replacement(
            id=_next_id(session, Replacement),
            order_id=o.id,
            order_item_id=it.id,
            product_id=it.product_id,
            quantity=it.quantity,
            reason=reason,
            status="pending_shipment",
            created_at=NOW,
        )
        session.add(rep)
        session.flush()
        out.append({"replacement_id": rep.id, "item_id": it.id, "name": it.name, "quantity": it.quantity})
    return {"order_id": o.id, "replacements": out, "status": "pending_shipment"}


@tool(mutates=True)
def change_shipping_address(
    session: Session,
    order_id: OrderId,
    line1: Annotated[str, Field(description="Street and number.", pattern=r"^[A-Za-z0-9][A-Za-z0-9 .,'#/-]{2,79}$")],
    city: Annotated[str, Field(description="City.", pattern=r"^[A-Za-z][A-Za-z .'-]{1,59}$")],
    state: Annotated[str, Field(description="Two-letter state code.", pattern=r"^[A-Z]{2}$")],
    zip: Zip,
) -> dict:
    """Change where an order ships, only before it is dispatched.

    Args:
        order_id: The order id.
        line1: Street and number.
        city: City.
        state: Two-letter state code.
        zip: 5-digit zip code.
    """
    o = _order(session, order_id)
    sh = _shipment(session, o.id)
    if o.status not in UNSHIPPED_ORDER or (sh.status if sh else None) not in UNSHIPPED_SHIPMENT:
        raise ToolError(f"order {o.id} has already been dispatched (status {o.status}); the address cannot change")
    o.ship_line1, o.ship_city, o.ship_state, o.ship_zip = line1.strip(), city.strip(), state, zip
    return {
        "order_id": o.id,
        "shipping_address": {"line1": o.ship_line1, "city": o.ship_city, "state": o.ship_state, "zip": o.ship_zip},
    }


@tool(mutates=True)
def create_ticket(
    session: Session,
    customer_id: CustomerId,
    category: TicketCategory,
    subject: Text200,
    body: Text2000,
    order_id: OrderId | None = None,
) -> dict:
    """Open a ticket for a back-office team (e.g. payments traces a refund that never posted).

    Args:
        customer_id: The customer's id.
        category: Which team: refund_trace, delivery_issue, product_question, account, other.
        subject: One line.
        body: What happened and what was checked.
        order_id: The order concerned, if any.
    """
    _customer(session, customer_id)
    if order_id is not None and _order(session, order_id).customer_id != customer_id:
        raise ToolError(f"order {order_id} does not belong to {customer_id}")
    t = Ticket(
        id=_next_id(session, Ticket),
        customer_id=customer_id,
        order_id=order_id,
        category=category,
        subject=subject,
        body=body,
        status="open",
        created_at=NOW,
    )
    session.add(t)
    return {"ticket_id": t.id, "status": "open", "category": category}


@tool(mutates=True, terminal=True)
def escalate_to_human(
    session: Session,
    customer_id: CustomerId,
    reason: EscalationReason,
    summary: Text2000,
    order_id: OrderId | None = None,
) -> str:
    """Hand the conversation to a human agent (ends this conversation).

    Args:
        customer_id: The customer's id.
        reason: customer_request, legal_threat, outside_policy_exception or other.
        summary: What the customer wants and what was already done.
        order_id: The order concerned, if any.
    """
    _customer(session, customer_id)
    if order_id is not None:
        _order(session, order_id)
    e = Escalation(
        id=_next_id(session, Escalation),
        customer_id=customer_id,
        order_id=order_id,
        reason=reason,
        summary=summary,
        status="open",
        created_at=NOW,
    )
    session.add(e)
    return f"Escalation #{e.id} opened; a human agent takes over the conversation."


AGENT_TOOLS = [
    find_customer_by_email,
    find_customer_by_name_zip,
    get_customer,
    list_orders,
    get_order,
    get_shipment_tracking,
    get_refund_status,
    get_product,
    cancel_order,
    refund_items,
    refund_duplicate_charge,
    open_carrier_claim,
    send_replacement,
    change_shipping_address,
    create_ticket,
    escalate_to_human,
]


# --- user tools: the customer's own world ------------------------------------------------------


def _delivery(s: Session, order_id: str) -> HomeDelivery | None:
    return s.scalars(select(HomeDelivery).where(HomeDelivery.order_id == order_id).order_by(HomeDelivery.id)).first()


def _contents(hd: HomeDelivery) -> str:
    notes = []
    if hd.missing_items:
        notes.append(f"Inside, {hd.missing_items} is missing from the box.")
    if hd.damaged_items:
        notes.append(f"The {hd.damaged_items} arrived broken.")
    return " ".join(notes) or "Everything inside looks fine."


@tool(side="user")
def check_doorstep(session: Session, order_id: OrderId) -> str:
    """Look at the front door and in the mailbox for an order's parcel (picks it up if it is there).

    Args:
        order_id: The order the customer is looking for.
    """
    hd = _delivery(session, order_id)
    if hd is None:
        return f"Nothing has arrived for order {order_id}: no parcel at the front door or in the mailbox."
    if hd.in_hand:
        return f"I already have the parcel for order {order_id}. {_contents(hd)}"
    if hd.location in ("front_door", "mailbox"):
        hd.in_hand, hd.collected_at = True, NOW
        where = "front door" if hd.location == "front_door" else "mailbox"
        return f"There is a parcel for order {order_id} at the {where} after all, I have it now. {_contents(hd)}"
    return f"No parcel for order {order_id} at the front door or in the mailbox."


@tool(side="user")
def ask_neighbour(session: Session, order_id: OrderId) -> str:
    """Ask the neighbours whether they took in the parcel for an order.

    Args:
        order_id: The order the customer is looking for.
    """
    hd = _delivery(session, order_id)
    if hd is not None and hd.location == "neighbour" and not hd.in_hand:
        hd.in_hand, hd.collected_at = True, NOW
        who = hd.neighbour or "a neighbour"
        return f"My neighbour ({who}) had the parcel for order {order_id} and handed it over. {_contents(hd)}"
    if hd is not None and hd.in_hand:
        return f"No need, I already have the parcel for order {order_id}."
    return f"None of the neighbours has seen a parcel for order {order_id}."


@tool(side="user")
def view_order_in_app(session: Session, order_id: OrderId) -> str:
    """What the marketplace app shows the customer for an order.

    Args:
        order_id: The order.
    """
    o = session.get(Order, order_id)
    if o is None:
        return f"The app shows no order {order_id}."
    sh = _shipment(session, o.id)
    items = ", ".join(f"{it.quantity}x {it.name} ({it.status})" for it in _items(session, o.id))
    line = f"The app shows order {o.id}: {o.status}, total {money(o.total_cents)}; items: {items}."
    if sh is not None:
        line += f" Tracking ({sh.carrier}): {sh.status.replace('_', ' ')}"
        if sh.delivered_at:
            line += f" on {sh.delivered_at.date().isoformat()}"
        line += "."
    for r in _refunds(session, o.id):
        line += f" Refund of {money(r.amount_cents)}: {r.status}."
    return line


@tool(side="user")
def check_bank_statement(
    session: Session,
    customer_id: CustomerId,
    days: Annotated[int, Field(ge=1, le=120, description="How many days back to look.")] = 30,
) -> str:
    """The customer's bank statement lines for the marketplace over the last days (charges and refunds that posted).

    Args:
        customer_id: Whose statement.
        days: How many days back to look.
    """
    since = TODAY - dt.timedelta(days=days)
    rows = session.scalars(
        select(BankStatementLine)
        .where(BankStatementLine.customer_id == customer_id, BankStatementLine.posted_on >= since)
        .order_by(BankStatementLine.posted_on.desc(), BankStatementLine.id.desc())
    ).all()
    if not rows:
        return f"My bank statement shows no marketplace lines in the last {days} days."
    lines = "; ".join(f"{r.posted_on.isoformat()} {r.description} {money(r.amount_cents)}" for r in rows)
    return f"My bank statement for the last {days} days shows: {lines}."


@tool(side="user")
def check_email_inbox(session: Session, customer_id: CustomerId) -> str:
    """The order-confirmation emails in the customer's inbox (they show order numbers), newest first.

    Args:
        customer_id: Whose inbox.
    """
    orders = session.scalars(
        select(Order).where(Order.customer_id == customer_id).order_by(Order.placed_at.desc(), Order.id).limit(5)
    ).all()
    if not orders:
        return "There are no order confirmation emails in my inbox."
    parts = []
    for o in orders:
        names = ", ".join(it.name for it in _items(session, o.id))
        parts.append(f"order {o.id} from {o.placed_at.date().isoformat()} ({names})")
    return "My confirmation emails show: " + "; ".join(parts) + "."


USER_TOOLS = [check_doorstep, ask_neighbour, view_order_in_app, check_bank_statement, check_email_inbox]
