"""A total across several orders (issue 22's headroom): damaged items in two or three delivered
orders, and the customer asks what it would get back in total before deciding. Each order's refund
follows the policy's own rules (the shipping fee only with an order's last open items, an item
refunded earlier counting; part of a line at unit price x units), the total is their sum, and one
refund per order follows the yes. The orders_total family's gold paths replay, the careful agent
(reading tools and conversation, never the goal) solves every task, the eager one fails every one."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from envs.domain import get_domain
from envs.episode import episode_seed, run_episode
from envs.spec.task_check import replay, replay_problems
from envs.state.database import EpisodeState

FAMILY = "orders_total"


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def _tasks(support):
    return [t for tid, t in sorted(support.tasks.items()) if tid.startswith(f"hard_{FAMILY}_")]


def _rows(task, table, **match):
    return [r.row for r in task.initial_state.insert if r.table == table
            and all(r.row.get(k) == v for k, v in match.items())]


def _fee_due(task, refund) -> bool:
    """Whether a refund of the goal covers every open unit of its order (the policy's shipping-fee rule),
    worked out from the initial state alone."""
    args = refund.arguments
    left = 0
    for it in _rows(task, "order_items", order_id=args["order_id"]):
        done = sum(ln["units"] for ln in _rows(task, "refund_lines", order_item_id=it["id"]))
        open_units = it["quantity"] - done if it["status"] == "ordered" else 0
        taken = (args.get("quantity") or open_units) if it["id"] in args["item_ids"] else 0
        left += open_units - taken
    return left == 0


def _money(task) -> list[str]:
    return [o.value for o in task.outputs if (o.kind or "money") == "money" and o.value.startswith("$")]


def test_seven_tasks_reproducible_from_seed_0_covering_each_variant(support):
    fam = support.families()[FAMILY]
    a, b = fam.generate(support, 7, 0), fam.generate(support, 7, 0)
    assert [t.model_dump() for t in a] == [t.model_dump() for t in b]
    shipped = _tasks(support)
    assert [t.id for t in shipped] == [f"hard_{FAMILY}_{i:02d}" for i in range(1, 8)]
    assert [t.model_dump() for t in shipped] == [t.model_dump() for t in a]
    sizes, fees, kinds, trailing = set(), set(), set(), set()
    for t in shipped:
        refunds = [x for x in t.expected_actions if x.name == "refund_items"]
        assert len({r.arguments["order_id"] for r in refunds}) == len(refunds)  # one refund per order
        sizes.add(len(refunds))
        fees |= {_fee_due(t, r) for r in refunds}
        assert any(_fee_due(t, r) for r in refunds) and not all(_fee_due(t, r) for r in refunds), t.id
        kinds |= {"units" for r in refunds if r.arguments.get("quantity")}
        kinds |= {"earlier" for r in refunds if _rows(t, "refunds", order_id=r.arguments["order_id"])}
        writes = {x.name for x in t.expected_actions} - {"refund_items", "find_customer_by_email", "get_order"}
        trailing.add(min(writes) if writes else "none")
        # the total is asked in the opening request, and each damaged order is named there
        assert re.search(r"total|altogether|all together|combined", t.scenario.request, re.I)
        assert all(r.arguments["order_id"] in t.scenario.request for r in refunds)
    assert sizes == {2, 3} and fees == {True, False} and kinds == {"units", "earlier"}
    assert trailing == {"none", "change_shipping_address", "get_shipment_tracking", "get_refund_status"}


def test_gold_replays_careful_solves_and_eager_fails_every_task(support):
    from envs.actors.scripted_user import ScriptedUser

    for task in _tasks(support):
        gold = replay(support, task)
        try:
            assert replay_problems(gold, task.id) == []
        finally:
            gold.close()
        for repeat in (0, 1):
            seed = episode_seed(7, task.id, repeat)
            rec = asyncio.run(run_episode(support, task, support.scripted_agents["careful"](), ScriptedUser(), seed, repeat))
            assert rec.status == "ok" and rec.reward == 1.0, (task.id, repeat, rec.grade.diff, rec.grade.outputs)
            # the total is said before the first refund is issued
            said = [e for e in rec.transcript if e.kind == "agent" and _money(task)[0] in e.content]
            first_refund = next(i for i, e in enumerate(rec.transcript) if e.kind == "tool"
                                and e.call.name == "refund_items")
            assert said and rec.transcript.index(said[0]) < first_refund, task.id
        rec = asyncio.run(run_episode(support, task, support.scripted_agents["eager"](), ScriptedUser(),
                                      episode_seed(7, task.id, 0), 0))
        assert rec.reward == 0.0, task.id


def test_each_orders_refund_has_the_fee_only_with_its_last_open_items_and_the_total_is_their_sum(support):
    """Replayed, each refund of the gold path holds its order's shipping fee exactly when the rule gives
    it (worked out from the initial state); the required total is the sum of the refunds."""
    for task in _tasks(support):
        st = EpisodeState(support.base, support.initial_bytes(task))
        try:
            amounts = []
            for a in task.expected_actions:
                out = support.agent_tools.call(st.session, a.name, a.arguments)
                assert out.ok, (task.id, a.name, out.output)
                if a.name != "refund_items":
                    continue
                got = json.loads(out.output)["amount_cents"]
                order = _rows(task, "orders", id=a.arguments["order_id"])[0]
                lines = {it["id"]: it for it in _rows(task, "order_items", order_id=order["id"])}
                # unit price x units (the quantity asked, else the whole line)
                worth = sum((a.arguments.get("quantity") or lines[i]["quantity"]) * lines[i]["unit_price_cents"]
                            for i in a.arguments["item_ids"])
                fee = order["shipping_cents"] if _fee_due(task, a) else 0
                assert order["shipping_cents"] > 0 and got == worth + fee, (task.id, order["id"])
                amounts.append(got)
            assert _money(task)[0] == f"${sum(amounts) / 100:,.2f}", task.id
        finally:
            st.close()


def test_the_fee_of_an_order_comes_back_with_its_last_item_whichever_is_refunded_first(support):
    """Both sides of the rule on one order where another item stays: the damaged item alone without
    the fee, the other one afterwards with it."""
    task = next(t for t in _tasks(support) for r in t.expected_actions if r.name == "refund_items"
                and not r.arguments.get("quantity") and not _fee_due(t, r))
    refund = next(r for r in task.expected_actions if r.name == "refund_items" and not _fee_due(task, r))
    oid = refund.arguments["order_id"]
    items = _rows(task, "order_items", order_id=oid)
    fee = _rows(task, "orders", id=oid)[0]["shipping_cents"]
    st = EpisodeState(support.base, support.initial_bytes(task))
    try:
        for ids, extra in ((refund.arguments["item_ids"], 0), ([it["id"] for it in items
                                                               if it["id"] not in refund.arguments["item_ids"]], fee)):
            out = support.agent_tools.call(st.session, "refund_items", {
                "order_id": oid, "item_ids": ids, "destination": "original_payment", "reason": "damaged"})
            price = sum(it["unit_price_cents"] * it["quantity"] for it in items if it["id"] in ids)
            assert out.ok and json.loads(out.output)["amount_cents"] == price + extra
    finally:
        st.close()


def test_the_lint_takes_the_sum_of_the_refunds_and_nothing_else(support):
    """A required total is known from the tools and the policy when it is the sum of the gold path's
    refunds (the policy: a total across orders is the sum of each order's refund); a cent off is not."""
    from envs.spec.lint import outputs_unknown

    task = _tasks(support)[0]
    gold = replay(support, task)
    try:
        assert outputs_unknown(support, task, gold) == []
        off = task.model_copy(deep=True)
        cents = round(float(_money(task)[0][1:].replace(",", "")) * 100) + 1
        off.outputs[0].value = f"${cents / 100:,.2f}"
        assert outputs_unknown(support, off, gold) == [f"outputs.0: {off.outputs[0].value!r} appears in no tool output "
                                                       "of the gold path and not in the policy"]
    finally:
        gold.close()


def test_policy_states_the_total_across_orders(support):
    policy = re.sub(r"\s+", " ", open("domains/support/policy.md").read())
    assert "A total asked for across several orders is the sum of each order's refund" in policy
    assert "from that order's own items and shipping fee" in policy


def test_careful_leaves_out_a_named_order_outside_the_window_and_refunds_the_rest(support):
    """The careful agent's case is general: one of the orders named with the total was delivered 40 days
    ago, so it is declined with its reason and the total is of the others' refunds only."""
    import datetime as dt

    from envs.actors.scripted_user import ScriptedUser

    task = next(t for t in _tasks(support) if sum(x.name == "refund_items" for x in t.expected_actions) == 3)
    late = task.model_copy(deep=True)
    late.id = f"{task.id}_late"
    dropped = next(x for x in late.expected_actions if x.name == "refund_items").arguments["order_id"]
    when = f"{dt.date(2026, 6, 15) - dt.timedelta(days=40)} 14:20:00"
    for r in late.initial_state.insert:
        if r.row.get("order_id") == dropped and r.table in ("shipments", "home_deliveries"):
            r.row.update({"delivered_at": when} if r.table == "shipments" else {"collected_at": when})
    late.expected_actions = [x for x in late.expected_actions
                             if not (x.arguments.get("order_id") == dropped and x.name in ("get_order", "refund_items"))]
    gold = replay(support, late)
    try:
        amounts = [json.loads(c.output)["amount_cents"] for c in gold.actions if c.name == "refund_items"]
    finally:
        gold.close()
    late.outputs[0].value = f"${sum(amounts) / 100:,.2f}"
    rec = asyncio.run(run_episode(support, late, support.scripted_agents["careful"](), ScriptedUser(),
                                  episode_seed(7, late.id, 0), 0))
    assert rec.reward == 1.0, (rec.grade.diff, rec.grade.outputs)
    assert any(e.kind == "agent" and f"Order {dropped} was delivered on" in e.content and "30-day" in e.content
               for e in rec.transcript)
