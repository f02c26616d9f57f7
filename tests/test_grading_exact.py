"""Grading compares only what was written; it must agree exactly with a full comparison."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.domain import get_domain
from envs.episode import Episode, episode_seed
from envs.state.database import EpisodeState
from envs.actors.scripted_user import ScriptedUser
from graders.outcome.state_diff import diff_connection


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 199), st.integers(1, 500)), max_size=8))
def test_touched_rows_diff_equals_full_diff_on_toy(ops):
    d = get_domain("toy")
    task = d.tasks["toy-deposit"]
    goal, goal_touched, _ = d.goal(task)
    stt = EpisodeState(d.base, d.initial_bytes(task))
    for row, amount in ops:
        d.agent_tools.call(stt.session, "deposit", {"account_id": f"A{row:03d}", "amount": amount})
    stt.session.commit()
    fast = diff_connection(stt.conn, goal, d.base.metadata, goal_touched | stt.touched)
    full = diff_connection(stt.conn, goal, d.base.metadata, None)
    assert [x.model_dump() for x in fast] == [x.model_dump() for x in full]
    stt.close()


@pytest.mark.parametrize("agent", ["eager", "careful"])
def test_touched_rows_diff_equals_full_diff_on_support(agent):
    d = get_domain("support")
    state = EpisodeState(d.base, d.template())
    for task in d.tasks.values():
        ep = Episode(d, task, ScriptedUser(), seed=episode_seed(0, task.id, 0), state=state)
        a = d.scripted_agents[agent]()

        async def play():
            await ep.start()
            while not ep.done:
                await ep.step(await a.act(ep.agent_view()))

        asyncio.run(play())
        goal, goal_touched, _ = d.goal(task)
        state.session.commit()
        fast = diff_connection(state.conn, goal, d.base.metadata, goal_touched | state.touched, task.ignore_columns)
        full = diff_connection(state.conn, goal, d.base.metadata, None, task.ignore_columns)
        assert [x.model_dump() for x in fast] == [x.model_dump() for x in full], task.id
    state.close()
