"""The outcome grade of one finished episode.

reward = 1.0 when the final state equals the goal state (outside ignored
columns) and every required output was stated; else 0.0 (tau-bench's rule).
Assertions are reported beside the reward; they do not change it.
"""

from __future__ import annotations

from envs.domain import Domain
from envs.records import Event, Grade
from envs.spec.schema import Task
from envs.state.database import EpisodeState
from graders.outcome.assertions import check_assertions
from graders.outcome.outputs import check_outputs
from graders.outcome.state_diff import diff_connection


def grade_episode(domain: Domain, task: Task, state: EpisodeState, events: list[Event]) -> Grade:
    goal_bytes, goal_touched, _ = domain.goal(task)
    state.session.commit()
    touched = goal_touched | state.touched
    diff = diff_connection(state.conn, goal_bytes, domain.base.metadata, touched, task.ignore_columns,
                           new_after=domain.initial_ids(task))
    outputs = check_outputs(task.outputs, events, domain.outputs_mode)
    outputs_ok = all(o.found for o in outputs)
    state_match = not diff
    return Grade(
        reward=1.0 if state_match and outputs_ok else 0.0,
        state_match=state_match,
        outputs_ok=outputs_ok,
        diff=diff,
        outputs=outputs,
        assertions=check_assertions(task.assertions, events),
    )
