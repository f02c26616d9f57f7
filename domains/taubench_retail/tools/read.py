"""The retail tools that change nothing: calculate, find and get, list product types, think, transfer.

``transfer_to_human_agents`` writes nothing either; it ends the episode.
"""

from __future__ import annotations

import ast
import json
import math
import operator
from typing import Any

from sqlalchemy.orm import Session

from envs.domain.tools import ToolError
from envs.state.rawrows import rows_of

from .common import _dump, _key
from .records import cached_rows
from .glue import _tau

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


@_tau("FindUserIdByEmail")
def find_user_id_by_email(session: Session, email: str) -> str:
    """Find a user id by email (case-insensitive), scanning users in the data's order."""
    users = cached_rows(session, "users", "SELECT id, email FROM users ORDER BY position")
    for user_id, user_email in users:
        if user_email.lower() == email.lower():
            return user_id
    raise ToolError("user not found")


@_tau("FindUserIdByNameZip")
def find_user_id_by_name_zip(session: Session, first_name: str, last_name: str, zip: str) -> str:
    """Find a user id by first name, last name (case-insensitive) and zip code."""
    sql, params = "SELECT id, first_name, last_name, zip FROM users", ()
    if isinstance(first_name, str) and isinstance(last_name, str) and isinstance(zip, str):
        sql, params = sql + " WHERE zip = ?", (zip,)  # exact equality: same first match, fewer rows
    with rows_of(session) as rows:
        users = rows.execute(sql + " ORDER BY position", *params)
    for user_id, first, last, user_zip in users:
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
    product_dict = {name: pid for name, pid in cached_rows(session, "products",
                                                          "SELECT name, id FROM products ORDER BY position")}
    return json.dumps(dict(sorted(product_dict.items())))


@_tau("Think")
def think(session: Session, thought: str) -> str:
    """Log a thought; changes nothing."""
    return ""


@_tau("TransferToHumanAgents")
def transfer_to_human_agents(session: Session, summary: str) -> str:
    """Hand the user to a human agent (ends the episode)."""
    return "Transfer successful"
