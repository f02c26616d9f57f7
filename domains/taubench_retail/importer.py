"""tau-bench retail JSON -> SQLite: locate the data, read it, import it.

The importer validates each record before inserting it, so a malformed file
fails with one line (file, record and field, reason) rather than a traceback
deep inside SQLAlchemy. Rows go in with one bulk ``INSERT`` per table: the
template is built once per process and this keeps that build short.

The inverse, tables back to tau-bench's dicts, is ``exporter.py``.
"""

from __future__ import annotations

import ast
import json
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from sqlalchemy import insert
from sqlalchemy.orm import Session

from envs.errors import SpecError

from . import models as m

ENV_VAR = "SITGYM_TAUBENCH_DATA"
HOW_TO = (
    f"pass --taubench-data PATH or set {ENV_VAR} to a folder holding db/users.json, db/orders.json, "
    "db/products.json and tasks_test.json, or to a tau-bench checkout"
)


# -- locating the data ------------------------------------------------------------------------


@dataclass(frozen=True)
class DataSource:
    """Where each part of the retail data lives (two layouts are understood, see ``locate``)."""

    root: Path
    users: Path
    orders: Path
    products: Path
    tasks: Path  # tasks_test.json, or a checkout's tasks_test.py
    policy: Path  # policy.md, or a checkout's wiki.md
    tools: Path  # tools.json, or a checkout's tools/ package


def default_data_path() -> Path:
    """``../shared/data/tau-bench-retail`` beside the project checkout."""
    from envs.domain import PROJECT_ROOT

    return PROJECT_ROOT.parent / "shared" / "data" / "tau-bench-retail"


def locate(option: str | os.PathLike | None = None) -> DataSource:
    """Find the data: the option, else the environment variable, else the default folder.

    An explicitly given path that does not hold the data is an error (no silent fallback).
    """
    if option:
        return _layout(Path(option).expanduser(), "--taubench-data")
    env = os.environ.get(ENV_VAR)
    if env:
        return _layout(Path(env).expanduser(), ENV_VAR)
    default = default_data_path()
    if (default / "db" / "users.json").is_file():
        return _layout(default, "default data folder")
    raise SpecError(f"taubench-retail: no tau-bench retail data found; {HOW_TO}")


def _layout(p: Path, via: str) -> DataSource:
    if not p.exists():
        raise SpecError(f"{p}: ({via}): no such file or directory; {HOW_TO}")
    if (p / "db" / "users.json").is_file():  # the shared folder layout
        db = p / "db"
        return DataSource(p, db / "users.json", db / "orders.json", db / "products.json",
                          p / "tasks_test.json", p / "policy.md", p / "tools.json")
    # A tau-bench checkout, its package dir, its retail env dir, or the data dir itself.
    for retail in (p / "tau_bench" / "envs" / "retail", p / "envs" / "retail", p, p.parent):
        data = retail / "data"
        if (data / "users.json").is_file() and (retail / "tools").is_dir():
            tasks = retail / "tasks_test.py"
            if not tasks.is_file() and (data / "tasks_test.json").is_file():
                tasks = data / "tasks_test.json"
            return DataSource(retail, data / "users.json", data / "orders.json", data / "products.json",
                              tasks, retail / "wiki.md", retail / "tools")
    raise SpecError(
        f"{p}: ({via}): not tau-bench retail data (no db/users.json, no tau_bench/envs/retail/data); {HOW_TO}"
    )


# -- reading ----------------------------------------------------------------------------------


def read_json(path: Path) -> Any:
    """json.load with one-line errors. Dicts keep the file's key order (it is observable)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise SpecError(f"{path}: file not found") from None
    except json.JSONDecodeError as e:
        raise SpecError(f"{path}: line {e.lineno} column {e.colno}: {e.msg}") from None


def read_policy(src: DataSource) -> str:
    try:
        return src.policy.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(f"{src.policy}: file not found (the retail agent policy)") from None


def read_tool_schemas(src: DataSource) -> dict[str, dict]:
    """tau-bench's OpenAI function schemas by tool name (tools.json, or a checkout's get_info())."""
    if src.tools.is_dir():
        out: dict[str, dict] = {}
        for py in sorted(src.tools.glob("*.py")):
            info = _get_info_literal(py)
            if info is not None:
                out[info["function"]["name"]] = info
        return out
    data = read_json(src.tools)
    if not isinstance(data, list):
        raise SpecError(f"{src.tools}: (top level): expected a list of function schemas")
    out = {}
    for i, item in enumerate(data):
        try:
            out[item["function"]["name"]] = item
        except (KeyError, TypeError):
            raise SpecError(f"{src.tools}: [{i}].function.name: missing") from None
    return out


def _get_info_literal(py: Path) -> dict | None:
    """The dict literal a checkout's ``get_info()`` returns, read without importing tau-bench."""
    tree = ast.parse(py.read_text(encoding="utf-8"), filename=str(py))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "get_info":
            for stmt in node.body:
                if isinstance(stmt, ast.Return) and stmt.value is not None:
                    try:
                        return ast.literal_eval(stmt.value)
                    except ValueError as e:
                        raise SpecError(f"{py}: get_info: not a literal ({e})") from None
    return None


def read_tasks(src: DataSource) -> list[dict]:
    """The test tasks as dicts: user_id, instruction, actions [{name, kwargs}], outputs."""
    if src.tasks.suffix == ".py":
        raw = _tasks_from_py(src.tasks)
    else:
        raw = read_json(src.tasks)
    if not isinstance(raw, list):
        raise SpecError(f"{src.tasks}: (top level): expected a list of tasks")
    for i, t in enumerate(raw):
        where = f"{src.tasks}: [{i}]"
        if not isinstance(t, dict):
            raise SpecError(f"{where}: expected a mapping")
        for key, typ in (("user_id", str), ("instruction", str), ("actions", list)):
            if not isinstance(t.get(key), typ):
                raise SpecError(f"{where}.{key}: missing or not a {typ.__name__}")
        for j, a in enumerate(t["actions"]):
            if not isinstance(a, dict) or not isinstance(a.get("name"), str):
                raise SpecError(f"{where}.actions[{j}].name: missing or not a string")
            if not isinstance(a.get("kwargs", {}), dict):
                raise SpecError(f"{where}.actions[{j}].kwargs: not a mapping")
        if not isinstance(t.get("outputs", []), list):
            raise SpecError(f"{where}.outputs: not a list")
    return raw


def _tasks_from_py(path: Path) -> list[dict]:
    """A checkout's ``TASKS_TEST = [Task(...), ...]``, read from the syntax tree (nothing executed)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except FileNotFoundError:
        raise SpecError(f"{path}: file not found") from None
    except SyntaxError as e:
        raise SpecError(f"{path}: line {e.lineno}: {e.msg}") from None

    def conv(node: ast.AST) -> Any:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Task", "Action"):
            return {kw.arg: conv(kw.value) for kw in node.keywords}
        if isinstance(node, ast.List):
            return [conv(x) for x in node.elts]
        if isinstance(node, ast.Dict):
            return {conv(k): conv(v) for k, v in zip(node.keys, node.values)}
        return ast.literal_eval(node)

    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            try:
                return conv(node.value)
            except ValueError as e:
                raise SpecError(f"{path}: line {node.lineno}: not a literal task list ({e})") from None
    raise SpecError(f"{path}: (top level): no task list found")


# -- validating and importing -----------------------------------------------------------------


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "str": (lambda v: isinstance(v, str), "a string"),
    "num": (_is_num, "a number"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "dict": (lambda v: isinstance(v, dict), "a mapping"),
}


def _check(path: Path, where: str, rec: Any, fields: dict[str, str], required: Iterable[str]) -> list[str] | None:
    """Validate one record; return its key order, or None when it is the canonical one."""
    if not isinstance(rec, dict):
        raise SpecError(f"{path}: {where}: expected a mapping, got {type(rec).__name__}")
    for k in required:
        if k not in rec:
            raise SpecError(f"{path}: {where}.{k}: missing")
    for k, v in rec.items():
        if k not in fields:
            raise SpecError(f"{path}: {where}.{k}: unexpected key (known: {', '.join(fields)})")
        ok, what = _CHECKS[fields[k]]
        if not ok(v):
            raise SpecError(f"{path}: {where}.{k}: expected {what}, got {json.dumps(v)[:40]}")
    keys = list(rec)
    return None if keys == [k for k in fields if k in rec] else keys


_ADDRESS = dict.fromkeys(m.ADDRESS_KEYS, "str")


def import_data(session: Session, src: DataSource) -> None:
    """Read, validate and bulk-insert the three JSON files into an empty schema."""
    users, orders, products = read_json(src.users), read_json(src.orders), read_json(src.products)
    for path, data in ((src.users, users), (src.orders, orders), (src.products, products)):
        if not isinstance(data, dict):
            raise SpecError(f"{path}: (top level): expected a mapping of id -> record")
    rows: dict[type, list[dict]] = defaultdict(list)

    for pos, (uid, u) in enumerate(users.items()):
        w = f"{uid}"
        ko = _check(src.users, w, u, dict(zip(m.USER_KEYS, ["dict", "dict", "str", "dict", "list"])), m.USER_KEYS)
        name_ko = _check(src.users, f"{w}.name", u["name"], dict.fromkeys(m.NAME_KEYS, "str"), m.NAME_KEYS)
        addr_ko = _check(src.users, f"{w}.address", u["address"], _ADDRESS, m.ADDRESS_KEYS)
        rows[m.User].append(dict(
            id=uid, position=pos, email=u["email"], key_order=ko, name_key_order=name_ko,
            address_key_order=addr_ko, **u["name"], **u["address"],
        ))
        pm_fields = dict(zip(m.PAYMENT_METHOD_KEYS, ["str", "str", "str", "num", "str"]))
        for ppos, (pid, pm) in enumerate(u["payment_methods"].items()):
            pw = f"{w}.payment_methods.{pid}"
            pko = _check(src.users, pw, pm, pm_fields, m.PAYMENT_METHOD_REQUIRED)
            if pm["id"] != pid:
                raise SpecError(f"{src.users}: {pw}.id: {pm['id']!r} differs from its key")
            rows[m.PaymentMethod].append(dict(
                user_id=uid, id=pid, position=ppos, source=pm["source"], brand=pm.get("brand"),
                last_four=pm.get("last_four"), balance=pm.get("balance"), key_order=pko,
            ))
        for opos, oid in enumerate(u["orders"]):
            if not isinstance(oid, str):
                raise SpecError(f"{src.users}: {w}.orders[{opos}]: expected a string")
            rows[m.UserOrder].append(dict(user_id=uid, position=opos, order_id=oid))

    order_fields = dict(zip(m.ORDER_KEYS, ["str", "str", "dict", "list", "list", "str", "list",
                                           "str", "list", "str", "list", "list", "str", "num"]))
    item_fields = dict(zip(m.ITEM_KEYS, ["str", "str", "str", "num", "dict"]))
    ful_fields = dict(zip(m.FULFILLMENT_KEYS, ["list", "list"]))
    pay_fields = dict(zip(m.PAYMENT_KEYS, ["str", "num", "str"]))
    for pos, (oid, o) in enumerate(orders.items()):
        w = oid
        ko = _check(src.orders, w, o, order_fields, m.ORDER_BASE_KEYS)
        if o["order_id"] != oid:
            raise SpecError(f"{src.orders}: {w}.order_id: {o['order_id']!r} differs from its key")
        if o["user_id"] not in users:
            raise SpecError(f"{src.orders}: {w}.user_id: unknown user {o['user_id']!r}")
        addr_ko = _check(src.orders, f"{w}.address", o["address"], _ADDRESS, m.ADDRESS_KEYS)
        rows[m.Order].append(dict(
            id=oid, position=pos, user_id=o["user_id"], status=o["status"], key_order=ko, address_key_order=addr_ko,
            **o["address"], **{k: o.get(k) for k in m.ORDER_OPTIONAL_KEYS},
        ))
        for ipos, it in enumerate(o["items"]):
            iko = _check(src.orders, f"{w}.items[{ipos}]", it, item_fields, m.ITEM_KEYS)
            rows[m.OrderItem].append(dict(order_id=oid, position=ipos, key_order=iko, **it))
        for fpos, f in enumerate(o["fulfillments"]):
            fko = _check(src.orders, f"{w}.fulfillments[{fpos}]", f, ful_fields, m.FULFILLMENT_KEYS)
            rows[m.Fulfillment].append(dict(order_id=oid, position=fpos, key_order=fko, **f))
        for ppos, p in enumerate(o["payment_history"]):
            pko = _check(src.orders, f"{w}.payment_history[{ppos}]", p, pay_fields, m.PAYMENT_KEYS)
            rows[m.Payment].append(dict(order_id=oid, position=ppos, key_order=pko, **p))

    var_fields = dict(zip(m.VARIANT_KEYS, ["str", "dict", "bool", "num"]))
    for pos, (pid, p) in enumerate(products.items()):
        ko = _check(src.products, pid, p, dict(zip(m.PRODUCT_KEYS, ["str", "str", "dict"])), m.PRODUCT_KEYS)
        if p["product_id"] != pid:
            raise SpecError(f"{src.products}: {pid}.product_id: {p['product_id']!r} differs from its key")
        rows[m.Product].append(dict(id=pid, position=pos, name=p["name"], key_order=ko))
        for vpos, (vid, v) in enumerate(p["variants"].items()):
            vko = _check(src.products, f"{pid}.variants.{vid}", v, var_fields, m.VARIANT_KEYS)
            if v["item_id"] != vid:
                raise SpecError(f"{src.products}: {pid}.variants.{vid}.item_id: {v['item_id']!r} differs from its key")
            rows[m.Variant].append(dict(product_id=pid, position=vpos, key_order=vko, **v))

    for model in (m.User, m.PaymentMethod, m.UserOrder, m.Order, m.OrderItem, m.Fulfillment, m.Payment,
                  m.Product, m.Variant):
        if rows[model]:
            session.execute(insert(model.__table__), rows[model])  # Core executemany: one statement per table
