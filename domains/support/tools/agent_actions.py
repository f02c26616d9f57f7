"""Agent tools of the support domain that change the database.

Cancel, refund, replace, claim, re-address, ticket and escalate. They enforce in
code what the back office would enforce (nothing refunded twice, never more
than was paid, no cancellation after dispatch, stock never negative); what is a
matter of judgement (identity checks, the 30-day window, asking before acting)
is left to the agent and written in ``policy.md``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from sqlalchemy.orm import Session

from domains.support.models import NOW
from envs.domain.tools import ToolError, tool

from .common import (
    UNSHIPPED_ORDER,
    UNSHIPPED_SHIPMENT,
    ChargeId,
    ClaimReason,
    CustomerId,
    EscalationReason,
    ItemIds,
    OrderId,
    RefundDestination,
    RefundReason,
    ReplacementReason,
    Text200,
    Text2000,
    Units,
    TicketCategory,
    Zip,
    _charges,
    _customer,
    _items,
    _new_refund,
    _next_id,
    _order,
    _paid_cents,
    _pick_items,
    _refund_lines,
    _refund_view,
    _refunded_cents,
    _unit_counts,
    _shipment,
    money,
    rows_of,
)


@tool(mutates=True)
def cancel_order(session: Session, order_id: OrderId) -> dict:
    """Cancel an order that has not been dispatched yet; whatever was charged is refunded to the original payment.

    Args:
        order_id: The order id.
    """
    with rows_of(session) as r:
        return _cancel_order(r, order_id)


def _cancel_order(r, order_id: str) -> dict:
    o = _order(r, order_id)
    sh = _shipment(r, o.id)
    if o.status == "cancelled":
        raise ToolError(f"order {o.id} is already cancelled")
    if o.status not in UNSHIPPED_ORDER or (sh.status if sh else None) not in UNSHIPPED_SHIPMENT:
        raise ToolError(f"order {o.id} has already been dispatched (status {o.status}); it can no longer be cancelled")
    items = _items(r, o.id)
    for it in items:
        if it.status == "ordered":
            it.status = "cancelled"
            p = r.get("products", it.product_id)
            if p is not None:
                p.stock += it.quantity
    o.status = "cancelled"
    o.cancelled_at = NOW
    if sh is not None:
        sh.status = "cancelled"
    owed = _paid_cents(r, o.id) - _refunded_cents(r, o.id)
    refund = _new_refund(r, o, owed, "original_payment", "cancelled") if owed > 0 else None
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
    quantity: Units | None = None,
) -> dict:
    """Refund items of a dispatched order, or some units of one line (each unit at most once; never more than was paid).

    The amount is unit price times units. When the refund covers every unit of the order not yet refunded
    or replaced, the shipping fee is refunded too.

    Args:
        order_id: The order id.
        item_ids: The order item ids to refund.
        destination: original_payment (posts in about a week) or store_credit (immediate).
        reason: Why the items are refunded: damaged, missing_item (missing from the parcel), not_delivered
            (marked delivered, not received), lost_package (lost in transit), wrong_item or other.
        quantity: Units of the one line in item_ids to refund (part of a line); omitted: all its open units.
    """
    with rows_of(session) as r:
        return _refund_items(r, order_id, item_ids, destination, reason, quantity)


def _refund_items(r, order_id: str, item_ids: list[int], destination: str, reason: str,
                  quantity: int | None = None) -> dict:
    o = _order(r, order_id)
    if o.status == "cancelled":
        raise ToolError(f"order {o.id} is cancelled; its refund was issued at cancellation")
    if o.status in UNSHIPPED_ORDER:
        raise ToolError(f"order {o.id} has not been dispatched; cancel it instead of refunding items")
    picked = _pick_items(r, o, item_ids, "refunded", quantity)
    amount = sum(n * it.unit_price_cents for it, n in picked)
    taking = {it.id: n for it, n in picked}
    items = _items(r, o.id)
    left_open = sum(open_units - taking.get(iid, 0) for iid, (_, _, open_units) in _unit_counts(r, items).items())
    if left_open == 0:
        amount += o.shipping_cents
    paid, refunded = _paid_cents(r, o.id), _refunded_cents(r, o.id)
    if refunded + amount > paid:
        raise ToolError(
            f"refund of {money(amount)} would exceed what was paid for {o.id} "
            f"({money(paid)} paid, {money(refunded)} already refunded)"
        )
    refund = _new_refund(r, o, amount, destination, reason)
    counts = _unit_counts(r, items)
    for it, n in picked:
        r.insert("refund_lines", id=_next_id(r, "refund_lines"), refund_id=refund.id, order_item_id=it.id, units=n)
        r.save()
        it.refund_id = refund.id
        if n == counts[it.id][2]:  # its last open units
            it.status = "refunded"
    r.save()
    items = _items(r, o.id)
    return _refund_view(refund, items, _refund_lines(r, [refund]))


@tool(mutates=True)
def refund_duplicate_charge(session: Session, charge_id: ChargeId) -> dict:
    """Refund a charge that duplicates an earlier capture for the same order.

    Args:
        charge_id: The duplicate charge (the later of two identical captures).
    """
    with rows_of(session) as r:
        return _refund_duplicate_charge(r, charge_id)


def _refund_duplicate_charge(r, charge_id: str) -> dict:
    ch = r.get("charges", charge_id)
    if ch is None:
        raise ToolError(f"no charge {charge_id}")
    if ch.status != "captured":
        raise ToolError(f"charge {ch.id} is {ch.status}; only a captured charge can be refunded as a duplicate")
    o = _order(r, ch.order_id)
    others = [c for c in _charges(r, o.id) if c.id != ch.id and c.status == "captured"]
    earlier_same = [c for c in others if c.amount_cents == ch.amount_cents and (c.created_at, c.id) < (ch.created_at, ch.id)]
    if not earlier_same or sum(c.amount_cents for c in others) < o.total_cents:
        raise ToolError(f"charge {ch.id} is not a duplicate: no earlier identical capture covers order {o.id}")
    ch.status = "refunded"
    refund = _new_refund(r, o, ch.amount_cents, "original_payment", "duplicate_charge", charge_id=ch.id)
    return _refund_view(refund)


@tool(mutates=True)
def open_carrier_claim(session: Session, order_id: OrderId, reason: ClaimReason) -> dict:
    """Open a claim with the carrier for a parcel that was lost or marked delivered but never received.

    Args:
        order_id: The order id.
        reason: lost_in_transit (carrier status lost) or delivered_not_received (marked delivered).
    """
    with rows_of(session) as r:
        return _open_carrier_claim(r, order_id, reason)


def _open_carrier_claim(r, order_id: str, reason: str) -> dict:
    o = _order(r, order_id)
    sh = _shipment(r, o.id)
    if sh is None or sh.status in ("label_created", "cancelled"):
        raise ToolError(f"order {o.id} was never handed to a carrier")
    if reason == "lost_in_transit" and sh.status != "lost":
        raise ToolError(f"the carrier has not declared shipment {sh.id} lost (status {sh.status})")
    if reason == "delivered_not_received" and sh.status != "delivered":
        raise ToolError(f"shipment {sh.id} is not marked delivered (status {sh.status})")
    if r.first("carrier_claims", None, shipment_id=sh.id) is not None:
        raise ToolError(f"a claim for shipment {sh.id} is already open")
    claim = r.insert(
        "carrier_claims",
        id=_next_id(r, "carrier_claims"),
        order_id=o.id,
        shipment_id=sh.id,
        carrier=sh.carrier,
        reason=reason,
        status="open",
        created_at=NOW,
    )
    return {"claim_id": claim.id, "order_id": o.id, "carrier": sh.carrier, "status": "open"}


@tool(mutates=True)
def send_replacement(session: Session, order_id: OrderId, item_ids: ItemIds, reason: ReplacementReason,
                     quantity: Units | None = None) -> dict:
    """Ship replacements for items of a dispatched order, or for some units of one line, from stock (fails if out of stock).

    Args:
        order_id: The order id.
        item_ids: The order item ids to replace.
        reason: Why the items are replaced: damaged, missing_item (missing from the parcel), not_delivered
            (marked delivered, not received), lost_package (lost in transit) or wrong_item.
        quantity: Units of the one line in item_ids to replace (part of a line); omitted: all its open units.
    """
    with rows_of(session) as r:
        return _send_replacement(r, order_id, item_ids, reason, quantity)


def _send_replacement(r, order_id: str, item_ids: list[int], reason: str, quantity: int | None = None) -> dict:
    o = _order(r, order_id)
    if o.status in UNSHIPPED_ORDER or o.status == "cancelled":
        raise ToolError(f"order {o.id} is {o.status}; only dispatched orders can get replacements")
    picked = _pick_items(r, o, item_ids, "replaced", quantity)
    for it, n in picked:
        p = r.get("products", it.product_id)
        if p is None or p.stock < n:
            raise ToolError(f"{it.name} is out of stock ({p.stock if p else 0} left); offer a refund instead")
    counts = _unit_counts(r, _items(r, o.id))
    out = []
    for it, n in picked:
        p = r.get("products", it.product_id)
        p.stock -= n
        if n == counts[it.id][2]:  # its last open units
            it.status = "replaced"
        rep = r.insert(
            "replacements",
            id=_next_id(r, "replacements"),
            order_id=o.id,
            order_item_id=it.id,
            product_id=it.product_id,
            quantity=n,
            reason=reason,
            status="pending_shipment",
            created_at=NOW,
        )
        r.save()
        out.append({"replacement_id": rep.id, "item_id": it.id, "name": it.name, "quantity": n})
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
    with rows_of(session) as r:
        o = _order(r, order_id)
        sh = _shipment(r, o.id)
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
    with rows_of(session) as r:
        _customer(r, customer_id)
        if order_id is not None and _order(r, order_id).customer_id != customer_id:
            raise ToolError(f"order {order_id} does not belong to {customer_id}")
        t = r.insert(
            "tickets",
            id=_next_id(r, "tickets"),
            customer_id=customer_id,
            order_id=order_id,
            category=category,
            subject=subject,
            body=body,
            status="open",
            created_at=NOW,
        )
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
    with rows_of(session) as r:
        _customer(r, customer_id)
        if order_id is not None:
            _order(r, order_id)
        e = r.insert(
            "escalations",
            id=_next_id(r, "escalations"),
            customer_id=customer_id,
            order_id=order_id,
            reason=reason,
            summary=summary,
            status="open",
            created_at=NOW,
        )
        return f"Escalation #{e.id} opened; a human agent takes over the conversation."
