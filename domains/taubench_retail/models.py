"""SQLAlchemy models for tau-bench's retail data: users, orders, products, as tables.

tau-bench keeps the retail world as three JSON dicts and its tools return
``json.dumps`` of those records, so the order of keys is observable. Each
table therefore keeps, besides the values, an optional ``*_key_order``
column: NULL means the record's keys come in the canonical order below (the
order tau-bench's data files use), otherwise it holds the keys in the order
the record actually has (e.g. an address rewritten by a tool puts ``state``
before ``country``). The key-order columns are bookkeeping for faithful
output; tau-bench's own reward hashes dicts with sorted keys, so imported
tasks leave them out of the state comparison (``KEY_ORDER_COLUMNS``).

Numbers that tau-bench may hold either as ``int`` or as ``float`` (gift-card
balances start as ints, become floats after a refund) live in ``Number``
columns, whose BLOB affinity makes SQLite keep the Python type as given;
``json.dumps`` prints ``60`` and ``60.0`` differently.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import UserDefinedType


class Number(UserDefinedType):
    """An int-or-float column: SQLite's BLOB affinity stores INTEGER as INTEGER and REAL as REAL.

    (A REAL column would read 60 back as 60.0; a NUMERIC one would turn 60.0 into 60.)
    """

    cache_ok = True

    def get_col_spec(self, **kw: Any) -> str:
        return "BLOB"


def _json() -> JSON:
    # none_as_null: an absent value is SQL NULL, not the JSON text 'null'.
    return JSON(none_as_null=True)


# Canonical key orders, as in tau-bench's data files. Optional keys appear only when present.
USER_KEYS = ["name", "address", "email", "payment_methods", "orders"]
NAME_KEYS = ["first_name", "last_name"]
ADDRESS_KEYS = ["address1", "address2", "city", "country", "state", "zip"]
PAYMENT_METHOD_KEYS = ["source", "brand", "last_four", "balance", "id"]
PAYMENT_METHOD_REQUIRED = ["source", "id"]
ORDER_BASE_KEYS = ["order_id", "user_id", "address", "items", "fulfillments", "status", "payment_history"]
ORDER_OPTIONAL_KEYS = [
    "cancel_reason",
    "return_items",
    "return_payment_method_id",
    "exchange_items",
    "exchange_new_items",
    "exchange_payment_method_id",
    "exchange_price_difference",
]
ORDER_KEYS = ORDER_BASE_KEYS + ORDER_OPTIONAL_KEYS
ITEM_KEYS = ["name", "product_id", "item_id", "price", "options"]
FULFILLMENT_KEYS = ["tracking_id", "item_ids"]
PAYMENT_KEYS = ["transaction_type", "amount", "payment_method_id"]
PRODUCT_KEYS = ["name", "product_id", "variants"]
VARIANT_KEYS = ["item_id", "options", "available", "price"]

# "table.column" of every key-order column: left out of state comparisons (see module docstring).
KEY_ORDER_COLUMNS = [
    "users.key_order",
    "users.name_key_order",
    "users.address_key_order",
    "payment_methods.key_order",
    "orders.key_order",
    "orders.address_key_order",
    "order_items.key_order",
    "fulfillments.key_order",
    "payments.key_order",
    "products.key_order",
    "variants.key_order",
]


class Base(DeclarativeBase):
    """The retail domain's own metadata (other domains keep theirs apart)."""


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String, primary_key=True)  # the user id, key of users.json
    position: Mapped[int] = mapped_column(index=True)  # rank in users.json: lookups scan in this order
    first_name: Mapped[str]
    last_name: Mapped[str]
    email: Mapped[str]
    address1: Mapped[str]
    address2: Mapped[str]
    city: Mapped[str]
    country: Mapped[str]
    state: Mapped[str]
    zip: Mapped[str] = mapped_column(index=True)
    key_order: Mapped[list[str] | None] = mapped_column(_json())
    name_key_order: Mapped[list[str] | None] = mapped_column(_json())
    address_key_order: Mapped[list[str] | None] = mapped_column(_json())

    payment_methods: Mapped[list["PaymentMethod"]] = relationship(
        back_populates="user", order_by="PaymentMethod.position", cascade="all, delete-orphan"
    )
    order_refs: Mapped[list["UserOrder"]] = relationship(order_by="UserOrder.position", cascade="all, delete-orphan")


class PaymentMethod(Base):
    """One of a user's payment methods (credit card, PayPal, gift card with its balance)."""

    __tablename__ = "payment_methods"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), primary_key=True)
    id: Mapped[str] = mapped_column(String, primary_key=True)
    position: Mapped[int]
    source: Mapped[str]
    brand: Mapped[str | None]
    last_four: Mapped[str | None]
    balance: Mapped[float | int | None] = mapped_column(Number())
    key_order: Mapped[list[str] | None] = mapped_column(_json())

    user: Mapped[User] = relationship(back_populates="payment_methods")


class UserOrder(Base):
    """An entry of a user's ``orders`` list (kept as listed, not derived from ``orders``)."""

    __tablename__ = "user_orders"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    order_id: Mapped[str]


class Order(Base):
    __tablename__ = "orders"

    id: Mapped[str] = mapped_column(String, primary_key=True)  # e.g. "#W2611340"
    position: Mapped[int]
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    address1: Mapped[str]
    address2: Mapped[str]
    city: Mapped[str]
    country: Mapped[str]
    state: Mapped[str]
    zip: Mapped[str]
    status: Mapped[str]
    cancel_reason: Mapped[str | None]
    return_items: Mapped[list[Any] | None] = mapped_column(_json())
    return_payment_method_id: Mapped[str | None]
    exchange_items: Mapped[list[Any] | None] = mapped_column(_json())
    exchange_new_items: Mapped[list[Any] | None] = mapped_column(_json())
    exchange_payment_method_id: Mapped[str | None]
    exchange_price_difference: Mapped[float | int | None] = mapped_column(Number())
    key_order: Mapped[list[str] | None] = mapped_column(_json())
    address_key_order: Mapped[list[str] | None] = mapped_column(_json())

    items: Mapped[list["OrderItem"]] = relationship(order_by="OrderItem.position", cascade="all, delete-orphan")
    fulfillments: Mapped[list["Fulfillment"]] = relationship(
        order_by="Fulfillment.position", cascade="all, delete-orphan"
    )
    payments: Mapped[list["Payment"]] = relationship(order_by="Payment.position", cascade="all, delete-orphan")


class OrderItem(Base):
    """One line of an order (an order may hold the same item id twice)."""

    __tablename__ = "order_items"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str]
    product_id: Mapped[str]
    item_id: Mapped[str]
    price: Mapped[float | int] = mapped_column(Number())
    options: Mapped[dict[str, Any]] = mapped_column(JSON)  # attribute -> value, in the record's key order
    key_order: Mapped[list[str] | None] = mapped_column(_json())


class Fulfillment(Base):
    __tablename__ = "fulfillments"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    tracking_id: Mapped[list[Any]] = mapped_column(JSON)
    item_ids: Mapped[list[Any]] = mapped_column(JSON)
    key_order: Mapped[list[str] | None] = mapped_column(_json())


class Payment(Base):
    """An entry of an order's payment history (payments and refunds)."""

    __tablename__ = "payments"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    transaction_type: Mapped[str]
    amount: Mapped[float | int] = mapped_column(Number())
    payment_method_id: Mapped[str]
    key_order: Mapped[list[str] | None] = mapped_column(_json())


class Product(Base):
    __tablename__ = "products"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    position: Mapped[int]
    name: Mapped[str]
    key_order: Mapped[list[str] | None] = mapped_column(_json())

    variants: Mapped[list["Variant"]] = relationship(order_by="Variant.position", cascade="all, delete-orphan")


class Variant(Base):
    """A purchasable item of a product: its options, availability and price."""

    __tablename__ = "variants"

    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"), primary_key=True)
    item_id: Mapped[str] = mapped_column(String, primary_key=True)
    position: Mapped[int]
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    available: Mapped[bool] = mapped_column(Boolean)
    price: Mapped[float | int] = mapped_column(Number())
    key_order: Mapped[list[str] | None] = mapped_column(_json())
