"""tau-bench's 16 retail tools, reimplemented over the SQLite tables.

Each tool behaves as tau-bench's does for the same input: same result
string (``json.dumps`` of the same record, same key order), same
``"Error: ..."`` text. tau-bench calls ``Tool.invoke(data=..., **kwargs)``
with the model's raw arguments and turns any exception into
``f"Error: {e}"``; so these tools take raw arguments too (no coercion) and
run the same Python operations on them, which makes a list where a string
was expected fail with the same ``unhashable type: 'list'``, and a missing
argument fail with ``CancelPendingOrder.invoke() missing 1 required
positional argument: 'reason'`` (the functions carry tau-bench's qualified
names for that reason).

tau-bench's refusals (``return "Error: ..."``) are raised here as
``ToolError`` so the engine rolls the session back: every refusal in
tau-bench happens before any mutation, so the state is the same.

One deliberate difference: the two address tools refuse non-string address
fields (tau-bench would store them verbatim, against its own schema).
"""

from __future__ import annotations

import ast
import inspect
import json
import math
import operator
from typing import Any, Callable

from sqlalchemy import select
from sqlalchemy.orm import Session, object_session

from envs.domain.tools import Tool, ToolError, ToolOutcome, ToolSet

from .. import models as m
from ..importer import export_state

# -- engine glue: raw arguments, tau-bench's error strings ------------------------------------


class TauTool(Tool):
    """A tool called like tau-bench calls its tools: raw JSON arguments, no coercion.

    The schema shown to models is tau-bench's own (read from the data lazily, so building
    the domain needs no data).
    """

    def __init__(self, fn: Callable[..., Any], *, name: str, schema_loader: Callable[[], dict[str, dict]],
                 mutates: bool = False, terminal: bool = False):
        super().__init__(fn, name=name, side="agent", mutates=mutates, terminal=terminal)
        self._schema_loader = schema_loader
        self._signature = inspect.signature(fn)

    def schema(self) -> dict:
        if self._schema_override is None:
            self._schema_override = self._schema_loader()[self.name]
        return self._schema_override

    def reset_schema(self) -> None:
        self._schema_override = None

    def validate(self, arguments: dict | str | None) -> dict:
        """Only decode: tau-bench hands the model's arguments to the tool as they are."""
        return self.decode(arguments)

    def failure_kind(self, error: Exception, kwargs: dict) -> str:
        # tau-bench turns any exception into the observation f"Error: {e}"; arguments that do not
        # fit the schema make it the caller's error, otherwise it is a crash of the tool.
        return "crashed" if self._conforms(kwargs) else "bad_arguments"

    def _conforms(self, kwargs: dict) -> bool:
        """Do the arguments bind and have the schema's types? (Only classifies a failure.)"""
        try:
            self._signature.bind(None, **kwargs)
        except TypeError:
            return False
        try:
            props = self.schema()["function"]["parameters"].get("properties", {})
        except Exception:  # no schema available: classify by binding alone
            return True
        for k, v in kwargs.items():
            t = props.get(k, {}).get("type")
            if t == "string" and not isinstance(v, str):
                return False
            if t == "array" and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                return False
        return True


class TauToolSet(ToolSet):
    """tau-bench answers an unknown tool name with ``Unknown action <name>``."""

    def call(self, session: Session, name: str, arguments: dict | str | None) -> ToolOutcome:
        t = self.tools.get(name)
        if t is None:
            return ToolOutcome(f"Unknown action {name}", ok=False, error_kind="unknown_tool")
        return t(session, arguments)


def _tau(class_name: str) -> Callable[[Callable], Callable]:
    """Give a tool tau-bench's qualified name, so argument errors read the same."""

    def wrap(fn: Callable) -> Callable:
        fn.__qualname__ = f"{class_name}.invoke"
        return fn

    return wrap


# -- lookups with Python dict semantics ------------------------------------------------------


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


# -- the tools -----------------------------------------------------------------------------------

_CALC_CHARS = "0123456789+-*/(). "
_MAX_POW_BITS = 100_000  # a bigger power would take tau-bench's eval minutes; refuse it instead
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv}


@_tau("Calculate")
def calculate(session: Session, expression: str) -> str:
    """Calculate the result of a mathematical expression."""
    if not all(char in _CALC_CHARS for char in expression):
        raise ToolError("invalid characters in expression")
    try:
        return str(round(float(_evaluate(expression)), 2))
    except Exception as e:
        raise ToolError(str(e)) from None


def _evaluate(expression: Any) -> Any:
    """``eval(expression, {"__builtins__": None}, {})`` for the characters calculate allows.

    Same parse (so the same SyntaxError text) and Python's own arithmetic; only ``**`` is
    evaluated by hand, to refuse powers too big to compute.
    """
    if not isinstance(expression, str):
        return eval(expression, {"__builtins__": None}, {})  # raises TypeError for non-code objects
    # eval() of a string drops leading spaces and tabs before compiling; compile() does not.
    tree = compile(expression.lstrip(" \t"), "<string>", "eval", ast.PyCF_ONLY_AST)
    if not any(isinstance(n, ast.Pow) for n in ast.walk(tree)):
        return eval(compile(tree, "<string>", "eval"), {"__builtins__": None}, {})

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            v = ev(node.operand)
            return +v if isinstance(node.op, ast.UAdd) else -v
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            a, b = ev(node.left), ev(node.right)
            if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
                if b * math.log2(abs(a)) > _MAX_POW_BITS:
                    raise OverflowError("exponent too large to compute")
            return a**b
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            return _BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.Tuple):
            return tuple(ev(x) for x in node.elts)
        if isinstance(node, ast.Call) and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
            f = ev(node.func)
            return f(*[ev(a) for a in node.args])  # f is a number or tuple: "... is not callable"
        raise ValueError("unsupported expression")

    return ev(tree)


@_tau("CancelPendingOrder")
def cancel_pending_order(session: Session, order_id: str, reason: str) -> str:
    """Cancel a pending order; gift-card payments are refunded to the card at once."""
    order = _order_in(session, order_id, "pending", "cancelled")
    if reason not in ["no longer needed", "ordered by mistake"]:
        raise ToolError("invalid reason")
    refunds = []
    for p in order.payments:
        refunds.append((p.amount, p.payment_method_id))
        if "gift_card" in p.payment_method_id:
            pm = _payment_methods(session, order.user_id)[p.payment_method_id]
            pm.balance = round(_balance(pm) + p.amount, 2)
    order.status = "cancelled"
    _set_optional(order, "cancel_reason", reason)
    for amount, pm_id in refunds:
        order.payments.append(m.Payment(position=len(order.payments), transaction_type="refund",
                                        amount=amount, payment_method_id=pm_id))
    return _dump_order(order)


def _check_items(order: m.Order, item_ids: Any, message: Callable[[Any], str]) -> None:
    """tau-bench's check that each listed item (duplicates counted) is in the order."""
    all_item_ids = [it.item_id for it in order.items]
    for item_id in item_ids:
        if item_ids.count(item_id) > all_item_ids.count(item_id):
            raise ToolError(message(item_id))


def _price_difference(session: Session, order: m.Order, item_ids: Any, new_item_ids: Any) -> Any:
    if len(item_ids) != len(new_item_ids):
        raise ToolError("the number of items to be exchanged should match")
    diff_price: Any = 0
    for item_id, new_item_id in zip(item_ids, new_item_ids):
        item = [it for it in order.items if it.item_id == item_id][0]
        variants = _variants(session, item.product_id)
        k = _key(new_item_id)
        if not (k in variants and variants[k].available):
            raise ToolError(f"new item {new_item_id} not found or available")
        diff_price += variants[k].price - item.price
    return diff_price


@_tau("ExchangeDeliveredOrderItems")
def exchange_delivered_order_items(
    session: Session, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> str:
    """Request the exchange of delivered items for other variants of the same products."""
    order = _order_in(session, order_id, "delivered", "exchanged")
    _check_items(order, item_ids, lambda i: f"{i} not found")
    diff_price = round(_price_difference(session, order, item_ids, new_item_ids), 2)
    pms = _payment_methods(session, order.user_id)
    k = _key(payment_method_id)
    if k not in pms:
        raise ToolError("payment method not found")
    pm = pms[k]
    if pm.source == "gift_card" and _balance(pm) < diff_price:
        raise ToolError("insufficient gift card balance to pay for the price difference")
    order.status = "exchange requested"
    _set_optional(order, "exchange_items", sorted(item_ids))
    _set_optional(order, "exchange_new_items", sorted(new_item_ids))
    _set_optional(order, "exchange_payment_method_id", payment_method_id)
    _set_optional(order, "exchange_price_difference", diff_price)
    return _dump_order(order)


@_tau("FindUserIdByEmail")
def find_user_id_by_email(session: Session, email: str) -> str:
    """Find a user id by email (case-insensitive), scanning users in the data's order."""
    for user_id, user_email in session.execute(select(m.User.id, m.User.email).order_by(m.User.position)):
        if user_email.lower() == email.lower():
            return user_id
    raise ToolError("user not found")


@_tau("FindUserIdByNameZip")
def find_user_id_by_name_zip(session: Session, first_name: str, last_name: str, zip: str) -> str:
    """Find a user id by first name, last name (case-insensitive) and zip code."""
    stmt = select(m.User.id, m.User.first_name, m.User.last_name, m.User.zip).order_by(m.User.position)
    if isinstance(first_name, str) and isinstance(last_name, str) and isinstance(zip, str):
        stmt = stmt.where(m.User.zip == zip)  # exact equality: same first match, fewer rows
    for user_id, first, last, user_zip in session.execute(stmt):
        if first.lower() == first_name.lower() and last.lower() == last_name.lower() and user_zip == zip:
            return user_id
    raise ToolError("user not found")


def _details(session: Session, table: str, key, what: str) -> str:
    """One record as tau-bench prints it, or tau-bench's "<what> not found"."""
    out = _dump(session, table, key) if _key(key) is not None else None
    if out is None:
        raise ToolError(f"{what} not found")
    return out


@_tau("GetOrderDetails")
def get_order_details(session: Session, order_id: str) -> str:
    """Get the status and details of an order."""
    return _details(session, "orders", order_id, "order")


@_tau("GetProductDetails")
def get_product_details(session: Session, product_id: str) -> str:
    """Get the inventory details of a product."""
    return _details(session, "products", product_id, "product")


@_tau("GetUserDetails")
def get_user_details(session: Session, user_id: str) -> str:
    """Get the details of a user."""
    return _details(session, "users", user_id, "user")


@_tau("ListAllProductTypes")
def list_all_product_types(session: Session) -> str:
    """Product name -> product id for every product, sorted by name."""
    product_dict = {name: pid for name, pid in session.execute(
        select(m.Product.name, m.Product.id).order_by(m.Product.position))}
    return json.dumps(dict(sorted(product_dict.items())))


@_tau("ModifyPendingOrderAddress")
def modify_pending_order_address(
    session: Session, order_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
) -> str:
    """Change the shipping address of a pending order."""
    order = _order_in(session, order_id, "pending", "modified")
    _write_address(order, dict(address1=address1, address2=address2, city=city, state=state,
                               country=country, zip=zip))
    return _dump_order(order)


@_tau("ModifyPendingOrderItems")
def modify_pending_order_items(
    session: Session, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> str:
    """Swap items of a pending order for other variants, paying or refunding the difference."""
    order = _order_in(session, order_id, "pending", "modified")
    _check_items(order, item_ids, lambda i: f"{i} not found")
    diff_price = _price_difference(session, order, item_ids, new_item_ids)  # not rounded, as in tau-bench
    pms = _payment_methods(session, order.user_id)
    k = _key(payment_method_id)
    if k not in pms:
        raise ToolError("payment method not found")
    pm = pms[k]
    if pm.source == "gift_card" and _balance(pm) < diff_price:
        raise ToolError("insufficient gift card balance to pay for the new item")
    order.payments.append(m.Payment(
        position=len(order.payments), transaction_type="payment" if diff_price > 0 else "refund",
        amount=abs(diff_price), payment_method_id=payment_method_id,
    ))
    if pm.source == "gift_card":
        pm.balance = round(pm.balance - diff_price, 2)
    for item_id, new_item_id in zip(item_ids, new_item_ids):
        item = [it for it in order.items if it.item_id == item_id][0]
        variant = _variants(session, item.product_id)[new_item_id]
        item.item_id = new_item_id
        item.price = variant.price
        item.options = dict(variant.options)
    order.status = "pending (item modified)"
    return _dump_order(order)


@_tau("ModifyPendingOrderPayment")
def modify_pending_order_payment(session: Session, order_id: str, payment_method_id: str) -> str:
    """Pay a pending order with another method: charge the new one, refund the old one."""
    order = _order_in(session, order_id, "pending", "modified")
    pms = _payment_methods(session, order.user_id)
    k = _key(payment_method_id)
    if k not in pms:
        raise ToolError("payment method not found")
    history = order.payments
    if len(history) > 1 or history[0].transaction_type != "payment":
        raise ToolError("there should be exactly one payment for a pending order")
    if history[0].payment_method_id == payment_method_id:
        raise ToolError("the new payment method should be different from the current one")
    amount = history[0].amount
    pm = pms[k]
    if pm.source == "gift_card" and _balance(pm) < amount:
        raise ToolError("insufficient gift card balance to pay for the order")
    old_id = history[0].payment_method_id
    history.append(m.Payment(position=len(history), transaction_type="payment", amount=amount,
                             payment_method_id=payment_method_id))
    history.append(m.Payment(position=len(history), transaction_type="refund", amount=amount,
                             payment_method_id=old_id))
    if pm.source == "gift_card":
        pm.balance = round(pm.balance - amount, 2)
    if "gift_card" in old_id:
        old = pms[old_id]
        old.balance = round(_balance(old) + amount, 2)
    return _dump_order(order)


@_tau("ModifyUserAddress")
def modify_user_address(
    session: Session, user_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
) -> str:
    """Change a user's default address."""
    k = _key(user_id)
    user = session.get(m.User, k) if k is not None else None
    if user is None:
        raise ToolError("user not found")
    _write_address(user, dict(address1=address1, address2=address2, city=city, state=state,
                              country=country, zip=zip))
    return _dump(session, "users", user.id) or ""


@_tau("ReturnDeliveredOrderItems")
def return_delivered_order_items(session: Session, order_id: str, item_ids: list[str], payment_method_id: str) -> str:
    """Request the return of delivered items, refunded to the original method or a gift card."""
    order = _order_in(session, order_id, "delivered", "returned")
    pms = _payment_methods(session, order.user_id)
    if _key(payment_method_id) not in pms:
        raise ToolError("payment method not found")
    if "gift_card" not in payment_method_id and payment_method_id != order.payments[0].payment_method_id:
        raise ToolError("payment method should be either the original payment method or a gift card")
    _check_items(order, item_ids, lambda _i: "some item not found")
    order.status = "return requested"
    _set_optional(order, "return_items", sorted(item_ids))
    _set_optional(order, "return_payment_method_id", payment_method_id)
    return _dump_order(order)


@_tau("Think")
def think(session: Session, thought: str) -> str:
    """Log a thought; changes nothing."""
    return ""


@_tau("TransferToHumanAgents")
def transfer_to_human_agents(session: Session, summary: str) -> str:
    """Hand the user to a human agent (ends the episode)."""
    return "Transfer successful"


# name -> (function, mutates, terminal), in tools.json's order
TOOL_FUNCTIONS: dict[str, tuple[Callable[..., str], bool, bool]] = {
    "calculate": (calculate, False, False),
    "cancel_pending_order": (cancel_pending_order, True, False),
    "exchange_delivered_order_items": (exchange_delivered_order_items, True, False),
    "find_user_id_by_email": (find_user_id_by_email, False, False),
    "find_user_id_by_name_zip": (find_user_id_by_name_zip, False, False),
    "get_order_details": (get_order_details, False, False),
    "get_product_details": (get_product_details, False, False),
    "get_user_details": (get_user_details, False, False),
    "list_all_product_types": (list_all_product_types, False, False),
    "modify_pending_order_address": (modify_pending_order_address, True, False),
    "modify_pending_order_items": (modify_pending_order_items, True, False),
    "modify_pending_order_payment": (modify_pending_order_payment, True, False),
    "modify_user_address": (modify_user_address, True, False),
    "return_delivered_order_items": (return_delivered_order_items, True, False),
    "think": (think, False, False),
    "transfer_to_human_agents": (transfer_to_human_agents, False, True),
}


def make_toolset(schema_loader: Callable[[], dict[str, dict]]) -> TauToolSet:
    """The agent's tools; schemas come from ``schema_loader()`` (tau-bench's tools.json) on first use."""
    return TauToolSet.of("agent", [
        TauTool(fn, name=name, schema_loader=schema_loader, mutates=mut, terminal=term)
        for name, (fn, mut, term) in TOOL_FUNCTIONS.items()
    ])
