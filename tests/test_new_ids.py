"""Ids of new rows differ between episodes, and the grade never depends on them.

Each episode hands out its own ids (envs.state.database.NewIds: a gap drawn from the
episode's seed), and the state diff matches the rows an episode created by content,
carrying renamed keys into the columns that reference them (graders.outcome.state_diff).
"""

from __future__ import annotations

import json

import pytest

from envs.domain import get_domain
from envs.state.database import EpisodeState
from graders.outcome.state_diff import diff_connection


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def _three_item_order(domain) -> tuple[str, list[int]]:
    st = EpisodeState(domain.base, domain.template())
    try:
        rows = st.conn.execute(
            "SELECT o.id, group_concat(i.id) FROM orders o JOIN order_items i ON i.order_id = o.id "
            "WHERE o.status = 'delivered' AND i.status = 'ordered' GROUP BY o.id HAVING count(*) >= 3 ORDER BY o.id"
        ).fetchall()
    finally:
        st.close()
    assert rows, "the template has a delivered order of three items"
    oid, items = rows[0]
    return oid, [int(x) for x in items.split(",")]


def _refund(domain, st: EpisodeState, oid: str, item: int) -> dict:
    out = domain.agent_tools.call(st.session, "refund_items", {
        "order_id": oid, "item_ids": [item], "destination": "original_payment", "reason": "damaged"})
    assert out.ok, out.output
    return json.loads(out.output)


def _state(domain, oid: str, items: list[int], seed: int | None) -> EpisodeState:
    st = EpisodeState(domain.base, domain.template())
    st.new_ids.seed = seed
    for it in items:
        _refund(domain, st, oid, it)
    st.session.commit()
    return st


def _largest(domain) -> dict[str, int]:
    from envs.domain.definition import _largest_ids

    st = EpisodeState(domain.base, domain.template())
    try:
        return _largest_ids(st.conn, domain.base.metadata)
    finally:
        st.close()


def test_episodes_hand_out_different_ids_from_the_templates_sequence(support):
    oid, items = _three_item_order(support)
    top = _largest(support)["refunds"]
    ids = set()
    for seed in range(6):
        st = EpisodeState(support.base, support.template())
        st.new_ids.seed = seed
        first = _refund(support, st, oid, items[0])["refund_id"]
        second = _refund(support, st, oid, items[1])["refund_id"]
        assert first > top and second == first + 1  # the sequence continues after the gap
        ids.add(first)
        st.close()
    assert len(ids) >= 5
    st = EpisodeState(support.base, support.template())  # no seed (a goal replay): the next id
    assert _refund(support, st, oid, items[0])["refund_id"] == top + 1
    st.close()


def test_the_same_rows_under_other_ids_or_in_another_order_grade_equal(support):
    oid, items = _three_item_order(support)
    new_after = _largest(support)
    goal = _state(support, oid, items[:2], None)
    goal_bytes, goal_touched = goal.snapshot(), goal.touched.copy()
    for seed, order in [(7, items[:2]), (None, [items[1], items[0]]), (11, [items[1], items[0]])]:
        st = _state(support, oid, order, seed)
        touched = goal_touched | st.touched
        assert diff_connection(st.conn, goal_bytes, support.base.metadata, touched, new_after=new_after) == []
        # by key alone, the same state looks wrong: this is what the matching repairs
        if seed is not None or order != items[:2]:
            assert diff_connection(st.conn, goal_bytes, support.base.metadata, touched) != []
        st.close()
    goal.close()


def test_a_created_row_that_differs_still_fails_and_says_how(support):
    oid, items = _three_item_order(support)
    new_after = _largest(support)
    goal = _state(support, oid, items[:1], None)
    st = _state(support, oid, items[1:2], 5)  # refunded the wrong item
    diff = diff_connection(st.conn, goal.snapshot(), support.base.metadata, goal.touched | st.touched, new_after=new_after)
    tables = {d.table: d for d in diff}
    assert "order_items" in tables and "refunds" in tables
    goal.close()
    st.close()


def test_a_reference_to_the_wrong_created_row_fails_though_its_stored_value_matches(support):
    """Goal: refund A for item X, refund B for item Y. Actual: the refunds created in the other
    order, but item X still points at the id the goal gave A: equal as stored, wrong once the
    actual's rows are renamed to the goal's."""
    oid, items = _three_item_order(support)
    new_after = _largest(support)
    goal = _state(support, oid, items[:2], None)
    st = _state(support, oid, [items[1], items[0]], None)
    x_goal = goal.conn.execute("SELECT refund_id FROM order_items WHERE id = ?", (items[0],)).fetchone()[0]
    st.conn.execute("UPDATE order_items SET refund_id = ? WHERE id = ?", (x_goal, items[0]))
    st.conn.commit()
    diff = diff_connection(st.conn, goal.snapshot(), support.base.metadata, goal.touched | st.touched, new_after=new_after)
    (td,) = [d for d in diff if d.table == "order_items"]
    assert [c.key for c in td.changed] == [{"id": items[0]}]
    goal.close()
    st.close()


def test_every_repeat_of_a_task_gets_its_own_ids_and_the_careful_agent_passes(support, tmp_path):
    import asyncio

    from envs.actors.scripted_user import ScriptedUser
    from envs.episode.loop import run_episode
    from envs.episode.step import episode_seed

    task = support.tasks["sup_furious_damaged_refund"]
    seen = set()
    for repeat in range(4):
        rec = asyncio.run(run_episode(support, task, support.scripted_agents["careful"](), ScriptedUser(),
                                      seed=episode_seed(0, task.id, repeat), repeat=repeat))
        assert rec.reward == 1.0, rec.grade
        outs = [json.loads(e.output) for e in rec.transcript if getattr(e, "kind", "") == "tool"
                and getattr(e, "call", None) is not None and e.call.name == "refund_items" and e.ok]
        seen |= {o["refund_id"] for o in outs}
    assert len(seen) >= 3
