"""The outcome grade of one finished episode.

reward = 1.0 when the final state equals the goal state (outside ignored
columns), every required output was stated and every ``required`` assertion
passed; else 0.0 (tau-bench's rule, plus required assertions). Other
assertions are reported beside the reward; they do not change it.
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
    assertions = check_assertions(task.assertions, events)
    required_ok = all(r.result == "pass" for a, r in zip(task.assertions, assertions) if a.required)
    return Grade(
        reward=1.0 if state_match and outputs_ok and required_ok else 0.0,
        state_match=state_match,
        outputs_ok=outputs_ok,
        required_assertions_ok=required_ok,
        diff=diff,
        outputs=outputs,
        assertions=assertions,
    )
