"""The support domain's task families: the hard tier, each family one template over the seeded data.

A family draws its instances from the template database: a seeded customer (name, email, default
address, card), seeded products (names, prices, stock) and a persona, with ``random.Random(seed)``.
The orders a conversation is about are new rows the task's ``initial_state`` adds to that customer's
account (a delivered order with a damaged item, one not yet dispatched, ...), dated relative to the
domain's ``TODAY``; the customer's seeded orders stay beside them, as a real account holds older
orders. The goal is the replay of the ``expected_actions`` the family writes, like any task's.

Every goal follows from the policy, the tools and what the customer says: the customer names each
order, item and preference it wants, or is asked for it by the policy's own steps (identity,
refund or replacement). ``python -m envs.tasks --domain support --all --count 7 --seed 0`` writes
the committed ``tasks/support/hard_*.yaml``. The module is long because it holds all its
families side by side, each one template of a few dozen lines, sharing the instance drawing above them.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from envs.errors import SpecError
from envs.spec.schema import Task

TODAY = dt.date(2026, 6, 15)
CARRIERS = {"UPS": "1Z", "USPS": "94", "FedEx": "FE", "DHL": "JD"}
NEW_STREETS = ["18 Birch Lane", "402 Harbor View Drive", "7 Quarry Road", "1150 Elm Court", "63 Willow Way",
               "29 Lakeshore Boulevard", "811 Cedar Hollow", "5 Foundry Street", "240 Meadow Run", "97 Orchard Place"]
SIDE_SITUATIONS = ["impatient", "confused", "furious"]


def _noun(name: str) -> str:
    """How a person names a product in passing: "Rustic Phone Stand" -> "phone stand"."""
    parts = name.lower().split()
    return " ".join(parts[1:]) if len(parts) > 1 else parts[0]


def money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


# -- the seeded data a family draws from ------------------------------------------------------------


@dataclass
class Seeded:
    """What the template database offers the families: eligible customers, products in stock, personas."""

    customers: list[dict]
    products: list[dict]
    personas: list[Any]
    # the look-alike products (seed.VARIANTS: one product in sizes and colours), apart from ``products``
    # so the families drawn before them draw as they always did
    variants: list[dict] = field(default_factory=list)
    low_stock: list[dict] = field(default_factory=list)  # products with one or two units left

    @classmethod
    def of(cls, domain: Any) -> "Seeded":
        from sqlalchemy import text

        from envs.state.database import EpisodeState

        st = EpisodeState(domain.base, domain.template())
        try:
            conn = st.session.connection()
            rows = conn.execute(text(
                "select c.id, c.first_name, c.last_name, c.email, a.line1, a.city, a.state, a.zip, p.id, p.brand, p.last4 "
                "from customers c join addresses a on a.customer_id = c.id and a.is_default "
                "join payment_methods p on p.customer_id = c.id and p.status = 'active' and p.kind = 'card' "
                "where c.status = 'active' order by c.id, p.id")).fetchall()
            prods = conn.execute(text(
                "select id, name, price_cents, stock from products where stock >= 5 order by id")).fetchall()
            everything = conn.execute(text("select id, name, price_cents, stock from products order by id")).fetchall()
        finally:
            st.close()
        seen, customers = set(), []
        for r in rows:
            if r[0] in seen or not (r[1].isalpha() and r[2].isalpha()):
                continue
            seen.add(r[0])
            customers.append(dict(zip(("id", "first", "last", "email", "line1", "city", "state", "zip", "pm", "brand",
                                       "last4"), r)))
        from domains.support.seed import N_PRODUCTS

        products = [dict(zip(("id", "name", "price", "stock"), p)) for p in prods if int(p[0][2:]) <= N_PRODUCTS]
        variants = [dict(zip(("id", "name", "price", "stock"), p)) for p in everything if int(p[0][2:]) > N_PRODUCTS]
        from envs.spec.personas import all_personas  # the domain's enumerated personas

        personas = all_personas(domain.name)
        low = [dict(zip(("id", "name", "price", "stock"), p)) for p in everything
               if int(p[0][2:]) <= N_PRODUCTS and 1 <= p[3] <= 2]
        return cls(customers, products, personas, variants, low)


# -- one instance: a customer and the orders its conversation is about -------------------------------


@dataclass
class Order:
    id: str
    items: list[dict]  # {id, product_id, name, quantity, unit_price_cents}
    shipping_cents: int
    state: str  # processing | label_created | in_transit | delivered | lost
    delivered_days_ago: int | None = None
    carrier: str = "UPS"
    placed_gap: int = 4  # days from placing to delivery (a slow delivery puts the order date far back)

    @property
    def total(self) -> int:
        return sum(it["quantity"] * it["unit_price_cents"] for it in self.items) + self.shipping_cents


@dataclass
class Instance:
    """One task's world: a seeded customer, the orders added for it, the rows that add them."""

    n: int  # the task's number within all families (keeps ids apart)
    customer: dict
    persona: Any
    rng: random.Random
    products: list[dict]
    orders: list[Order] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    # the wording's own draws, apart from ``rng``: a new phrasing never moves the goal's data
    words: random.Random = field(default_factory=random.Random)
    # the other seeded accounts (a household member's order is placed on one of them)
    accounts: list[dict] = field(default_factory=list)
    # the look-alike products (one product in sizes and colours) and the products nearly out of stock
    variants: list[dict] = field(default_factory=list)
    low_stock: list[dict] = field(default_factory=list)

    def phrase(self, *parts: str | list[str]) -> str:
        """One sentence from its parts, each a fixed string or options drawn with ``words``: a family's
        line said differently per instance, so a run's customers do not share the template's sentence."""
        s = "".join(p if isinstance(p, str) else self.words.choice(p) for p in parts)
        return s[0].upper() + s[1:]

    def order(self, state: str, n_items: int = 1, shipping_cents: int = 0, delivered_days_ago: int | None = None,
              damaged: str | None = None, first_refunded: bool = False, quantities: list[int] | None = None,
              placed_gap: int = 4, same_as: list[dict] | None = None, price_pct: int = 100,
              owner: dict | None = None, lines: list[dict] | None = None) -> Order:
        k = len(self.orders) + 1
        stem = f"{7 + self.n // 1000}{self.n % 1000:03d}{k}"  # O-7FNNK: family, instance, order (8 past the 10th family)
        oid = f"O-{stem}"
        # ``same_as``: the products of an earlier line again (a customer who bought one thing twice)
        # ``lines``: the products given (look-alikes, which may recur across a task's orders)
        picks = (list(lines) if lines else
                 [{"id": it["product_id"], "name": it["name"], "price": it["unit_price_cents"] * price_pct // 100}
                  for it in same_as] if same_as else self.rng.sample(self.products, n_items))
        n_items = len(picks)
        self.products = [p for p in self.products if p not in picks]  # no product twice in one task
        qty = quantities or [1] * n_items
        items = [{"id": int(f"{stem}{j}"), "product_id": p["id"], "name": p["name"],
                  "quantity": qty[j], "unit_price_cents": p["price"]} for j, p in enumerate(picks)]
        carrier = self.rng.choice(sorted(CARRIERS))
        o = Order(oid, items, shipping_cents, state, delivered_days_ago, carrier, placed_gap)
        self.orders.append(o)
        self._rows(o, damaged, items[0]["id"] if first_refunded else None, owner)
        return o

    def _rows(self, o: Order, damaged: str | None, refunded_item: int | None, owner: dict | None = None) -> None:
        # ``owner``: another account's order, paid with its card but shipped to this customer's address
        c = self.customer
        payer = owner or c
        if o.state in ("processing", "label_created"):
            placed = dt.datetime.combine(TODAY - dt.timedelta(days=self.rng.randint(1, 3)), dt.time(9, 30))
            status = "processing"
        elif o.state == "delivered":
            placed = dt.datetime.combine(TODAY - dt.timedelta(days=o.delivered_days_ago + o.placed_gap), dt.time(10, 15))
            status = "delivered"
        else:
            placed = dt.datetime.combine(TODAY - dt.timedelta(days=self.rng.randint(8, 14)), dt.time(11, 0))
            status = "shipped"
        sub = sum(it["quantity"] * it["unit_price_cents"] for it in o.items)
        add = self.rows.append
        add({"table": "orders", "row": {
            "id": o.id, "customer_id": payer["id"], "placed_at": f"{placed:%Y-%m-%d %H:%M:%S}", "status": status,
            "payment_method_id": payer["pm"], "ship_line1": c["line1"], "ship_city": c["city"], "ship_state": c["state"],
            "ship_zip": c["zip"], "subtotal_cents": sub, "shipping_cents": o.shipping_cents, "total_cents": o.total}})
        for it in o.items:
            row = {"id": it["id"], "order_id": o.id, "product_id": it["product_id"], "name": it["name"],
                   "quantity": it["quantity"], "unit_price_cents": it["unit_price_cents"], "status": "ordered"}
            if refunded_item is not None and it["id"] == refunded_item:
                # linked to its refund (added below), as get_order shows a refund's items by
                row["status"], row["refund_id"] = "refunded", int(f"7{o.id[2:]}")
            add({"table": "order_items", "row": row})
        tn = f"{CARRIERS[o.carrier]}{o.id[2:]}{self.rng.randint(10**7, 10**8 - 1)}"
        ship: dict[str, Any] = {"id": f"SH-{o.id[2:]}", "order_id": o.id, "carrier": o.carrier, "tracking_number": tn}
        if o.state == "processing":
            ship.update(status="label_created", estimated_delivery=f"{TODAY + dt.timedelta(days=5)}")
        elif o.state == "label_created":
            ship.update(status="label_created", estimated_delivery=f"{TODAY + dt.timedelta(days=4)}")
        elif o.state == "in_transit":
            ship.update(status="in_transit", shipped_at=f"{placed + dt.timedelta(days=1):%Y-%m-%d %H:%M:%S}",
                        estimated_delivery=f"{TODAY + dt.timedelta(days=2)}")
        elif o.state == "lost":
            ship.update(status="lost", shipped_at=f"{placed + dt.timedelta(days=1):%Y-%m-%d %H:%M:%S}",
                        estimated_delivery=f"{TODAY - dt.timedelta(days=3)}")
        else:
            delivered = dt.datetime.combine(TODAY - dt.timedelta(days=o.delivered_days_ago), dt.time(14, 20))
            ship.update(status="delivered", shipped_at=f"{placed + dt.timedelta(days=1):%Y-%m-%d %H:%M:%S}",
                        delivered_at=f"{delivered:%Y-%m-%d %H:%M:%S}", delivery_note="front door")
            add({"table": "home_deliveries", "row": {
                "id": int(f"7{o.id[2:]}"), "order_id": o.id, "location": "front_door", "neighbour": None, "in_hand": True,
                "missing_items": None, "damaged_items": damaged, "collected_at": f"{delivered:%Y-%m-%d %H:%M:%S}"}})
        add({"table": "shipments", "row": ship})
        add({"table": "charges", "row": {
            "id": f"CH-{o.id[2:]}", "order_id": o.id, "payment_method_id": payer["pm"], "amount_cents": o.total,
            "status": "captured", "created_at": f"{placed + dt.timedelta(minutes=2):%Y-%m-%d %H:%M:%S}"}})
        if refunded_item is not None:
            it = next(i for i in o.items if i["id"] == refunded_item)
            rid = int(f"7{o.id[2:]}")
            add({"table": "refunds", "row": {
                "id": rid, "order_id": o.id, "charge_id": None, "amount_cents": it["unit_price_cents"],
                "destination": "original_payment", "reason": "damaged", "status": "completed",
                "created_at": f"{placed + dt.timedelta(days=6):%Y-%m-%d %H:%M:%S}",
                "expected_post_by": f"{(placed + dt.timedelta(days=13)).date()}"}})

    # -- the pieces of a task ------------------------------------------------------------------

    def identity_facts(self) -> list[dict]:
        c = self.customer
        return [
            {"id": "email", "fact": f"My email is {c['email']}.", "topic": "email", "asked_by": ["email"]},
            {"id": "zip", "fact": f"My zip code is {c['zip']}.", "topic": "zip", "asked_by": ["zip"]},
            {"id": "name", "fact": f"My name is {c['first']} {c['last']}.", "topic": "name", "asked_by": ["name"]},
        ]

    def new_address(self) -> tuple[str, str, str, str]:
        c = self.customer
        street = self.rng.choice(NEW_STREETS)
        return street, c["city"], c["state"], c["zip"][:3] + f"{(int(c['zip'][3:]) + 7) % 100:02d}"

    def lookup(self) -> list[dict]:
        return [{"name": "find_customer_by_email", "arguments": {"email": self.customer["email"]}}]


def address_words(addr: tuple[str, str, str, str]) -> str:
    return f"{addr[0]}, {addr[1]}, {addr[2]} {addr[3]}"


def cancel(o: Order) -> list[dict]:
    return [{"name": "get_order", "arguments": {"order_id": o.id}},
            {"name": "cancel_order", "arguments": {"order_id": o.id}}]


def change_address(o: Order, addr: tuple[str, str, str, str]) -> list[dict]:
    return [{"name": "get_order", "arguments": {"order_id": o.id}},
            {"name": "change_shipping_address", "arguments": {
                "order_id": o.id, "line1": addr[0], "city": addr[1], "state": addr[2], "zip": addr[3]}}]


def refund(o: Order, items: list[dict], reason: str, destination: str = "original_payment") -> list[dict]:
    return [{"name": "get_order", "arguments": {"order_id": o.id}},
            {"name": "refund_items", "arguments": {"order_id": o.id, "item_ids": [it["id"] for it in items],
                                                   "destination": destination, "reason": reason}}]


def replace(o: Order, items: list[dict], reason: str) -> list[dict]:
    return [{"name": "get_order", "arguments": {"order_id": o.id}},
            {"name": "send_replacement", "arguments": {"order_id": o.id, "item_ids": [it["id"] for it in items],
                                                       "reason": reason}}]


# -- a family: its template, and the instances it is built over -------------------------------------


@dataclass
class SupportFamily:
    """One template of hard support tasks (``envs.domain.families.TaskFamily``)."""

    name: str
    description: str
    build: Callable[[Instance], dict]  # the task's fields (scenario, actions, outputs, ...) for one instance
    offset: int  # keeps this family's order ids apart from the others'
    personas: Callable[[Any], bool] = lambda p: True
    relies_on: tuple[str, ...] = ()

    def generate(self, domain: Any, count: int, seed: int) -> list[Task]:
        data = Seeded.of(domain)
        personas = [p for p in data.personas if self.personas(p)]
        # order ids are O-7FNNK (family, instance, order): 99 instances a family at most
        if count > len(data.customers) or count > 99:
            have = min(len(data.customers), 99)
            raise SpecError(f"family {self.name}: the data holds {have} instances, asked for {count}")
        rng = random.Random(f"{self.name}:{seed}")
        customers = rng.sample(data.customers, count)
        tasks = []
        for i, cust in enumerate(customers, 1):
            inst = Instance(self.offset + i, cust, rng.choice(personas), random.Random(f"{self.name}:{seed}:{i}"),
                            list(data.products), words=random.Random(f"{self.name}:{seed}:{i}:words"),
                            accounts=[c for c in data.customers if c["id"] != cust["id"]],
                            variants=list(data.variants), low_stock=list(data.low_stock))
            body = self.build(inst)
            sc = body.pop("scenario")
            sc.setdefault("hidden_facts", inst.identity_facts())
            sc.setdefault("situations", ["cooperative", inst.rng.choice(SIDE_SITUATIONS)])
            actions = inst.lookup() + body.pop("actions")
            _settle_destination(inst, sc, actions)
            task = {
                "id": f"hard_{self.name}_{i:02d}",
                "domain": "support",
                "description": body.pop("description"),
                "persona": inst.persona.id,
                "tags": ["hard", self.name],
                "relies_on": list(self.relies_on),
                "catches": ["eager"],
                "scenario": sc,
                "initial_state": {"insert": inst.rows},
                "expected_actions": actions,
                **body,
            }
            tasks.append(Task.model_validate(task))
        return tasks


def _settle_destination(inst: Instance, sc: dict, actions: list[dict]) -> None:
    """Where a refund goes is the customer's choice (policy: original payment unless store credit is
    asked for): a goal refunding to the card says so, and the customer says it when asked, so an agent
    that asks "card or store credit?" gets the answer the goal holds (envs.spec.lint.choices_open)."""
    dest = {a["arguments"].get("destination") for a in actions if a["name"] == "refund_items"}
    if "original_payment" not in dest or "paid with" in sc["goal"]:
        return
    sc["goal"] += " Refunds go back to the card it was paid with."
    sc["hidden_facts"] = list(sc["hidden_facts"]) + [{
        "id": "destination", "topic": "store_credit", "asked_by": ["store credit", "original payment", "which card"],
        "fact": inst.phrase(["back to my ", "to the ", "onto my "],
                            [f"{inst.customer['brand']} card I paid with", f"{inst.customer['brand']}, the card I paid with"],
                            [", please", "", ", thanks"], [", not store credit.", ".", ", that works for me."])}]


# -- the customer's words: each request line drawn from several phrasings (Instance.phrase) -----------
# Every phrasing keeps the facts the goal depends on (the order id, the item, the address, the remedy
# asked for) and names the request plainly (cancel, refund, replacement, new address), so any agent can
# follow it; only the words around those facts vary.

_LEADS = ["also, ", "one more thing: ", "oh, and ", "while I have you, ", "separately, ", "and ", "another thing: ",
          "besides that, ", "next, ", "then, "]


def cancel_line(inst: Instance, oid: str, lead: list[str] | None = None) -> str:
    return inst.phrase(lead if lead is not None else _LEADS,
                       [f"please cancel order {oid}", f"could you cancel order {oid}", f"I'd like to cancel order {oid}",
                        f"can you cancel order {oid} for me", f"I want order {oid} cancelled", f"could order {oid} be canceled",
                        f"I need to call off order {oid}", f"can you scrap order {oid}", f"I'd like order {oid} cancelled",
                        f"is it too late to cancel order {oid}? I'd like it cancelled"],
                       [", please.", ".", "; I don't need it any more.", "; I changed my mind about it.",
                        ", I ordered it by mistake.", "; I won't be needing it.", ", if that's possible.",
                        ", I don't want it now."])


def address_line(inst: Instance, oid: str, addr: tuple[str, str, str, str], lead: list[str] | None = None) -> str:
    where = address_words(addr)
    return inst.phrase(lead if lead is not None else _LEADS,
                       ["I've moved, so ", "I've just moved house, so ", "I moved last week, so ", "I have a new address, so ",
                        "I'm at a new place now, so ", ""],
                       [f"order {oid} should go to my new address", f"please send order {oid} to my new address",
                        f"order {oid} needs to go to my new address", f"could order {oid} ship to my new address",
                        f"I'd like order {oid} delivered to my new address", f"please update the address on order {oid}",
                        f"order {oid} still has my old address on it"],
                       [". ", ", please. ", " instead. "],
                       # the address sentence names the street and city: no two customers share it
                       [f"The new address is {where}.", f"I'm now at {where}.", f"It's {where} now.",
                        f"Send it to {where}, please.", f"I live at {where} now.", f"It should go to {where}."])


def damaged_line(inst: Instance, item: dict, oid: str, ask: list[str]) -> str:
    """The damaged item of ``oid`` and what is asked for it, as one sentence."""
    return inst.phrase([f"the {item['name']} from order {oid} ", f"my {item['name']} (order {oid}) ",
                        f"the {item['name']} in order {oid} ", f"order {oid}: the {item['name']} "],
                       ["arrived damaged", "came damaged", "was damaged when it arrived", "turned up damaged",
                        "was delivered damaged", "showed up damaged"],
                       ask)


_REFUND_ASK = [", and I'd like a refund for it.", ", so I just want my money back.", "; can I get it refunded?",
               ", so a refund, please.", "; I'd like my money back for it.", "; could I get a refund for it?",
               ", and I'm hoping to be reimbursed.", "; please refund it."]
_REPLACE_ASK = [", could you send me a replacement?", ", so I'd like a new one.", "; can you send another one?",
                ", and I'd like a new one sent.", ", so I'd like it replaced.",
                "; could I get a replacement for it?"]


# -- the templates -----------------------------------------------------------------------------------


def _damaged_order(inst: Instance, n_items: int = 2, days: int | None = None, shipping: int = 0) -> tuple[Order, dict]:
    days = days if days is not None else inst.rng.randint(3, 20)
    o = inst.order("delivered", n_items=n_items, shipping_cents=shipping, delivered_days_ago=days)
    item = inst.rng.choice(o.items)
    for r in inst.rows:
        if r["table"] == "home_deliveries" and r["row"]["order_id"] == o.id:
            r["row"]["damaged_items"] = item["name"]
    return o, item


def cancel_and_address(inst: Instance) -> dict:
    a = inst.order("processing", n_items=inst.rng.randint(1, 2))
    b = inst.order("processing")
    addr = inst.new_address()
    return {
        "description": f"Two requests: cancel {a.id}, then ship {b.id} to a new address.",
        "scenario": {
            "goal": f"Cancel order {a.id}; have order {b.id} shipped to {address_words(addr)}.",
            "request": cancel_line(inst, a.id, ["", "so, ", "right, ", "well, ", "okay, so "]),
            "more_requests": [address_line(inst, b.id, addr)],
            "max_turns": 30,
        },
        "actions": cancel(a) + change_address(b, addr),
        "outputs": [money(a.total)],
    }


def cancel_and_damaged_refund(inst: Instance) -> dict:
    a, item = _damaged_order(inst, n_items=2)
    b = inst.order("processing")
    return {
        "description": f"A damaged item of a two-item order refunded (that item only), then another order cancelled.",
        "scenario": {
            "goal": f"A refund for the damaged {item['name']} of {a.id}; order {b.id} cancelled.",
            "request": damaged_line(inst, item, a.id, _REFUND_ASK),
            "more_requests": [cancel_line(inst, b.id)],
            "max_turns": 30,
        },
        "actions": refund(a, [item], "damaged") + cancel(b),
        "outputs": [money(item["unit_price_cents"]), money(b.total)],
    }


def three_requests(inst: Instance) -> dict:
    a = inst.order("processing")
    b, item = _damaged_order(inst, n_items=2)
    c = inst.order("processing")
    addr = inst.new_address()
    return {
        "description": "Three requests in one conversation: a cancellation, a damaged item refunded, an address change.",
        "scenario": {
            "goal": f"Cancel {a.id}; refund the damaged {item['name']} of {b.id}; ship {c.id} to {address_words(addr)}.",
            "request": inst.phrase(["I have a few things today", "I've got a few things to sort out",
                                    "there are three things I need help with", "I have a couple of things, bear with me",
                                    "a few things today, if that's okay", "I need help with several orders"],
                                   [", and first", "; first", ". First of all", ". To start"],
                                   [f", please cancel order {a.id}.", f", I'd like to cancel order {a.id}.",
                                    f", could you cancel order {a.id}?", f", I need to cancel order {a.id}."]),
            "more_requests": [
                damaged_line(inst, item, b.id, _REFUND_ASK),
                address_line(inst, c.id, addr, ["last one: ", "and finally, ", "the last thing: ", "lastly, ", "and last, "]),
            ],
            "max_turns": 40,
        },
        "actions": cancel(a) + refund(b, [item], "damaged") + change_address(c, addr),
        "outputs": [money(a.total), money(item["unit_price_cents"])],
    }


def lost_parcel_and_address(inst: Instance) -> dict:
    a = inst.order("lost", n_items=inst.rng.randint(1, 2), shipping_cents=inst.rng.choice([0, 599, 899]))
    b = inst.order("processing")
    addr = inst.new_address()
    want_refund = inst.rng.random() < 0.5
    pref = inst.phrase(["I'd like ", "I'd prefer ", "I'd rather have ", "I'll take ", "I want "],
                       ["a refund" if want_refund else "a replacement"],
                       [", please.", ".", ", if that's okay.", " for it."])
    remedy = (refund(a, a.items, "lost_package") if want_refund else replace(a, a.items, "lost_package"))[1:]
    return {
        "description": f"A parcel the carrier lost (claim plus the {'refund' if want_refund else 'replacement'} "
                       "the customer chooses), then an address change on another order.",
        "scenario": {
            "goal": f"Order {a.id} was lost: a carrier claim and a {'refund' if want_refund else 'replacement'}; "
                    f"order {b.id} shipped to {address_words(addr)}.",
            "request": inst.phrase([f"my order {a.id} never arrived", f"order {a.id} still hasn't arrived",
                                    f"I never got order {a.id}", f"order {a.id} hasn't arrived"],
                                   [" and the tracking hasn't moved in days", ", and tracking has been stuck for days",
                                    "; the tracking hasn't changed in ages", ", the tracking just stopped updating"],
                                   [". What's going on?", ", what's happening?", "; can you find out?", ". Where is it?",
                                    ", can you help?"]),
            "hidden_facts": inst.identity_facts() + [
                {"id": "preference", "fact": pref, "topic": "remedy"}],
            "more_requests": [address_line(inst, b.id, addr)],
            "max_turns": 36,
        },
        "actions": [{"name": "get_order", "arguments": {"order_id": a.id}}] + remedy
        + [{"name": "open_carrier_claim", "arguments": {"order_id": a.id, "reason": "lost_in_transit"}}]
        + change_address(b, addr),
        "outputs": [money(a.total)] if want_refund else [],
    }


def _transposed(oid: str, taken: set[str]) -> str:
    """``oid`` with two neighbouring digits swapped (the slip a memory makes), naming no order of the account."""
    for i in (-1, -2, -3, -4):
        d = list(oid[2:])
        d[i], d[i - 1] = d[i - 1], d[i]
        wrong = "O-" + "".join(d)
        if wrong != oid and wrong not in taken:
            return wrong
    return "O-" + oid[2:-1] + str((int(oid[-1]) + 5) % 10)


def wrong_order_number_first(inst: Instance) -> dict:
    a, item = _damaged_order(inst, n_items=2)
    b = inst.order("processing")
    wrong = _transposed(a.id, {o.id for o in inst.orders})
    return {
        "description": f"A shaky memory: the customer quotes {wrong} (no such order), corrects it to {a.id} when told "
                       "it was not found; a replacement of the damaged item, then a cancellation.",
        "scenario": {
            "goal": f"A replacement for the damaged {item['name']} of {a.id}; order {b.id} cancelled.",
            "request": damaged_line(inst, item, wrong, _REPLACE_ASK),
            "hidden_facts": inst.identity_facts() + [
                {"id": "correct_order", "fact": inst.phrase(
                    ["oh, sorry, ", "oops, ", "ah, my mistake, ", "sorry about that, ", "hang on, "],
                    ["I must have mixed up the digits", "I swapped two digits", "I read it wrong",
                     "I got the number muddled", "I misread the email"], [f": it's order {a.id}.", f"; it's {a.id}.",
                                                                         f", the right one is order {a.id}."]),
                 "topic": "order_number", "asked_by": ["the order number"]}],
            "more_requests": [cancel_line(inst, b.id)],
            "max_turns": 34,
        },
        "actions": replace(a, [item], "damaged") + cancel(b),
        "outputs": [money(b.total)],
    }


def mind_change_at_proposal(inst: Instance) -> dict:
    a, item = _damaged_order(inst, n_items=2)
    b = inst.order("processing")
    addr = inst.new_address()
    return {
        "description": "A change of mind: a refund is asked for, a replacement wanted once the refund is proposed; "
                       "then an address change on another order.",
        "scenario": {
            "goal": f"The damaged {item['name']} of {a.id} replaced (not refunded); {b.id} shipped to {address_words(addr)}.",
            "request": damaged_line(inst, item, a.id, _REFUND_ASK),
            "mind_change": {"act": "confirm", "topic": "refund",
                            "say": inst.phrase(["hmm, on second thought", "wait, actually", "thinking about it",
                                                "hold on, no", "you know what"],
                                               [", I'd rather have a replacement instead of the money.",
                                                ", could I have a replacement instead of a refund?",
                                                ", I'd prefer a replacement to the money back.",
                                                ", a replacement would suit me better than a refund."])},
            "situations": ["changes_mind"],
            "more_requests": [address_line(inst, b.id, addr)],
            "max_turns": 34,
        },
        "actions": replace(a, [item], "damaged") + change_address(b, addr),
    }


def mind_change_after_done(inst: Instance) -> dict:
    a, item = _damaged_order(inst, n_items=2)
    b = inst.order("processing")
    return {
        "description": "A change of mind after the action: once the refund of a damaged item is issued, the customer "
                       "wants a replacement instead (the policy keeps what was done); then a cancellation.",
        "scenario": {
            "goal": f"The damaged {item['name']} of {a.id} refunded (and not also replaced); {b.id} cancelled.",
            "request": damaged_line(inst, item, a.id, _REFUND_ASK),
            "mind_change": {"act": "done", "topic": "refund",
                            "say": inst.phrase(["actually, now that I think about it", "hmm, on reflection",
                                                "wait, having thought about it", "oh, actually", "sorry, second thoughts"],
                                               [", could you send me a replacement instead, since I'd rather have the item?",
                                                ", I'd rather have a replacement than the money; can you swap it?",
                                                ", can I get a replacement instead, as I really wanted the item?",
                                                ", could it be a replacement instead of the refund?"])},
            "situations": ["changes_mind"],
            "more_requests": [cancel_line(inst, b.id, ["alright, then ", "okay, then ", "fine, then ", "right, then ",
                                                       "in that case, "])],
            "max_turns": 34,
        },
        "actions": refund(a, [item], "damaged") + cancel(b),
        "outputs": [money(item["unit_price_cents"]), money(b.total)],
    }


def partly_outside_policy(inst: Instance) -> dict:
    a, item_a = _damaged_order(inst, n_items=1, days=inst.rng.randint(5, 25))
    b, item_b = _damaged_order(inst, n_items=1, days=inst.rng.randint(31, 40))
    return {
        "description": "Partly inside the policy: a damaged item within the window refunded, one delivered over 30 "
                       "days ago declined; the customer then asks for a human about it (outside_policy_exception).",
        "scenario": {
            "goal": f"A refund for the {item_a['name']} of {a.id}; the late claim on {b.id} declined, then passed to a human.",
            "request": inst.phrase(["two of my deliveries came damaged, ", "I've had two damaged deliveries, ",
                                    "two orders arrived damaged, ", "both of two recent deliveries were damaged, "],
                                   [f"and the first is the {item_a['name']} from order {a.id}",
                                    f"starting with the {item_a['name']} from order {a.id}",
                                    f"first the {item_a['name']} in order {a.id}"],
                                   ["; I'd like a refund for that.", ", which I'd like a refund for.",
                                    ", so a refund for that one, please."]),
            "more_requests": [
                inst.phrase(["the other one is ", "the second is ", "and the other is "],
                            [f"the {item_b['name']} from order {b.id}", f"order {b.id}, the {item_b['name']}"],
                            [", also damaged, and I'd like a refund for it too.", ", damaged as well; a refund for it too, please.",
                             ", which also came damaged, so I'd like a refund for it too."]),
                inst.phrase([f"I'd like to speak to someone about order {b.id}", f"then I want a manager to review order {b.id}",
                             f"please have a human look at order {b.id}", f"can I talk to somebody about order {b.id}",
                             f"I'd like a real person to look at order {b.id}"], [", then.", " for me.", ", please.", ", in that case."]),
            ],
            "max_turns": 36,
        },
        "actions": refund(a, [item_a], "damaged") + [
            {"name": "get_order", "arguments": {"order_id": b.id}},
            {"name": "escalate_to_human", "arguments": {
                "customer_id": inst.customer["id"], "reason": "outside_policy_exception", "order_id": b.id,
                "summary": f"Refund for the damaged {item_b['name']} of {b.id} asked for outside the 30-day window; "
                           "customer asked for a human."}}],
        "outputs": [money(item_a["unit_price_cents"])],
        "ignore_columns": ["escalations.summary"],
    }


def window_boundary(inst: Instance) -> dict:
    a, item = _damaged_order(inst, n_items=2, days=30)
    b = inst.order("label_created")
    return {
        "description": "Boundaries: a damaged item delivered exactly 30 days ago (the last day of the window: still "
                       "refundable), and an order whose label is created but not dispatched (still cancellable).",
        "scenario": {
            "goal": f"A refund for the damaged {item['name']} of {a.id} (day 30 of the window); {b.id} cancelled.",
            "request": damaged_line(inst, item, a.id, [
                "; I know it's been a while, but can I still get a refund?", ", and it's been a while, but is a refund still possible?",
                "; I know it was some time ago, can I still get a refund?", ", a while back now, but I'd still like a refund.",
                "; it's been about a month, could I still get a refund?"]),
            "more_requests": [inst.phrase(["and order ", "also, order ", "then there's order "], [b.id],
                                          [": the tracking shows a label, but please cancel it if you still can.",
                                           " only shows a label on the tracking, so please cancel it if it's not too late.",
                                           ": there's a label on the tracking, but I'd like it cancelled if possible.",
                                           ", which has a label created; I'd like to cancel it if you still can."])],
            "max_turns": 30,
        },
        "actions": refund(a, [item], "damaged") + cancel(b),
        "outputs": [money(item["unit_price_cents"]), money(b.total)],
    }


def last_item_with_shipping(inst: Instance) -> dict:
    shipping = inst.rng.choice([599, 799, 999])
    a = inst.order("delivered", n_items=2, shipping_cents=shipping, delivered_days_ago=inst.rng.randint(6, 20),
                   first_refunded=True)  # the first item was refunded earlier
    item = a.items[1]
    for r in inst.rows:
        if r["table"] == "home_deliveries" and r["row"]["order_id"] == a.id:
            r["row"]["damaged_items"] = item["name"]
    b = inst.order("processing")
    amount = item["unit_price_cents"] + shipping
    return {
        "description": "An amount to work out: the last unrefunded item of an order is refunded, so the shipping fee "
                       f"comes back with it ({money(item['unit_price_cents'])} + {money(shipping)}); then a cancellation.",
        "scenario": {
            "goal": f"A refund of the damaged {item['name']} of {a.id} with the shipping fee ({money(amount)}); "
                    f"{b.id} cancelled.",
            "request": damaged_line(inst, item, a.id, [
                f"; the other thing in that order was already refunded, can I get a refund for the {item['name']} as well?",
                f", and since the other item of that order was refunded already, I'd like a refund for the {item['name']} too.",
                f"; the rest of that order was refunded before, so could I get a refund for the {item['name']} as well?",
                f", and the other item was already refunded; a refund for the {item['name']} too, please."]),
            "more_requests": [cancel_line(inst, b.id)],
            "max_turns": 30,
        },
        "actions": refund(a, [item], "damaged") + cancel(b),
        "outputs": [money(amount), money(b.total)],
    }


def store_credit_said_early(inst: Instance) -> dict:
    a = inst.order("processing")
    b, item = _damaged_order(inst, n_items=2)
    c = inst.order("processing")
    addr = inst.new_address()
    return {
        "description": "A long conversation whose first line matters late: the customer asks up front for any refund "
                       "as store credit; the damaged-item refund two requests later goes there, the cancellation's to "
                       "the card (cancellations refund the original payment).",
        "scenario": {
            "goal": f"{a.id} shipped to {address_words(addr)}; the damaged {item['name']} of {b.id} refunded as store "
                    f"credit; {c.id} cancelled.",
            "request": inst.phrase(["before we start: ", "first of all, ", "just so you know, ", "one thing up front: "],
                                   ["any refund you give me today, I'd like as store credit",
                                    "I'd like any refund today as store credit", "please put any refund today on store credit",
                                    "I want store credit for any refund today"],
                                   [f", and first, order {a.id} needs to go to my new address, ",
                                    f"; to begin, please send order {a.id} to my new address, ",
                                    f", and order {a.id} should go to my new address, "],
                                   [f"and the new address is {address_words(addr)}."]),
            "more_requests": [
                damaged_line(inst, item, b.id, _REFUND_ASK),
                cancel_line(inst, c.id, ["and last, ", "finally, ", "last thing: ", "and lastly, "]),
            ],
            "max_turns": 40,
        },
        "actions": change_address(a, addr) + refund(b, [item], "damaged", "store_credit") + cancel(c),
        "outputs": [money(item["unit_price_cents"]), money(c.total)],
    }


def _mark_damaged(inst: Instance, o: Order, items: list[dict]) -> None:
    for r in inst.rows:
        if r["table"] == "home_deliveries" and r["row"]["order_id"] == o.id:
            r["row"]["damaged_items"] = " and the ".join(it["name"] for it in items)


def _units(it: dict) -> str:
    """How the customer names a line: "the Desk Lamp" or "both Desk Lamp units" / "all three ..."."""
    n = it["quantity"]
    return f"the {it['name']}" if n == 1 else f"the {it['name']} (I ordered {['', '', 'two', 'three'][n]} of them)"


def _refund_decision(inst: Instance, both: str = "") -> dict:
    """The answer to "Shall I refund ...?" or "refund or replacement?" after a quote: a yes with the
    choice in it, to the card paid with."""
    brand = inst.customer["brand"]
    return {"id": "decision", "topic": "remedy", "fact": inst.phrase(
        ["yes, ", "yes please, ", "okay, yes: ", "yeah, "],
        [f"refund them, back to my {brand} card.", f"I'll take the refund to my {brand}{both}.",
         f"refund those to the {brand} I paid with."])}


def _units_refunded_earlier(inst: Instance, o: Order, line: dict, units: int) -> None:
    """``units`` of ``line`` refunded a day after delivery, recorded with its units (``refund_lines``)
    and on the line (``refund_id``), as ``refund_items`` records a partial refund."""
    rid = int(f"7{o.id[2:]}")
    placed = next(r["row"]["placed_at"] for r in inst.rows if r["table"] == "orders" and r["row"]["id"] == o.id)
    when = dt.datetime.strptime(placed, "%Y-%m-%d %H:%M:%S") + dt.timedelta(days=o.placed_gap + 1)
    inst.rows.append({"table": "refunds", "row": {
        "id": rid, "order_id": o.id, "charge_id": None, "amount_cents": units * line["unit_price_cents"],
        "destination": "original_payment", "reason": "damaged", "status": "completed",
        "created_at": f"{when:%Y-%m-%d %H:%M:%S}", "expected_post_by": f"{(when + dt.timedelta(days=7)).date()}"}})
    inst.rows.append({"table": "refund_lines", "row": {"id": rid, "refund_id": rid, "order_item_id": line["id"],
                                                         "units": units}})
    next(r["row"] for r in inst.rows if r["table"] == "order_items" and r["row"]["id"] == line["id"])["refund_id"] = rid


def refund_amount_quote(inst: Instance) -> dict:
    """The customer asks what a refund of two damaged lines comes to before deciding: the quantity of
    one line counts, and the shipping fee comes back only when the refund covers every open item."""
    shipping = inst.rng.choice([499, 699, 899, 1099])
    with_fee = inst.rng.random() < 0.5  # the two damaged lines are the whole order, or a third line stays
    qty = [2, 1] if inst.rng.random() < 0.5 else [3, 1]
    a = inst.order("delivered", n_items=2 if with_fee else 3, shipping_cents=shipping,
                   delivered_days_ago=inst.rng.randint(4, 22), quantities=qty + ([] if with_fee else [1]))
    hit = a.items[:2]
    _mark_damaged(inst, a, hit)
    b = inst.order("processing")
    amount = sum(it["quantity"] * it["unit_price_cents"] for it in hit) + (shipping if with_fee else 0)
    rest = "" if with_fee else f" (the {a.items[2]['name']} is fine)"
    return {
        "description": "An amount to work out and say before the customer decides: two damaged lines of one order, "
                       f"one of quantity {qty[0]}, {'the whole order, so the shipping fee comes back' if with_fee else 'a third line kept, so no shipping fee'}; "
                       "then a cancellation.",
        "scenario": {
            "goal": f"Told the refund for {hit[0]['name']} x{qty[0]} and {hit[1]['name']} of {a.id} comes to {money(amount)} "
                    f"({'with' if with_fee else 'without'} the shipping fee), then refunded to the card it was paid with; "
                    f"{b.id} cancelled.",
            "request": inst.phrase([f"order {a.id} arrived in a bad way: ", f"I've had a delivery go wrong, order {a.id}: ",
                                    f"my order {a.id} came today and "],
                                   [f"{_units(hit[0])} and {_units(hit[1])} are broken{rest}. ",
                                    f"{_units(hit[0])} and {_units(hit[1])} arrived smashed{rest}. ",
                                    f"{_units(hit[0])} and {_units(hit[1])} were damaged in the box{rest}. "],
                                   ["Before I decide anything, ", "First, though, ", "Before we go on, ", "So, before I choose, "],
                                   [f"how much would I get back in total for the {_noun(hit[0]['name'])} and the "
                                    f"{_noun(hit[1]['name'])}?",
                                    f"what would a refund for the {_noun(hit[0]['name'])} and the {_noun(hit[1]['name'])} "
                                    "come to altogether?",
                                    f"what's the total I'd get back for the {_noun(hit[0]['name'])} and the "
                                    f"{_noun(hit[1]['name'])}?"]),
            # asked how many of the line of several are broken (the policy asks it when unsaid), it says all
            "hidden_facts": inst.identity_facts() + [_refund_decision(inst, " for both"), {
                "id": "units", "topic": "units",
                "fact": f"All {_COUNT[qty[0]]} of the {_plural(hit[0]['name'])} are broken, every one I ordered."}],
            "more_requests": [cancel_line(inst, b.id)],
            "max_turns": 34,
        },
        "actions": refund(a, hit, "damaged") + cancel(b),
        "outputs": [money(amount), money(b.total)],
    }


def three_with_refusal(inst: Instance) -> dict:
    """Three requests, the middle one outside the policy: do the two allowed, decline the third with its
    reason, and escalate nothing (the customer asks for no human)."""
    a = inst.order("processing")
    b = inst.order("in_transit")
    c, item = _damaged_order(inst, n_items=2)
    addr = inst.new_address()
    cancel_b = inst.rng.random() < 0.5  # the declined request: cancel a dispatched order, or re-address it
    declined = (inst.phrase(["and ", "also, ", "next, "], [f"please cancel order {b.id} too", f"I'd like order {b.id} cancelled as well",
                                                           f"can you call off order {b.id}"], [".", ", I don't want it now."])
                if cancel_b else
                address_line(inst, b.id, addr, ["and ", "also, ", "next, "]))
    return {
        "description": f"Three requests with a partial refusal: {a.id} cancelled, {b.id} (already dispatched) "
                       f"{'not cancelled' if cancel_b else 'not re-addressed'} with the reason and no escalation, "
                       "then a damaged item refunded.",
        "scenario": {
            "goal": f"Cancel {a.id}; {b.id} is in transit, so it {'cannot be cancelled' if cancel_b else 'cannot be re-addressed'} "
                    f"(told why; nothing escalated); refund the damaged {item['name']} of {c.id} to the card it was paid with.",
            "request": inst.phrase(["I've got three things to sort out", "a few things today", "three orders to deal with"],
                                   [". First, ", "; to start, ", ", so first, "],
                                   [f"please cancel order {a.id}.", f"I'd like order {a.id} cancelled.",
                                    f"can you cancel order {a.id}?"]),
            "more_requests": [declined, damaged_line(inst, item, c.id, _REFUND_ASK)],
            "max_turns": 40,
        },
        "actions": cancel(a) + [{"name": "get_order", "arguments": {"order_id": b.id}}] + refund(c, [item], "damaged"),
        "outputs": [money(a.total), money(item["unit_price_cents"])],
    }


def window_from_delivery(inst: Instance) -> dict:
    """The refund window counts from delivery, not from the order date: a damaged item ordered over 30
    days ago but delivered 27 to 30 days ago is refundable, and the last day to return an unwanted item
    is the delivery date plus 30 (the order date plus 30 is another, wrong day); then a cancellation."""
    days = inst.rng.randint(27, 30)
    a = inst.order("delivered", n_items=1, delivered_days_ago=days, placed_gap=inst.rng.randint(7, 11))
    item = a.items[0]
    _mark_damaged(inst, a, [item])
    placed = TODAY - dt.timedelta(days=days + a.placed_gap)
    d_b = inst.rng.randint(6, 18)
    b = inst.order("delivered", n_items=1, delivered_days_ago=d_b, placed_gap=inst.rng.randint(6, 10))
    last_day = TODAY - dt.timedelta(days=d_b) + dt.timedelta(days=30)
    c = inst.order("processing")
    when = f"{placed:%B} {placed.day}"
    return {
        "description": f"Dates: a damaged item ordered {days + a.placed_gap} days ago, delivered {days} days ago "
                       "(inside the window, counted from delivery); the last return day of an unwanted item "
                       "(delivery + 30, not order + 30); a cancellation.",
        "scenario": {
            "goal": f"A refund of the damaged {item['name']} of {a.id} to the card it was paid with (delivered {days} days ago); "
                    f"told the last day to return the {b.items[0]['name']} of {b.id} ({last_day}); {c.id} cancelled.",
            "request": inst.phrase([f"I ordered the {item['name']} back on {when} (order {a.id}) ",
                                    f"order {a.id}, the {item['name']}, I placed it on {when} "],
                                   ["and it arrived damaged. ", "and it came broken. "],
                                   ["That's more than a month ago", "I know that's over 30 days", "It was a while back now",
                                    "That was ages ago", "I know it's been a while"],
                                   [", so am I too late for a refund?", ", but can I still get a refund?",
                                    "; is a refund still possible?", ", so can I still get my money back?"]),
            "more_requests": [
                inst.phrase([f"also, I don't need the {b.items[0]['name']} from order {b.id} any more. ",
                             f"next, the {b.items[0]['name']} in order {b.id} isn't what I expected and I want to send it back. "],
                            [f"What's the last day I can return the {_noun(b.items[0]['name'])}?",
                             f"Until what date can I still return the {_noun(b.items[0]['name'])}?",
                             f"By when do I have to send the {_noun(b.items[0]['name'])} back?"]),
                cancel_line(inst, c.id, ["and finally, ", "last thing: ", "lastly, "]),
            ],
            "max_turns": 36,
        },
        "actions": refund(a, [item], "damaged") + [{"name": "get_order", "arguments": {"order_id": b.id}},
                                                   {"name": "get_shipment_tracking", "arguments": {"order_id": b.id}}]
        + cancel(c),
        "outputs": [money(item["unit_price_cents"]), {"value": f"{last_day}", "kind": "date"}, money(c.total)],
    }


def similar_orders(inst: Instance) -> dict:
    """The same product bought twice, on two days at two prices: the customer gives no order number, only
    the day it ordered the damaged one; the customer's orders (``list_orders``) show which order that is."""
    d_old = inst.rng.randint(14, 22)
    old = inst.order("delivered", n_items=1, delivered_days_ago=d_old)
    d_new = inst.rng.randint(3, d_old - 6)
    new = inst.order("delivered", n_items=1, delivered_days_ago=d_new, same_as=old.items,
                     price_pct=inst.rng.choice([80, 90, 110, 115]))
    target, other = (new, old) if inst.rng.random() < 0.5 else (old, new)
    item = target.items[0]
    _mark_damaged(inst, target, [item])
    placed = TODAY - dt.timedelta(days=target.delivered_days_ago + target.placed_gap)
    day = f"{placed:%B} {placed.day}"
    c = inst.order("processing")
    which = "second" if target is new else "first"
    return {
        "description": f"Two orders of the same {item['name']} ({old.id}, {new.id}, at two prices); the customer names "
                       f"only the day it ordered the damaged one ({day}, {target.id}); then a cancellation.",
        "scenario": {
            "goal": f"A refund of the damaged {item['name']} of {target.id} (ordered {day}; not {other.id}), to the card "
                    f"it was paid with; {c.id} cancelled.",
            "request": inst.phrase([f"I've bought the {item['name']} from you twice, ", f"I ordered the {item['name']} twice, "],
                                   [f"and the {which} one, the one I ordered on {day}, ",
                                    f"and the one from {day} (the {which} order) "],
                                   ["arrived damaged", "came broken", "turned up cracked"],
                                   [", and I'd like a refund for that one.", "; can I get my money back for it?",
                                    ", so I want that one refunded."]),
            "hidden_facts": inst.identity_facts() + [
                {"id": "no_number", "topic": "order_number", "asked_by": ["order number"],
                 "fact": inst.phrase(["I don't have the order number to hand, sorry; ", "I can't find the number, "],
                                     [f"it's the {_noun(item['name'])} I ordered on {day}.",
                                      f"the {_noun(item['name'])} was ordered on {day}."])}],
            "more_requests": [cancel_line(inst, c.id)],
            "max_turns": 34,
        },
        "actions": [{"name": "list_orders", "arguments": {"customer_id": inst.customer["id"]}}]
        + refund(target, [item], "damaged") + cancel(c),
        "outputs": [money(item["unit_price_cents"]), money(c.total)],
    }


# -- state to read: what the tools show decides, not what the customer asks (issue 22's headroom) ------


def _refund_row(inst: Instance, o: Order) -> dict:
    return next(r["row"] for r in inst.rows if r["table"] == "refunds" and r["row"]["order_id"] == o.id)


def already_refunded_one(inst: Instance) -> dict:
    """Both items of an order are called damaged and a refund asked for both, but one was refunded
    earlier (``get_order`` shows it refunded, with its refund): that one gets no second refund, the
    other is refunded, and as it is the last item not yet refunded the shipping fee comes back with it;
    then a cancellation."""
    shipping = inst.rng.choice([499, 699, 899])
    a = inst.order("delivered", n_items=2, shipping_cents=shipping, delivered_days_ago=inst.rng.randint(8, 22),
                   first_refunded=True)
    done, item = a.items
    _mark_damaged(inst, a, [done, item])
    b = inst.order("processing")
    amount = item["unit_price_cents"] + shipping
    return {
        "description": f"A refund asked for two damaged items of {a.id}, one refunded earlier: no second refund for it, "
                       f"the other refunded with the shipping fee ({money(item['unit_price_cents'])} + {money(shipping)}); "
                       "then a cancellation.",
        "scenario": {
            "goal": f"The {item['name']} of {a.id} refunded with the shipping fee ({money(amount)}); the {done['name']} "
                    f"(already refunded) not refunded again; {b.id} cancelled.",
            "request": inst.phrase([f"order {a.id} was a mess: ", f"about order {a.id}: ", f"my order {a.id} came and "],
                                   [f"the {done['name']} and the {item['name']} both arrived damaged",
                                    f"both the {done['name']} and the {item['name']} were broken",
                                    f"the {done['name']} and the {item['name']} came damaged"],
                                   [", and I'd like a refund for both.", "; please refund the two of them.",
                                    ", so I want my money back for both."]),
            "more_requests": [cancel_line(inst, b.id)],
            "max_turns": 34,
        },
        "actions": refund(a, [item], "damaged") + cancel(b),
        "outputs": [money(amount), money(b.total)],
    }


def refund_post_date(inst: Instance) -> dict:
    """A refund that has not reached the card: its ``expected_post_by`` is today (not passed: say the
    date, change nothing) or yesterday (passed: a ``refund_trace`` ticket after a yes); then a
    cancellation. The day decides, and only the tools show it."""
    a = inst.order("delivered", n_items=2, delivered_days_ago=inst.rng.randint(9, 20), first_refunded=True)
    passed = inst.rng.random() < 0.5
    due = TODAY - dt.timedelta(days=1 if passed else 0)
    row = _refund_row(inst, a)
    row.update(status="pending", expected_post_by=f"{due}",
               created_at=f"{dt.datetime.combine(due - dt.timedelta(days=7), dt.time(12, 0)):%Y-%m-%d %H:%M:%S}")
    b = inst.order("processing")
    trace = [{"name": "create_ticket", "arguments": {
        "customer_id": inst.customer["id"], "category": "refund_trace", "subject": "Refund not received",
        "body": "Refund overdue.", "order_id": a.id}}]
    return {
        "description": f"A refund of {a.id} not on the card, expected by {due} ({'yesterday: passed, a trace ticket' if passed else 'today: not passed, the date told'}); "
                       "then a cancellation.",
        "scenario": {
            "goal": (f"A refund_trace ticket opened for the refund of {a.id} (it should have posted by {due}); "
                     if passed else f"Told the refund of {a.id} should post by {due} (today), nothing else done for it; ")
                    + f"{b.id} cancelled.",
            "request": inst.phrase([f"my refund for order {a.id} ", f"the refund for the {a.items[0]['name']} (order {a.id}) "],
                                   ["hasn't shown up on my card", "still hasn't arrived on my card", "never showed up on my card"],
                                   [". What's happening?", "; can you check?", ", where is it?"]),
            "more_requests": [cancel_line(inst, b.id)],
            "max_turns": 30,
        },
        "actions": [{"name": "get_refund_status", "arguments": {"order_id": a.id}}] + (trace if passed else []) + cancel(b),
        "outputs": ([] if passed else [{"value": f"{due}", "kind": "date"}]) + [money(b.total)],
        **({"ignore_columns": ["tickets.subject", "tickets.body"]} if passed else {}),
    }


def authorization_not_duplicate(inst: Instance) -> dict:
    """"Charged twice": the second line of the same amount is an authorization (status ``authorized``,
    not captured), so there is nothing to refund and it drops off by itself; then a cancellation and
    an address change on two other orders."""
    a = inst.order("delivered", n_items=1, delivered_days_ago=inst.rng.randint(2, 6))
    first = next(r["row"] for r in inst.rows if r["table"] == "charges" and r["row"]["order_id"] == a.id)
    when = dt.datetime.strptime(first["created_at"], "%Y-%m-%d %H:%M:%S") + dt.timedelta(minutes=inst.rng.randint(1, 9))
    inst.rows.append({"table": "charges", "row": {**first, "id": f"CH-{int(a.id[2:]) + 5}", "status": "authorized",
                                                  "created_at": f"{when:%Y-%m-%d %H:%M:%S}"}})
    b = inst.order("processing")
    c = inst.order("processing")
    addr = inst.new_address()
    return {
        "description": f"A 'duplicate charge' on {a.id} that is an authorization, not a capture: nothing refunded; "
                       f"{b.id} cancelled and {c.id} re-addressed.",
        "scenario": {
            "goal": f"Told {a.id} has one captured charge ({money(a.total)}) and the other line is an authorization "
                    f"that drops off (nothing refunded); {b.id} cancelled; {c.id} shipped to {address_words(addr)}.",
            "request": inst.phrase(["I think I was charged twice for order ", "you double-charged me for order ",
                                    "there are two charges for order "], [a.id],
                                   [f": two lines of {money(a.total)} on my card.", f", I see {money(a.total)} twice.",
                                    f"; both say {money(a.total)}."]),
            "more_requests": [cancel_line(inst, b.id), address_line(inst, c.id, addr)],
            "max_turns": 36,
        },
        "actions": [{"name": "get_order", "arguments": {"order_id": a.id}}] + cancel(b) + change_address(c, addr),
        "outputs": [money(a.total), money(b.total)],
    }


def store_credit_for_all(inst: Instance) -> dict:
    """Store credit asked for everything, a cancellation included: the cancellation refunds the original
    payment whatever is asked (said so), the damaged item's refund goes to store credit."""
    a, item = _damaged_order(inst, n_items=2)
    b = inst.order("processing")
    return {
        "description": f"Store credit asked for everything: {b.id} cancelled (refunded to the card, as every "
                       f"cancellation is), the damaged {item['name']} of {a.id} refunded as store credit.",
        "scenario": {
            "goal": f"{b.id} cancelled (its refund to the original card, as cancellations always are); the damaged "
                    f"{item['name']} of {a.id} refunded as store credit.",
            "request": inst.phrase(["I'd like store credit for everything today, not money on my card. ",
                                    "please make every refund today store credit. ",
                                    "whatever you refund me today, I want it as store credit. "],
                                   [f"First, cancel order {b.id}", f"To start, I want order {b.id} cancelled",
                                    f"First, please cancel order {b.id}"],
                                   [", and put that money on store credit too.", "; store credit for that one as well.",
                                    ", with the money as store credit."]),
            "more_requests": [damaged_line(inst, item, a.id, _REFUND_ASK)],
            "max_turns": 34,
        },
        "actions": cancel(b) + refund(a, [item], "damaged", "store_credit"),
        "outputs": [money(b.total), money(item["unit_price_cents"])],
    }


# -- part of a line: some units of a line of several damaged (issue 22's headroom) -------------------

_COUNT = ["", "one", "two", "three", "four", "five", "six"]


def _plural(name: str) -> str:
    """A product name said of several: "Desk Lamp" -> "Desk Lamps", "Sewing Box" -> "Sewing Boxes"."""
    if name.endswith("s"):
        return name
    return name + ("es" if name.endswith(("x", "ch", "sh")) else "s")


def partial_units(inst: Instance) -> dict:
    """Some units of a line of several arrived damaged ("two of the four glasses"): only those units
    are refunded or replaced (``quantity``), the amount is the unit price times them, and as units of
    the line stay open the shipping fee does not come back. The customer says how many up front, or
    says "some of them" and gives the number when asked; in one variant one unit of the line was
    refunded earlier (get_order shows it), and the new damage is of units still open. Then a cancellation."""
    mode = ("said", "asked", "replace", "second")[inst.n % 4]  # the seven instances cover each variant
    qty = inst.rng.choice([4, 5, 6] if mode == "second" else [3, 4, 5, 6] if mode == "asked" else [2, 3, 4, 5, 6])
    earlier = 1 if mode == "second" else 0
    # units damaged now: some of the line's open units, never all of them (two of four, as often as not more than one)
    k = inst.rng.randint(2, qty - earlier - 1) if qty - earlier >= 3 else 1
    shipping = inst.rng.choice([499, 699, 899])
    with_other = inst.rng.random() < 0.5  # a second line, unharmed, beside the damaged one
    a = inst.order("delivered", n_items=2 if with_other else 1, shipping_cents=shipping,
                   delivered_days_ago=inst.rng.randint(3, 20), quantities=[qty, 1] if with_other else [qty])
    line = a.items[0]
    for r in inst.rows:
        if r["table"] == "home_deliveries" and r["row"]["order_id"] == a.id:
            r["row"]["damaged_items"] = f"{_COUNT[k + earlier]} of the {_COUNT[qty]} {_plural(line['name'])}"
    if earlier:  # one unit refunded a week after delivery, recorded with its unit
        _units_refunded_earlier(inst, a, line, 1)
    b = inst.order("processing")
    many, name = _plural(line["name"]), line["name"]
    amount = k * line["unit_price_cents"]
    fine = f" (the {a.items[1]['name']} is fine)" if with_other else ""
    count = f"{_COUNT[k]} of the {_COUNT[qty]} {many}"
    broke = ["arrived broken", "came damaged", "were broken in the box", "turned up cracked"]
    broke_one = ["arrived broken", "came damaged", "was broken in the box", "turned up cracked"]
    verb = broke_one if k == 1 else broke
    replace_it = mode == "replace"
    ask = ([", could you send replacements for just those?", "; can I get new ones for those?",
            ", so I'd like those replaced."] if replace_it and k > 1 else
           [", could you send a replacement for that one?", "; can I get a new one for it?", ", so I'd like it replaced."]
           if replace_it else [", and I'd like a refund for those.", "; can I get my money back for them?",
                               ", so a refund for those, please."] if k > 1 else
           [", and I'd like a refund for that one.", "; can I get my money back for it?", ", so a refund for it, please."])
    hidden = inst.identity_facts()
    if mode == "asked":
        request = inst.phrase([f"order {a.id} came and ", f"about order {a.id}: ", f"my order {a.id} arrived, but "],
                              [f"some of the {_COUNT[qty]} {many} I ordered ", f"a few of my {_COUNT[qty]} {many} ",
                               f"not all of the {many} survived: some "],
                              broke, [f"{fine}; ", f"{fine}, "],
                              ["I'd like a refund for the broken ones.", "can I get my money back for the damaged ones?",
                               "please refund the ones that broke."])
        hidden = hidden + [{"id": "units", "topic": "units", "fact": inst.phrase(
            [f"{_COUNT[k]} of them", f"{_COUNT[k]} out of the {_COUNT[qty]}"],
            [" " + v for v in (broke_one if k == 1 else broke)],
            [f"; the other {_COUNT[qty - k]} {'is' if qty - k == 1 else 'are'} fine.", "."])}]
    elif mode == "second":
        request = inst.phrase([f"you refunded one of my {_COUNT[qty]} {many} from order {a.id} last week, and ",
                               f"order {a.id}: one of the {_COUNT[qty]} {many} was refunded already, but "],
                              [f"now I've found {_COUNT[k]} more of them "], verb, [f"{fine}"], ask)
    else:
        request = inst.phrase([f"order {a.id} came and ", f"about order {a.id}: ", f"my order {a.id} arrived, but "],
                              [count + " "], verb, [fine], ask)
    done_words = (f"{_COUNT[k]} of the {_COUNT[qty]} {many} of {a.id} replaced (not the whole line)" if replace_it else
                  f"{_COUNT[k]} of the {_COUNT[qty]} {many} of {a.id} refunded ({money(amount)}: {k} x "
                  f"{money(line['unit_price_cents'])}, no shipping fee, as units of the line stay)")
    remedy = "send_replacement" if replace_it else "refund_items"
    args: dict[str, Any] = {"order_id": a.id, "item_ids": [line["id"]]}
    args.update({"reason": "damaged"} if replace_it else {"destination": "original_payment", "reason": "damaged"})
    args["quantity"] = k
    return {
        "description": f"Part of a line: {k} of {qty} units of the {name} of {a.id} damaged"
                       f"{' (one unit refunded earlier)' if earlier else ''}, the count "
                       f"{'given when asked' if mode == 'asked' else 'said up front'}; "
                       f"{'replaced' if replace_it else 'refunded'} for those units only; then a cancellation.",
        "scenario": {
            "goal": f"{done_words[0].upper()}{done_words[1:]}; {b.id} cancelled.",
            "request": request,
            "hidden_facts": hidden,
            "more_requests": [cancel_line(inst, b.id)],
            "max_turns": 34,
        },
        "actions": [{"name": "get_order", "arguments": {"order_id": a.id}}, {"name": remedy, "arguments": args}]
        + cancel(b),
        "outputs": ([] if replace_it else [money(amount)]) + [money(b.total)],
    }


def household_order(inst: Instance) -> dict:
    """Three requests, the middle one about an order the customer takes for its own: it ships to the
    customer's address, but a housemate placed it on their own account (``get_order`` shows another
    ``customer_id``). The policy: an order the customer names must belong to the verified account, and
    other customers' data is not discussed; so that order is neither changed nor described, and the
    two others go ahead."""
    a, item = _damaged_order(inst, n_items=2)
    mate = inst.rng.choice(inst.accounts)
    x = inst.order("processing", owner=mate)
    c = inst.order("processing")
    addr = inst.new_address()
    who = inst.words.choice(["my housemate", "my partner", "my flatmate", "my roommate"])
    return {
        "description": f"An order of another account among the customer's: {x.id} ships to the customer's address but "
                       f"was placed on {mate['id']}'s account, so it is not cancelled nor described; the damaged "
                       f"{item['name']} of {a.id} refunded; {c.id} re-addressed.",
        "scenario": {
            "goal": f"A refund for the damaged {item['name']} of {a.id}; order {x.id} cancelled, if it can be (you think "
                    f"it is yours: it is coming to your address, but {who} {mate['first']} placed it on their own "
                    f"account); order {c.id} shipped to {address_words(addr)}.",
            "request": damaged_line(inst, item, a.id, _REFUND_ASK),
            "hidden_facts": inst.identity_facts() + [
                {"id": "household", "topic": "order_number", "asked_by": ["order number"],
                 "fact": inst.phrase([f"{x.id} is the number on the delivery notice for the parcel coming to our house",
                                      f"that's the number I have for it, {x.id}, it's being delivered here",
                                      f"{x.id} is what the shipping email said, and it's coming to my address"],
                                     [". Oh, wait, ", "; hmm, actually ", ". Although, thinking about it, "],
                                     [f"{who} {mate['first']} might have ordered it from their own account.",
                                      f"maybe {who} {mate['first']} placed that one on their account.",
                                      f"it could be {who} {mate['first']}'s order, on their account."])}],
            "more_requests": [cancel_line(inst, x.id),
                              address_line(inst, c.id, addr, ["and last, ", "finally, ", "last thing: ", "lastly, "])],
            "max_turns": 40,
        },
        "actions": refund(a, [item], "damaged") + [{"name": "get_order", "arguments": {"order_id": x.id}}]
        + change_address(c, addr),
        "outputs": [money(item["unit_price_cents"])],
    }


def last_units_quote(inst: Instance) -> dict:
    """Part of a line refunded earlier, the rest of it damaged now, and the amount asked before
    deciding: when those units are every open unit of the order, the refund is the last of it and
    the shipping fee comes back with it (policy: every unit of a line of several counts); when
    another line of the order stays, it does not. Then a cancellation."""
    qty = inst.rng.choice([3, 4, 5, 6])
    earlier = inst.rng.randint(1, qty - 2)
    k = qty - earlier  # the units still open, all damaged now
    with_fee = inst.n % 3 != 0  # most instances are the last of the order; some keep another line
    shipping = inst.rng.choice([499, 699, 899, 1099])
    a = inst.order("delivered", n_items=1 if with_fee else 2, shipping_cents=shipping,
                   delivered_days_ago=inst.rng.randint(4, 20), quantities=[qty] if with_fee else [qty, 1])
    line = a.items[0]
    for r in inst.rows:
        if r["table"] == "home_deliveries" and r["row"]["order_id"] == a.id:
            r["row"]["damaged_items"] = f"{_COUNT[qty]} of the {_COUNT[qty]} {_plural(line['name'])}"
    _units_refunded_earlier(inst, a, line, earlier)
    b = inst.order("processing")
    many = _plural(line["name"])
    amount = k * line["unit_price_cents"] + (shipping if with_fee else 0)
    fine = "" if with_fee else f" (the {a.items[1]['name']} is fine)"
    was = "was" if earlier == 1 else "were"
    return {
        "description": f"The rest of a line damaged after {earlier} of its {qty} units were refunded, the amount asked "
                       f"first: {k} x {money(line['unit_price_cents'])}"
                       + (f" + the {money(shipping)} shipping fee (every open unit of the order)" if with_fee else
                          " and no shipping fee (another line of the order stays)") + "; then a cancellation.",
        "scenario": {
            "goal": f"Told the refund for the other {k} {many} of {a.id} comes to {money(amount)} "
                    f"({'with' if with_fee else 'without'} the shipping fee), then refunded to the card it was paid with; "
                    f"{b.id} cancelled.",
            "request": inst.phrase([f"{_COUNT[earlier]} of my {_COUNT[qty]} {many} from order {a.id} {was} refunded already, ",
                                    f"you refunded {_COUNT[earlier]} of the {_COUNT[qty]} {many} in order {a.id} before, "],
                                   [f"and now I've unpacked the other {_COUNT[k]} and they're broken too{fine}. ",
                                    f"and the remaining {_COUNT[k]} turned out to be damaged as well{fine}. ",
                                    f"but the other {_COUNT[k]} are cracked too, I found them at the bottom of the box{fine}. "],
                                   ["Before I decide, ", "First, ", "Before we go on, "],
                                   [f"how much would I get back for those {_COUNT[k]}?",
                                    f"what would a refund for the other {_COUNT[k]} come to?",
                                    f"what's the total I'd get back for the rest of them?"]),
            "hidden_facts": inst.identity_facts() + [_refund_decision(inst)],
            "more_requests": [cancel_line(inst, b.id)],
            "max_turns": 34,
        },
        "actions": refund(a, [line], "damaged") + cancel(b),
        "outputs": [money(amount), money(b.total)],
    }


# -- a total across several orders: each order's refund by its own items and fee ----------------------

# what each order of an orders_total task holds; the first three kinds are the last open items of
# their order (its shipping fee comes back), the others leave something of it open (no fee)
_FEE_KINDS = ("whole", "earlier", "all_units")
_TOTAL_PLANS = [  # (orders' kinds, in the order they are placed): the seven instances cover each kind
    ("earlier", "units"), ("whole", "stays"), ("all_units", "units_stays", "stays"), ("earlier", "stays"),
    ("whole", "units"), ("earlier", "units_stays", "whole"), ("all_units", "units")]
_TRAILING = ("none", "address", "tracking", "refund_status")


def _total_part(inst: Instance, kind: str) -> dict:
    """One delivered order of an orders_total task, its damaged items and their refund: ``whole`` (every
    item of it damaged), ``earlier`` (its one item not refunded earlier), ``all_units`` (every unit of
    its one line), ``stays`` (one item damaged, another fine), ``units`` (some units of its one line),
    ``units_stays`` (some units of a line, another item fine)."""
    shipping = inst.rng.choice([499, 599, 699, 799, 899, 999])
    days = inst.rng.randint(3, 22)
    q = inst.rng.choice([2, 3]) if kind == "all_units" else inst.rng.choice([3, 4, 5, 6])
    n_items, qty = {"whole": (inst.rng.choice([1, 2]), None), "earlier": (2, None), "all_units": (1, [q]),
                    "stays": (2, None), "units": (1, [q]), "units_stays": (2, [q, 1])}[kind]
    o = inst.order("delivered", n_items=n_items, shipping_cents=shipping, delivered_days_ago=days,
                   first_refunded=kind == "earlier", quantities=qty)
    hit = o.items[1:] if kind == "earlier" else o.items[:1] if kind in ("stays", "units", "units_stays") else o.items
    k = inst.rng.randint(1, q - 1) if kind in ("units", "units_stays") else None
    line = hit[0]
    many = _plural(line["name"])
    if k:
        for r in inst.rows:
            if r["table"] == "home_deliveries" and r["row"]["order_id"] == o.id:
                r["row"]["damaged_items"] = f"{_COUNT[k]} of the {_COUNT[q]} {many}"
    else:
        _mark_damaged(inst, o, hit)
    one = ["arrived broken", "came cracked", "turned up smashed", "was damaged in the box"]
    several = ["arrived broken", "came cracked", "turned up smashed", "were damaged in the box"]
    fine = f" (the {o.items[1]['name']} is fine)" if kind in ("stays", "units_stays") else ""
    if k:
        said = inst.phrase([f"{_COUNT[k]} of the {_COUNT[q]} {many} "], one if k == 1 else several, [fine])
    elif kind == "all_units":
        said = inst.phrase(["both " if q == 2 else "all three ", "both of the " if q == 2 else "all three of the "],
                           [f"{many} "], several, [fine])
    else:
        said = inst.phrase([" and ".join(f"the {it['name']}" for it in hit) + " "],
                           one if len(hit) == 1 else [f"both {v}" for v in several])
    said = said[0].lower() + said[1:]
    units = k or (q if kind == "all_units" else 1)
    amount = (units * line["unit_price_cents"] if len(hit) == 1 else sum(it["unit_price_cents"] for it in hit))
    fee = kind in _FEE_KINDS
    amount += shipping if fee else 0
    acts = refund(o, hit, "damaged")
    if k:
        acts[1]["arguments"]["quantity"] = k
    why = {"whole": "every item of it", "earlier": "its last item not refunded earlier",
           "all_units": f"every unit of its line of {q}", "stays": "another item of it stays",
           "units": f"{k} of its {q} units", "units_stays": f"{k} of {q} units, another item staying"}[kind]
    # what the customer knows beside what it says: an item of the order refunded before
    known = f" (the {o.items[0]['name']} of {o.id} was refunded before)" if kind == "earlier" else ""
    return {"order": o, "said": said, "amount": amount, "actions": acts, "known": known,
            "note": f"{o.id} {money(amount)}: {why}, " + (f"with its {money(shipping)} shipping fee" if fee else
                                                          "no shipping fee")}


def _trailing_request(inst: Instance, kind: str) -> dict:
    """The request after the refunds, of another kind than theirs (or none): an address change before
    dispatch, a parcel still in transit (the carrier's estimate told), a refund not yet on the card
    whose post-by date is still ahead (that date told)."""
    lead = ["also, ", "one more thing: ", "oh, and ", "while I have you, ", "separately, "]
    if kind == "none":
        return {"goal": "", "lines": [], "actions": [], "outputs": [], "relies_on": [], "kind": ""}
    if kind == "address":
        d = inst.order("processing")
        addr = inst.new_address()
        return {"goal": f"; {d.id} shipped to {address_words(addr)}", "lines": [address_line(inst, d.id, addr, lead)],
                "actions": change_address(d, addr), "outputs": [], "relies_on": ["Shipping address"],
                "kind": "an address change before dispatch"}
    if kind == "tracking":
        d = inst.order("in_transit")
        eta = TODAY + dt.timedelta(days=2)  # what Instance._rows writes for a parcel in transit
        line = inst.phrase(lead, [f"order {d.id} still hasn't arrived", f"I'm still waiting for order {d.id}",
                                  f"order {d.id} hasn't turned up yet"],
                           ["; where is it?", ", when will it get here?", "; can you check where it is?"])
        return {"goal": f"; told {d.id} is on its way with {d.carrier}, expected {eta} (nothing else done for it)",
                "lines": [line], "outputs": [{"value": f"{eta}", "kind": "date"}],
                "actions": [{"name": "get_order", "arguments": {"order_id": d.id}},
                            {"name": "get_shipment_tracking", "arguments": {"order_id": d.id}}],
                "relies_on": ["Not arrived, still in transit"], "kind": "a parcel in transit asked after"}
    d = inst.order("delivered", n_items=2, delivered_days_ago=inst.rng.randint(8, 15), first_refunded=True)
    due = TODAY + dt.timedelta(days=inst.rng.randint(1, 4))
    _refund_row(inst, d).update(
        status="pending", expected_post_by=f"{due}",
        created_at=f"{dt.datetime.combine(due - dt.timedelta(days=7), dt.time(12, 0)):%Y-%m-%d %H:%M:%S}")
    line = inst.phrase(lead, [f"the refund for the {d.items[0]['name']} from order {d.id} ", f"my refund on order {d.id} "],
                       ["still hasn't shown up on my card", "hasn't reached my card yet", "hasn't arrived on my card"],
                       ["; is it on its way?", ". Can you check?", ", what's going on with it?"])
    return {"goal": f"; told the refund of {d.id} should post by {due} (nothing else done for it)", "lines": [line],
            "actions": [{"name": "get_refund_status", "arguments": {"order_id": d.id}}],
            "outputs": [{"value": f"{due}", "kind": "date"}], "relies_on": ["Refund not received"],
            "kind": "a refund not yet on the card asked after"}


def orders_total(inst: Instance) -> dict:
    """Damaged items in two or three delivered orders, and the total asked before deciding: each order's
    refund by its own rules (its shipping fee only when its damaged items are its last open ones: every
    item, the one not refunded earlier, every unit of a line; none when an item or units of a line stay;
    units at unit price), said as one sum, then the refunds (one per order) after the yes; then
    perhaps one request of another kind."""
    plan = _TOTAL_PLANS[(inst.n % 100 - 1) % len(_TOTAL_PLANS)]
    parts = [_total_part(inst, kind) for kind in plan]
    total = sum(p["amount"] for p in parts)
    told = list(parts)
    inst.rng.shuffle(told)  # the order with the fee is not always the one named first
    after = _trailing_request(inst, _TRAILING[inst.n % len(_TRAILING)])
    n = ["", "", "two", "three"][len(parts)]
    orders = ", ".join(p["order"].id for p in parts)
    request = inst.phrase([f"{n} of my recent orders arrived with damage. ", f"I've had {n} deliveries go wrong. ",
                           f"things came broken in {n} of my orders. ", f"I've got damaged things from {n} different orders. ",
                           f"{n} separate orders of mine turned up with breakages. ", f"I've had bad luck with {n} orders. ",
                           f"{n} of my parcels had broken things inside. ",
                           f"it's about {n} orders, {'both' if len(parts) == 2 else 'all'} with damage. "],
                          *[[f"In order {p['order'].id}, {p['said']}. ", f"Order {p['order'].id}: {p['said']}. ",
                             f"From order {p['order'].id}, {p['said']}. "] for p in told],
                          ["Before I decide anything, how much would I get back in total?",
                           "Before I choose what to do, what would the refunds come to altogether?",
                           f"First, what's the total I'd get back across {'both' if len(parts) == 2 else 'all three'} orders?",
                           "So before I decide: how much is that in total, for all of it?",
                           "What would I get back for all of that in total, before I make up my mind?",
                           "Can you tell me the total refund for everything first?",
                           "How much would the refunds add up to, all together?",
                           "Before anything else, what's the combined amount I'd get back?"])
    return {
        "description": f"A total across {n} orders asked before deciding, {money(total)}: "
                       + "; ".join(p["note"] for p in parts) + "; the refunds after the yes"
                       + (f"; then {after['kind']}." if after["lines"] else "."),
        "scenario": {
            "goal": f"Told the refunds for the damaged items of {orders} come to {money(total)} in total (each order's "
                    "refund by its own items and shipping fee), then refunded to the card it was paid with"
                    + "".join(p["known"] for p in parts)
                    + after["goal"] + ".",
            "request": request,
            "hidden_facts": inst.identity_facts() + [_refund_decision(inst, " for all of it")],
            "more_requests": after["lines"],
            "max_turns": 40,
        },
        "actions": [a for p in parts for a in p["actions"]] + after["actions"],
        "outputs": [money(total)] + after["outputs"],
        "relies_on": ["Identity first", "Missing or damaged item", "Refund or replacement", "What you may promise"]
        + after["relies_on"],
    }


# -- a long conversation: what happened early decides a late request -----------------------------------

# The seven instances' plans, one each: which of order A's lines is damaged first ("last": k of the one
# line's units, the rest later, the last of the order; "stays": the same beside a second line that
# stays; "other_first": the second line first, the whole line of several later, the last of the order),
# where store credit is asked for (up front, with the first refund, or not at all), the requests in
# the order the customer raises them (P the first refund, X a cancellation, D an address change, L
# the late refund), and whether the order to re-address has been dispatched (declined) or not.
_LONG_PLANS = [
    ("last", "up_front", "PXDL", True),
    ("stays", "none", "PDXL", True),
    ("other_first", "with_refund", "PDXL", True),
    ("last", "with_refund", "XPDL", False),
    ("stays", "up_front", "XPDL", True),
    ("other_first", "none", "PXLD", True),
    ("last", "none", "DPXL", False),
]


def _first_refund_line(inst: Instance, a: Order, variant: str, k: int, store_credit: bool) -> str:
    """The first refund asked for: ``k`` units of ``a``'s line of several, or its other line whole."""
    line = a.items[0]
    sc = " as store credit" if store_credit else ""
    if variant == "other_first":
        return damaged_line(inst, a.items[1], a.id, [f", and I'd like a refund for it{sc}.", f"; could I get a refund{sc} for it?",
                                                     f", so a refund{sc}, please."])
    many = _plural(line["name"])
    verb = (["arrived broken", "came damaged", "was broken in the box", "turned up cracked"] if k == 1 else
            ["arrived broken", "came damaged", "were broken in the box", "turned up cracked"])
    them = "that one" if k == 1 else "those"
    fine = f" (the {a.items[1]['name']} is fine)" if variant == "stays" else ""
    return inst.phrase([f"order {a.id} came and ", f"about order {a.id}: ", f"my order {a.id} arrived, but "],
                       [f"{_COUNT[k]} of the {_COUNT[line['quantity']]} {many} "], verb, [fine],
                       [f", and I'd like a refund for {them}{sc}.", f"; can I get a refund{sc} for {them}?",
                        f", so a refund for {them}{sc}, please."])


def _late_refund_line(inst: Instance, a: Order, variant: str, left: int, by_noun: bool) -> str:
    """The late request: the rest of the line of several damaged too, and what a refund would come to.
    It names order ``a`` or (``by_noun``: the product's noun is the task's only one) the product alone."""
    line = a.items[0]
    many = _plural(line["name"])
    leads = [f"oh, and going back to order {a.id}: ", f"actually, back to order {a.id} for a moment: ",
             f"sorry, one more thing about order {a.id}: "]
    if variant == "other_first":
        body = [f"I've unpacked the rest of it now and all {_COUNT[left]} {many} are cracked too",
                f"the {_COUNT[left]} {many} in that box turned out to be broken as well",
                f"I've just found that all {_COUNT[left]} {many} in it are damaged too"]
    else:
        if by_noun:
            leads += [f"oh, and back to the {_plural(_noun(line['name']))} from before: ",
                      f"actually, about those {_plural(_noun(line['name']))} again: "]
        body = [f"I've just unpacked the other {_COUNT[left]} and they're cracked too",
                f"the remaining {_COUNT[left]} turned out to be damaged as well",
                f"the other {_COUNT[left]} are broken too, I found them at the bottom of the box"]
    n = _COUNT[left]  # the count in the question keeps the seven tasks' lines apart
    return inst.phrase(leads, body, [f". How much would I get back if you refund those {n}?", ". What would a refund for them come to?",
                                     f"; how much would a refund for the {n} be?", f". If I get those {n} refunded, how much is it?",
                                     ". Before you refund them, what's the amount?", f"; what would I get back for the {n} as a refund?",
                                     ". I'd want those refunded too, but how much would that be?"])


def long_conversation(inst: Instance) -> dict:
    """Four requests over three orders, where what happened early decides how a late one is handled
    and the customer does not say it again: units of a line of a delivered order refunded first, a
    cancellation, an address change (declined when the order is dispatched), and late in the
    conversation the rest of that line damaged too, its amount asked for. The early refund decides the
    late amount: when it leaves the rest of the line as the order's last open units, the shipping fee
    comes back with them (policy: an earlier refund of the same conversation counts), and when another
    line stays it does not; store credit asked for early holds for the late refund (policy: anywhere in
    the conversation), while the cancellation refunds the original payment whatever was asked."""
    variant, credit, plan, dispatched = _LONG_PLANS[(inst.n % 100 - 1) % len(_LONG_PLANS)]  # instance i: plan i
    # products whose plural is said by adding -s or -es (no "Chef Knifes" among several units)
    inst.products = [p for p in inst.products if not p["name"].endswith(("Knife", "fe"))]
    shipping = inst.rng.choice([499, 699, 899, 1099])
    qty = inst.rng.choice([4, 5, 6])
    two = variant != "last"
    a = inst.order("delivered", n_items=2 if two else 1, shipping_cents=shipping,
                   delivered_days_ago=inst.rng.randint(3, 18), quantities=[qty, 1] if two else [qty])
    line = a.items[0]
    # the units damaged at first; never half the line, so the two refunds' amounts differ
    k = 0 if variant == "other_first" else inst.rng.choice([n for n in range(1, qty - 1) if 2 * n != qty])
    left = qty - k  # the units of the line the late request is about: every one still open
    b = inst.order("processing")
    c = inst.order("in_transit" if dispatched else "processing")
    addr = inst.new_address()
    many = _plural(line["name"])
    _mark_damaged(inst, a, ([a.items[1]] if variant == "other_first" else []) + [{"name": f"{_COUNT[qty]} {many}"}])
    # the product alone names the order late only when no other item of the task shares its noun
    nouns = [_noun(it["name"]) for o in inst.orders for it in o.items if it is not line]
    by_noun = not any(n in _noun(line["name"]) or _noun(line["name"]) in n for n in nouns)
    dest = "original_payment" if credit == "none" else "store_credit"
    sc_words = "" if credit == "none" else " as store credit"
    price = line["unit_price_cents"]
    first_amount = a.items[1]["unit_price_cents"] if variant == "other_first" else k * price
    with_fee = variant != "stays"
    late_amount = left * price + (shipping if with_fee else 0)

    first = [{"name": "get_order", "arguments": {"order_id": a.id}},
             {"name": "refund_items", "arguments": {
                 "order_id": a.id, "item_ids": [a.items[1]["id"] if variant == "other_first" else line["id"]],
                 "destination": dest, "reason": "damaged", **({} if variant == "other_first" else {"quantity": k})}}]
    steps = {
        "P": (_first_refund_line(inst, a, variant, k, credit == "with_refund"), first, money(first_amount),
              (f"the damaged {a.items[1]['name']} of {a.id} refunded ({money(first_amount)})" if variant == "other_first"
               else f"{_COUNT[k]} of the {_COUNT[qty]} {many} of {a.id} refunded ({money(first_amount)}: {k} x "
                    f"{money(price)}, no shipping fee)") + sc_words),
        "X": (None, cancel(b), money(b.total),
              f"{b.id} cancelled (its refund goes to the original payment, as every cancellation's does"
              + (", store credit or not)" if credit != "none" else ")")),
        "D": (None, [{"name": "get_order", "arguments": {"order_id": c.id}}] if dispatched else change_address(c, addr),
              None, f"{c.id} is already in transit, so its address cannot be changed (told why; nothing escalated)"
              if dispatched else f"{c.id} shipped to {address_words(addr)}"),
        "L": (_late_refund_line(inst, a, variant, left, by_noun), refund(a, [line], "damaged", dest), money(late_amount),
              f"later, the {'other ' if k else ''}{_COUNT[left]} {many} of {a.id} refunded{sc_words}, told first that it "
              f"comes to {money(late_amount)} ({'with the shipping fee: the last open units of the order' if with_fee else 'no shipping fee: the ' + a.items[1]['name'] + ' stays'})"),
    }
    lines: list[str] = []
    for i, r in enumerate(plan):
        said = steps[r][0]
        if said is None:
            lead = ((["first, ", "to begin, ", "so, first, "] if credit == "up_front" else ["", "so, ", "right, ", "okay, so "])
                    if i == 0 else
                    ["and last, ", "finally, ", "last thing: ", "lastly, "] if i == len(plan) - 1 else None)
            said = cancel_line(inst, b.id, lead) if r == "X" else address_line(inst, c.id, addr, lead)
        lines.append(said)
    if credit == "up_front":
        lines[0] = inst.phrase(["before we start: ", "first of all, ", "one thing up front: ", "just so you know, "],
                               ["any refund you give me today, I'd like as store credit. ",
                                "I'd like any refund today as store credit. ",
                                "please put any refund today on store credit. "]) + lines[0]
    # asked "a refund or a replacement?" (or told a proposal of one), a yes with the choice in it
    hidden = inst.identity_facts() + [{"id": "decision", "topic": "remedy", "fact": inst.phrase(
        ["yes, ", "yes please, ", "okay, yes: ", "yeah, "], ["a refund, please.", "go ahead with the refund, please.", "I'll take the refund."])}]
    if credit != "none":
        # asked again where the refunds go, the customer says it once more; told a proposal to refund to
        # store credit, it says the same with a yes in it (the flags' words: not "store credit" alone,
        # which a proposal names without asking)
        hidden.append({"id": "destination", "topic": "store_credit",
                       "asked_by": ["which card", "original payment", "card or", "credit or", "or store credit",
                                    "or as store credit", "or to store credit"],
                       "fact": inst.phrase(["store credit, yes, ", "as store credit, yes, "],
                                           ["like I said earlier.", "as I said before.", "the same as before."])})
    said_when = {"up_front": "once, at the start", "with_refund": "once, with the first refund"}.get(credit)
    return {
        "description": f"A long conversation ({', '.join(dict(P='first refund', X='cancel', D='address', L='late refund')[r] for r in plan)}): "
                       + ("the other line of " if variant == "other_first" else f"{k} of the {qty} units of a line of ")
                       + f"{a.id} refunded first, the rest of the line late, its amount "
                       + ("with the shipping fee (the early refund left it the order's last open units)" if with_fee
                          else "without the shipping fee (another line stays)")
                       + (f"; store credit said {said_when}, holds for the late refund, the cancellation to the card"
                          if said_when else "; refunds to the card") + ".",
        "scenario": {
            "goal": "; ".join(steps[r][3] for r in plan) + "."
                    + (f" You ask for store credit {said_when}, and do not say it again unless asked." if said_when else ""),
            "request": lines[0],
            "hidden_facts": hidden,
            "more_requests": lines[1:],
            "max_turns": 50,
        },
        "actions": [x for r in plan for x in steps[r][1]],
        "outputs": [steps[r][2] for r in plan if steps[r][2]],
    }


# -- look-alike lines: one product in several sizes and colours, the one meant said in the customer's words --

# how a customer names each colour of the look-alike products (seed.VARIANTS): a plain colour word,
# not the catalogue's name alone
_COLOUR_SAID = {
    "Sage": ["green", "pale green"], "Sand": ["beige", "sandy beige"], "Slate": ["grey", "blue-grey"],
    "Rose": ["pink", "dusty pink"], "Oat": ["beige", "oatmeal-coloured"], "Olive": ["green", "olive-green"],
    "Charcoal": ["dark grey", "grey"], "Blush": ["pink", "pale pink"], "Ivory": ["cream", "off-white"],
    "Navy": ["dark blue", "navy blue"], "Moss": ["green", "mossy green"], "Mustard": ["yellow", "mustard-yellow"],
    "Rust": ["orange", "rusty orange"], "Denim": ["blue", "denim-blue"], "Clear": ["clear", "see-through"],
    "Amber": ["brown", "amber-tinted"], "Smoke": ["grey", "smoky grey"], "Ash": ["light grey", "grey"],
    "Forest": ["dark green", "green"]}
# the product as said in passing: (one, several)
_BASE_SAID = {"Ceramic Mug": ("mug", "mugs"), "Linen Napkins": ("napkin set", "napkin sets"),
              "Cotton Bath Towel": ("towel", "towels"), "Throw Pillow Cover": ("pillow cover", "pillow covers"),
              "Glass Storage Jar": ("storage jar", "storage jars"), "Wool Socks": ("pack of socks", "packs of socks")}
_SMALL_SAID = ["the smaller size", "the small one", "the smaller of the two sizes"]
_LARGE_SAID = ["the bigger size", "the large one", "the larger of the two sizes"]
_LOOK_MODES = ("two_asks", "refunded_before", "two_orders", "replaced_before", "two_asks", "refunded_before", "two_orders")


def _variant_groups(inst: Instance) -> dict[str, dict[tuple[str, str], dict]]:
    """The look-alike products by base product, each keyed by (size, colour)."""
    from domains.support.seed import VARIANTS

    by_name = {p["name"]: p for p in inst.variants}
    return {base: {(size, colour): by_name[f"{base} {size} - {colour}"] for size in sizes for colour in colours}
            for base, _, sizes, colours, _ in VARIANTS}


def _look_words(inst: Instance, base: str, size: str | None, colour: str, sizes: list[str]) -> str:
    """The customer's own words for one look-alike line: its colour, and its size when said ("the
    green mug, the smaller size")."""
    one = _BASE_SAID[base][0]
    said = f"the {inst.words.choice(_COLOUR_SAID[colour])} {one}"
    if size is None:
        return said
    return said + ", " + inst.words.choice(_SMALL_SAID if size == sizes[0] else _LARGE_SAID)


def _damage_words(base: str, one: bool = True) -> list[str]:
    """How a look-alike arrived damaged, in words for its material (a towel is ripped, a mug cracked)."""
    if base in ("Ceramic Mug", "Glass Storage Jar"):
        return ["arrived cracked", "came broken", "turned up damaged", "arrived damaged"]
    return ["arrived ripped", "came damaged", "turned up damaged", "arrived with a ripped seam"]


def _line_done_earlier(inst: Instance, o: Order, line: dict, how: str) -> None:
    """``line`` of ``o`` refunded or replaced a day after delivery, recorded as the tools record it."""
    rid = int(f"7{o.id[2:]}")
    placed = next(r["row"]["placed_at"] for r in inst.rows if r["table"] == "orders" and r["row"]["id"] == o.id)
    when = dt.datetime.strptime(placed, "%Y-%m-%d %H:%M:%S") + dt.timedelta(days=o.placed_gap + 1)
    row = next(r["row"] for r in inst.rows if r["table"] == "order_items" and r["row"]["id"] == line["id"])
    if how == "refunded":
        _units_refunded_earlier(inst, o, line, line["quantity"])
        row["status"] = "refunded"
    else:
        inst.rows.append({"table": "replacements", "row": {
            "id": rid, "order_id": o.id, "order_item_id": line["id"], "product_id": line["product_id"],
            "quantity": line["quantity"], "reason": "damaged", "status": "shipped",
            "created_at": f"{when:%Y-%m-%d %H:%M:%S}"}})
        row["status"] = "replaced"


def _mark(inst: Instance, o: Order, column: str, items: list[dict]) -> None:
    for r in inst.rows:
        if r["table"] == "home_deliveries" and r["row"]["order_id"] == o.id:
            r["row"][column] = " and the ".join(it["name"] for it in items)


def _remedy_of(o: Order, item: dict, want: str, reason: str) -> list[dict]:
    return (refund(o, [item], reason) if want == "refund" else replace(o, [item], reason))


def look_alike_lines(inst: Instance) -> dict:
    """Several lines of one order are one product in two sizes and several colours ("Ceramic Mug
    12 oz - Sage", "... 12 oz - Sand", "... 16 oz - Sage"); the customer names the one it means in
    its own words ("the green mug, the smaller size"), a colour word for the catalogue's shade and
    a comparative for the size, so neither alone picks the line. In some instances a look-alike was
    refunded or replaced earlier (get_order shows it) and the customer speaks of "the other green
    one"; a second request asks for another look-alike (of the same order or of a second order of
    the same products) or cancels another order. The remedy (refund or replacement) is the
    customer's, said up front."""
    mode = _LOOK_MODES[(inst.n % 100 - 1) % len(_LOOK_MODES)]
    groups = _variant_groups(inst)
    base = inst.rng.choice(sorted(groups))
    table = groups[base]
    sizes = list(dict.fromkeys(k[0] for k in table))
    colours = list(dict.fromkeys(k[1] for k in table))
    c1, c2, c3 = inst.rng.sample(colours, 3)
    s_t = inst.rng.choice(sizes)  # the target's size
    s_o = sizes[1 - sizes.index(s_t)]
    # each colour named comes in both sizes, so the colour alone never picks the line, nor the size alone
    keys = [(s_t, c1), (s_o, c1), (s_t, c2), (s_o, c2), (inst.rng.choice(sizes), c3)]
    inst.rng.shuffle(keys)
    days = inst.rng.randint(3, 18)
    shipping = inst.rng.choice([499, 699, 899])
    a = inst.order("delivered", shipping_cents=shipping, delivered_days_ago=days,
                   lines=[{"id": table[k]["id"], "name": table[k]["name"], "price": table[k]["price"]} for k in keys])
    line = {k: it for k, it in zip(keys, a.items)}
    one, many = _BASE_SAID[base]
    want = inst.rng.choice(["refund", "replacement"])
    ask = (inst.phrase([", so I'd like a refund for it.", "; could I get my money back for it?", ", and I'd like a refund for it."])
           if want == "refund" else
           inst.phrase([", so could you send me a replacement?", "; can I get a replacement for it?",
                        ", and I'd like a replacement sent."]))
    broke = inst.words.choice(_damage_words(base))
    hidden = inst.identity_facts()
    actions: list[dict] = []
    more: list[str] = []
    outputs: list[str] = []
    if mode in ("refunded_before", "replaced_before"):
        done, target = line[(s_o, c1)], line[(s_t, c1)]
        _line_done_earlier(inst, a, done, "refunded" if mode == "refunded_before" else "replaced")
        _mark(inst, a, "damaged_items", [done, target])
        colour = inst.words.choice(_COLOUR_SAID[c1])
        before = ("you refunded one of my " if mode == "refunded_before" else "you exchanged one of my ")
        request = inst.phrase([before], [f"{colour} {many} from order {a.id} before, ",
                                         f"{colour} {many} (order {a.id}) earlier, "],
                              ["and now I've noticed the other " + colour + " one ",
                               "but it turns out the other " + colour + " one "],
                              (["is cracked too", "is broken as well", "is damaged too"]
                               if base in ("Ceramic Mug", "Glass Storage Jar") else
                               ["is ripped too", "is damaged as well", "has a ripped seam too"]), [ask])
        hidden.append({"id": "which", "topic": "missing_scope", "asked_by": ["which one", "which of", "which size"],
                       "fact": inst.phrase([f"the other {colour} one, not the one you "
                                            f"{'refunded' if mode == 'refunded_before' else 'exchanged'} before."])})
        b = inst.order("processing")
        more.append(cancel_line(inst, b.id))
        actions = _remedy_of(a, target, want, "damaged") + cancel(b)
        outputs = ([money(target["unit_price_cents"])] if want == "refund" else []) + [money(b.total)]
        second_words = f"{b.id} cancelled"
        first_words = (f"{target['name']} (the other {c1} {one}; the {done['name']} was "
                       f"{'refunded' if mode == 'refunded_before' else 'replaced'} before)")
    else:
        target = line[(s_t, c1)]
        said = _look_words(inst, base, s_t, c1, sizes)
        _mark(inst, a, "damaged_items", [target])
        request = inst.phrase([f"order {a.id} came with several {many} in it, and ", f"about order {a.id}: I ordered a few {many}, and ",
                               f"in order {a.id}, one of the {many} is no good: "],
                              [said + ", "], [broke], [ask])
        hidden.append({"id": "which", "topic": "missing_scope", "asked_by": ["which one", "which of", "which size"],
                       "fact": inst.phrase(["it's ", "I mean "], [said + "."])})
        first_words = f"{target['name']} ({said})"
        want2 = inst.rng.choice(["refund", "replacement"])
        ask2 = inst.phrase(["; I'd like a refund for it, please.", "; could I get my money back for it?"] if want2 == "refund" else
                           ["; could you send me a replacement for it?", "; I'd like a replacement for it, please."])
        if mode == "two_asks":  # a second look-alike of the same order, missing from the box
            second = line[(s_o, c2)]
            said2 = _look_words(inst, base, s_o, c2, sizes)
            _mark(inst, a, "missing_items", [second])
            more.append(inst.phrase(["also, from the same order, ", "and from that same order, ", "one more thing about that order: "],
                                    [said2 + ","], [" was missing from the box", " wasn't in the box at all", " was missing from the parcel"],
                                    [ask2]))
            o2 = a
        else:  # two orders of the same products: the second one's look-alike named by its own order
            keys_b = [(s_o, c2), (s_t, c2), (s_o, c1), (s_o, c3)]
            inst.rng.shuffle(keys_b)
            o2 = inst.order("delivered", shipping_cents=inst.rng.choice([499, 699]), delivered_days_ago=inst.rng.randint(3, 18),
                            lines=[{"id": table[k]["id"], "name": table[k]["name"], "price": table[k]["price"]} for k in keys_b])
            second = dict(zip(keys_b, o2.items))[(s_o, c2)]
            said2 = _look_words(inst, base, s_o, c2, sizes)
            _mark(inst, o2, "missing_items", [second])
            more.append(inst.phrase([f"and I ordered more {many} in order {o2.id}: ", f"also, my other order of {many}, {o2.id}: ",
                                     f"then there's order {o2.id}, more {many}: "],
                                    [said2 + ","], [" was missing from the box", " wasn't in the box", " was missing from the parcel"],
                                    [ask2]))
        actions = _remedy_of(a, target, want, "damaged") + _remedy_of(o2, second, want2, "missing_item")
        outputs = ([money(target["unit_price_cents"])] if want == "refund" else []) + (
            [money(second["unit_price_cents"])] if want2 == "refund" else [])
        second_words = (f"the {second['name']} of {o2.id} ({said2}, missing) "
                        f"{'refunded' if want2 == 'refund' else 'replaced'}")
    return {
        "description": f"Look-alike lines ({base} in {', '.join(sizes)} and several colours) in {a.id}, the one meant said "
                       f"in the customer's words ({mode.replace('_', ' ')}): {first_words} "
                       f"{'refunded' if want == 'refund' else 'replaced'}; then {second_words}.",
        "scenario": {
            "goal": f"The damaged {first_words} of {a.id} {'refunded' if want == 'refund' else 'replaced'}, no other line "
                    f"of it; {second_words}.",
            "request": request,
            "hidden_facts": hidden,
            "more_requests": more,
            "max_turns": 36,
        },
        "actions": actions,
        "outputs": outputs,
        "relies_on": ["Identity first", "Understand the request before acting", "Missing or damaged item",
                      "Refund or replacement"] + (["Cancellation"] if mode.endswith("_before") else []),
    }


# -- two rules at once: a request on which two of the policy's rules bear (policy: When two rules meet) --

_INTERACTION_MODES = ("moved_refund", "short_stock", "credit_fee", "moved_lost", "short_stock", "credit_fee", "moved_keep")


def _moved(inst: Instance, mode: str) -> dict:
    """A customer who has moved asks for a replacement at the new address: a replacement ships to the
    order's shipping address, which cannot change once dispatched, so it is told so and chooses a
    refund (or the replacement to the old address); its order not yet dispatched is re-addressed."""
    lost = mode == "moved_lost"
    keep = mode == "moved_keep"
    if lost:
        a = inst.order("lost", n_items=1, shipping_cents=inst.rng.choice([0, 599, 899]))
        items = a.items
    else:
        a, item = _damaged_order(inst, n_items=2, shipping=inst.rng.choice([0, 499, 699]))
        items = [item]
    b = inst.order("processing")
    addr = inst.new_address()
    where = address_words(addr)
    moved = inst.phrase(["I've moved since I ordered it, so ", "I've moved house since, so ", "I don't live there any more, so "],
                        ["please send the replacement to my new address: ", "could the replacement go to my new address? It's ",
                         "I'd like the replacement sent to my new place, "], [f"{where}."])
    if lost:
        request = inst.phrase([f"order {a.id} never arrived", f"I never got order {a.id}"],
                              [" and the tracking hasn't moved in days. ", "; the tracking's been stuck for ages. "]) + moved
    else:
        request = damaged_line(inst, item, a.id, [". ", "! ", ", which is annoying. "]) + moved
    choice = (inst.phrase(["oh, if it can't come here, ", "hmm, then "],
                          ["send it to the address on the order; I can still collect post there this month.",
                           "send it to the old address after all, my old neighbour will keep it for me."])
              if keep else
              inst.phrase(["oh, if it can't come to my new address, ", "in that case, ", "hmm, if it has to go to the old place, "],
                          ["I'd rather have a refund.", "just refund it instead, please.", "a refund is better then."]))
    remedy = (replace(a, items, "lost_package" if lost else "damaged") if keep else
              refund(a, items, "lost_package" if lost else "damaged"))
    if lost:
        remedy = [remedy[0]] + remedy[1:] + [{"name": "open_carrier_claim",
                                              "arguments": {"order_id": a.id, "reason": "lost_in_transit"}}]
    amount = sum(it["unit_price_cents"] for it in items) + (a.shipping_cents if lost else 0)
    what = "the parcel" if lost else f"the damaged {items[0]['name']}"
    return {
        "description": f"Two rules at once: a replacement asked for {what} of {a.id} at a new address (it ships to the "
                       f"order's address, which cannot change after dispatch); told so, the customer "
                       f"{'keeps the replacement to the order address' if keep else 'takes a refund'}"
                       f"{'; a carrier claim' if lost else ''}; {b.id} (not dispatched) re-addressed.",
        "scenario": {
            "goal": f"{what[0].upper()}{what[1:]} of {a.id} {'replaced (to the address on the order)' if keep else 'refunded'}"
                    f"{' with a carrier claim' if lost else ''}, after being told a replacement cannot go to "
                    f"{where}; order {b.id} shipped to {where}.",
            "request": request,
            # said once told the replacement cannot come to the new address (not to a bare "shall I send one?")
            "hidden_facts": inst.identity_facts() + [{"id": "choice", "fact": choice, "asked_by": [
                "address on the order", "order's address", "order's shipping address", "original address", "old address",
                "previous address", "can't be changed", "cannot be changed", "can no longer be changed", "can't send it to",
                "cannot send it to", "can't ship it to", "cannot ship it to", "only ship to", "only be shipped to",
                "only be sent to", "only go to"]}],
            "more_requests": [address_line(inst, b.id, addr, ["and ", "also, ", "and then, "])],
            "max_turns": 36,
        },
        "actions": remedy + change_address(b, addr),
        "outputs": ([] if keep else [money(amount)]),
        "relies_on": ["Identity first", "Lost by the carrier" if lost else "Missing or damaged item", "Refund or replacement",
                      "Shipping address", "When two rules meet"],
    }


def _short_stock(inst: Instance) -> dict:
    """Replacements asked for some units of a line whose product has fewer units in stock: none is
    sent (policy: every unit or none), the refund of those units offered instead, at unit price and
    without the shipping fee (units of the line stay); then a cancellation."""
    pool = [p for p in inst.low_stock if not p["name"].endswith(("Knife", "fe"))]
    product = inst.rng.choice(pool)
    qty = inst.rng.choice([4, 5, 6])
    k = inst.rng.randint(product["stock"] + 1, qty - 1)
    shipping = inst.rng.choice([499, 699, 899])
    a = inst.order("delivered", shipping_cents=shipping, delivered_days_ago=inst.rng.randint(3, 18),
                   lines=[product], quantities=[qty])
    line = a.items[0]
    many = _plural(line["name"])
    for r in inst.rows:
        if r["table"] == "home_deliveries" and r["row"]["order_id"] == a.id:
            r["row"]["damaged_items"] = f"{_COUNT[k]} of the {_COUNT[qty]} {many}"
    b = inst.order("processing")
    amount = k * line["unit_price_cents"]
    request = inst.phrase([f"order {a.id} came and ", f"about order {a.id}: ", f"my order {a.id} arrived, but "],
                          [f"{_COUNT[k]} of the {_COUNT[qty]} {many} "], ["arrived broken", "were broken in the box", "came damaged"],
                          [", could you send replacements for just those?", "; can I get new ones for those?",
                           ", so I'd like those replaced."])
    return {
        "description": f"Two rules at once: replacements asked for {k} of {qty} {many} of {a.id}, but only "
                       f"{product['stock']} in stock (every unit or none): none sent, those {k} refunded "
                       f"({k} x {money(line['unit_price_cents'])}, no shipping fee); then a cancellation.",
        "scenario": {
            "goal": f"Told only {product['stock']} {line['name']} {'is' if product['stock'] == 1 else 'are'} in stock, so no "
                    f"replacement; {_COUNT[k]} of the {_COUNT[qty]} {many} of {a.id} refunded instead ({money(amount)}, "
                    f"no shipping fee); {b.id} cancelled.",
            "request": request,
            "hidden_facts": inst.identity_facts() + [{"id": "fallback", "topic": "refund", "fact": inst.phrase(
                ["if you can't replace them all, ", "oh, if there aren't enough, "],
                ["a refund for those is fine.", "I'll take the refund for the broken ones."])}],
            "more_requests": [cancel_line(inst, b.id)],
            "max_turns": 34,
        },
        "actions": [{"name": "get_order", "arguments": {"order_id": a.id}},
                    {"name": "refund_items", "arguments": {"order_id": a.id, "item_ids": [line["id"]],
                                                           "destination": "original_payment", "reason": "damaged",
                                                           "quantity": k}}] + cancel(b),
        "outputs": [money(amount), money(b.total)],
        "relies_on": ["Identity first", "Missing or damaged item", "Refund or replacement", "When two rules meet",
                      "Cancellation"],
    }


def _credit_fee(inst: Instance) -> dict:
    """Store credit asked for once, up front, for every refund of the conversation: the cancellation
    refunds the card anyway (told so), the damaged item's refund goes to store credit though the
    customer does not say it again, and as that item is the last of its order not refunded before,
    the shipping fee comes back with it, to store credit too; the amount asked before deciding."""
    b = inst.order("processing")
    shipping = inst.rng.choice([499, 699, 899])
    a = inst.order("delivered", n_items=2, shipping_cents=shipping, delivered_days_ago=inst.rng.randint(5, 20),
                   first_refunded=True)
    done, item = a.items
    _mark_damaged(inst, a, [item])
    amount = item["unit_price_cents"] + shipping
    return {
        "description": f"Two rules at once: store credit asked up front for everything; {b.id} cancelled (to the card, as "
                       f"every cancellation); the damaged {item['name']} of {a.id}, its last item not refunded before, "
                       f"refunded with the {money(shipping)} shipping fee as store credit ({money(amount)}), the amount said first.",
        "scenario": {
            "goal": f"{b.id} cancelled (its refund to the card, as cancellations always are); told the refund for the damaged "
                    f"{item['name']} of {a.id} comes to {money(amount)} with the shipping fee, then refunded as store credit "
                    "(you asked for store credit once, at the start, and do not say it again unless asked).",
            "request": inst.phrase(["before we start: ", "just so you know, ", "one thing up front: "],
                                   ["any money you give back today, I'd like as store credit. ",
                                    "I want store credit for any refund today, not money on my card. "],
                                   [f"First, please cancel order {b.id}.", f"To start, I'd like order {b.id} cancelled.",
                                    f"First, could you cancel order {b.id}?"]),
            "hidden_facts": inst.identity_facts() + [
                {"id": "destination", "topic": "store_credit",
                 "asked_by": ["which card", "original payment", "card or", "credit or", "or store credit",
                              "or as store credit", "or to store credit"],
                 "fact": inst.phrase(["store credit, yes, ", "as store credit, yes, "], ["like I said earlier.", "as I said before."])},
                {"id": "decision", "topic": "remedy", "fact": inst.phrase(["yes, ", "okay, yes: "],
                                                                          ["a refund, please.", "go ahead with the refund."])}],
            "more_requests": [inst.phrase([f"next, the {item['name']} from order {a.id} ", f"then there's order {a.id}: the {item['name']} "],
                                          ["arrived damaged", "came broken"],
                                          [f" (the {done['name']} in it was refunded before). ",
                                           f"; the other thing in that order, the {done['name']}, you refunded already. "],
                                          ["How much would I get back for it?", "What would a refund for it come to?",
                                           "Before you do anything, how much would that be?"])],
            "max_turns": 36,
        },
        "actions": cancel(b) + refund(a, [item], "damaged", "store_credit"),
        "outputs": [money(b.total), money(amount)],
        "relies_on": ["Identity first", "Cancellation", "Missing or damaged item", "Refund or replacement",
                      "When two rules meet"],
    }


def policy_interaction(inst: Instance) -> dict:
    """One request on which two of the policy's rules bear at once (policy: When two rules meet): a
    replacement for a customer who has moved (it ships to the order's address, which cannot change
    after dispatch), replacements for more units than are in stock (every unit or none), store
    credit asked for a cancellation and an item refund that is the last of its order (the card for
    the one, store credit with the shipping fee for the other). The allowed part is done, the rest
    declined with its reason."""
    mode = _INTERACTION_MODES[(inst.n % 100 - 1) % len(_INTERACTION_MODES)]
    if mode == "short_stock":
        return _short_stock(inst)
    if mode == "credit_fee":
        return _credit_fee(inst)
    return _moved(inst, mode)


_SHAKY = lambda p: p.dimensions.get("memory") == "shaky"  # noqa: E731
_FAMILIES = [
    # the number after each template keeps its order ids apart from the other families'
    SupportFamily("cancel_and_address", "two requests: cancel one order, change the address on another",
                  cancel_and_address, 0, relies_on=("Identity first", "Cancellation", "Shipping address")),
    SupportFamily("damaged_and_cancel", "a damaged item of a two-item order refunded (that item only), then a cancellation",
                  cancel_and_damaged_refund, 100,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "Cancellation")),
    SupportFamily("three_requests", "three requests in one conversation: cancel, refund a damaged item, change an address",
                  three_requests, 200,
                  relies_on=("Identity first", "Cancellation", "Missing or damaged item", "Shipping address")),
    SupportFamily("lost_and_address", "a lost parcel (claim plus the remedy the customer chooses), then an address change",
                  lost_parcel_and_address, 300,
                  relies_on=("Identity first", "Lost by the carrier", "Refund or replacement", "Shipping address")),
    SupportFamily("wrong_order_first", "shaky memory: a wrong order number first, the right one once told it was not found",
                  wrong_order_number_first, 400, personas=_SHAKY,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "Cancellation")),
    SupportFamily("mind_change", "a change of mind once a refund is proposed (a replacement instead), then an address change",
                  mind_change_at_proposal, 500,
                  relies_on=("Understand the request before acting", "Missing or damaged item", "Refund or replacement",
                             "Shipping address")),
    SupportFamily("mind_change_after_done", "a change of mind after a refund was issued (nothing swapped), then a cancellation",
                  mind_change_after_done, 1000,
                  relies_on=("Missing or damaged item", "Refund or replacement", "Cancellation")),
    SupportFamily("partly_outside", "one refund inside the window, one outside it declined, then a human asked for",
                  partly_outside_policy, 600,
                  relies_on=("Identity first", "Missing or damaged item", "Refund window", "Escalation")),
    SupportFamily("window_boundary", "day 30 of the refund window and a label created but not dispatched",
                  window_boundary, 700,
                  relies_on=("Identity first", "Missing or damaged item", "Refund window", "Cancellation")),
    SupportFamily("last_item_shipping", "the last unrefunded item refunded with the order's shipping fee, then a cancellation",
                  last_item_with_shipping, 800,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "Cancellation")),
    SupportFamily("store_credit_early", "a long conversation: store credit asked for first, applied to a refund two requests later",
                  store_credit_said_early, 900,
                  relies_on=("Identity first", "Shipping address", "Missing or damaged item", "Cancellation")),
    SupportFamily("refund_quote", "two damaged lines (one of several units): the refund's total said before the "
                  "customer decides, with the shipping fee only when nothing else of the order stays",
                  refund_amount_quote, 1100,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "What you may promise",
                             "Cancellation")),
    SupportFamily("three_with_refusal", "three requests, the middle one on a dispatched order declined with its reason, "
                  "nothing escalated", three_with_refusal, 1200,
                  relies_on=("Identity first", "Understand the request before acting", "Cancellation", "Shipping address",
                             "Missing or damaged item", "Escalation")),
    SupportFamily("window_from_delivery", "the window counted from delivery: ordered over 30 days ago but delivered "
                  "inside it, and a return's last day from the delivery date", window_from_delivery, 1300,
                  relies_on=("Identity first", "Missing or damaged item", "Refund window", "Cancellation")),
    SupportFamily("similar_orders", "the same product bought twice at two prices; the damaged one named only by the "
                  "day it was ordered, found in the customer's orders", similar_orders, 1400,
                  relies_on=("Identity first", "Understand the request before acting", "Missing or damaged item",
                             "Refund or replacement", "Cancellation")),
    SupportFamily("already_refunded_one", "a refund asked for two damaged items, one refunded earlier: no second "
                  "refund for it, the other refunded with the shipping fee, then a cancellation",
                  already_refunded_one, 1500,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "Cancellation")),
    SupportFamily("refund_post_date", "a refund not on the card whose post-by date is today (tell it) or yesterday "
                  "(a trace ticket), then a cancellation", refund_post_date, 1600,
                  relies_on=("Identity first", "Refund not received", "Cancellation")),
    SupportFamily("authorization_not_duplicate", "a 'duplicate charge' that is an authorization (nothing to refund), "
                  "then a cancellation and an address change", authorization_not_duplicate, 1700,
                  relies_on=("Identity first", "Duplicate charge", "Cancellation", "Shipping address")),
    SupportFamily("store_credit_for_all", "store credit asked for everything: the cancellation refunds the card, the "
                  "damaged item's refund goes to store credit", store_credit_for_all, 1800,
                  relies_on=("Identity first", "Cancellation", "Missing or damaged item", "Refund or replacement")),
    SupportFamily("partial_units", "part of a line damaged (two of the four): only those units refunded or replaced, "
                  "the amount unit price x units with no shipping fee, then a cancellation", partial_units, 1900,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "Cancellation")),
    SupportFamily("household_order", "an order the customer takes for its own is on a housemate's account (it ships to "
                  "the customer's address): not changed nor described; a refund and an address change go ahead",
                  household_order, 2000,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "Cancellation",
                             "Shipping address", "Manner")),
    SupportFamily("last_units_quote", "the rest of a line damaged after some of its units were refunded, the amount "
                  "asked first: with the shipping fee when those are the order's last open units, without when another "
                  "line stays", last_units_quote, 2100,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "What you may promise",
                             "Cancellation")),
    SupportFamily("orders_total", "damaged items in two or three orders, the total asked before deciding: each order's "
                  "refund by its own items and shipping fee (the fee only with an order's last open items), then "
                  "perhaps a request of another kind", orders_total, 2200,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "What you may promise")),
    SupportFamily("long_conversation", "four requests over three orders, an early one deciding a late one: units of a "
                  "line refunded first make the rest the order's last (the shipping fee comes back) or not, and store "
                  "credit asked for early holds for the late refund", long_conversation, 2300,
                  relies_on=("Identity first", "Understand the request before acting", "Missing or damaged item",
                             "Refund or replacement", "What you may promise", "Cancellation", "Shipping address")),
    SupportFamily("look_alike_lines", "several lines of one product in sizes and colours; the one meant said in the "
                  "customer's words (a colour word, a comparative size, 'the other green one' beside one done before), "
                  "then a second look-alike or a cancellation", look_alike_lines, 2400,
                  relies_on=("Identity first", "Understand the request before acting", "Missing or damaged item",
                             "Refund or replacement", "Cancellation")),
    SupportFamily("policy_interaction", "two policy rules on one request: a replacement for a customer who has moved, "
                  "replacements for more units than in stock, store credit asked for a cancellation beside the last "
                  "item of an order", policy_interaction, 2500,
                  relies_on=("Identity first", "Missing or damaged item", "Refund or replacement", "Shipping address",
                             "Lost by the carrier", "When two rules meet")),
]


def families() -> dict[str, SupportFamily]:
    """The support families by name (``Domain.families``)."""
    return {f.name: f for f in _FAMILIES}
