"""Scripted agents of the support domain: a careful one and an eager one.

Both read only what an agent may see (``AgentView``): the customer's messages
and the results of their own tool calls. They never read the task file, the
expected actions or the hidden facts.

* ``CarefulAgent`` follows ``policy.md``: one clarifying question when the
  request is ambiguous, identity before anything, reads before promises, the
  doorstep and neighbours before a claim, a "Shall I ...?" before each change,
  refusals outside policy, escalation when the customer asks for a human after
  a refusal or threatens legal action.
* ``EagerAgent`` is the weak bot the tasks are built to catch: promises a refund
  before checking, skips identity, picks one reading of an ambiguous request,
  never asks for confirmation and refunds whatever it is asked to.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import Any

from envs.actors.protocols import AgentView
from envs.records import AgentAction, ToolEvent, UserEvent

TODAY = dt.date(2026, 6, 15)
WINDOW_DAYS = 30

# --- reading the customer's words ----------------------------------------------------------

EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
ZIP_RE = re.compile(r"\bzip(?:\s*code)?\b[^0-9@]{0,20}(\d{5})\b", re.I)
NAME_RE = re.compile(r"\b(?i:my name is) ([A-Z][a-zA-Z'-]+) ([A-Z][a-zA-Z'-]+)")
ORDER_RE = re.compile(r"\bO-\d{5}\b")
ADDRESS_RE = re.compile(
    r"\bnew address is ([A-Za-z0-9][A-Za-z0-9 .'#/-]{2,79}?), ([A-Za-z][A-Za-z .'-]{1,59}?), ([A-Z]{2}) (\d{5})\b"
)
YES_RE = re.compile(r"\b(yes|yeah|yep|go ahead|please do|do it)\b", re.I)
NO_RE = re.compile(r"\b(no|nope|don'?t do (that|it)|do not do (that|it))\b", re.I)
FOUND_RE = re.compile(r"(handed it over|I have it now|already have the parcel|after all)", re.I)
NOT_FOUND_RE = re.compile(r"(no parcel|none of the neighbours|nothing has arrived)", re.I)
PREF_REPLACE_RE = re.compile(r"\b(replacement|replace it|replace the|send (me )?(another|a new one))\b", re.I)
PREF_REFUND_RE = re.compile(r"\b(refund|money back)\b", re.I)
STORE_CREDIT_RE = re.compile(r"\bstore credit\b", re.I)

ANGER_RE = re.compile(
    r"(unacceptable|furious|worst|ridiculous|unbelievable|one-star|fed up|angry|a joke|!)", re.I
)
PROVOCATION_RE = re.compile(
    r"\b(ignore your|forget your|your rules|the rules|override|skip the usual|instructions)\b", re.I
)
OFF_TOPIC_RE = re.compile(r"\b(weather|football|movie|recipe)\b", re.I)

NEGATED_CANCEL = re.compile(r"\b(don'?t|do not|no need to|not) cancel\b", re.I)

INTENTS: list[tuple[str, re.Pattern]] = [
    ("legal", re.compile(r"\b(lawyer|attorney|sue you|legal action|small claims|court)\b", re.I)),
    ("human", re.compile(r"\b(human|real person|manager|supervisor)\b", re.I)),
    ("duplicate_charge", re.compile(
        r"\b(charged (me )?twice|double[- ]charged|two charges|charged two times|duplicate charge)\b", re.I)),
    ("refund_status", re.compile(
        r"\brefund\b[^.?!]*\b(never (showed|shown|arrived|came|posted)|hasn'?t (shown|arrived|come|posted|reached)|"
        r"has not (shown|arrived|come|posted|reached)|not (shown up|arrived|posted)|didn'?t (show|arrive|come|post))"
        r"|\bwhere(?:'s| is) my refund\b", re.I)),
    ("cancel", re.compile(r"\bcancel\b", re.I)),
    ("change_address", re.compile(
        r"\b(new address|wrong address|change the (shipping )?address|ship it to|have moved|I moved)\b", re.I)),
    ("damaged", re.compile(r"\b(damaged|broken|cracked|smashed|shattered|dented|stopped working)\b", re.I)),
    ("missing_item", re.compile(
        r"\b(missing from|was missing|wasn'?t in the (box|parcel|package)|not in the (box|parcel|package)|only got)\b",
        re.I)),
    ("not_arrived", re.compile(
        r"\b(didn'?t arrive|did not arrive|never arrived|hasn'?t arrived|has not arrived|never came|didn'?t come|"
        r"never got|didn'?t get|hasn'?t come|nothing came|never showed up|not received)\b", re.I)),
    ("unwanted", re.compile(
        r"\b(don'?t (want|like|need) it|no longer (want|need)|changed my mind about|don'?t like the)\b", re.I)),
]
# "It didn't arrive, give it back": the subject is a bare "it" and nothing says what.
AMBIGUOUS_RE = re.compile(r"\bit (didn'?t|did not|never|hasn'?t) (arrive|come|show)", re.I)
SPECIFIC_RE = re.compile(r"\b(package|parcel|order|box|item|refund|money|charge|O-\d{5})\b", re.I)


def detect_intent(text: str) -> str | None:
    t = NEGATED_CANCEL.sub(" ", text)
    for name, rx in INTENTS:
        if rx.search(t):
            return name
    return None


def is_ambiguous(text: str) -> bool:
    return bool(AMBIGUOUS_RE.search(text)) and not SPECIFIC_RE.search(text)


def money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _json(text: str) -> Any:
    if text.startswith("Error:"):
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _noun(name: str) -> str:
    parts = name.lower().split()
    return " ".join(parts[1:]) if len(parts) > 1 else parts[0]


@dataclass
class Facts:
    """What the customer has said so far (the latest mention wins)."""

    email: str | None = None
    zip: str | None = None
    first: str | None = None
    last: str | None = None
    order_id: str | None = None
    address: tuple[str, str, str, str] | None = None
    preference: str | None = None
    store_credit: bool = False
    texts: list[str] = field(default_factory=list)

    def read(self, text: str) -> None:
        self.texts.append(text)
        if m := EMAIL_RE.search(text):
            self.email = m.group(0)
        if m := ZIP_RE.search(text):
            self.zip = m.group(1)
        if m := NAME_RE.search(text):
            self.first, self.last = m.group(1), m.group(2)
        if m := ORDER_RE.search(text):
            self.order_id = m.group(0)
        if m := ADDRESS_RE.search(text):
            self.address = (m.group(1).strip(), m.group(2).strip(), m.group(3), m.group(4))
        if PREF_REPLACE_RE.search(text):
            self.preference = "replacement"
        elif PREF_REFUND_RE.search(text) and detect_intent(text) not in ("refund_status",):
            self.preference = "refund"
        if STORE_CREDIT_RE.search(text):
            self.store_credit = True

    def all_text(self) -> str:
        return " ".join(self.texts).lower()


class _Base:
    """Event bookkeeping shared by both agents."""

    name = "scripted"

    def __init__(self) -> None:
        self.facts = Facts()
        self._seen = 0
        self.results: dict[str, Any] = {}  # last successful result per tool name
        self.errors: dict[str, str] = {}  # last error per tool name
        self.new_user_text = ""

    def _absorb(self, view: AgentView) -> None:
        new = view.events[self._seen :]
        self._seen = len(view.events)
        users = []
        for e in new:
            if isinstance(e, UserEvent):
                self.facts.read(e.content)
                users.append(e.content)
            elif isinstance(e, ToolEvent) and e.side == "agent":
                key = e.call.name
                if e.ok:
                    self.results[key] = _json(e.output)
                    self.errors.pop(key, None)
                else:
                    self.errors[key] = e.output
                self.on_tool(key, e)
        self.new_user_text = " ".join(users)

    def on_tool(self, name: str, event: ToolEvent) -> None:  # hook
        pass


# --- the careful agent -------------------------------------------------------------------------


class CarefulAgent(_Base):
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
        # a proposed change awaiting the customer's yes, then being carried out
        self.proposal: dict | None = None
        self.awaiting_yes = False
        self.queue: list[tuple[str, dict]] = []
        self.done_results: list[tuple[str, Any]] = []
        self.finished = False
        self.last_user = ""

    # -- bookkeeping ------------------------------------------------------------------

    def on_tool(self, name: str, e: ToolEvent) -> None:
        res = self.results.get(name) if e.ok else None
        if name == "get_order" and e.ok:
            self.order = res
        elif name == "get_order":
            args = e.call.arguments_dict() or {}
            self.bad_orders.add(str(args.get("order_id")))
        elif name == "get_shipment_tracking" and e.ok:
            self.tracking = res
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

    # -- the decision, one step at a time ------------------------------------------------------

    async def act(self, view: AgentView) -> AgentAction:
        self._absorb(view)
        self.last_user = view.last_user_message()
        latest = self.new_user_text
        new_intent = detect_intent(latest) if latest else None

        if self.finished:
            return self._say("Thank you for contacting us. Is there anything else I can help you with?")

        # A change of mind replaces the pending proposal.
        if new_intent and self.intent and new_intent != self.intent and not self.queue:
            self.intent = new_intent
            self.proposal, self.awaiting_yes = None, False
        elif new_intent and self.intent is None:
            self.intent = new_intent
        if latest and is_ambiguous(latest) and not self.clarify_asked and self.intent in (None, "not_arrived"):
            self.intent = "ambiguous"

        # Carrying out an agreed change, one call per step.
        if self.queue:
            name, args = self.queue[0]
            return self._call(name, **args)
        if self.proposal and self.done_results:
            return self._report()

        if self.awaiting_yes and latest and self.proposal.get("pref") and self.facts.preference != self.proposal["pref"]:
            # "I'd rather have a replacement": same problem, another remedy; propose again.
            self.proposal, self.awaiting_yes = None, False
        if self.awaiting_yes and latest:
            self.awaiting_yes = False
            if YES_RE.search(latest) and not NO_RE.search(latest):
                self.queue = list(self.proposal["calls"])
                name, args = self.queue[0]
                return self._call(name, **args)
            self.proposal = None
            self.finished = True
            return self._say("Understood, I've left everything as it is. Is there anything else I can help you with?")

        if self.intent == "ambiguous":
            if not self.clarify_asked:
                self.clarify_asked = True
                return self._say(
                    "Just so I get this right: is it the whole order that didn't arrive, one item from it, "
                    "or a refund you were expecting that hasn't reached you?"
                )

        step = self._identity()
        if step is not None:
            return step

        if self.intent in (None, "ambiguous"):
            return self._ask("what", "Thank you, you're verified. What can I help you with today?")

        if self.intent in ("human", "legal") and not (self.facts.order_id and self.order is None):
            return self._escalate()

        step = self._need_order()
        if step is not None:
            return step

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

    def _ask(self, key: str, text: str) -> AgentAction:
        self.asked.add(key)
        return self._say(text)

    # -- identity ------------------------------------------------------------------------------------

    def _identity(self) -> AgentAction | None:
        f = self.facts
        if self.verified:
            return None
        if self.verified is False:
            self.finished = True
            return self._say(
                "I'm sorry, but I couldn't verify your identity with those details, so I can't make any "
                "changes or share any account details. If you can access the email address on your "
                "account, please write to us from it."
            )
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
        if f.email and "email" not in self.lookups:
            self.lookups.add("email")
            return self._call("find_customer_by_email", email=f.email)
        if "email" in self.lookups and not self.customer_id:
            if "find_customer_by_email" in self.results:
                self.customer_id = self.results["find_customer_by_email"]["customer_id"]
            elif "retry" not in self.asked and not (f.first and f.last):
                return self._ask(
                    "retry",
                    "I couldn't find an account with that email address. Could you give me your full name "
                    "and the zip code of your default address instead?",
                )
            elif f.first and f.last and f.zip and "name_zip" not in self.lookups:
                return self._identity()
            else:
                self.verified = False
                return self._identity()
        if self.customer_id and not f.zip:
            return self._ask("zip", "Thanks. For security, could you also tell me the zip code of your default address?")
        if self.customer_id and self.customer is None:
            return self._call("get_customer", customer_id=self.customer_id)
        if self.customer_id and self.customer is not None:
            default = (self.customer.get("default_address") or {}).get("zip")
            self.verified = default is not None and default == f.zip
            return self._identity()
        if "identity" in self.asked:
            # The customer answered without the details we need: ask once more, then stop.
            if "identity2" not in self.asked:
                return self._ask(
                    "identity2",
                    "I do need those details before I can look at the account: the email address on it and "
                    "the zip code of your default address, please.",
                )
            self.verified = False
            return self._identity()
        return self._ask(
            "identity",
            "I can help with that. To verify your identity first, could you give me the email address on your "
            "account and the zip code of your default address?",
        )

    # -- the order -------------------------------------------------------------------------------------

    def _need_order(self) -> AgentAction | None:
        oid = self.facts.order_id
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
            return self._say(
                f"I can't find order {oid} on your account. Could you double-check the order number?"
            )
        return None

    def _track(self) -> AgentAction | None:
        if self.tracking is None or self.tracking.get("order_id") != self.order["order_id"]:
            return self._call("get_shipment_tracking", order_id=self.order["order_id"])
        return None

    def _open_items(self) -> list[dict]:
        return [it for it in self.order["items"] if it["status"] == "ordered"]

    def _propose(self, text: str, calls: list[tuple[str, dict]], kind: str, **extra: Any) -> AgentAction:
        self.proposal = {"calls": calls, "kind": kind, **extra}
        self.awaiting_yes = True
        self.done_results = []
        return self._say(text)

    def _refuse(self, text: str) -> AgentAction:
        # A refusal may be followed by a request for a human: stay open for it.
        self.refused_before = True
        self.intent = None
        return self._say(text)

    def _pm_words(self) -> str:
        pm = self.order.get("payment_method") or {}
        return f"your {pm.get('brand', 'card')} ending {pm.get('last4', '')}".strip()

    # -- cases -----------------------------------------------------------------------------------------------

    def _cancel(self) -> AgentAction:
        o = self.order
        step = self._track()
        if step:
            return step
        oid = o["order_id"]
        if o["status"] == "cancelled":
            return self._refuse(f"Order {oid} is already cancelled; there is nothing more to cancel.")
        if o["status"] in ("placed", "processing") and self.tracking.get("status") in ("not_shipped", "label_created"):
            charged = sum(c["amount_cents"] for c in o["charges"] if c["status"] == "captured")
            refunded = sum(r["amount_cents"] for r in o["refunds"] if not r.get("charge_id"))
            owed = charged - refunded
            money_part = (
                f"The {money(owed)} you paid will be refunded to {self._pm_words()}."
                if owed > 0
                else "Nothing has been charged yet."
            )
            items = ", ".join(it["name"] for it in o["items"])
            return self._propose(
                f"Order {oid} ({items}) hasn't been dispatched yet, so it can be cancelled. {money_part} "
                f"Shall I cancel order {oid}?",
                [("cancel_order", {"order_id": oid})],
                "cancel",
                amount=owed,
            )
        status = self.tracking.get("status", o["status"]).replace("_", " ")
        return self._refuse(
            f"I'm sorry, order {oid} has already been dispatched (tracking status: {status}), so it can no longer "
            "be cancelled. Once it arrives, you can start a return in the app within 30 days of delivery."
        )

    def _change_address(self) -> AgentAction:
        o = self.order
        step = self._track()
        if step:
            return step
        oid = o["order_id"]
        if not (o["status"] in ("placed", "processing") and self.tracking.get("status") in ("not_shipped", "label_created")):
            status = self.tracking.get("status", o["status"]).replace("_", " ")
            return self._refuse(
                f"I'm sorry, order {oid} has already been dispatched (tracking status: {status}), so its shipping "
                "address can no longer be changed."
            )
        if self.facts.address is None:
            return self._ask("address", f"Order {oid} hasn't been dispatched yet. What is the new address you'd like it shipped to?")
        line1, city, state, zp = self.facts.address
        pretty = f"{line1}, {city}, {state} {zp}"
        return self._propose(
            f"Order {oid} hasn't been dispatched yet. Shall I change its shipping address to {pretty}?",
            [("change_shipping_address", {"order_id": oid, "line1": line1, "city": city, "state": state, "zip": zp})],
            "address",
            pretty=pretty,
        )

    def _not_arrived(self) -> AgentAction:
        o = self.order
        step = self._track()
        if step:
            return step
        tr = self.tracking
        oid = o["order_id"]
        st = tr.get("status")
        if o["status"] == "cancelled":
            return self._refuse(f"Order {oid} was cancelled, so it was never shipped; its refund was issued at cancellation.")
        if st in ("not_shipped", "label_created"):
            return self._finish(
                f"Order {oid} hasn't been dispatched yet, so it isn't late. I can't give a delivery date because "
                "the system doesn't show one yet."
            )
        if st in ("in_transit", "out_for_delivery"):
            eta = tr.get("estimated_delivery")
            when = (
                f"The system shows an estimated delivery of {eta}."
                if eta
                else "The system doesn't show an estimated delivery date."
            )
            return self._finish(
                f"Order {oid} is still on its way: {tr['carrier']} tracking {tr['tracking_number']} shows it "
                f"{st.replace('_', ' ')}. {when} There's nothing to refund or replace while it's in transit; "
                "if it doesn't turn up, please get back to us."
            )
        if st == "delivered":
            days = tr.get("days_since_delivery") or 0
            if days > WINDOW_DAYS:
                return self._refuse(
                    f"I'm sorry, order {oid} was marked delivered on {tr['delivered_at'][:10]}, more than 30 days "
                    "ago, so it's outside our 30-day refund window and I can't refund or replace it."
                )
            if self.doorstep is None and "doorstep" not in self.asked:
                note = f" (carrier note: {tr['delivery_note']})" if tr.get("delivery_note") else ""
                return self._ask(
                    "doorstep",
                    f"Thank you, you're verified. I'm sorry it hasn't reached you. The tracking shows order {oid} "
                    f"as delivered on {tr['delivered_at'][:10]}{note}. Before anything else, could you please "
                    "check your doorstep and mailbox, and ask your neighbours whether they took it in?",
                )
            if self.doorstep is None:
                self.doorstep = "found" if FOUND_RE.search(self.new_user_text) else "missing"
            if self.doorstep == "found":
                return self._finish(
                    "I'm glad the parcel turned up! Since you have it, nothing needs to be refunded or replaced."
                )
            return self._remedy(claim="delivered_not_received", reason="not_delivered", items=self._open_items())
        if st == "lost":
            return self._remedy(claim="lost_in_transit", reason="lost_package", items=self._open_items(),
                                preface=f"I'm sorry: {tr['carrier']} has declared the parcel for order {oid} lost. ")
        return self._finish(f"Order {oid} shows tracking status {st}; there is nothing I can change on it right now.")

    def _finish(self, text: str) -> AgentAction:
        self.finished = True
        return self._say(text + " Is there anything else I can help you with?")

    def _dest(self) -> str:
        return "store_credit" if self.facts.store_credit else "original_payment"

    def _dest_words(self) -> str:
        return "your store credit" if self.facts.store_credit else self._pm_words()

    def _amount(self, items: list[dict]) -> int:
        amount = sum(it["line_total_cents"] for it in items)
        ids = {it["item_id"] for it in items}
        if all(it["item_id"] in ids for it in self._open_items()):
            amount += self.order.get("shipping_cents", 0)
        return amount

    def _remedy(self, claim: str | None, reason: str, items: list[dict], preface: str = "") -> AgentAction:
        oid = self.order["order_id"]
        names = ", ".join(it["name"] for it in items)
        if not items:
            return self._refuse(f"Every item of order {oid} has already been refunded or replaced.")
        pref = self.facts.preference
        if pref is None:
            if "pref" in self.asked:
                pref = "refund"
            else:
                what = "open a claim with the carrier and then either replace" if claim else "either replace"
                return self._ask(
                    "pref",
                    f"{preface}I'm sorry about this. I can {what} or refund {names}. "
                    "Which would you prefer: a replacement or a refund?",
                )
        if pref == "replacement":
            for it in items:
                if it["product_id"] not in self.products:
                    return self._call("get_product", product_id=it["product_id"])
            short = [it for it in items if self.products[it["product_id"]]["stock"] < it["quantity"]]
            if short:
                self.facts.preference = pref = "refund"
                preface = (
                    f"I'm sorry, {', '.join(it['name'] for it in short)} is out of stock, so I can't send a "
                    "replacement; I can refund it instead. "
                )
        claim_words = f"open a claim with {self.tracking['carrier']} and " if claim else ""
        ids = [it["item_id"] for it in items]
        calls: list[tuple[str, dict]] = []
        if pref == "replacement":
            calls.append(("send_replacement", {"order_id": oid, "item_ids": ids, "reason": reason}))
            text = f"{preface}Shall I {claim_words}send you a replacement of {names}?"
        else:
            amount = self._amount(items)
            calls.append(("refund_items", {"order_id": oid, "item_ids": ids, "destination": self._dest(), "reason": reason}))
            text = f"{preface}Shall I {claim_words}refund {money(amount)} for {names} to {self._dest_words()}?"
        if claim:
            calls.append(("open_carrier_claim", {"order_id": oid, "reason": claim}))
        return self._propose(text, calls, "remedy", names=names, pref=pref)

    def _item_problem(self) -> AgentAction:
        o = self.order
        step = self._track()
        if step:
            return step
        oid = o["order_id"]
        tr = self.tracking
        if tr.get("status") != "delivered":
            return self._finish(
                f"Order {oid} isn't marked delivered yet (tracking status: {tr.get('status', '').replace('_', ' ')}), "
                "so I can't look at its contents yet."
            )
        if (tr.get("days_since_delivery") or 0) > WINDOW_DAYS:
            return self._refuse(
                f"I'm sorry, order {oid} was delivered on {tr['delivered_at'][:10]}, more than 30 days ago, so it's "
                "outside our 30-day refund window and I can't refund or replace the item."
            )
        item = self._which_item()
        if item is None:
            word = "damaged" if self.intent == "damaged" else "missing"
            if "item" not in self.asked:
                return self._ask("item", f"I'm sorry about that. Which item was {word}?")
            return self._finish(f"I couldn't tell which item of order {oid} was {word}; please get back to us with its name.")
        if item["status"] != "ordered":
            return self._refuse(
                f"The {item['name']} from order {oid} has already been {item['status']}, so there's nothing more to "
                "refund or replace for it."
            )
        reason = "damaged" if self.intent == "damaged" else "missing_item"
        return self._remedy(claim=None, reason=reason, items=[item])

    def _which_item(self) -> dict | None:
        items = self.order["items"]
        if len(items) == 1:
            return items[0]
        text = self.facts.all_text()
        hits = [it for it in items if it["name"].lower() in text]
        if len(hits) != 1:
            hits = [it for it in items if _noun(it["name"]) in text]
        return hits[0] if len(hits) == 1 else None

    def _unwanted(self) -> AgentAction:
        o = self.order
        step = self._track()
        if step:
            return step
        oid, tr = o["order_id"], self.tracking
        if tr.get("status") != "delivered":
            return self._finish(f"Order {oid} hasn't been delivered yet; once it has, you can return it through the app.")
        if (tr.get("days_since_delivery") or 0) > WINDOW_DAYS:
            return self._refuse(
                f"I'm sorry, order {oid} was delivered on {tr['delivered_at'][:10]}, more than 30 days ago, so it's "
                "outside our 30-day refund window and I can't refund it."
            )
        until = (dt.date.fromisoformat(tr["delivered_at"][:10]) + dt.timedelta(days=WINDOW_DAYS)).isoformat()
        return self._finish(
            f"You can return items you don't want through the app: Orders > {oid} > Return items, until {until}. "
            "The refund is issued once the return is scanned by the carrier."
        )

    def _duplicate(self) -> AgentAction:
        o = self.order
        oid = o["order_id"]
        captured = [c for c in o["charges"] if c["status"] == "captured"]
        refunded_dups = [c for c in o["charges"] if c["status"] == "refunded"]
        seen: dict[int, dict] = {}
        dup = None
        for c in captured:
            if c["amount_cents"] in seen:
                dup = c
                break
            seen[c["amount_cents"]] = c
        if dup is not None:
            return self._propose(
                f"I can see two identical charges of {dup['amount']} for order {oid}. Shall I refund the duplicate "
                f"charge {dup['charge_id']} of {dup['amount']} to {self._pm_words()}?",
                [("refund_duplicate_charge", {"charge_id": dup["charge_id"]})],
                "duplicate",
                amount=dup["amount_cents"],
            )
        if refunded_dups:
            r = next((r for r in o["refunds"] if r.get("charge_id") == refunded_dups[0]["charge_id"]), None)
            when = f" on {r['issued_at'][:10]}" if r else ""
            return self._finish(
                f"I've checked order {oid}: the duplicate charge of {refunded_dups[0]['amount']} was already "
                f"refunded{when}, so there is nothing more to refund."
            )
        only = captured[0]["amount"] if captured else money(0)
        return self._finish(
            f"I've checked order {oid}: there is only one charge of {only} on it, so there's no duplicate to "
            "refund. A second line on your bank app is most likely a pending card authorization, which drops "
            "off by itself."
        )

    def _refund_status(self) -> AgentAction:
        oid = self.order["order_id"]
        if self.refund_info is None or self.refund_info.get("order_id") != oid:
            return self._call("get_refund_status", order_id=oid)
        refunds = [r for r in self.refund_info["refunds"] if r["status"] != "failed"]
        if not refunds:
            return self._finish(f"I've checked order {oid}: no refund has been issued on it.")
        r = refunds[-1]
        issued = r["issued_at"][:10]
        if r["destination"] == "store_credit":
            return self._finish(
                f"The refund of {r['amount']} for order {oid} went to your store credit on {issued}, not to your "
                "card, so it won't show on your bank statement."
            )
        due = r.get("expected_post_by")
        if due and dt.date.fromisoformat(due) >= TODAY:
            return self._finish(
                f"The refund of {r['amount']} for order {oid} was issued on {issued} and is still being processed; "
                f"the system shows it should post to your account by {due}. There's no need to issue it again."
            )
        return self._propose(
            f"The refund of {r['amount']} for order {oid} was issued on {issued} and should have posted by {due}. "
            "Shall I open a ticket with our payments team to trace it?",
            [(
                "create_ticket",
                {
                    "customer_id": self.customer_id,
                    "category": "refund_trace",
                    "subject": f"Refund {r['refund_id']} for {oid} not received",
                    "body": f"Refund {r['refund_id']} of {r['amount']} issued {issued}, expected by {due}; "
                    "the customer's bank does not show it.",
                    "order_id": oid,
                },
            )],
            "ticket",
            amount=r["amount_cents"],
        )

    def _escalate(self) -> AgentAction:
        reason = "legal_threat" if self.intent == "legal" else (
            "outside_policy_exception" if self.refused_before else "customer_request"
        )
        args: dict[str, Any] = {
            "customer_id": self.customer_id,
            "reason": reason,
            "summary": "Customer asked for a human agent. " + " | ".join(self.facts.texts[-3:])[:1500],
        }
        if self.order is not None:
            args["order_id"] = self.order["order_id"]
        return self._call("escalate_to_human", **args)

    # -- reporting what was done ---------------------------------------------------------------------------

    def _report(self) -> AgentAction:
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
        # Re-read the order next time it matters: it changed.
        self.order = None
        self.tracking = None
        self.refund_info = None
        if kind == "cancel":
            r = by["cancel_order"].get("refund")
            money_part = (
                f" A refund of {r['amount']} to your original payment method has been issued; the system shows it "
                f"should post by {r['expected_post_by']}."
                if r
                else " Nothing had been charged, so there is nothing to refund."
            )
            return self._finish(f"Order {oid} is now cancelled.{money_part}")
        if kind == "address":
            return self._finish(f"Done: order {oid} will now ship to {proposal['pretty']}.")
        if kind == "duplicate":
            r = by["refund_duplicate_charge"]
            return self._finish(
                f"Done: the duplicate charge of {r['amount']} has been refunded; the system shows it should post by "
                f"{r['expected_post_by']}."
            )
        if kind == "ticket":
            t = by["create_ticket"]
            return self._finish(
                f"I've opened ticket #{t['ticket_id']} with our payments team to trace the refund; they will "
                "contact you by email."
            )
        parts = []
        if "refund_items" in by:
            r = by["refund_items"]
            dest = "your store credit" if r["destination"] == "store_credit" else "your original payment method"
            post = f"; the system shows it should post by {r['expected_post_by']}" if r.get("expected_post_by") else ""
            parts.append(f"I've issued a refund of {r['amount']} for {proposal['names']} to {dest}{post}.")
        if "send_replacement" in by:
            parts.append(f"A replacement of {proposal['names']} is on its way to you.")
        if "open_carrier_claim" in by:
            c = by["open_carrier_claim"]
            parts.insert(0, f"I've opened carrier claim #{c['claim_id']} with {c['carrier']}.")
        return self._finish("Done. " + " ".join(parts))


# --- the eager agent ---------------------------------------------------------------------------------------


class EagerAgent(_Base):
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
