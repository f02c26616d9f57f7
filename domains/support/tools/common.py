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

from domains.support.models import NOW, REFUND_POSTING_DAYS, TODAY
from envs.domain.tools import ToolError
from envs.state.rawrows import Row, RowSet, rows_of  # noqa: F401  (rows_of: for the tool modules)

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
Units = Annotated[
    int,
    Field(description="How many units of the line (part of a line of several units); omitted: every unit of it "
                      "not yet refunded or replaced. Only with one item id.", ge=1, le=99),
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
# They read rows on the episode's raw connection (``envs.state.rawrows``): the tools' logic as over
# ORM objects, at a fraction of the cost, every written row recorded for the grader.


def _order(r: RowSet, order_id: str) -> Row:
    o = r.get("orders", order_id)
    if o is None:
        raise ToolError(f"no order {order_id}")
    return o


def _customer(r: RowSet, customer_id: str) -> Row:
    c = r.get("customers", customer_id)
    if c is None:
        raise ToolError(f"no customer {customer_id}")
    return c


def _shipment(r: RowSet, order_id: str) -> Row | None:
    return r.first("shipments", "id", order_id=order_id)


def _items(r: RowSet, order_id: str) -> list[Row]:
    return r.select("order_items", "id", order_id=order_id)


def _charges(r: RowSet, order_id: str) -> list[Row]:
    return r.select("charges", "created_at, id", order_id=order_id)


def _refunds(r: RowSet, order_id: str) -> list[Row]:
    return r.select("refunds", "id", order_id=order_id)


def _default_address(r: RowSet, customer_id: str) -> Row | None:
    return r.first("addresses", "id", customer_id=customer_id, is_default=True)


def _next_id(r: RowSet, table: str) -> int:
    # the episode's sequence: ids differ between episodes of a task (envs.state.database.NewIds)
    return r.next_id(table)


def _paid_cents(r: RowSet, order_id: str) -> int:
    """What the customer paid for the order: captured charges (duplicates given back are 'refunded')."""
    return sum(c.amount_cents for c in _charges(r, order_id) if c.status == "captured")


def _refunded_cents(r: RowSet, order_id: str) -> int:
    """Money already given back for the order itself (not counting duplicate charges given back)."""
    return sum(x.amount_cents for x in _refunds(r, order_id) if x.charge_id is None and x.status != "failed")


def _unit_counts(r: RowSet, items: list[Row]) -> dict[int, tuple[int, int, int]]:
    """Per item id: its units refunded, replaced and still open (neither). A line no longer ``ordered``
    has no open unit; its refunded units are those of its refund lines, or, for a refund recorded
    without lines (seeded ones), every unit not replaced."""
    out = {}
    for it in items:
        refunded = sum(x.units for x in r.select("refund_lines", "id", order_item_id=it.id))
        replaced = sum(x.quantity for x in r.select("replacements", "id", order_item_id=it.id))
        if it.status == "refunded" and not refunded:
            refunded = it.quantity - replaced
        elif it.status == "replaced" and not replaced:
            replaced = it.quantity - refunded
        open_units = it.quantity - refunded - replaced if it.status == "ordered" else 0
        out[it.id] = (refunded, replaced, max(open_units, 0))
    return out


def _pick_items(r: RowSet, order: Row, item_ids: list[int], verb: str,
                units: int | None = None) -> list[tuple[Row, int]]:
    """The items named, each with the units to remedy: ``units`` of a single line, else every open unit."""
    if len(set(item_ids)) != len(item_ids):
        raise ToolError("item_ids lists an item more than once")
    if units is not None and len(item_ids) != 1:
        raise ToolError("quantity is for part of one line: give a single item id with it")
    items = _items(r, order.id)
    by_id = {it.id: it for it in items}
    counts = _unit_counts(r, items)
    picked = []
    for iid in item_ids:
        it = by_id.get(iid)
        if it is None:
            raise ToolError(f"item {iid} is not part of order {order.id}")
        refunded, replaced, open_units = counts[iid]
        if open_units == 0:
            done = it.status if it.status != "ordered" else ("refunded" if refunded else "replaced")
            raise ToolError(f"item {iid} ({it.name}) is already {done}; it cannot be {verb}")
        if units is not None and units > open_units:
            raise ToolError(
                f"item {iid} ({it.name}) has {open_units} of its {it.quantity} units not yet refunded or replaced; "
                f"{units} cannot be {verb}"
            )
        picked.append((it, units if units is not None else open_units))
    return picked


def _item_view(it: Row, counts: dict[int, tuple[int, int, int]]) -> dict:
    refunded, replaced, _ = counts[it.id]
    return {
        "item_id": it.id,
        "product_id": it.product_id,
        "name": it.name,
        "quantity": it.quantity,
        "unit_price": money(it.unit_price_cents),
        "line_total": money(it.quantity * it.unit_price_cents),
        "line_total_cents": it.quantity * it.unit_price_cents,
        "status": it.status,
        "units_refunded": refunded,
        "units_replaced": replaced,
    }


def _new_refund(r: RowSet, order: Row, amount: int, destination: str, reason: str, charge_id: str | None = None) -> Row:
    to_credit = destination == "store_credit"
    refund = r.insert(
        "refunds",
        id=_next_id(r, "refunds"),
        order_id=order.id,
        charge_id=charge_id,
        amount_cents=amount,
        destination=destination,
        reason=reason,
        status="completed" if to_credit else "pending",
        created_at=NOW,
        expected_post_by=None if to_credit else TODAY + dt.timedelta(days=REFUND_POSTING_DAYS),
    )
    r.save()
    if to_credit:
        r.insert(
            "store_credit",
            id=_next_id(r, "store_credit"),
            customer_id=order.customer_id,
            amount_cents=amount,
            reason="refund",
            refund_id=refund.id,
            created_at=NOW,
        )
    return refund


def _refund_view(r: Row, items: list[Row] | None = None, lines: list[Row] | None = None) -> dict:
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
        # the refund's own lines (with their units); a refund recorded without lines, by its items' refund_id
        mine = [ln for ln in lines or () if ln.refund_id == r.id]
        if mine:
            out["item_ids"] = [ln.order_item_id for ln in mine]
            out["units"] = {str(ln.order_item_id): ln.units for ln in mine}
        else:
            out["item_ids"] = [it.id for it in items if it.refund_id == r.id]
    return out


def _refund_lines(r: RowSet, refunds: list[Row]) -> list[Row]:
    return [ln for x in refunds for ln in r.select("refund_lines", "id", refund_id=x.id)]
