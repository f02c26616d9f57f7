"""User tools of the support domain: the customer's own world.

The doorstep, the neighbours, the app, the bank statement and the email inbox.
The agent cannot call them and the customer cannot call the agent's tools.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field
from sqlalchemy.orm import Session

from domains.support.models import NOW, TODAY
from envs.domain.tools import tool
from envs.state.rawrows import Row, RowSet

from .common import (
    Email,
    OrderId,
    _items,
    _refunds,
    _shipment,
    money,
    rows_of,
)


def _delivery(r: RowSet, order_id: str) -> Row | None:
    return r.first("home_deliveries", "id", order_id=order_id)


def _contents(hd: Row) -> str:
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
    with rows_of(session) as r:
        return _check_doorstep(_delivery(r, order_id), order_id)


def _check_doorstep(hd: Row | None, order_id: str) -> str:
    # said as a person says it: what they found, not the order number again
    if hd is None:
        return "Nothing has arrived: no parcel at the front door or in the mailbox."
    if hd.in_hand:
        return f"I already have the parcel. {_contents(hd)}"
    if hd.location in ("front_door", "mailbox"):
        hd.in_hand, hd.collected_at = True, NOW
        where = "front door" if hd.location == "front_door" else "mailbox"
        return f"There's a parcel at the {where} after all, I have it now. {_contents(hd)}"
    return "No parcel at the front door or in the mailbox."


@tool(side="user")
def ask_neighbour(session: Session, order_id: OrderId) -> str:
    """Ask the neighbours whether they took in the parcel for an order.

    Args:
        order_id: The order the customer is looking for.
    """
    with rows_of(session) as r:
        return _ask_neighbour(_delivery(r, order_id), order_id)


def _ask_neighbour(hd: Row | None, order_id: str) -> str:
    if hd is not None and hd.location == "neighbour" and not hd.in_hand:
        hd.in_hand, hd.collected_at = True, NOW
        who = hd.neighbour or "a neighbour"
        return f"My neighbour ({who}) had the parcel and handed it over. {_contents(hd)}"
    if hd is not None and hd.in_hand:
        return "No need, I already have the parcel."
    return "None of the neighbours has seen it."


@tool(side="user")
def view_order_in_app(session: Session, order_id: OrderId) -> str:
    """What the marketplace app shows the customer for an order.

    Args:
        order_id: The order.
    """
    with rows_of(session) as r:
        return _view_order_in_app(r, order_id)


def _view_order_in_app(r: RowSet, order_id: str) -> str:
    o = r.get("orders", order_id)
    if o is None:
        return f"The app shows no order {order_id}."
    sh = _shipment(r, o.id)
    items = ", ".join(f"{it.quantity}x {it.name} ({it.status})" for it in _items(r, o.id))
    line = f"The app shows order {o.id}: {o.status}, total {money(o.total_cents)}; items: {items}."
    if sh is not None:
        line += f" Tracking ({sh.carrier}): {sh.status.replace('_', ' ')}"
        if sh.delivered_at:
            line += f" on {sh.delivered_at.date().isoformat()}"
        line += "."
    for x in _refunds(r, o.id):
        line += f" Refund of {money(x.amount_cents)}: {x.status}."
    return line


def _own_account(r: RowSet, email: str) -> str | None:
    """The customer's own account, found by the email they know (a customer knows no internal id)."""
    c = r.first("customers", "id", email=email.strip().lower())
    return c.id if c is not None else None


@tool(side="user")
def check_bank_statement(
    session: Session,
    email: Email,
    days: Annotated[int, Field(ge=1, le=120, description="How many days back to look.")] = 30,
) -> str:
    """The customer's own bank statement lines for the marketplace over the last days (charges and refunds that posted).

    Args:
        email: Your own email address (the one on your marketplace account).
        days: How many days back to look.
    """
    since = TODAY - dt.timedelta(days=days)
    with rows_of(session) as r:
        customer_id = _own_account(r, email)
        if customer_id is None:
            return "I can't find a marketplace account for that email, so I can't tell which card to look at."
        rows = r.select_where("bank_statement_lines", "customer_id = ? AND posted_on >= ?", "posted_on DESC, id DESC",
                              customer_id, r.encode("bank_statement_lines", "posted_on", since))
    if not rows:
        return f"My bank statement shows no marketplace lines in the last {days} days."
    lines = "; ".join(f"{r.posted_on.isoformat()} {r.description} {money(r.amount_cents)}" for r in rows)
    return f"My bank statement for the last {days} days shows: {lines}."


@tool(side="user")
def check_email_inbox(session: Session, email: Email) -> str:
    """The order-confirmation emails in your own inbox (they show order numbers), newest first.

    Args:
        email: Your own email address (the inbox to look in).
    """
    with rows_of(session) as r:
        customer_id = _own_account(r, email)
        if customer_id is None:
            return "There are no order confirmation emails from the marketplace in that inbox."
        orders = r.select("orders", "placed_at DESC, id", customer_id=customer_id)[:5]
        if not orders:
            return "There are no order confirmation emails in my inbox."
        parts = []
        for o in orders:
            names = ", ".join(it.name for it in _items(r, o.id))
            parts.append(f"order {o.id} from {o.placed_at.date().isoformat()} ({names})")
    return "My confirmation emails show: " + "; ".join(parts) + "."
