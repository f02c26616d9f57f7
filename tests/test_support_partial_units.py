"""Part of a line (issue 22's headroom): two of the four glasses arrived broken. The tools refund or
replace units of a line (``quantity``), keep each line's units so a second refund of it gives back only
the rest, and bring the shipping fee back only with the order's last open unit; a refund's ``item_ids``
agree with its items' status in ``get_order``. The partial_units family's gold paths replay, the
careful agent (reading tools and conversation, never the goal) solves every task, the eager one
(which refunds the whole line) fails every one."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from envs.domain import get_domain
from envs.episode import episode_seed, run_episode
from envs.spec.task_check import replay, replay_problems
from envs.state.database import EpisodeState

FAMILY = "partial_units"


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def _tasks(support):
    return [t for tid, t in sorted(support.tasks.items()) if tid.startswith(f"hard_{FAMILY}_")]


def _call(support, st, name, **args):
    out = support.agent_tools.call(st.session, name, args)
    return out, (json.loads(out.output) if out.ok else None)


def _order_with_line(support, task):
    """A state of ``task`` and the id, quantity and unit price of its order's line of several units."""
    st = EpisodeState(support.base, support.initial_bytes(task))
    line = next(r.row for r in task.initial_state.insert if r.table == "order_items" and r.row["quantity"] > 1)
    return st, line


def test_seven_tasks_reproducible_from_seed_0_covering_each_variant(support):
    fam = support.families()[FAMILY]
    a, b = fam.generate(support, 7, 0), fam.generate(support, 7, 0)
    assert [t.model_dump() for t in a] == [t.model_dump() for t in b]
    shipped = _tasks(support)
    assert [t.id for t in shipped] == [f"hard_{FAMILY}_{i:02d}" for i in range(1, 8)]
    assert [t.model_dump() for t in shipped] == [t.model_dump() for t in a]
    kinds = set()
    for t in shipped:
        remedy = next(x for x in t.expected_actions if x.name in ("refund_items", "send_replacement"))
        line = next(r.row for r in t.initial_state.insert if r.table == "order_items"
                    and r.row["id"] == remedy.arguments["item_ids"][0])
        assert 1 <= remedy.arguments["quantity"] < line["quantity"]  # part of the line, never all of it
        earlier = any(r.table == "refund_lines" for r in t.initial_state.insert)
        asked = any(h.topic == "units" for h in t.scenario.hidden_facts)
        kinds.add((remedy.name, asked, earlier))
    assert {("refund_items", False, False), ("refund_items", True, False), ("send_replacement", False, False),
            ("refund_items", False, True)} <= kinds


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
            assert rec.status == "ok" and rec.reward == 1.0, (task.id, repeat, rec.grade.diff)
        rec = asyncio.run(run_episode(support, task, support.scripted_agents["eager"](), ScriptedUser(),
                                      episode_seed(7, task.id, 0), 0))
        assert rec.reward == 0.0, task.id


def test_the_gold_path_with_the_whole_line_remedied_misses_the_goal(support):
    """What the eager agent would do if it got as far (it refunds every open item): the same actions
    without ``quantity`` remedy the whole line, and the state differs from the goal on every task."""
    from graders.outcome.state_diff import diff_connection

    for task in _tasks(support):
        whole = task.model_copy(deep=True)
        for a in whole.expected_actions:
            a.arguments.pop("quantity", None)
        st = EpisodeState(support.base, support.initial_bytes(task))
        try:
            for a in whole.expected_actions:
                assert support.agent_tools.call(st.session, a.name, a.arguments).ok, (task.id, a.name)
            diff = diff_connection(st.conn, support.goal(task)[0], support.base.metadata)
            tables = {d.table for d in diff}
            assert ("refunds" in tables) != ("replacements" in tables), (task.id, tables)
        finally:
            st.close()


def test_units_of_a_line_are_refunded_once_and_the_fee_comes_with_the_last(support):
    task = next(t for t in _tasks(support) if not any(r.table == "refund_lines" for r in t.initial_state.insert)
                and sum(r.table == "order_items" and r.row["order_id"] == t.expected_actions[1].arguments["order_id"]
                        for r in t.initial_state.insert) == 1)
    st, line = _order_with_line(support, task)
    oid, iid, q, price = line["order_id"], line["id"], line["quantity"], line["unit_price_cents"]
    try:
        fee = _call(support, st, "get_order", order_id=oid)[1]["shipping_cents"]
        out, part = _call(support, st, "refund_items", order_id=oid, item_ids=[iid], destination="original_payment",
                          reason="damaged", quantity=1)
        assert out.ok and part["amount_cents"] == price and part["units"] == {str(iid): 1}  # no fee: units stay open
        view = _call(support, st, "get_order", order_id=oid)[1]
        item = view["items"][0]
        assert (item["status"], item["units_refunded"], item["units_replaced"]) == ("ordered", 1, 0)
        out, _ = _call(support, st, "refund_items", order_id=oid, item_ids=[iid], destination="original_payment",
                       reason="damaged", quantity=q)
        assert not out.ok and f"has {q - 1} of its {q} units not yet refunded or replaced" in out.output
        assert not _call(support, st, "refund_items", order_id=oid, item_ids=[iid, iid + 1], destination="store_credit",
                         reason="damaged", quantity=1)[0].ok
        out, rest = _call(support, st, "refund_items", order_id=oid, item_ids=[iid], destination="original_payment",
                          reason="damaged")  # no quantity: the rest of the line, the last open units
        assert out.ok and rest["amount_cents"] == (q - 1) * price + fee and rest["units"] == {str(iid): q - 1}
        view = _call(support, st, "get_order", order_id=oid)[1]
        assert view["items"][0]["status"] == "refunded" and view["items"][0]["units_refunded"] == q
        # each refund lists the item it covered, though the line's refund_id names the later one
        assert [r["item_ids"] for r in view["refunds"]] == [[iid], [iid]]
        assert "already refunded" in _call(support, st, "send_replacement", order_id=oid, item_ids=[iid],
                                           reason="damaged")[0].output
    finally:
        st.close()


def test_a_replacement_of_some_units_takes_only_those_from_stock(support):
    task = next(t for t in _tasks(support) if any(x.name == "send_replacement" for x in t.expected_actions))
    st, line = _order_with_line(support, task)
    try:
        stock = _call(support, st, "get_product", product_id=line["product_id"])[1]["stock"]
        out, rep = _call(support, st, "send_replacement", order_id=line["order_id"], item_ids=[line["id"]],
                         reason="damaged", quantity=1)
        assert out.ok and rep["replacements"][0]["quantity"] == 1
        assert _call(support, st, "get_product", product_id=line["product_id"])[1]["stock"] == stock - 1
        item = _call(support, st, "get_order", order_id=line["order_id"])[1]["items"][0]
        assert (item["status"], item["units_replaced"]) == ("ordered" if line["quantity"] > 1 else "replaced", 1)
    finally:
        st.close()


def test_every_earlier_refund_a_task_seeds_lists_the_items_get_order_shows_refunded(support):
    """A refund's item_ids agree with its items' status (a refunded item was shown with item_ids [])."""
    seen = 0
    for task in support.tasks.values():
        orders = {r.row["order_id"] for r in task.initial_state.insert if r.table == "refunds" and r.row.get("order_id")}
        if not orders:
            continue
        st = EpisodeState(support.base, support.initial_bytes(task))
        try:
            for oid in orders:
                view = _call(support, st, "get_order", order_id=oid)[1]
                listed = {i for r in view["refunds"] for i in r.get("item_ids", [])}
                for it in view["items"]:
                    if it["status"] == "refunded" or it["units_refunded"]:
                        seen += 1
                        assert it["item_id"] in listed, (task.id, oid, it["item_id"])
        finally:
            st.close()
    assert seen >= 20


def test_policy_states_the_rule_for_part_of_a_line(support):
    policy = re.sub(r"\s+", " ", open("domains/support/policy.md").read())
    assert "refund or replace those units only" in policy
    assert "Such a refund is the unit price times those units" in policy
    assert "or of some units of a line, never includes it" in policy
