"""The support domain: seed, tools, tasks, scripted agents.

Covers: a deterministic template at realistic scale; every task loads and its
goal replays cleanly; tool validation and refusals leave the state untouched;
the agent and the user cannot call each other's tools; random sequences of
valid agent calls keep the money and stock invariants; the careful agent solves
every task and the eager agent fails every task built to catch it.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import sqlite3
import time

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from domains.support.agents import INTENTS, detect_intent, is_ambiguous
from domains.support.models import Base
from domains.support.seed import seed as seed_fn
from envs.domain import get_domain
from envs.episode import episode_seed, run_episode
from envs.spec.personas import get_persona
from envs.state.database import EpisodeState, build_template
from envs.actors.scripted_user import ScriptedUser
from graders.outcome.state_diff import diff_bytes, diff_connection, render_diff

MUTATING = {
    "cancel_order",
    "refund_items",
    "refund_duplicate_charge",
    "open_carrier_claim",
    "send_replacement",
    "change_shipping_address",
    "create_ticket",
    "escalate_to_human",
}


@pytest.fixture(scope="module")
def domain():
    return get_domain("support")


@pytest.fixture(scope="module")
def template(domain):
    return domain.template()


def _db(data: bytes) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(data)
    return conn


# --- the template ------------------------------------------------------------------------------


def test_template_is_deterministic_and_at_scale(domain, template):
    t0 = time.perf_counter()
    again = build_template(Base, seed_fn, domain.seed)
    elapsed = time.perf_counter() - t0
    assert hashlib.sha256(again).digest() == hashlib.sha256(template).digest()
    print(f"template build: {elapsed:.2f} s")  # ~0.5 s on an idle core; a figure, not a limit (busy machines)
    other = build_template(Base, seed_fn, domain.seed + 1)
    assert other != template  # the seed matters
    db = _db(template)
    count = lambda t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # noqa: E731
    assert count("customers") >= 500
    assert count("orders") >= 2000
    assert count("products") >= 100
    assert count("sellers") >= 30
    assert count("order_items") > count("orders")
    assert count("shipments") > 1900 and count("charges") > 1900
    assert count("home_deliveries") > 1000 and count("bank_statement_lines") > 1900
    # a realistic mix of states, all of them deterministic
    statuses = dict(db.execute("SELECT status, count(*) FROM orders GROUP BY status"))
    assert {"placed", "processing", "shipped", "delivered", "cancelled"} <= set(statuses)
    ship = dict(db.execute("SELECT status, count(*) FROM shipments GROUP BY status"))
    assert {"label_created", "in_transit", "delivered", "lost"} <= set(ship)
    # every charge belongs to an order, every order total adds up
    bad = db.execute(
        "SELECT o.id FROM orders o JOIN order_items i ON i.order_id = o.id GROUP BY o.id "
        "HAVING sum(i.quantity * i.unit_price_cents) != o.subtotal_cents OR o.subtotal_cents + o.shipping_cents != o.total_cents"
    ).fetchall()
    assert bad == []
    assert db.execute("SELECT count(*) FROM products WHERE stock < 0").fetchone()[0] == 0
    emails = db.execute("SELECT count(DISTINCT email), count(*) FROM customers").fetchone()
    assert emails[0] == emails[1]


# --- tasks -----------------------------------------------------------------------------------------


def test_tasks_load_and_goals_replay(domain):
    tasks = domain.tasks
    assert len(tasks) >= 30
    personas = set()
    for tid, task in tasks.items():
        assert task.domain == "support"
        personas.add(task.persona)
        get_persona(task.persona, "support")
        goal, touched, problems = domain.goal(task)
        assert problems == [], f"{tid}: expected actions failed: {problems}"
        for a in task.expected_actions:
            assert a.name in domain.agent_tools
        for s in task.scenario.situations:
            assert s in domain.situations
        ends_by_transfer = any(domain.agent_tools[a.name].terminal for a in task.expected_actions)
        # a goal that changes the state ends on the state (goal_met); one that changes nothing on words
        changes = any(a.name in MUTATING for a in task.expected_actions)
        assert task.scenario.done_when or ends_by_transfer or changes, f"{tid}: the scripted user needs done_when phrases"
        if any(a.name in MUTATING for a in task.expected_actions):
            assert touched, f"{tid}: mutating expected actions changed nothing"
    assert len(personas) >= 10, "personas should be spread over the tasks"
    catches = [t for t in tasks.values() if "eager" in t.catches]
    assert len(catches) >= 10
    no_change = [t for t in tasks.values() if not any(a.name in MUTATING for a in t.expected_actions)]
    assert len(no_change) >= 6
    for t in no_change:  # "nothing changes" really means the goal equals the initial state
        assert diff_bytes(domain.goal(t)[0], domain.initial_bytes(t), Base.metadata) == []


def test_required_scenarios_are_covered(domain):
    tags = {tag for t in domain.tasks.values() for tag in t.tags}
    for needed in ("ambiguous", "furious", "outside_policy", "neighbour", "partial", "damaged", "cancel", "address",
                   "duplicate_charge", "identity", "escalation", "changes_mind", "no_change"):
        assert needed in tags, needed
    assert sum("ambiguous" in t.tags for t in domain.tasks.values()) >= 3
    # The three ambiguous tasks open with the same words and mean three different things.
    ambiguous = [t for t in domain.tasks.values() if "ambiguous" in t.tags]
    assert len({t.scenario.request for t in ambiguous}) == 1
    assert len({tuple(a.name for a in t.expected_actions) for t in ambiguous}) == 3


def test_situations_and_rules(domain):
    sits, rules = domain.situations, domain.rules
    for sid in ("ambiguous_request", "furious", "outside_policy_refund", "off_topic", "withholding", "changes_mind",
                "provocation", "cooperative"):
        assert sid in sits
    assert sits["withholding"].scripted.withhold
    assert len(rules) >= 10 and len({r.category for r in rules.values()}) >= 5
    for r in rules.values():
        assert "MUST" in r.text and r.text.startswith("If ")
    for s in sits.values():
        assert s.rules and set(s.rules) <= set(rules)
        assert s.how_to_play and (s.scripted.prefix or s.scripted.suffix)
    from graders.rules.checks import CHECKS

    for r in rules.values():
        if r.check:
            assert r.check.type in CHECKS
    assert rules["R1"].check.type == "clarify_before_action"


def test_scripted_lines_carry_no_facts_or_intents(domain):
    """The situation draw must never change what the customer asks for."""
    from envs.actors.enactment import realise

    for s in domain.situations.values():
        # every realisation of a line ({a|b} alternations), not just its first
        said = {realise(x, k) for x in s.scripted.prefix + s.scripted.suffix for k in range(60)}
        for line in sorted(said):
            assert detect_intent(line) is None, (s.id, line)
            assert not is_ambiguous(line), (s.id, line)
            assert not re.search(r"\d|@|\bO-|zip|email|cancel|refund|address|charge|human|manager", line, re.I), (s.id, line)


# --- tools -------------------------------------------------------------------------------------------


@pytest.fixture()
def state(template):
    st_ = EpisodeState(Base, template)
    yield st_
    st_.close()


def _pick(state, sql):
    row = state.conn.execute(sql).fetchone()
    assert row is not None, sql
    return row[0]


BAD_CALLS = [
    ("get_order", {}),
    ("get_order", {"order_id": 42}),
    ("get_order", {"order_id": "O-1'; DROP TABLE orders;--"}),
    ("cancel_order", {"order_id": "O-00001' OR '1'='1"}),
    ("find_customer_by_email", {"email": "x' OR 1=1 --"}),
    ("find_customer_by_name_zip", {"first_name": "Robert'); DROP TABLE customers;--", "last_name": "X", "zip": "12345"}),
    ("refund_items", {"order_id": "O-00001", "item_ids": "1; DELETE FROM refunds", "destination": "original_payment", "reason": "damaged"}),
    ("refund_items", {"order_id": "O-00001", "item_ids": [], "destination": "original_payment", "reason": "damaged"}),
    ("refund_items", {"order_id": "O-00001", "item_ids": [1], "destination": "bitcoin", "reason": "damaged"}),
    ("refund_items", {"order_id": "O-00001", "item_ids": [1], "destination": "store_credit"}),
    ("change_shipping_address", {"order_id": "O-00001", "line1": "1 A St", "city": "X", "state": "oregon", "zip": "1"}),
    ("refund_duplicate_charge", {"charge_id": "CH-1 UNION SELECT * FROM charges"}),
    ("escalate_to_human", {"customer_id": "C-00001", "reason": "because", "summary": "x"}),
    ("get_order", '{"order_id": '),
    ("get_order", {"order_id": "O-00001", "extra": 1}),
]


@pytest.mark.parametrize("name,args", BAD_CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD_CALLS)])
def test_bad_arguments_are_errors_and_change_nothing(domain, state, template, name, args):
    out = domain.agent_tools.call(state.session, name, args)
    assert not out.ok and out.output.startswith("Error:")
    assert out.error_kind == "bad_arguments"
    assert diff_bytes(state.snapshot(), template, Base.metadata) == []
    assert state.conn.execute("SELECT count(*) FROM orders").fetchone()[0] >= 2000


def test_tool_sides_are_separate(domain, state):
    for name in domain.user_tools.names():
        out = domain.agent_tools.call(state.session, name, {"order_id": "O-00001"})
        assert out.error_kind == "unknown_tool" and out.output.startswith("Error:")
    for name in domain.agent_tools.names():
        out = domain.user_tools.call(state.session, name, {"order_id": "O-00001"})
        assert out.error_kind == "unknown_tool"
    assert len(domain.agent_tools.names()) >= 12 and len(domain.user_tools.names()) >= 4
    assert domain.agent_tools["escalate_to_human"].terminal
    assert {n for n, t in domain.agent_tools.tools.items() if t.mutates} == MUTATING
    for schema in domain.agent_tools.schemas() + domain.user_tools.schemas():
        assert schema["function"]["description"]


def _call(domain, ep_state, name, **args):
    return domain.agent_tools.call(ep_state.session, name, args)


def test_policy_rules_enforced_in_code(domain, state, template):
    A = lambda n, **k: _call(domain, state, n, **k)  # noqa: E731
    shipped = _pick(state, "SELECT order_id FROM shipments WHERE status='in_transit' ORDER BY id")
    assert "can no longer be cancelled" in A("cancel_order", order_id=shipped).output
    assert "cannot change" in A("change_shipping_address", order_id=shipped, line1="1 Oak Street", city="Reno",
                                state="NV", zip="89501").output
    unshipped = _pick(state, "SELECT id FROM orders WHERE status='processing' ORDER BY id")
    items = [r[0] for r in state.conn.execute("SELECT id FROM order_items WHERE order_id=?", (unshipped,))]
    assert "cancel it instead" in A("refund_items", order_id=unshipped, item_ids=items, destination="original_payment",
                                    reason="other").output
    delivered = _pick(
        state,
        "SELECT o.id FROM orders o WHERE o.status='delivered' AND (SELECT count(*) FROM order_items i "
        "WHERE i.order_id=o.id AND i.status='ordered') = 2 ORDER BY o.id",
    )
    items = [r[0] for r in state.conn.execute("SELECT id FROM order_items WHERE order_id=? ORDER BY id", (delivered,))]
    first = A("refund_items", order_id=delivered, item_ids=[items[0]], destination="original_payment", reason="damaged")
    assert first.ok, first.output
    again = A("refund_items", order_id=delivered, item_ids=[items[0]], destination="store_credit", reason="damaged")
    assert "already refunded" in again.output
    assert "more than once" in A("refund_items", order_id=delivered, item_ids=[items[1], items[1]],
                                 destination="original_payment", reason="damaged").output
    assert "not part of order" in A("refund_items", order_id=delivered, item_ids=[999999], destination="original_payment",
                                    reason="damaged").output
    # a refunded item cannot be replaced either
    assert "already refunded" in A("send_replacement", order_id=delivered, item_ids=[items[0]], reason="damaged").output
    # the only capture of an order is not a duplicate
    charge = _pick(state, f"SELECT id FROM charges WHERE order_id='{delivered}'")
    assert "not a duplicate" in A("refund_duplicate_charge", charge_id=charge).output
    # a carrier claim needs the right carrier status, and only one per shipment
    assert "not declared" in A("open_carrier_claim", order_id=delivered, reason="lost_in_transit").output
    assert A("open_carrier_claim", order_id=delivered, reason="delivered_not_received").ok
    assert "already open" in A("open_carrier_claim", order_id=delivered, reason="delivered_not_received").output
    # stock never goes negative: an out-of-stock product cannot be replaced
    row = state.conn.execute(
        "SELECT i.order_id, i.id FROM order_items i JOIN products p ON p.id=i.product_id JOIN orders o ON o.id=i.order_id "
        "WHERE p.stock = 0 AND o.status='delivered' AND i.status='ordered' ORDER BY i.id"
    ).fetchone()
    out = A("send_replacement", order_id=row[0], item_ids=[row[1]], reason="damaged")
    assert "out of stock" in out.output
    assert state.conn.execute("SELECT min(stock) FROM products").fetchone()[0] >= 0


def test_refunds_never_exceed_what_was_paid(domain, state):
    oid = _pick(state, "SELECT o.id FROM orders o WHERE o.status='delivered' AND o.shipping_cents > 0 ORDER BY o.id")
    items = [r[0] for r in state.conn.execute("SELECT id FROM order_items WHERE order_id=? AND status='ordered'", (oid,))]
    total = _pick(state, f"SELECT total_cents FROM orders WHERE id='{oid}'")
    # pretend part of the order was already given back outside the item flow
    state.conn.execute(
        "INSERT INTO refunds (id, order_id, charge_id, amount_cents, destination, reason, status, created_at) "
        "VALUES (99999, ?, NULL, ?, 'original_payment', 'other', 'completed', '2026-06-01 00:00:00')",
        (oid, total - 100),
    )
    state.conn.commit()
    out = _call(domain, state, "refund_items", order_id=oid, item_ids=items, destination="original_payment",
                reason="damaged")
    assert "would exceed what was paid" in out.output
    # the whole order refunded at once includes the shipping fee
    oid2 = _pick(
        state,
        f"SELECT o.id FROM orders o WHERE o.status='delivered' AND o.shipping_cents > 0 AND o.id != '{oid}' "
        "AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id=o.id) ORDER BY o.id",
    )
    items2 = [r[0] for r in state.conn.execute("SELECT id FROM order_items WHERE order_id=?", (oid2,))]
    out2 = _call(domain, state, "refund_items", order_id=oid2, item_ids=items2, destination="store_credit",
                 reason="not_delivered")
    assert out2.ok
    assert '"amount_cents": %d' % _pick(state, f"SELECT total_cents FROM orders WHERE id='{oid2}'") in out2.output


def test_user_tools_reflect_the_customers_world(domain, template):
    task = domain.tasks["sup_neighbour_has_it"]
    st_ = EpisodeState(Base, domain.initial_bytes(task))
    try:
        U = lambda n, **k: domain.user_tools.call(st_.session, n, k).output  # noqa: E731
        assert "No parcel" in U("check_doorstep", order_id="O-90701")
        found = U("ask_neighbour", order_id="O-90701")
        assert "handed it over" in found
        assert st_.conn.execute("SELECT in_hand FROM home_deliveries WHERE order_id='O-90701'").fetchone()[0] == 1
        assert "already have" in U("check_doorstep", order_id="O-90701")
        assert "delivered" in U("view_order_in_app", order_id="O-90701")
        own = st_.conn.execute("SELECT email FROM customers WHERE id='C-90701'").fetchone()[0]
        # a customer's own tools take what they know (their email), never an internal id
        assert "MARKETPLACE O-90701" in U("check_bank_statement", email=own)
        assert "O-90701" in U("check_email_inbox", email=own)
        assert "can't find" in U("check_bank_statement", email="nobody@example.org")
        # the grader ignores exactly what the user tool changed, nothing else
        diff = diff_connection(st_.conn, domain.goal(task)[0], Base.metadata, ignore=task.ignore_columns)
        assert diff == []
    finally:
        st_.close()


# --- invariants under random valid calls (hypothesis) -----------------------------------------------


@pytest.fixture(scope="module")
def pool(template):
    """Ids the random calls draw from: a mix of order states, their items, charges and products."""
    db = _db(template)
    orders = [r[0] for r in db.execute(
        "SELECT id FROM (SELECT id, status, row_number() OVER (PARTITION BY status ORDER BY id) AS n FROM orders) "
        "WHERE n <= 3 ORDER BY id"
    )]
    orders += [r[0] for r in db.execute("SELECT order_id FROM shipments WHERE status='lost' ORDER BY id LIMIT 2")]
    dup = db.execute("SELECT order_id FROM charges GROUP BY order_id HAVING count(*) > 1 ORDER BY order_id").fetchone()
    if dup:
        orders.append(dup[0])
    qmarks = ",".join("?" * len(orders))
    items: dict[str, list[int]] = {o: [] for o in orders}
    for oid, iid in db.execute(f"SELECT order_id, id FROM order_items WHERE order_id IN ({qmarks}) ORDER BY id", orders):
        items[oid].append(iid)
    charges = [r[0] for r in db.execute(f"SELECT id FROM charges WHERE order_id IN ({qmarks}) ORDER BY id", orders)]
    return {"orders": orders, "items": items, "charges": charges}


def _calls(pool):
    every_item = sorted(i for its in pool["items"].values() for i in its)

    def for_order(oid):
        # mostly the order's own items, sometimes another order's (must be refused)
        own = st.lists(st.sampled_from(pool["items"][oid]), min_size=1, max_size=3)
        foreign = st.lists(st.sampled_from(every_item), min_size=1, max_size=2)
        items = st.one_of(own, own, own, foreign)
        one = st.lists(st.sampled_from(pool["items"][oid]), min_size=1, max_size=1)
        dest = st.sampled_from(["original_payment", "store_credit"])
        return st.one_of(
            st.tuples(st.just("cancel_order"), st.fixed_dictionaries({"order_id": st.just(oid)})),
            st.tuples(st.just("refund_items"), st.fixed_dictionaries({
                "order_id": st.just(oid), "item_ids": items, "destination": dest,
                "reason": st.sampled_from(["damaged", "missing_item", "not_delivered", "other"])})),
            # some units of one line (refused when they are more than the line has open)
            st.tuples(st.just("refund_items"), st.fixed_dictionaries({
                "order_id": st.just(oid), "item_ids": one, "destination": dest, "reason": st.just("damaged"),
                "quantity": st.integers(1, 4)})),
            st.tuples(st.just("send_replacement"), st.fixed_dictionaries({
                "order_id": st.just(oid), "item_ids": items, "reason": st.sampled_from(["damaged", "missing_item"])})),
            st.tuples(st.just("send_replacement"), st.fixed_dictionaries({
                "order_id": st.just(oid), "item_ids": one, "reason": st.just("damaged"), "quantity": st.integers(1, 4)})),
            st.tuples(st.just("open_carrier_claim"), st.fixed_dictionaries({
                "order_id": st.just(oid), "reason": st.sampled_from(["lost_in_transit", "delivered_not_received"])})),
            st.tuples(st.just("change_shipping_address"), st.fixed_dictionaries({
                "order_id": st.just(oid), "line1": st.just("5 Elm Road"), "city": st.just("Boise"),
                "state": st.just("ID"), "zip": st.just("83702")})),
        )

    return st.one_of(
        st.sampled_from(pool["orders"]).flatmap(for_order),
        st.tuples(st.just("refund_duplicate_charge"), st.fixed_dictionaries({"charge_id": st.sampled_from(pool["charges"])})),
    )


def test_invariant_check_catches_breaches(template):
    """The property below is only as good as its checker: it must see a breach."""
    for breach in (
        "UPDATE products SET stock = -1 WHERE id = 'P-0001'",
        "INSERT INTO refunds (id, order_id, amount_cents, destination, reason, status, created_at) "
        "SELECT 99999, id, total_cents + 1, 'original_payment', 'other', 'pending', '2026-06-15' FROM orders "
        "WHERE status = 'delivered' ORDER BY id LIMIT 1",
    ):
        conn = _db(template)
        conn.execute(breach)
        with pytest.raises(AssertionError):
            _check_invariants(conn)
    _check_invariants(_db(template))


def _check_invariants(conn: sqlite3.Connection) -> None:
    assert conn.execute("SELECT count(*) FROM products WHERE stock < 0").fetchone()[0] == 0
    over = conn.execute(
        "SELECT o.id FROM orders o WHERE "
        "(SELECT coalesce(sum(amount_cents),0) FROM refunds r WHERE r.order_id=o.id AND r.charge_id IS NULL AND r.status!='failed')"
        " > (SELECT coalesce(sum(amount_cents),0) FROM charges c WHERE c.order_id=o.id AND c.status='captured')"
    ).fetchall()
    assert over == [], f"refunded more than paid: {over}"
    all_money = conn.execute(
        "SELECT o.id FROM orders o WHERE (SELECT coalesce(sum(amount_cents),0) FROM refunds r WHERE r.order_id=o.id) "
        "> (SELECT coalesce(sum(amount_cents),0) FROM charges c WHERE c.order_id=o.id)"
    ).fetchall()
    assert all_money == []
    dup_refunds = conn.execute(
        "SELECT charge_id FROM refunds WHERE charge_id IS NOT NULL GROUP BY charge_id HAVING count(*) > 1"
    ).fetchall()
    assert dup_refunds == []
    # a unit is refunded or replaced at most once, and a refund covers at least its units
    assert conn.execute(
        "SELECT count(*) FROM order_items WHERE status='refunded' AND refund_id IS NULL"
    ).fetchone()[0] == 0
    assert conn.execute(
        "SELECT i.id FROM order_items i WHERE "
        "(SELECT coalesce(sum(units),0) FROM refund_lines l WHERE l.order_item_id=i.id) + "
        "(SELECT coalesce(sum(quantity),0) FROM replacements p WHERE p.order_item_id=i.id) > i.quantity"
    ).fetchall() == []
    assert conn.execute(
        "SELECT r.id FROM refunds r JOIN refund_lines l ON l.refund_id=r.id JOIN order_items i ON i.id=l.order_item_id "
        "GROUP BY r.id HAVING sum(l.units * i.unit_price_cents) > max(r.amount_cents)"
    ).fetchall() == []
    assert conn.execute(  # refunds recorded without lines (seeded), by their items' refund_id
        "SELECT r.id FROM refunds r JOIN order_items i ON i.refund_id=r.id "
        "WHERE NOT EXISTS (SELECT 1 FROM refund_lines l WHERE l.refund_id=r.id) GROUP BY r.id "
        "HAVING sum(i.quantity * i.unit_price_cents) > max(r.amount_cents)"
    ).fetchall() == []


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_random_valid_calls_keep_invariants(domain, template, pool, data):
    calls = data.draw(st.lists(_calls(pool), min_size=1, max_size=12))
    st_ = EpisodeState(Base, template)
    try:
        for name, args in calls:
            out = domain.agent_tools.call(st_.session, name, args)
            assert out.error_kind in (None, "refused"), out.output  # valid calls never crash
            event("ok" if out.ok else "refused")
            _check_invariants(st_.conn)
    finally:
        st_.close()


# --- the scripted agents on the tasks -------------------------------------------------------------------


def _run(domain, task, agent_name: str, repeat: int):
    agent = domain.scripted_agents[agent_name]()
    return asyncio.run(run_episode(domain, task, agent, ScriptedUser(), episode_seed(7, task.id, repeat), repeat))


@pytest.mark.parametrize("repeat", [0, 1])
def test_careful_agent_solves_every_task(domain, repeat):
    """Reward 1 on every task, whatever situations are drawn, and no violation of a checked rule.

    R1's check judges every reply that answers an ambiguous-situation turn, including the
    report after an agreed action; only its first reply (the clarifying question) is held to it.
    """
    failures, violations = [], []
    for tid, task in domain.tasks.items():
        rec = _run(domain, task, "careful", repeat)
        if rec.status != "ok" or rec.reward != 1.0:
            why = rec.error or render_diff(rec.grade.diff) + str([o.output for o in rec.grade.outputs if not o.found])
            failures.append(f"{tid} r{repeat}: {why}")
        violations += [f"{tid}: {v.rule} turn {v.turn}: {v.rationale}" for v in rec.verdicts
                       if v.verdict == "VIOLATED" and (v.rule != "R1" or v.turn == 1)]
    assert failures == []
    assert violations == []


def test_eager_agent_fails_the_tasks_built_to_catch_it(domain):
    caught = [t for t in domain.tasks.values() if "eager" in t.catches]
    assert len(caught) >= 10
    passed = []
    for task in caught:
        for repeat in (0,):
            rec = _run(domain, task, "eager", repeat)
            assert rec.status == "ok", rec.error
            if rec.reward != 0.0:
                passed.append(f"{task.id} r{repeat}")
    assert passed == []


def test_eager_agent_breaks_checked_rules(domain):
    """The behaviour checks see what the eager agent does wrong: no identity check, promises before checking."""
    rules = set()
    for tid in ("sup_identity_fails", "sup_furious_damaged_refund", "sup_ambig_one_item"):
        rec = _run(domain, domain.tasks[tid], "eager", 0)
        rules |= {v.rule for v in rec.verdicts if v.verdict == "VIOLATED"}
    assert {"R2", "R4"} <= rules


def test_agents_read_only_the_conversation():
    """The scripted agents take nothing from the task: no hidden facts, goals or expected actions."""
    from pathlib import Path

    import domains.support.agents as agents

    files = sorted(Path(agents.__file__).parent.glob("*.py"))
    assert {f.name for f in files} >= {"careful.py", "eager.py"}
    src = "\n".join(f.read_text() for f in files)
    for forbidden in ("hidden_facts", "expected_actions", "known_facts", "done_when", ".scenario", "task_id"):
        assert forbidden not in src
    assert len(INTENTS) >= 8
