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

Files: ``glue`` (the Tool and ToolSet subclasses), ``common`` (lookups with
dict semantics, record dumps), ``read`` and ``write`` (the tools themselves);
this module lists them in tools.json's order and builds the ToolSet.
"""

from __future__ import annotations

from typing import Callable

from .glue import TauTool, TauToolSet
from .read import (
    calculate,
    find_user_id_by_email,
    find_user_id_by_name_zip,
    get_order_details,
    get_product_details,
    get_user_details,
    list_all_product_types,
    think,
    transfer_to_human_agents,
)
from .write import (
    cancel_pending_order,
    exchange_delivered_order_items,
    modify_pending_order_address,
    modify_pending_order_items,
    modify_pending_order_payment,
    modify_user_address,
    return_delivered_order_items,
)

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
