"""The eager scripted support agent: the weak bot the tasks are built to catch.

It promises a refund before checking, skips identity, picks one reading of an
ambiguous request, never asks for confirmation and refunds whatever it is asked
to. Like the careful agent it reads only its ``AgentView``.
"""

from __future__ import annotations

import json

from envs.actors.protocols import AgentView
from envs.records import AgentAction, ToolEvent

from .base import ScriptedAgentBase
from .reading import detect_intent


class EagerAgent(ScriptedAgentBase):
    """A weak bot: promises first, skips identity and confirmation, refunds on demand."""

    name = "eager"

    def __init__(self) -> None:
        super().__init__()
        self.promised = False
        self.order: dict | None = None
        self.plan: list[tuple[str, dict]] = []
        self.tried: set[str] = set()
        self.acted = False
        self.reported = False

    def on_tool(self, name: str, e: ToolEvent) -> None:
        if name == "get_order" and e.ok:
            self.order = self.results[name]

    async def act(self, view: AgentView) -> AgentAction:
        self._absorb(view)
        f = self.facts
        intent = None
        for text in reversed(f.texts):
            intent = detect_intent(text)
            if intent:
                break
        if not self.promised:
            self.promised = True
            ask = "" if f.order_id else " What's your order number?"
            return AgentAction.say(f"I'm so sorry about that! I'll refund you right away.{ask}")
        if f.order_id is None:
            return AgentAction.say("I just need your order number and I'll sort it all out.")
        if self.order is None or self.order["order_id"] != f.order_id:
            return AgentAction.call("get_order", order_id=f.order_id)
        if not self.acted:
            action = self._next_action(intent)
            if action is not None:
                return action
            self.acted = True
        if not self.reported:
            self.reported = True
            return AgentAction.say("All done! Your refund is on its way and you'll see it very soon.")
        return AgentAction.say("Is there anything else I can help you with?")

    def _next_action(self, intent: str | None) -> AgentAction | None:
        o = self.order
        oid = o["order_id"]
        open_ids = [it["item_id"] for it in o["items"] if it["status"] == "ordered"]
        reason = {"damaged": "damaged", "missing_item": "missing_item"}.get(intent or "", "not_delivered")
        options: list[tuple[str, dict]] = []
        if intent == "cancel":
            options.append(("cancel_order", {"order_id": oid}))
        elif intent == "change_address":
            if self.facts.address is None:
                if "ask_address" not in self.tried:
                    self.tried.add("ask_address")
                    return AgentAction.say("Sure! What's the new address?")
            else:
                l1, city, st, zp = self.facts.address
                options.append(("change_shipping_address", {"order_id": oid, "line1": l1, "city": city, "state": st, "zip": zp}))
        elif intent in ("human", "legal"):
            options.append((
                "escalate_to_human",
                {"customer_id": o["customer_id"], "reason": "customer_request", "summary": "Customer wants a person.", "order_id": oid},
            ))
        elif intent == "duplicate_charge":
            captured = [c for c in o["charges"] if c["status"] == "captured"]
            if captured:
                options.append(("refund_duplicate_charge", {"charge_id": captured[-1]["charge_id"]}))
        if open_ids:
            options.append(("refund_items", {"order_id": oid, "item_ids": open_ids, "destination": "original_payment", "reason": reason}))
        options.append(("cancel_order", {"order_id": oid}))
        for name, args in options:
            key = f"{name}:{json.dumps(args, sort_keys=True)}"
            if key in self.tried:
                if name in self.results and name not in self.errors:
                    return None  # it worked: stop here
                continue
            self.tried.add(key)
            return AgentAction.call(name, **args)
        return None
