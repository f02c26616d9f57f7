"""The careful scripted support agent: follows ``policy.md`` step by step.

One clarifying question when the request is ambiguous, identity before
anything, reads before promises, the doorstep and neighbours before a claim, a
"Shall I ...?" before each change, refusals outside policy, escalation when the
customer asks for a human after a refusal or threatens legal action. It reads
only its ``AgentView``: the customer's messages and its own tool results.

Each step of ``act`` is a named method that returns an action or None (pass
on): carry out an agreed change, take the customer's yes or no, clarify,
identify the customer, ask what it is about, escalate, find the order, then
the case handler for the intent (in ``careful_cases``), and report what was done.
The module is long because the policy's steps are one sequence and read best in one place.
"""

from __future__ import annotations

from typing import Any

from envs.actors.protocols import AgentView
from envs.records import AgentAction, ToolEvent

from .base import ScriptedAgentBase, first_step
from .careful_cases import TODAY, CarefulCases
from .reading import (ADDRESS_RE, ANGER_RE, INTENTS, ORDER_RE, NO_RE, OFF_TOPIC_RE, PREF_REPLACE_RE, PROVOCATION_RE, YES_RE, Facts, days_named,
                      detect_intent, is_ambiguous, item_noun, money)

_PROBLEM_RX = [(name, rx) for name, rx in INTENTS if name in ("damaged", "missing_item", "not_arrived")]


def intent_of(text: str) -> str | None:
    """``detect_intent``, but a replacement asked for an item's trouble by a customer who has moved ("it
    arrived broken; I've moved, so send the replacement to ...") is that trouble, not an address change."""
    intent = detect_intent(text)
    if intent == "change_address" and PREF_REPLACE_RE.search(text):
        return next((name for name, rx in _PROBLEM_RX if rx.search(text)), intent)
    return intent


class CarefulAgent(CarefulCases, ScriptedAgentBase):
    """Follows the support policy step by step (see the module docstring)."""

    name = "careful"

    def __init__(self) -> None:
        super().__init__()
        self.intent: str | None = None
        self.clarify_asked = False
        self.refused_before = False
        # identity
        self.customer_id: str | None = None
        self.customer: dict | None = None
        self.verified: bool | None = None
        self.lookups: set[str] = set()
        self.asked: set[str] = set()
        # order under discussion
        self.order: dict | None = None
        self.tracking: dict | None = None
        self.refund_info: dict | None = None
        self.products: dict[str, dict] = {}
        self.doorstep: str | None = None  # found | missing
        self.bad_orders: set[str] = set()
        self.doubted: str | None = None  # an order read that is not on the verified account, number asked again
        # a proposed change awaiting the customer's yes, then being carried out
        self.proposal: dict | None = None
        self.awaiting_yes = False
        self.queue: list[tuple[str, dict]] = []
        self.done_results: list[tuple[str, Any]] = []
        self.finished = False
        self.last_user = ""
        self.request_from = 0  # index in facts.texts where the request in hand was raised
        self.last_done: dict | None = None  # the remedy last carried out (a change of mind after it changes nothing)
        self.unit_counts: dict[int, int] = {}  # item id -> units of that line the customer named (part of a line)
        # every order and tracking read for the request in hand, by order id (a total across orders)
        self.seen_orders: dict[str, dict] = {}
        self.seen_tracks: dict[str, dict] = {}
        self.orders_read: dict[str, dict] = {}  # every order read in this conversation, by id (its latest read)

    # -- bookkeeping ------------------------------------------------------------------

    def on_tool(self, name: str, e: ToolEvent) -> None:
        res = self.results.get(name) if e.ok else None
        if name == "get_order" and e.ok:
            self.order = self.seen_orders[res["order_id"]] = res
            self.orders_read[res["order_id"]] = res
        elif name == "get_order":
            args = e.call.arguments_dict() or {}
            self.bad_orders.add(str(args.get("order_id")))
        elif name == "get_shipment_tracking" and e.ok:
            self.tracking = self.seen_tracks[res["order_id"]] = res
        elif name == "get_refund_status" and e.ok:
            self.refund_info = res
        elif name == "get_product" and e.ok:
            self.products[res["product_id"]] = res
        elif name == "get_customer" and e.ok:
            self.customer = res
        if self.queue and name == self.queue[0][0]:
            self.queue.pop(0)
            self.done_results.append((name, res if e.ok else e.output))
            if not e.ok:
                self.queue = []

    # -- speaking ---------------------------------------------------------------------

    def _say(self, text: str) -> AgentAction:
        lead = []
        last = self.last_user  # the message this reply answers (tool steps may come in between)
        if ANGER_RE.search(last):
            lead.append("I'm sorry for the trouble, and I understand how frustrating this is.")
        if PROVOCATION_RE.search(last):
            lead.append("I understand, but I have to follow our support policy; it protects your account.")
        if OFF_TOPIC_RE.search(last):
            lead.append("Happy to chat another time; let's get back to your request.")
        return AgentAction.say(" ".join(lead + [text]))

    @staticmethod
    def _call(name: str, **args: Any) -> AgentAction:
        return AgentAction.call(name, **args)

    def _ask(self, key: str, text: str) -> AgentAction:
        """Say ``text`` and remember that question ``key`` was asked."""
        self.asked.add(key)
        return self._say(text)

    def _propose(self, text: str, calls: list[tuple[str, dict]], kind: str, **extra: Any) -> AgentAction:
        """Ask "Shall I ...?" and hold ``calls`` until the customer agrees."""
        self.proposal = {"calls": calls, "kind": kind, **extra}
        self.awaiting_yes = True
        self.done_results = []
        return self._say(text)

    def _refuse(self, text: str) -> AgentAction:
        # A refusal may be followed by a request for a human: stay open for it.
        self.refused_before = True
        self.intent = None
        return self._say(text)

    def _finish(self, text: str) -> AgentAction:
        self.finished = True
        return self._say(text + " Is there anything else I can help you with?")

    # -- the decision, one step at a time ------------------------------------------------------

    async def act(self, view: AgentView) -> AgentAction:
        self._absorb(view)
        self.last_user = view.last_user_message()
        latest = self.new_user_text
        new_request = intent_of(latest) if latest else None
        if new_request and not self.queue and not self.awaiting_yes and (self.finished or self.intent is None) and self.verified:
            # the last request is dealt with (done, or refused) and the customer raises another
            self._start_request(new_request, latest)
        if self.finished and latest and not new_request and (done := self._done_already(latest)):
            return done
        if self.finished:
            return self._say("Thank you for contacting us. Is there anything else I can help you with?")
        self._update_intent(latest)
        step = first_step(
            self._carry_out,
            lambda: self._confirm(latest),
            self._clarify,
            self._identity,
            self._ask_what,
            self._escalate_now,
            self._orders_total,
            self._need_order,
        )
        return step if step is not None else self._handle_case()

    def _done_already(self, latest: str) -> AgentAction | None:
        """Another remedy asked for after one was issued: the policy keeps what was done, and says so."""
        last = self.last_done
        fresh = Facts()
        fresh.read(latest)
        if not last or last["kind"] != "remedy" or not fresh.preference or fresh.preference == last["pref"]:
            return None
        self.last_done = None  # said once
        done = "refund" if last["pref"] == "refund" else "replacement"
        return self._say(
            f"I'm sorry, but the {done} for {last['names']} on order {last['oid']} has already been issued, and once "
            f"a {done} has been issued it can't be swapped for a {fresh.preference}. I've left it as it is. "
            "Is there anything else I can help you with?"
        )

    def _start_request(self, intent: str, latest: str) -> None:
        """A further request in the same conversation: the customer stays verified, everything about
        the last request (its order, questions, proposal, preference) is set aside."""
        self.refused_before = self.refused_before and intent in ("human", "legal")  # a human after a refusal
        self.intent, self.finished = intent, False
        self.order = self.tracking = self.refund_info = None
        self.doorstep = None
        self.proposal, self.awaiting_yes, self.done_results = None, False, []
        self.asked -= {"order", "order2", "item", "units", "pref", "address", "doorstep", "what", "ship_to"}
        self.unit_counts = {}
        self.seen_orders, self.seen_tracks = {}, {}
        fresh = Facts()
        fresh.read(latest)
        self.facts.preference = fresh.preference  # a remedy chosen for the last request is not this one's
        self.request_from = max(0, len(self.facts.texts) - 1)
        if fresh.order_id is None and (oid := self._order_of_items_named(latest)):
            # "back to the mugs from before": no number, but an item of one order read earlier names it
            self.facts.order_id = oid

    def _order_of_items_named(self, text: str) -> str | None:
        """The one order read in this conversation holding an item ``text`` names (by its name or its
        noun, "the mugs"); None when no order, or more than one, holds such an item."""
        low = text.lower()
        hits = {oid for oid, o in self.orders_read.items()
                if any(it["name"].lower() in low or item_noun(it["name"]) in low for it in o.get("items", []))}
        return hits.pop() if len(hits) == 1 else None

    def _update_intent(self, latest: str) -> None:
        """Take the intent of the customer's new messages; a change of mind replaces the pending proposal."""
        new_intent = intent_of(latest) if latest else None
        if new_intent == "change_address" and "ship_to" in self.asked and not (ADDRESS_RE.search(latest) or ORDER_RE.search(latest)):
            new_intent = None  # "if it has to go to the old place, a refund": the answer to where a replacement ships
        if new_intent and self.intent and new_intent != self.intent and not self.queue:
            self.intent = new_intent
            self.proposal, self.awaiting_yes = None, False
        elif new_intent and self.intent is None:
            self.intent = new_intent
        if latest and is_ambiguous(latest) and not self.clarify_asked and self.intent in (None, "not_arrived"):
            self.intent = "ambiguous"

    def _carry_out(self) -> AgentAction | None:
        """Carry out an agreed change, one call per step, then report it."""
        if self.queue:
            name, args = self.queue[0]
            return self._call(name, **args)
        if self.proposal and self.done_results:
            return self._report()
        return None

    def _confirm(self, latest: str) -> AgentAction | None:
        """The customer's answer to "Shall I ...?": yes starts the calls, anything else leaves things as they are."""
        if self.awaiting_yes and latest and self.proposal.get("pref") and self.facts.preference != self.proposal["pref"]:
            # "I'd rather have a replacement": same problem, another remedy; propose again.
            self.proposal, self.awaiting_yes = None, False
        if not (self.awaiting_yes and latest):
            return None
        self.awaiting_yes = False
        if YES_RE.search(latest) and not NO_RE.search(latest):
            self.queue = list(self.proposal["calls"])
            name, args = self.queue[0]
            return self._call(name, **args)
        self.proposal = None
        self.finished = True
        return self._say("Understood, I've left everything as it is. Is there anything else I can help you with?")

    def _clarify(self) -> AgentAction | None:
        """One question when the request is ambiguous, asked once."""
        if self.intent == "ambiguous" and not self.clarify_asked:
            self.clarify_asked = True
            return self._say(
                "Just so I get this right: is it the whole order that didn't arrive, one item from it, "
                "or a refund you were expecting that hasn't reached you?"
            )
        return None

    def _ask_what(self) -> AgentAction | None:
        if self.intent in (None, "ambiguous"):
            return self._ask("what", "Thank you, you're verified. What can I help you with today?")
        return None

    def _escalate_now(self) -> AgentAction | None:
        """A human or a lawyer asked for: escalate at once, unless an order was named and not read yet."""
        if self.intent in ("human", "legal") and not (self.facts.order_id and self.order is None):
            return self._escalate()
        return None

    def _handle_case(self) -> AgentAction:
        handler = {
            "cancel": self._cancel,
            "change_address": self._change_address,
            "not_arrived": self._not_arrived,
            "missing_item": self._item_problem,
            "damaged": self._item_problem,
            "unwanted": self._unwanted,
            "duplicate_charge": self._duplicate,
            "refund_status": self._refund_status,
            "human": self._escalate,
            "legal": self._escalate,
        }[self.intent]
        return handler()

    # -- identify the customer ------------------------------------------------------------------------

    def _identity(self) -> AgentAction | None:
        """None once the customer is verified; else the next lookup or question (or the refusal)."""
        if self.verified:
            return None
        if self.verified is False:
            self.finished = True
            return self._say(
                "I'm sorry, but I couldn't verify your identity with those details, so I can't make any "
                "changes or share any account details. If you can access the email address on your "
                "account, please write to us from it."
            )
        for step in (self._by_name_zip, self._by_email, self._match_zip, self._ask_identity):
            action = step()
            # A step that settles the check re-enters _identity; once verified, that gives None: stop there.
            if action is not None or self.verified:
                return action
        return None

    def _by_name_zip(self) -> AgentAction | None:
        """Look the customer up by full name and zip; that match verifies them."""
        f = self.facts
        if f.first and f.last and f.zip and "name_zip" not in self.lookups:
            self.lookups.add("name_zip")
            return self._call("find_customer_by_name_zip", first_name=f.first, last_name=f.last, zip=f.zip)
        if "name_zip" in self.lookups and "find_customer_by_name_zip" in self.results and not self.customer_id:
            self.customer_id = self.results["find_customer_by_name_zip"]["customer_id"]
            self.verified = True
            return self._call("get_customer", customer_id=self.customer_id)
        if "name_zip" in self.lookups and "find_customer_by_name_zip" in self.errors and not self.customer_id:
            if not (f.email and "email" not in self.lookups):
                self.verified = False
                return self._identity()
        return None

    def _by_email(self) -> AgentAction | None:
        """Look the customer up by email; on no match, ask once for name and zip instead."""
        f = self.facts
        if f.email and "email" not in self.lookups:
            self.lookups.add("email")
            return self._call("find_customer_by_email", email=f.email)
        if "email" in self.lookups and not self.customer_id:
            if "find_customer_by_email" in self.results:
                self.customer_id = self.results["find_customer_by_email"]["customer_id"]
            elif "retry" not in self.asked and not (f.first and f.last):
                return self._ask(
                    "retry",
                    # never which detail was wrong (policy section 1): "those details", not "that email"
                    "I couldn't verify your identity with those details. Could you give me your full name "
                    "and the zip code of your default address instead?",
                )
            elif f.first and f.last and f.zip and "name_zip" not in self.lookups:
                return self._identity()
            else:
                self.verified = False
                return self._identity()
        return None

    def _match_zip(self) -> AgentAction | None:
        """An account found by email is verified when the zip given matches its default address."""
        f = self.facts
        if self.customer_id and not f.zip:
            return self._ask("zip", "Thanks. For security, could you also tell me the zip code of your default address?")
        if self.customer_id and self.customer is None:
            return self._call("get_customer", customer_id=self.customer_id)
        if self.customer_id and self.customer is not None:
            default = (self.customer.get("default_address") or {}).get("zip")
            self.verified = default is not None and default == f.zip
            return self._identity()
        return None

    def _ask_identity(self) -> AgentAction:
        if "identity" in self.asked:
            # The customer answered without the details we need: ask once more, then stop.
            if "identity2" not in self.asked:
                return self._ask(
                    "identity2",
                    "I do need those details before I can look at the account: the email address on it and "
                    "the zip code of your default address, please. If you can't use that email, your first and "
                    "last name with that zip code will do instead.",
                )
            self.verified = False
            return self._identity()
        return self._ask(
            "identity",
            "I can help with that. To verify your identity first, could you give me the email address on your "
            "account and the zip code of your default address?",
        )

    # -- find the order -------------------------------------------------------------------------------

    def _need_order(self) -> AgentAction | None:
        """None once the order the customer named is read and is theirs; else ask for it or read it."""
        oid = self.facts.order_id
        if oid is None and (step := self._order_from_description()) is not None:
            return step
        oid = self.facts.order_id
        if self.doubted and oid in (None, self.doubted):
            # asked to check the number of an order that is not theirs, they name no other order (or the
            # same one again): it is another account's, so it is neither changed nor described
            gone, self.doubted = self.doubted, None
            self.facts.order_id = None
            return self._refuse(
                f"I'm sorry, but order {gone} isn't on the account you've verified, so I can't make any changes to it "
                "or share its details. If it was placed on someone else's account, the account holder would need to "
                "contact us themselves."
            )
        self.doubted = None
        if oid is None:
            if "order" not in self.asked:
                return self._ask("order", "Thank you, you're verified. Could you tell me the order number of the order this is about?")
            if "order2" not in self.asked:
                return self._ask("order2", "I'll need the order number to look into this; it starts with O- and is in your confirmation email.")
            self.finished = True
            return self._say("Without the order number I can't look into this order, I'm afraid. Please get back to us once you have it.")
        if self.order is None or self.order.get("order_id") != oid:
            if oid in self.bad_orders:
                self.facts.order_id = None
                self.asked.discard("order")
                return self._say(f"I couldn't find order {oid}. Could you double-check the order number?")
            self.tracking = self.refund_info = None
            self.doorstep = None
            return self._call("get_order", order_id=oid)
        if self.order.get("customer_id") != self.customer_id:
            self.facts.order_id = None
            self.order = None
            self.asked.discard("order")
            self.doubted = oid
            return self._say(
                f"I can't find order {oid} on your account. Could you double-check the order number?"
            )
        return None

    def _order_from_description(self) -> AgentAction | None:
        """No order number, but a product and the day it was ordered ("the lamp I ordered on June 2"):
        the customer's orders are listed, and the one order holding that product placed that day is
        the one meant. None when the description does not settle one order (then the number is asked)."""
        text = " ".join(self.facts.texts[self.request_from:])
        days = days_named(text, TODAY.year)
        if not days:
            return None
        if "list_orders" not in self.results:
            if "list_orders" in self.lookups:
                return None
            self.lookups.add("list_orders")
            return self._call("list_orders", customer_id=self.customer_id)
        low = text.lower()
        hits = [o for o in self.results["list_orders"]
                if (o.get("placed_at") or "")[:10] in days and any(n.lower() in low for n in o.get("items", []))]
        if len(hits) == 1:
            self.facts.order_id = hits[0]["order_id"]
        return None

    # -- report what was done ---------------------------------------------------------------------------

    def _report(self) -> AgentAction:
        """Tell the customer how the agreed change went; the order is read afresh next time."""
        kind = self.proposal["kind"]
        results = self.done_results
        self.done_results = []
        proposal, self.proposal = self.proposal, None
        failed = [out for _, out in results if isinstance(out, str) and out.startswith("Error:")]
        if failed:
            self.finished = True
            return self._say(
                f"I'm sorry, that didn't go through: {failed[0][7:]} I haven't made any other change."
            )
        by = dict(results)
        oid = self.order["order_id"]
        self.last_done = {"kind": kind, "pref": proposal.get("pref"), "names": proposal.get("names"), "oid": oid}
        # Re-read the order next time it matters: it changed.
        self.order = None
        self.tracking = None
        self.refund_info = None
        self.seen_orders, self.seen_tracks = {}, {}
        return self._finish(self._done_words(kind, by, oid, proposal, results))

    @staticmethod
    def _done_words(kind: str, by: dict[str, Any], oid: str, proposal: dict, results: list[tuple[str, Any]]) -> str:
        """What was done, from each call's result (``by`` tool name; ``results`` in the order made)."""
        if kind == "cancel":
            r = by["cancel_order"].get("refund")
            money_part = (
                f" A refund of {r['amount']} to your original payment method has been issued; the system shows it "
                f"should post by {r['expected_post_by']}."
                if r
                else " Nothing had been charged, so there is nothing to refund."
            )
            return f"Order {oid} is now cancelled.{money_part}"
        if kind == "address":
            return f"Done: order {oid} will now ship to {proposal['pretty']}."
        if kind == "duplicate":
            r = by["refund_duplicate_charge"]
            return (
                f"Done: the duplicate charge of {r['amount']} has been refunded; the system shows it should post by "
                f"{r['expected_post_by']}."
            )
        if kind == "ticket":
            t = by["create_ticket"]
            return (
                f"I've opened ticket #{t['ticket_id']} with our payments team to trace the refund; they will "
                "contact you by email."
            )
        parts = []
        refunds = [(args["order_id"], out) for (name, args), (_, out) in zip(proposal["calls"], results)
                   if name == "refund_items"]
        if len({o for o, _ in refunds}) > 1:  # refunds on several orders, their total asked
            r = refunds[-1][1]
            dest = "your store credit" if r["destination"] == "store_credit" else "your original payment method"
            each = ", ".join(f"{out['amount']} on order {o}" for o, out in refunds)
            total = sum(out["amount_cents"] for _, out in refunds)
            post = f"; the system shows they should post by {r['expected_post_by']}" if r.get("expected_post_by") else ""
            parts.append(f"I've issued refunds of {each} ({money(total)} in total) for {proposal['names']} to {dest}{post}.")
        elif "refund_items" in by:
            r = by["refund_items"]
            dest = "your store credit" if r["destination"] == "store_credit" else "your original payment method"
            post = f"; the system shows it should post by {r['expected_post_by']}" if r.get("expected_post_by") else ""
            parts.append(f"I've issued a refund of {r['amount']} for {proposal['names']} to {dest}{post}.")
        if "send_replacement" in by:
            parts.append(f"A replacement of {proposal['names']} is on its way to you.")
        if "open_carrier_claim" in by:
            c = by["open_carrier_claim"]
            parts.insert(0, f"I've opened carrier claim #{c['claim_id']} with {c['carrier']}.")
        return "Done. " + " ".join(parts)
