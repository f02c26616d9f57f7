"""What the support tools share: argument types, money and time formatting, lookups and refunds.

Lookups raise ``ToolError`` when the row is missing, so a tool's error text
reads the same whichever tool hit it. ``_new_refund`` is the one place a refund
(and, for store credit, its credit entry) is written. Names starting with an
underscore are for the tool modules of this package only.

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
    Charge,
    Customer,
    Order,
    OrderItem,
    Refund,
    Shipment,
    StoreCreditEntry,
)
from envs.domain.tools import ToolError

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
