"""Deterministic seed data for the support domain (same seed, same bytes).

Scale: 30 sellers, 100 products (and 46 variants: one product in two sizes and several colours),
520 customers, 2,000 orders with their items,
shipments, charges, a sprinkling of refunds, duplicate captures, store credit
and old tickets, plus the customer-side records (home deliveries, bank
statement lines). Everything is drawn from ``random.Random(seed)`` in a fixed
order and inserted in bulk; dates are relative to ``models.TODAY``.
"""

from __future__ import annotations

import datetime as dt
import random

from sqlalchemy import insert
from sqlalchemy.orm import Session

from domains.support.models import (
    NOW,
    REFUND_POSTING_DAYS,
    Address,
    BankStatementLine,
    Charge,
    Customer,
    HomeDelivery,
    Order,
    OrderItem,
    PaymentMethod,
    Product,
    Refund,
    Seller,
    Shipment,
    StoreCreditEntry,
    Ticket,
)

N_SELLERS = 30
N_PRODUCTS = 100
N_CUSTOMERS = 520
N_ORDERS = 2000

FIRST = (
    "James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan "
    "Joseph Jessica Thomas Sarah Charles Karen Daniel Lisa Matthew Nancy Anthony Betty Mark Sandra Donald "
    "Ashley Steven Kimberly Andrew Emily Paul Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Melissa "
    "George Deborah Timothy Stephanie Ronald Rebecca Jason Laura Edward Helen Jeffrey Sharon Ryan Cynthia"
).split()
LAST = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez "
    "Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez "
    "Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker "
    "Hall Rivera Campbell Mitchell Carter Roberts Okafor Kowalski Lindqvist Moreau Tanaka Haddad Novak"
).split()
# (city, state, real zip codes of that city): an address's zip belongs to its city and state
CITIES = [
    ("Springfield", "IL", ["62701", "62702", "62703", "62704", "62707"]),
    ("Portland", "OR", ["97201", "97202", "97205", "97209", "97212", "97214", "97217"]),
    ("Austin", "TX", ["78701", "78702", "78703", "78704", "78705", "78745", "78751"]),
    ("Denver", "CO", ["80202", "80203", "80205", "80206", "80210", "80218"]),
    ("Madison", "WI", ["53703", "53704", "53705", "53711", "53713", "53715"]),
    ("Raleigh", "NC", ["27601", "27603", "27604", "27605", "27608", "27609"]),
    ("Tucson", "AZ", ["85701", "85705", "85710", "85711", "85716", "85719"]),
    ("Boise", "ID", ["83702", "83703", "83704", "83705", "83706", "83709"]),
    ("Columbus", "OH", ["43201", "43202", "43205", "43206", "43214", "43215"]),
    ("Richmond", "VA", ["23219", "23220", "23221", "23222", "23223", "23225"]),
    ("Omaha", "NE", ["68102", "68104", "68105", "68106", "68114", "68131"]),
    ("Albany", "NY", ["12203", "12206", "12207", "12208", "12209", "12210"]),
    ("Savannah", "GA", ["31401", "31404", "31405", "31406", "31415"]),
    ("Spokane", "WA", ["99201", "99202", "99203", "99204", "99205", "99207"]),
    ("Lexington", "KY", ["40502", "40503", "40504", "40505", "40507", "40508"]),
    ("Reno", "NV", ["89501", "89502", "89503", "89509", "89512"]),
    ("Fresno", "CA", ["93701", "93702", "93703", "93704", "93705", "93710"]),
    ("Tulsa", "OK", ["74103", "74104", "74105", "74112", "74114", "74119"]),
    ("Burlington", "VT", ["05401", "05408"]),
    ("Duluth", "MN", ["55802", "55803", "55804", "55805", "55806", "55811"]),
]
STREETS = "Oak Maple Cedar Elm Pine Birch Walnut Willow Chestnut Hickory Lake Hill River Park Sunset Meadow".split()
SUFFIX = ["Street", "Avenue", "Road", "Lane", "Drive", "Court"]
CARRIERS = ["UPS", "USPS", "FedEx", "DHL"]
BRANDS = ["Visa", "Mastercard", "Amex"]

SELLER_WORDS = (
    "Northwind Bluebird Ironwood Copper Lantern Harbor Summit Meadowlark Driftwood Granite Juniper Foxglove "
    "Silverline Redwood Tidewater Evergreen Brightside Kestrel Cobalt Highland Wildflower Thornbury Pinecrest "
    "Starling Ashford Riverbend Goldleaf Moonstone Saltmarsh Ember"
).split()
SELLER_KIND = ["Goods", "Supply Co.", "Workshop", "Trading", "Outfitters", "Home", "Studio", "Makers"]
COUNTRIES = ["US", "US", "US", "CA", "GB", "DE", "MX"]

# category -> (nouns, price range in dollars)
CATALOG = {
    "kitchen": (["Chef Knife", "Cast Iron Skillet", "Pour-Over Kettle", "Cutting Board", "Spice Rack",
                 "Ceramic Mug Set", "Salad Spinner", "Dutch Oven"], (12, 140)),
    "electronics": (["Wireless Earbuds", "USB-C Hub", "Desk Lamp", "Bluetooth Speaker", "Phone Stand",
                     "Portable Charger", "Mechanical Keyboard", "Webcam"], (15, 180)),
    "home": (["Throw Blanket", "Linen Curtains", "Scented Candle", "Wall Clock", "Table Runner",
              "Storage Basket", "Door Mat", "Picture Frame"], (9, 120)),
    "outdoors": (["Camping Lantern", "Trail Backpack", "Water Bottle", "Hammock", "Folding Chair",
                  "Garden Hose", "Bird Feeder", "Rain Jacket"], (10, 160)),
    "crafts": (["Watercolor Set", "Knitting Needles", "Sketchbook", "Embroidery Kit", "Clay Tools",
                "Calligraphy Pens", "Yarn Bundle", "Sewing Box"], (8, 70)),
}
# look-alike products: one product in two sizes (smaller first) and several colours, named
# "Ceramic Mug 12 oz - Sage"; drawn after everything else, so the rest of the template is unchanged
VARIANTS = [
    ("Ceramic Mug", "kitchen", ["12 oz", "16 oz"], ["Sage", "Sand", "Slate", "Rose"], 1400),
    ("Linen Napkins", "home", ["Set of 4", "Set of 6"], ["Oat", "Olive", "Charcoal", "Blush"], 2200),
    ("Cotton Bath Towel", "home", ["Standard", "Oversized"], ["Ivory", "Navy", "Moss", "Mustard"], 2600),
    ("Throw Pillow Cover", "home", ["18 in", "22 in"], ["Rust", "Denim", "Mustard", "Ivory"], 1800),
    ("Glass Storage Jar", "kitchen", ["0.5 L", "1 L"], ["Clear", "Amber", "Smoke"], 1100),
    ("Wool Socks", "outdoors", ["Medium", "Large"], ["Ash", "Forest", "Navy", "Rust"], 1600),
]
ADJ = ["Classic", "Compact", "Deluxe", "Handmade", "Vintage", "Modern", "Rustic", "Premium", "Everyday",
       "Artisan", "Nordic", "Pro"]


def _address(rng: random.Random) -> tuple[str, str, str, str]:
    city, state, zips = rng.choice(CITIES)
    line1 = f"{rng.randint(1, 9899)} {rng.choice(STREETS)} {rng.choice(SUFFIX)}"
    # the same draws as ever (one integer per zip), so the rest of the template is unchanged
    return line1, city, state, zips[(rng.randint(1, 99) - 1) % len(zips)]


def seed(session: Session, seed: int) -> None:
    rng = random.Random(seed)
    today = NOW.date()

    # --- sellers and products -------------------------------------------------------
    sellers = []
    for i in range(N_SELLERS):
        sellers.append(
            {
                "id": f"S-{i + 1:03d}",
                "name": f"{SELLER_WORDS[i]} {rng.choice(SELLER_KIND)}",
                "country": rng.choice(COUNTRIES),
                "rating_x10": rng.randint(38, 50),
            }
        )
    products = []
    names_used: set[str] = set()
    cats = list(CATALOG)
    while len(products) < N_PRODUCTS:
        cat = cats[len(products) % len(cats)]
        nouns, (lo, hi) = CATALOG[cat]
        name = f"{rng.choice(ADJ)} {rng.choice(nouns)}"
        if name in names_used:
            continue
        names_used.add(name)
        products.append(
            {
                "id": f"P-{len(products) + 1:04d}",
                "seller_id": sellers[rng.randrange(N_SELLERS)]["id"],
                "name": name,
                "category": cat,
                "price_cents": rng.randint(lo, hi) * 100 + rng.choice([0, 49, 50, 95, 99]),
                "stock": rng.choice([0, 2, 5, 8, 12, 20, 35, 60, 120]),
            }
        )

    # --- customers, addresses, payment methods ------------------------------------------
    customers, addresses, pms = [], [], []
    cust_addr: dict[str, tuple] = {}
    cust_pms: dict[str, list[str]] = {}
    for i in range(N_CUSTOMERS):
        cid = f"C-{i + 1:05d}"
        fn, ln = rng.choice(FIRST), rng.choice(LAST)
        customers.append(
            {
                "id": cid,
                "first_name": fn,
                "last_name": ln,
                "email": f"{fn.lower()}.{ln.lower()}{i + 1}@example.com",
                "phone": f"555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}",
                "member_since": today - dt.timedelta(days=rng.randint(30, 3000)),
                "status": "active",
            }
        )
        addr = _address(rng)
        cust_addr[cid] = addr
        addresses.append(
            {"id": len(addresses) + 1, "customer_id": cid, "line1": addr[0], "city": addr[1], "state": addr[2],
             "zip": addr[3], "is_default": True}
        )
        if rng.random() < 0.25:  # an old address kept on file
            old = _address(rng)
            addresses.append(
                {"id": len(addresses) + 1, "customer_id": cid, "line1": old[0], "city": old[1], "state": old[2],
                 "zip": old[3], "is_default": False}
            )
        cust_pms[cid] = []
        for _ in range(1 if rng.random() < 0.7 else 2):
            pid = f"PM-{len(pms) + 1:05d}"
            paypal = rng.random() < 0.15
            pms.append(
                {
                    "id": pid,
                    "customer_id": cid,
                    "kind": "paypal" if paypal else "card",
                    "brand": "PayPal" if paypal else rng.choice(BRANDS),
                    "last4": f"{rng.randint(0, 9999):04d}",
                    "status": "active" if rng.random() < 0.95 else "closed",
                }
            )
            cust_pms[cid].append(pid)

    # --- orders and everything hanging off them ------------------------------------------------
    orders, items, shipments, charges, refunds, deliveries, bank = [], [], [], [], [], [], []
    credit, tickets = [], []
    item_id = 0
    for i in range(N_ORDERS):
        oid = f"O-{i + 1:05d}"
        cid = customers[rng.randrange(N_CUSTOMERS)]["id"]
        pm = rng.choice(cust_pms[cid])
        age = rng.randint(0, 120)
        placed = NOW - dt.timedelta(days=age, hours=rng.randint(0, 11), minutes=rng.randint(0, 59))
        line1, city, state, zp = cust_addr[cid]
        n_items = rng.choices([1, 2, 3], weights=[55, 30, 15])[0]
        picks = rng.sample(range(N_PRODUCTS), n_items)
        subtotal = 0
        order_items = []
        for pi in picks:
            p = products[pi]
            qty = rng.choices([1, 2], weights=[85, 15])[0]
            item_id += 1
            order_items.append(
                {"id": item_id, "order_id": oid, "product_id": p["id"], "name": p["name"], "quantity": qty,
                 "unit_price_cents": p["price_cents"], "status": "ordered", "refund_id": None}
            )
            subtotal += qty * p["price_cents"]
        shipping = 0 if subtotal >= 3500 else 499
        total = subtotal + shipping

        cancelled = rng.random() < 0.03 and age > 1
        if cancelled:
            status = "cancelled"
        elif age <= 1:
            status = "placed" if rng.random() < 0.5 else "processing"
        elif age <= 5:
            status = "shipped"
        else:
            status = "delivered"
        lost = status == "delivered" and rng.random() < 0.01

        orders.append(
            {"id": oid, "customer_id": cid, "placed_at": placed, "status": "shipped" if lost else status,
             "payment_method_id": pm, "ship_line1": line1, "ship_city": city, "ship_state": state,
             "ship_zip": zp, "subtotal_cents": subtotal, "shipping_cents": shipping, "total_cents": total,
             "cancelled_at": placed + dt.timedelta(hours=3) if cancelled else None}
        )

        # shipment
        carrier = rng.choice(CARRIERS)
        tracking = f"{carrier[:2].upper()}{rng.randint(10**11, 10**12 - 1)}"
        shipped_at = placed + dt.timedelta(days=1, hours=rng.randint(1, 8))
        ship = {"id": f"SH-{i + 1:05d}", "order_id": oid, "carrier": carrier, "tracking_number": tracking,
                "status": "label_created", "shipped_at": None, "estimated_delivery": None,
                "delivered_at": None, "delivery_note": None}
        if cancelled:
            ship["status"] = "cancelled"
        elif status == "processing":
            ship["estimated_delivery"] = (placed + dt.timedelta(days=5)).date()
        elif status == "placed":
            ship = None
        elif status == "shipped" or lost:
            ship["status"] = "lost" if lost else "in_transit"
            ship["shipped_at"] = shipped_at
            ship["estimated_delivery"] = (placed + dt.timedelta(days=5)).date()
        else:  # delivered
            delivered = shipped_at + dt.timedelta(days=rng.randint(2, 5), hours=rng.randint(0, 6))
            where = rng.choices(["front door", "mailbox", "neighbour"], weights=[70, 22, 8])[0]
            neighbour = f"{rng.choice(FIRST)} at no. {rng.randint(2, 60)}" if where == "neighbour" else None
            ship.update(
                status="delivered", shipped_at=shipped_at, delivered_at=delivered,
                estimated_delivery=(placed + dt.timedelta(days=5)).date(),
                delivery_note=f"left with neighbour ({neighbour})" if neighbour else where,
            )
            deliveries.append(
                {"id": len(deliveries) + 1, "order_id": oid,
                 "location": "neighbour" if neighbour else where.replace(" ", "_"), "neighbour": neighbour,
                 "in_hand": True, "missing_items": None, "damaged_items": None,
                 "collected_at": delivered + dt.timedelta(hours=5)}
            )
        if ship is not None:
            shipments.append(ship)

        # charges and the bank side
        if cancelled:
            for it in order_items:
                it["status"] = "cancelled"
        if not (cancelled and rng.random() < 0.5) and status != "placed":
            ch_id = f"CH-{len(charges) + 1:05d}"
            charges.append({"id": ch_id, "order_id": oid, "payment_method_id": pm, "amount_cents": total,
                            "status": "captured", "created_at": placed + dt.timedelta(minutes=2)})
            bank.append({"id": len(bank) + 1, "customer_id": cid, "payment_method_id": pm,
                         "posted_on": placed.date() + dt.timedelta(days=1), "description": f"MARKETPLACE {oid}",
                         "amount_cents": -total, "kind": "charge", "ref": ch_id})
            if cancelled:
                rid = len(refunds) + 1
                refunds.append({"id": rid, "order_id": oid, "charge_id": None, "amount_cents": total,
                                "destination": "original_payment", "reason": "cancelled", "status": "completed",
                                "created_at": placed + dt.timedelta(hours=3),
                                "expected_post_by": placed.date() + dt.timedelta(days=REFUND_POSTING_DAYS)})
                bank.append({"id": len(bank) + 1, "customer_id": cid, "payment_method_id": pm,
                             "posted_on": placed.date() + dt.timedelta(days=4), "description": f"REFUND {oid}",
                             "amount_cents": total, "kind": "refund", "ref": f"R-{rid}"})
            elif rng.random() < 0.012:  # a duplicate capture, given back long ago
                dup = f"CH-{len(charges) + 1:05d}"
                charges.append({"id": dup, "order_id": oid, "payment_method_id": pm, "amount_cents": total,
                                "status": "refunded", "created_at": placed + dt.timedelta(minutes=3)})
                rid = len(refunds) + 1
                refunds.append({"id": rid, "order_id": oid, "charge_id": dup, "amount_cents": total,
                                "destination": "original_payment", "reason": "duplicate_charge",
                                "status": "completed", "created_at": placed + dt.timedelta(days=2),
                                "expected_post_by": placed.date() + dt.timedelta(days=2 + REFUND_POSTING_DAYS)})

        # some delivered orders had a damaged item refunded (to card or store credit)
        if status == "delivered" and not lost and rng.random() < 0.05:
            it = rng.choice(order_items)
            amount = it["quantity"] * it["unit_price_cents"]
            rid = len(refunds) + 1
            to_credit = rng.random() < 0.3
            created = placed + dt.timedelta(days=rng.randint(7, 12))
            done = created.date() + dt.timedelta(days=REFUND_POSTING_DAYS) <= today
            refunds.append({"id": rid, "order_id": oid, "charge_id": None, "amount_cents": amount,
                            "destination": "store_credit" if to_credit else "original_payment",
                            "reason": "damaged", "status": "completed" if (done or to_credit) else "pending",
                            "created_at": created,
                            "expected_post_by": None if to_credit else created.date() + dt.timedelta(
                                days=REFUND_POSTING_DAYS)})
            it["status"], it["refund_id"] = "refunded", rid
            if to_credit:
                credit.append({"id": len(credit) + 1, "customer_id": cid, "amount_cents": amount,
                               "reason": "refund", "refund_id": rid, "created_at": created})
            elif done:
                bank.append({"id": len(bank) + 1, "customer_id": cid, "payment_method_id": pm,
                             "posted_on": created.date() + dt.timedelta(days=rng.randint(3, REFUND_POSTING_DAYS)),
                             "description": f"REFUND {oid}", "amount_cents": amount, "kind": "refund",
                             "ref": f"R-{rid}"})
            tickets.append({"id": len(tickets) + 1, "customer_id": cid, "order_id": oid,
                            "category": "delivery_issue", "subject": f"Damaged item in {oid}",
                            "body": f"Customer reported {it['name']} arrived damaged; refunded.",
                            "status": "closed", "created_at": created})
        items.extend(order_items)

    products += _variants(random.Random(f"{seed}:variants"), sellers, len(products))
    session.execute(insert(Seller), sellers)
    session.execute(insert(Product), products)
    session.execute(insert(Customer), customers)
    session.execute(insert(Address), addresses)
    session.execute(insert(PaymentMethod), pms)
    session.execute(insert(Order), orders)
    session.execute(insert(Refund), refunds)
    session.execute(insert(OrderItem), items)
    session.execute(insert(Shipment), shipments)
    session.execute(insert(Charge), charges)
    session.execute(insert(StoreCreditEntry), credit)
    session.execute(insert(Ticket), tickets)
    session.execute(insert(HomeDelivery), deliveries)
    session.execute(insert(BankStatementLine), bank)


def _variants(rng: random.Random, sellers: list[dict], start: int) -> list[dict]:
    """The look-alike products (``VARIANTS``): each base product in each size and colour, one seller
    for all of a base's variants, the larger size dearer, the colours of one size at one price."""
    out = []
    for base, cat, sizes, colours, price in VARIANTS:
        seller = sellers[rng.randrange(len(sellers))]["id"]
        for k, size in enumerate(sizes):
            for colour in colours:
                out.append({"id": f"P-{start + len(out) + 1:04d}", "seller_id": seller, "name": f"{base} {size} - {colour}",
                            "category": cat, "price_cents": price + k * (price // 3 // 100 * 100) + 99,
                            "stock": rng.choice([1, 2, 9, 14, 20, 35, 60])})
    return out
