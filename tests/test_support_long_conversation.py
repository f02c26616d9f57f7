"""A long conversation (the long_conversation family): four requests over three orders, where what
happened early decides how a late request is handled and the customer does not say it again. Units
of a line refunded first leave the rest of that line as the order's last open units (the shipping fee
comes back with them) or not (another line stays); store credit asked for early holds for the late
refund, while the cancellation between them refunds the card. The committed tasks are the family's
seed-0 output; each gold path replays; the careful agent (reading the conversation and the tools,
never the goal) solves every task and the eager one none; and the early request decides the late one
both ways: without the early refund the same late refund has no fee, without the early store credit
the careful agent refunds the card."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from envs.domain import get_domain
from envs.episode import episode_seed, run_episode
from envs.spec.task_check import replay, replay_problems
from envs.state.database import EpisodeState

FAMILY = "long_conversation"
STORE_CREDIT = re.compile(r"store credit", re.I)


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def _tasks(support):
    return [t for tid, t in sorted(support.tasks.items()) if tid.startswith(f"hard_{FAMILY}_")]


def _refunds(task) -> list[dict]:
    """The arguments of the task's two refunds of order A, the early one first."""
    return [a.arguments for a in task.expected_actions if a.name == "refund_items"]


def _order_a(task) -> tuple[dict, list[dict]]:
    """Order A (the delivered one refunded twice) and its lines, as the task's rows hold them."""
    oid = _refunds(task)[0]["order_id"]
    rows = task.initial_state.insert
    order = next(r.row for r in rows if r.table == "orders" and r.row["id"] == oid)
    return order, [r.row for r in rows if r.table == "order_items" and r.row["order_id"] == oid]


def _with_fee(task) -> bool:
    """Does the late refund cover every unit of order A still open (nothing else of it stays)?"""
    early, _ = _refunds(task)
    _, lines = _order_a(task)
    return not [li for li in lines[1:] if li["id"] not in early["item_ids"]]


def _late_amount(task) -> int:
    """The late refund's amount as the policy works it out: the open units of the line of several
    times its unit price, plus the shipping fee when nothing else of the order stays open."""
    early, late = _refunds(task)
    order, lines = _order_a(task)
    line = lines[0]
    assert line["quantity"] > 1 and late["item_ids"] == [line["id"]] and "quantity" not in late  # the rest of it
    open_units = line["quantity"] - (early.get("quantity", 0) if early["item_ids"] == [line["id"]] else 0)
    return open_units * line["unit_price_cents"] + (order["shipping_cents"] if _with_fee(task) else 0)


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _play(support, task, agent: str, repeat: int = 0):
    from envs.actors.scripted_user import ScriptedUser

    rec = asyncio.run(run_episode(support, task, support.scripted_agents[agent](), ScriptedUser(),
                                  episode_seed(7, task.id, repeat), repeat))
    assert rec.status == "ok", rec.error
    return rec


def test_seven_tasks_reproducible_from_seed_0_and_varied(support):
    fam = support.families()[FAMILY]
    a, b = fam.generate(support, 7, 0), fam.generate(support, 7, 0)
    assert [t.model_dump() for t in a] == [t.model_dump() for t in b]
    shipped = _tasks(support)
    assert [t.id for t in shipped] == [f"hard_{FAMILY}_{i:02d}" for i in range(1, 8)]
    assert [t.model_dump() for t in shipped] == [t.model_dump() for t in a]
    fee, dest, plans, last = set(), set(), set(), set()
    for t in shipped:
        early, late = _refunds(t)
        fee.add(_with_fee(t))
        assert early["destination"] == late["destination"]
        dest.add(late["destination"])
        said = [t.scenario.request, *t.scenario.more_requests]
        assert len(said) == 4 and len(t.expected_actions) >= 7
        plans.add(tuple(a.name for a in t.expected_actions if a.name != "get_order"))
        last.add(next(a.name for a in reversed(t.expected_actions)))
    assert fee == {True, False} and dest == {"store_credit", "original_payment"}
    assert len(plans) >= 4  # not one script: the requests come in several orders
    assert last != {"cancel_order"}  # the cancellation is not the last request every time


def test_the_late_request_repeats_neither_the_store_credit_nor_the_early_refund(support):
    for t in _tasks(support):
        said = [t.scenario.request, *t.scenario.more_requests]
        late_at = next(i for i, s in enumerate(said) if re.search(r"how much|what would|amount", s, re.I))
        assert late_at >= 2  # two or more requests come between
        assert not STORE_CREDIT.search(said[late_at])
        asked = [i for i, s in enumerate(said) if STORE_CREDIT.search(s)]
        if _refunds(t)[1]["destination"] == "store_credit":
            assert asked and max(asked) < late_at and asked[0] <= 1  # said once, early
        else:
            assert not asked


def test_gold_replays_and_the_late_refund_is_the_amount_required(support):
    for task in _tasks(support):
        gold = replay(support, task)
        try:
            assert replay_problems(gold, task.id) == []
            out = [json.loads(c.output) for c in gold.actions if c.name == "refund_items"]
            assert out[1]["amount_cents"] == _late_amount(task)
            assert {o["amount"] for o in out} <= {o.value for o in task.outputs}  # both amounts must be said
        finally:
            gold.close()


def test_careful_solves_every_task_and_eager_none(support):
    for task in _tasks(support):
        for repeat in (0, 1):
            rec = _play(support, task, "careful", repeat)
            assert rec.reward == 1.0, (task.id, repeat, rec.grade.diff, rec.grade.outputs)
        assert _play(support, task, "eager").reward == 0.0, task.id


def test_careful_rereads_the_order_and_quotes_the_late_amount_before_refunding(support):
    """The fee rule worked out from the order as it is now: get_order of A read again after the early
    refund, and the late amount said to the customer before the late refund is issued."""
    for task in _tasks(support):
        ev = _play(support, task, "careful").transcript
        oid = _refunds(task)[0]["order_id"]
        calls = [(i, e.call.name, (e.call.arguments_dict() or {}).get("order_id")) for i, e in enumerate(ev)
                 if getattr(e, "kind", "") == "tool"]
        refunds = [i for i, name, o in calls if name == "refund_items" and o == oid]
        assert len(refunds) == 2, task.id
        assert any(refunds[0] < i < refunds[1] and name == "get_order" and o == oid for i, name, o in calls), task.id
        said = " ".join(e.content for e in ev[:refunds[1]] if getattr(e, "kind", "") == "agent")
        assert _money(_late_amount(task)) in said, task.id


def test_without_the_early_refund_the_same_late_refund_brings_no_fee(support):
    """The early refund decides the late fee: the rest of the line refunded on the fresh order (the
    early units still open) leaves units open, so no fee; after the early refund it is the last."""
    seen = 0
    for task in _tasks(support):
        early, late = _refunds(task)
        if "quantity" not in early:
            continue  # the early refund took the other line: covered below
        order, lines = _order_a(task)
        line = lines[0]
        rest = line["quantity"] - early["quantity"]
        st = EpisodeState(support.base, support.initial_bytes(task))
        try:
            out = support.agent_tools.call(st.session, "refund_items", {**late, "quantity": rest})
            assert out.ok and json.loads(out.output)["amount_cents"] == rest * line["unit_price_cents"], task.id
        finally:
            st.close()
        seen += 1
    assert seen >= 3


def test_an_earlier_refund_of_the_other_line_makes_the_whole_line_the_last(support):
    sides = set()
    for task in _tasks(support):
        early, late = _refunds(task)
        if "quantity" in early:
            continue
        order, lines = _order_a(task)
        st = EpisodeState(support.base, support.initial_bytes(task))
        try:
            fresh = json.loads(support.agent_tools.call(st.session, "refund_items", late).output)["amount_cents"]
        finally:
            st.close()
        assert fresh == lines[0]["quantity"] * lines[0]["unit_price_cents"]  # the other line open: no fee
        assert _late_amount(task) == fresh + order["shipping_cents"]  # refunded first: the fee comes back
        sides.add(True)
    assert sides == {True}


def test_without_the_early_store_credit_careful_refunds_the_card(support):
    """The store credit said early is what sends the late refund there: the same conversation with
    those words left out has the careful agent refund both to the card (it reads the words, not the goal)."""
    done = 0
    for task in _tasks(support):
        if _refunds(task)[1]["destination"] != "store_credit":
            continue
        plain = task.model_copy(deep=True)
        sc = plain.scenario
        sc.request = re.sub(r"^[^.]*store credit[^.]*\. ", "", sc.request)  # the up-front sentence
        sc.request = sc.request.replace(" as store credit", "")
        sc.more_requests = [m.replace(" as store credit", "") for m in sc.more_requests]
        assert not any(STORE_CREDIT.search(s) for s in [sc.request, *sc.more_requests]), task.id
        ev = _play(support, plain, "careful").transcript
        dests = [(e.call.arguments_dict() or {}).get("destination") for e in ev
                 if getattr(e, "kind", "") == "tool" and e.call.name == "refund_items"]
        assert dests == ["original_payment", "original_payment"], (task.id, dests)
        done += 1
    assert done >= 3


def test_careful_finds_the_order_a_late_request_names_by_its_item_alone(support):
    """"Back to the mugs from before": no order number, the item of an order read earlier names it."""
    from domains.support.agents.careful import CarefulAgent

    agent = CarefulAgent()
    agent.orders_read = {"O-1": {"order_id": "O-1", "items": [{"name": "Rustic Spice Rack"}]},
                         "O-2": {"order_id": "O-2", "items": [{"name": "Everyday Webcam"}]}}
    assert agent._order_of_items_named("Oh, and back to the spice racks from before: the other two broke") == "O-1"
    assert agent._order_of_items_named("the rest of them are cracked too") is None
    agent.orders_read["O-3"] = {"order_id": "O-3", "items": [{"name": "Deluxe Spice Rack"}]}
    assert agent._order_of_items_named("back to the spice racks") is None  # two orders hold one: ask


def test_policy_states_each_rule_the_family_uses(support):
    policy = re.sub(r"\s+", " ", open("domains/support/policy.md").read())
    assert "A refund or replacement made earlier in the same conversation counts here like any other" in policy
    assert "a request for store credit made anywhere in the conversation holds for every item refund of it" in policy
    assert "A cancellation always refunds the original payment" in policy
    assert "A request declined is declined with its reason" in policy
