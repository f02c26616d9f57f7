"""Agent tools and user tools of the support domain.

Agent tools are what a marketplace's support console offers: look customers
and orders up, track shipments (``agent_lookups``); cancel, refund, replace,
claim, re-address, ticket and escalate (``agent_actions``). User tools are the
customer's own world: the doorstep, the neighbours, the app and the bank
statement (``user``). The agent cannot call user tools and vice versa.
``common`` holds the argument types, lookups and money formatting they share.

``AGENT_TOOLS`` and ``USER_TOOLS`` list them in the order the agent and the
user see them; the domain builds its two ToolSets from these lists.
"""

from .agent_actions import (
    cancel_order,
    change_shipping_address,
    create_ticket,
    escalate_to_human,
    open_carrier_claim,
    refund_duplicate_charge,
    refund_items,
    send_replacement,
)
from .agent_lookups import (
    find_customer_by_email,
    find_customer_by_name_zip,
    get_customer,
    get_order,
    get_product,
    get_refund_status,
    get_shipment_tracking,
    list_orders,
)
from .user import ask_neighbour, check_bank_statement, check_doorstep, check_email_inbox, view_order_in_app

AGENT_TOOLS = [
    find_customer_by_email,
    find_customer_by_name_zip,
    get_customer,
    list_orders,
    get_order,
    get_shipment_tracking,
    get_refund_status,
    get_product,
    cancel_order,
    refund_items,
    refund_duplicate_charge,
    open_carrier_claim,
    send_replacement,
    change_shipping_address,
    create_ticket,
    escalate_to_human,
]

USER_TOOLS = [check_doorstep, ask_neighbour, view_order_in_app, check_bank_statement, check_email_inbox]

__all__ = ["AGENT_TOOLS", "USER_TOOLS"]
