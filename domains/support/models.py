"""The support domain's database: a marketplace's systems plus the customer's own world.

Two sides live in one database:

* the marketplace's systems, which the agent reads and changes through its
  tools: customers, addresses, payment methods, sellers, products, orders,
  order items, shipments, charges, refunds, the store-credit ledger, tickets,
  escalations, carrier claims and replacements;
* the customer's side of the world, which only user tools touch: what
  actually reached the doorstep (``home_deliveries``, including parcels left
  with a neighbour) and what the bank shows (``bank_statement_lines``).

Money is integer cents. Dates are relative to a fixed ``TODAY`` so that the
seed, the tools and the goal states are deterministic.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# The domain's clock. Tools stamp rows with NOW, never with the wall clock.
TODAY = dt.date(2026, 6, 15)
NOW = dt.datetime(2026, 6, 15, 12, 0, 0)

REFUND_WINDOW_DAYS = 30
# A refund to the original payment method is expected to post within this many days.
REFUND_POSTING_DAYS = 7


class Base(DeclarativeBase):
    pass


# --- the marketplace's systems --------------------------------------------------


class Customer(Base):
    __tablename__ = "customers"

    id: Mapped[str] = mapped_column(String(12), primary_key=True)  # "C-00042"
    first_name: Mapped[str] = mapped_column(String(40))
    last_name: Mapped[str] = mapped_column(String(40))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    phone: Mapped[str] = mapped_column(String(20))
    member_since: Mapped[dt.date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16), default="active")  # active | suspended


class Address(Base):
    __tablename__ = "addresses"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    line1: Mapped[str] = mapped_column(String(120))
    city: Mapped[str] = mapped_column(String(60))
    state: Mapped[str] = mapped_column(String(2))
    zip: Mapped[str] = mapped_column(String(5))
    is_default: Mapped[bool] = mapped_column(Boolean, default=False)


class PaymentMethod(Base):
    __tablename__ = "payment_methods"

    id: Mapped[str] = mapped_column(String(12), primary_key=True)  # "PM-00042"
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # card | paypal
    brand: Mapped[str] = mapped_column(String(20))  # Visa, Mastercard, Amex, PayPal
    last4: Mapped[str] = mapped_column(String(4))
    status: Mapped[str] = mapped_column(String(12), default="active")  # active | closed


class Seller(Base):
    __tablename__ = "sellers"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)  # "S-007"
    name: Mapped[str] = mapped_column(String(80))
    country: Mapped[str] = mapped_column(String(2))
    rating_x10: Mapped[int] = mapped_column(Integer)  # 47 = 4.7 stars


class Product(Base):
    __tablename__ = "products"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)  # "P-0042"
    seller_id: Mapped[str] = mapped_column(ForeignKey("sellers.id"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    category: Mapped[str] = mapped_column(String(40))
    price_cents: Mapped[int] = mapped_column(Integer)
    stock: Mapped[int] = mapped_column(Integer)


class Order(Base):
    __tablename__ = "orders"

    id: Mapped[str] = mapped_column(String(10), primary_key=True)  # "O-00042"
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    placed_at: Mapped[dt.datetime] = mapped_column(DateTime)
    # placed | processing | shipped | delivered | cancelled
    status: Mapped[str] = mapped_column(String(16))
    payment_method_id: Mapped[str] = mapped_column(ForeignKey("payment_methods.id"))
    ship_line1: Mapped[str] = mapped_column(String(120))
    ship_city: Mapped[str] = mapped_column(String(60))
    ship_state: Mapped[str] = mapped_column(String(2))
    ship_zip: Mapped[str] = mapped_column(String(5))
    subtotal_cents: Mapped[int] = mapped_column(Integer)
    shipping_cents: Mapped[int] = mapped_column(Integer)
    total_cents: Mapped[int] = mapped_column(Integer)
    cancelled_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class OrderItem(Base):
    __tablename__ = "order_items"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"))
    name: Mapped[str] = mapped_column(String(120))  # snapshot of the product name
    quantity: Mapped[int] = mapped_column(Integer)
    unit_price_cents: Mapped[int] = mapped_column(Integer)
    # ordered (some units not yet refunded or replaced) | cancelled | refunded | replaced (every unit:
    # the remedy of the last units); the units of a line remedied in part are in refund_lines and
    # replacements
    status: Mapped[str] = mapped_column(String(12), default="ordered")
    refund_id: Mapped[int | None] = mapped_column(ForeignKey("refunds.id"), nullable=True)  # the latest refund of it


class Shipment(Base):
    __tablename__ = "shipments"

    id: Mapped[str] = mapped_column(String(10), primary_key=True)  # "SH-00042"
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    carrier: Mapped[str] = mapped_column(String(12))  # UPS | USPS | FedEx | DHL
    tracking_number: Mapped[str] = mapped_column(String(40))
    # label_created | in_transit | out_for_delivery | delivered | lost | cancelled
    status: Mapped[str] = mapped_column(String(20))
    shipped_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    estimated_delivery: Mapped[dt.date | None] = mapped_column(Date, nullable=True)
    delivered_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    # What the carrier recorded at delivery: "front door", "mailbox", "left with neighbour (no. 14)"...
    delivery_note: Mapped[str | None] = mapped_column(String(120), nullable=True)


class Charge(Base):
    __tablename__ = "charges"

    id: Mapped[str] = mapped_column(String(10), primary_key=True)  # "CH-00042"
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    payment_method_id: Mapped[str] = mapped_column(ForeignKey("payment_methods.id"))
    amount_cents: Mapped[int] = mapped_column(Integer)
    # captured | refunded (a duplicate capture given back) | failed
    status: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)


class Refund(Base):
    __tablename__ = "refunds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    charge_id: Mapped[str | None] = mapped_column(ForeignKey("charges.id"), nullable=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    destination: Mapped[str] = mapped_column(String(20))  # original_payment | store_credit
    # damaged | missing_item | not_delivered | lost_package | duplicate_charge | cancelled | other
    reason: Mapped[str] = mapped_column(String(20))
    # pending (sent to the payment processor) | completed (posted) | failed
    status: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)
    expected_post_by: Mapped[dt.date | None] = mapped_column(Date, nullable=True)


class RefundLine(Base):
    """The units of one order item a refund covers: a refund of part of a line (two of four glasses)
    holds the units it gave back, so a second refund of the line can give back only the rest. Refunds
    seeded without lines (an item already ``refunded``) are linked by ``order_items.refund_id``."""

    __tablename__ = "refund_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    refund_id: Mapped[int] = mapped_column(ForeignKey("refunds.id"), index=True)
    order_item_id: Mapped[int] = mapped_column(ForeignKey("order_items.id"), index=True)
    units: Mapped[int] = mapped_column(Integer)


class StoreCreditEntry(Base):
    __tablename__ = "store_credit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    amount_cents: Mapped[int] = mapped_column(Integer)  # + credit, - spent
    reason: Mapped[str] = mapped_column(String(40))
    refund_id: Mapped[int | None] = mapped_column(ForeignKey("refunds.id"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)


class Ticket(Base):
    __tablename__ = "tickets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    order_id: Mapped[str | None] = mapped_column(ForeignKey("orders.id"), nullable=True)
    # refund_trace | delivery_issue | product_question | account | other
    category: Mapped[str] = mapped_column(String(20))
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(12))  # open | closed
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)


class Escalation(Base):
    __tablename__ = "escalations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    order_id: Mapped[str | None] = mapped_column(ForeignKey("orders.id"), nullable=True)
    # customer_request | legal_threat | outside_policy_exception | other
    reason: Mapped[str] = mapped_column(String(30))
    summary: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(12))  # open | resolved
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)


class CarrierClaim(Base):
    __tablename__ = "carrier_claims"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    shipment_id: Mapped[str] = mapped_column(ForeignKey("shipments.id"))
    carrier: Mapped[str] = mapped_column(String(12))
    reason: Mapped[str] = mapped_column(String(30))  # lost_in_transit | delivered_not_received
    status: Mapped[str] = mapped_column(String(12))  # open | paid | denied
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)


class Replacement(Base):
    __tablename__ = "replacements"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    order_item_id: Mapped[int] = mapped_column(ForeignKey("order_items.id"))
    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"))
    quantity: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20))  # pending_shipment | shipped
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)


# --- the customer's own world (user tools only) ---------------------------------------


class HomeDelivery(Base):
    """What actually reached the customer for one order (the carrier's scan may say otherwise)."""

    __tablename__ = "home_deliveries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    # front_door | mailbox | neighbour | nowhere
    location: Mapped[str] = mapped_column(String(12))
    neighbour: Mapped[str | None] = mapped_column(String(60), nullable=True)
    in_hand: Mapped[bool] = mapped_column(Boolean)  # the customer has the parcel
    # Item names that were not in the parcel / arrived damaged ("; "-separated), if any.
    missing_items: Mapped[str | None] = mapped_column(String(200), nullable=True)
    damaged_items: Mapped[str | None] = mapped_column(String(200), nullable=True)
    collected_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class BankStatementLine(Base):
    """What the customer's bank shows: charges and refunds that actually posted."""

    __tablename__ = "bank_statement_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    payment_method_id: Mapped[str] = mapped_column(ForeignKey("payment_methods.id"))
    posted_on: Mapped[dt.date] = mapped_column(Date)
    description: Mapped[str] = mapped_column(String(80))
    amount_cents: Mapped[int] = mapped_column(Integer)  # negative = money out, positive = money in
    kind: Mapped[str] = mapped_column(String(12))  # charge | refund | hold
    ref: Mapped[str | None] = mapped_column(String(20), nullable=True)  # charge id or refund id


Index("ix_order_items_product", OrderItem.product_id)
