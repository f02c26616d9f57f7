"""The careful support agent's case handlers, one per intent, and the remedies they propose.

A mixin of ``CarefulAgent`` (``careful.py``), kept apart so each file reads in
one sitting. It relies on the agent's state (``order``, ``tracking``,
``refund_info``, ``products``, ``facts``, ``asked``, ``customer_id``, ...) and
its speaking steps (``_say``, ``_ask``, ``_call``, ``_propose``, ``_refuse``,
``_finish``). Every handler runs once the customer is verified and the order
is read, and returns the next action: a read, a question, a proposal or a
final answer. It is long because each case of the policy's section 3 is one handler
here, and a case's steps (reads, the amount, the proposal) read best together.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from envs.records import AgentAction

from .reading import (ADDRESS_RE, FINE_RE, FOUND_RE, ORDER_RE, OTHER_RE_LOOK, TOTAL_RE, described_lines, found_parcel,
                      item_noun, money, units_named)

TODAY = dt.date(2026, 6, 15)
WINDOW_DAYS = 30


class CarefulCases:
    """The per-intent steps of the careful agent (see the module docstring)."""

    # -- reads and wording shared by the cases ----------------------------------------------------

    def _track(self) -> AgentAction | None:
        if self.tracking is None or self.tracking.get("order_id") != self.order["order_id"]:
            return self._call("get_shipment_tracking", order_id=self.order["order_id"])
        return None

    def _open_items(self) -> list[dict]:
        return [it for it in self.order["items"] if it["status"] == "ordered"]

    @staticmethod
    def _open_units(it: dict) -> int:
        """The units of a line not yet refunded or replaced (``get_order``'s counts)."""
        if it["status"] != "ordered":
            return 0
        return it["quantity"] - it.get("units_refunded", 0) - it.get("units_replaced", 0)

    def _units(self, it: dict) -> int:
        """The units of ``it`` the remedy in hand covers: those the customer named, else every open one."""
        return (getattr(self, "unit_counts", None) or {}).get(it["item_id"], self._open_units(it))

    def _names(self, items: list[dict]) -> str:
        """The items as the proposal names them: "2 of the 4 Desk Lamp" for part of a line."""
        out = []
        for it in items:
            n = self._units(it)
            out.append(it["name"] if n == it["quantity"] else
                       f"the remaining {n} of the {it['name']}" if n == self._open_units(it) else
                       f"{n} of the {it['quantity']} {it['name']}")
        return ", ".join(out)

    def _pm_words(self) -> str:
        pm = self.order.get("payment_method") or {}
        return f"your {pm.get('brand', 'card')} ending {pm.get('last4', '')}".strip()

    def _dest(self) -> str:
        return "store_credit" if self.facts.store_credit else "original_payment"

    def _dest_words(self) -> str:
        return "your store credit" if self.facts.store_credit else self._pm_words()

    def _amount(self, items: list[dict], order: dict | None = None) -> int:
        """Unit price times the units refunded, plus the shipping fee when every open unit of the order
        (``order``, else the one in hand) is."""
        order = order or self.order
        amount = sum(self._units(it) * it["line_total_cents"] // it["quantity"] for it in items)
        return amount + (order.get("shipping_cents", 0) if self._takes_last(items, order) else 0)

    def _takes_last(self, items: list[dict], order: dict) -> bool:
        """Whether refunding ``items`` (their units in hand) leaves nothing of ``order`` open."""
        taking = {it["item_id"]: self._units(it) for it in items}
        return all(taking.get(it["item_id"], 0) == self._open_units(it) for it in order["items"] if it["status"] == "ordered")

    def _parts_names(self, parts: list[tuple[dict, list[dict]]]) -> str:
        """The items of one order as ``_names`` gives them; of several, each with its order."""
        if len(parts) == 1:
            return self._names(parts[0][1])
        return "; ".join(f"{self._names(its)} from order {o['order_id']}" for o, its in parts)

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
            return self._delivered_not_received()
        if st == "lost":
            return self._remedy(claim="lost_in_transit", reason="lost_package", items=self._open_items(),
                                preface=f"I'm sorry: {tr['carrier']} has declared the parcel for order {oid} lost. ")
        return self._finish(f"Order {oid} shows tracking status {st}; there is nothing I can change on it right now.")

    def _delivered_not_received(self) -> AgentAction:
        """Marked delivered but not received: inside the window, the doorstep and neighbours first, then a claim."""
        tr = self.tracking
        oid = self.order["order_id"]
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
            self.doorstep = "found" if found_parcel(self.new_user_text) else "missing"
        if self.doorstep == "found":
            return self._finish(
                "I'm glad the parcel turned up! Since you have it, nothing needs to be refunded or replaced."
            )
        return self._remedy(claim="delivered_not_received", reason="not_delivered", items=self._open_items())

    # -- the remedy: a refund or a replacement, with a carrier claim when the parcel never came ----------

    def _remedy(self, claim: str | None, reason: str, items: list[dict], preface: str = "",
                parts: list[tuple[dict, list[dict]]] | None = None) -> AgentAction:
        """Propose the remedy for ``items``: ask refund-or-replacement once, check stock for a replacement.
        ``parts``: the items of several orders, each with its order, proposed together."""
        oid = self.order["order_id"]
        parts = parts or [(self.order, items)]
        items = [it for _, its in parts for it in its]
        names = self._parts_names(parts)
        if not items:
            return self._refuse(f"Every item of order {oid} has already been refunded or replaced.")
        pref = self.facts.preference
        if pref is None:
            if "pref" in self.asked:
                pref = "refund"
            else:
                what = "open a claim with the carrier and then either replace" if claim else "either replace"
                if len(parts) > 1:  # a total asked across orders: said with the question
                    return self._ask("pref", f"{preface}I'm sorry about this. {self._total_words(parts, ask=False)} "
                                             "Or I can replace them instead. Which would you prefer: a replacement or a refund?")
                return self._ask(
                    "pref",
                    f"{preface}I'm sorry about this. I can {what} or refund {names}. "
                    "Which would you prefer: a replacement or a refund?",
                )
        if pref == "replacement":
            for it in items:
                if it["product_id"] not in self.products:
                    return self._call("get_product", product_id=it["product_id"])
            short = [it for it in items if self.products[it["product_id"]]["stock"] < self._units(it)]
            if short:
                self.facts.preference = pref = "refund"
                left = [(it, self.products[it["product_id"]]["stock"]) for it in short]
                # a replacement covers every unit asked for or none (policy: when two rules meet)
                preface = "I'm sorry, " + "; ".join(
                    f"{it['name']} is out of stock" if n == 0 else
                    f"only {n} {it['name']} {'is' if n == 1 else 'are'} left in stock, fewer than the {self._units(it)} "
                    "you need, and a replacement is sent for every unit or not at all" for it, n in left
                ) + ", so I can't send a replacement; I can refund it instead. "
        elsewhere = self._ships_elsewhere() if pref == "replacement" else None
        if elsewhere and "ship_to" not in self.asked:
            # a replacement ships to the order's address, which can't change after dispatch (policy: when two rules meet)
            return self._ask(
                "ship_to",
                f"{preface}I'm sorry about this. A replacement can only be shipped to the address on order {oid}, and "
                f"since the order has already been dispatched, that address can no longer be changed, so I can't send "
                f"it to {elsewhere}. Would you like the replacement sent to the address on the order, or a refund "
                "instead?")
        return self._propose_remedy(claim, reason, parts, pref, preface)

    def _remedy_calls(self, oid: str, items: list[dict], pref: str, reason: str) -> list[tuple[str, dict]]:
        """The calls remedying ``items`` of order ``oid``: whole lines in one call, part of a line in a call
        of its own, with its units as ``quantity``."""
        whole = [it["item_id"] for it in items if self._units(it) == self._open_units(it)]
        part = [(it["item_id"], self._units(it)) for it in items if self._units(it) != self._open_units(it)]
        groups = ([{"item_ids": whole}] if whole else []) + [{"item_ids": [i], "quantity": n} for i, n in part]
        if pref == "replacement":
            return [("send_replacement", {"order_id": oid, **g, "reason": reason}) for g in groups]
        return [("refund_items", {"order_id": oid, **g, "destination": self._dest(), "reason": reason}) for g in groups]

    def _propose_remedy(
        self, claim: str | None, reason: str, parts: list[tuple[dict, list[dict]]], pref: str, preface: str
    ) -> AgentAction:
        oid = self.order["order_id"]
        names = self._parts_names(parts)
        claim_words = f"open a claim with {self.tracking['carrier']} and " if claim else ""
        calls = [c for o, its in parts for c in self._remedy_calls(o["order_id"], its, pref, reason)]
        if pref == "replacement":
            where = " to the address on the order" if "ship_to" in self.asked else ""
            text = f"{preface}Shall I {claim_words}send you a replacement of {names}{where}?"
        elif len(parts) == 1:
            amount = self._amount(parts[0][1])
            text = f"{preface}Shall I {claim_words}refund {money(amount)} for {names} to {self._dest_words()}?"
        else:
            text = preface + self._total_words(parts)
        if claim:
            calls.append(("open_carrier_claim", {"order_id": oid, "reason": claim}))
        return self._propose(text, calls, "remedy", names=names, pref=pref)

    def _total_words(self, parts: list[tuple[dict, list[dict]]], ask: bool = True) -> str:
        """Each order's refund and their sum (policy: a total across orders is the sum of each order's
        refund, each by its own items and shipping fee), then "Shall I ...?" when ``ask``."""
        each, amounts = [], []
        for o, its in parts:
            amounts.append(self._amount(its, o))
            fee = o.get("shipping_cents", 0)
            why = ("" if not fee else f", with its {money(fee)} shipping fee, as nothing else of that order is left open"
                   if self._takes_last(its, o) else ", without its shipping fee, as part of that order stays")
            each.append(f"order {o['order_id']}: {money(amounts[-1])} for {self._names(its)}{why}")
        said = f"The refunds come to {money(sum(amounts))} in total: " + "; ".join(each) + "."
        if not ask:
            return said
        calls = ", ".join(f"{money(a)} on order {o['order_id']}" for a, (o, _) in zip(amounts, parts))
        return f"{said} Shall I refund {calls} ({money(sum(amounts))} in all) to {self._dest_words()}?"

    def _ships_elsewhere(self) -> str | None:
        """The address the customer said for the request in hand when it is not the order's shipping
        address (a customer who has moved), as said; else None."""
        text = " ".join(self.facts.texts[getattr(self, "request_from", 0):])
        said = list(ADDRESS_RE.finditer(text))
        if not said:
            return None
        m = said[-1]
        ship = self.order.get("shipping_address") or {}
        if m.group(1).strip().lower() == (ship.get("line1") or "").lower() and m.group(4) == ship.get("zip"):
            return None
        return f"{m.group(1).strip()}, {m.group(2)}, {m.group(3)} {m.group(4)}"

    # -- the other cases ----------------------------------------------------------------------------------

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
        chosen = self._which_items()
        word = "damaged" if self.intent == "damaged" else "missing"
        if not chosen:
            if "item" not in self.asked:
                return self._ask("item", f"I'm sorry about that. Which item was {word}?")
            return self._finish(f"I couldn't tell which item of order {oid} was {word}; please get back to us with its name.")
        done = [it for it in chosen if it["status"] != "ordered"]
        reason = "damaged" if self.intent == "damaged" else "missing_item"
        said = " ".join(f"The {it['name']} from order {oid} has already been {it['status']}, so there's nothing more "
                        "to refund or replace for it." for it in done)
        if done and len(done) == len(chosen):
            return self._refuse(said)
        # never a second remedy for an item already refunded or replaced; the others go ahead (policy 3)
        open_chosen = [it for it in chosen if it["status"] == "ordered"]
        step = self._how_many(open_chosen, word)
        if step is not None:
            return step
        return self._remedy(claim=None, reason=reason, items=open_chosen, preface=f"{said} " if done else "")

    def _orders_total(self) -> AgentAction | None:
        """Items damaged or missing in several orders named in one message, and their total asked (policy:
        the sum of each order's refund, each by its own items and shipping fee): each order and its
        tracking read, the items named in each found, then one proposal with each order's amount and the
        sum. None when the request is not of that kind (one order named, or no total asked)."""
        if self.intent not in ("damaged", "missing_item"):
            return None
        said = self.facts.texts[self.request_from:]
        named = next((ids for t in said if len(ids := list(dict.fromkeys(ORDER_RE.findall(t)))) > 1), [])
        if not named or not TOTAL_RE.search(" ".join(said)):
            return None
        seen, tracks = self.seen_orders, self.seen_tracks
        for oid in named:
            if oid not in seen and oid not in self.bad_orders:
                return self._call("get_order", order_id=oid)
            if oid in seen and seen[oid]["customer_id"] == self.customer_id and oid not in tracks:
                return self._call("get_shipment_tracking", order_id=oid)
        word = "damaged" if self.intent == "damaged" else "missing"
        notes, parts = [], []
        for oid in named:
            o, tr = seen.get(oid), tracks.get(oid, {})
            if o is None or o["customer_id"] != self.customer_id:
                notes.append(f"I can't find order {oid} on your account, so I've left it out.")
                continue
            if tr.get("status") != "delivered":
                notes.append(f"Order {oid} isn't marked delivered yet, so there's nothing to refund on it yet.")
                continue
            if (tr.get("days_since_delivery") or 0) > WINDOW_DAYS:
                self.refused_before = True
                notes.append(f"Order {oid} was delivered on {tr['delivered_at'][:10]}, more than 30 days ago, so it's "
                             "outside our 30-day refund window and I can't refund or replace anything on it.")
                continue
            chosen = self._which_items(o)
            if not chosen and f"item {oid}" not in self.asked:
                return self._ask(f"item {oid}", f"I'm sorry about that. Which item of order {oid} was {word}?")
            notes += [f"The {it['name']} from order {oid} has already been {it['status']}, so there's nothing more "
                      "to refund or replace for it." for it in chosen if it["status"] != "ordered"]
            if open_items := [it for it in chosen if it["status"] == "ordered"]:
                parts.append((o, open_items))
        step = self._how_many([it for _, its in parts for it in its], word)
        if step is not None:
            return step
        preface = " ".join(notes)
        if not parts:
            return self._refuse(preface or "I couldn't tell which items of those orders were affected.")
        self.order, self.tracking = parts[0][0], tracks[parts[0][0]["order_id"]]  # the card spoken of, the report's
        return self._remedy(claim=None, reason="damaged" if word == "damaged" else "missing_item", items=[],
                            preface=f"{preface} " if preface else "", parts=parts)

    def _how_many(self, items: list[dict], word: str) -> AgentAction | None:
        """Part of a line of several units (policy 3, part of a line): the units the customer named, or
        one question when they said "some of them" without a number. Sets ``unit_counts``."""
        self.unit_counts = {}
        several = [it for it in items if self._open_units(it) > 1]
        clauses = self._complaint_clauses()
        for it in several:
            names = [it["name"].lower(), item_noun(it["name"])]
            count, partial = units_named(clauses, names, only=len(several) == 1)
            if count is not None and count < self._open_units(it):
                self.unit_counts[it["item_id"]] = count
            elif partial:
                many = self._open_units(it)
                if "units" not in self.asked:
                    verb = "arrived damaged" if word == "damaged" else "are missing"
                    return self._ask("units", f"I'm sorry about that. How many of the {many} {it['name']} {verb}?")
                return self._finish(f"I couldn't tell how many of the {it['name']} {word}; please get back to us "
                                    "with the number.")
        return None

    def _complaint_clauses(self) -> list[str]:
        """What the customer said about the request in hand, clause by clause, without the clauses that
        call an item unharmed ("the mug is fine")."""
        text = " ".join(self.facts.texts[getattr(self, "request_from", 0):]).lower()
        return [c for c in re.split(r"[().;!?]|, (?:but|and|while)\b", text) if not FINE_RE.search(c)]

    def _which_items(self, order: dict | None = None) -> list[dict]:
        """The items of the order (``order``, else the one in hand) the customer's complaint names (one or
        several); an item named only as fine ("the mug is fine") is not among them."""
        items = (order or self.order)["items"]
        if len(items) == 1:
            return items
        # what the customer said about the request in hand (an earlier request may name other items),
        # clause by clause, leaving out the clauses that call an item unharmed
        clauses = " | ".join(self._complaint_clauses())
        hits = [it for it in items if it["name"].lower() in clauses]
        if not hits and (look := described_lines(items, clauses)):
            # look-alike lines (one product in sizes and colours) named by colour and size (policy 3)
            if len(look) > 1 and OTHER_RE_LOOK.search(clauses):
                # "the other green one": not the look-alike remedied before, when just one is still open
                still = [it for it in look if it["status"] == "ordered"]
                look = still if len(still) == 1 else look
            return look if len(look) == 1 else []
        if not hits:
            hits = [it for it in items if item_noun(it["name"]) in clauses]
            hits = hits if len(hits) == 1 else []
        return hits

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
