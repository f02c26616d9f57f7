"""The support families whose answer the tools decide (issue 22's headroom): an item already refunded,
a refund's post-by day at its boundary, an authorization taken for a duplicate charge, store credit
asked for a cancellation. Each rule they use is stated in the policy; each gold path replays; the
careful agent (reading tools and conversation, never the goal) solves every task of them."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from envs.domain import get_domain
from envs.spec.task_check import replay, replay_problems

NEW = ["already_refunded_one", "refund_post_date", "authorization_not_duplicate", "store_credit_for_all", "household_order",
       "last_units_quote"]


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def _tasks(support, family):
    return [t for tid, t in sorted(support.tasks.items()) if tid.startswith(f"hard_{family}_")]


def test_each_new_family_has_seven_tasks_reproducible_from_seed_0(support):
    fams = support.families()
    for name in NEW:
        a, b = fams[name].generate(support, 3, 0), fams[name].generate(support, 3, 0)
        assert [t.model_dump() for t in a] == [t.model_dump() for t in b]
        assert len(_tasks(support, name)) == 7 and all(t.relies_on for t in _tasks(support, name))


@pytest.mark.parametrize("family", NEW)
def test_gold_path_replays_and_careful_solves_every_task(support, family):
    from envs.actors.scripted_user import ScriptedUser
    from envs.episode import run_episode

    for task in _tasks(support, family):
        gold = replay(support, task)
        try:
            assert replay_problems(gold, task.id) == []
        finally:
            gold.close()
        rec = asyncio.run(run_episode(support, task, support.scripted_agents["careful"](), ScriptedUser(), 1))
        assert rec.status == "ok" and rec.reward == 1.0, (task.id, rec.grade.diff)


def test_post_date_family_holds_both_sides_of_the_boundary(support):
    kinds = {"create_ticket" in [a.name for a in t.expected_actions] for t in _tasks(support, "refund_post_date")}
    assert kinds == {True, False}


def test_policy_states_each_rule_the_families_use(support):
    policy = re.sub(r"\s+", " ", support.policy_path.read_text() if hasattr(support, "policy_path") else
                    open("domains/support/policy.md").read())
    assert "gets no second refund or replacement" in policy  # an item already refunded
    assert "today itself has not passed" in policy  # expected_post_by == today
    assert "is such an authorization, not a second charge" in policy  # authorized != captured
    assert "A cancellation always refunds the original payment" in policy  # store credit asked for a cancellation
    assert "An order the customer names must belong to the verified account" in policy  # a housemate's order


def test_an_authorized_charge_cannot_be_refunded_as_a_duplicate(support):
    from domains.support.tools.agent_actions import refund_duplicate_charge
    from envs.state.database import EpisodeState

    task = _tasks(support, "authorization_not_duplicate")[0]
    auth = next(r.row["id"] for r in task.initial_state.insert if r.table == "charges" and r.row["status"] == "authorized")
    st = EpisodeState(support.base, support.initial_bytes(task))
    try:
        out = refund_duplicate_charge(st.session, json.dumps({"charge_id": auth}))
        assert not out.ok and "only a captured charge" in out.output
    finally:
        st.close()


def test_a_household_order_ships_to_the_customer_but_is_another_accounts_and_is_left_alone(support):
    """The middle request names an order shipped to the customer's own address but placed on another
    seeded account: the goal leaves it as it is, and the agent that cancels whatever it is asked fails."""
    from envs.actors.scripted_user import ScriptedUser
    from envs.episode import run_episode

    for task in _tasks(support, "household_order"):
        rows = task.initial_state.insert
        me = next(a.arguments["email"] for a in task.expected_actions if a.name == "find_customer_by_email")
        orders = [r.row for r in rows if r.table == "orders"]
        mine = {o["customer_id"] for o in orders if o["id"] != orders[1]["id"]}
        assert len(mine) == 1 and orders[1]["customer_id"] not in mine  # the middle order is another account's
        assert orders[1]["ship_line1"] == orders[0]["ship_line1"]  # ... coming to the customer's address
        assert me and not any(a.name == "cancel_order" and a.arguments["order_id"] == orders[1]["id"]
                              for a in task.expected_actions)
    rec = asyncio.run(run_episode(support, _tasks(support, "household_order")[0], support.scripted_agents["eager"](),
                                  ScriptedUser(), 1))
    assert rec.reward == 0.0


def test_the_last_units_quote_holds_both_sides_of_the_shipping_fee_rule(support):
    """The rest of a line refunded after part of it: with the shipping fee when those are the order's
    last open units, without when another line stays; the quoted amount is the one required."""
    sides = set()
    for task in _tasks(support, "last_units_quote"):
        rows = task.initial_state.insert
        order = next(r.row for r in rows if r.table == "orders")
        lines = [r.row for r in rows if r.table == "order_items" and r.row["order_id"] == order["id"]]
        earlier = next(r.row["units"] for r in rows if r.table == "refund_lines")
        left = lines[0]["quantity"] - earlier
        fee = len(lines) == 1
        amount = left * lines[0]["unit_price_cents"] + (order["shipping_cents"] if fee else 0)
        assert f"${amount / 100:,.2f}" in [o if isinstance(o, str) else o.value for o in task.outputs]
        sides.add(fee)
    assert sides == {True, False}
