"""The scripted ``gold`` agent: replays a task's annotated actions, then states the outputs.

It is the upper bound a run can reach and a check of the plumbing: through the
episode loop it must earn reward 1 on every task. One tool call per step, in
the annotated order; then one message holding every required output; then
only a closing line (never an empty action, which the engine counts as an
agent error). When the last gold action ends the episode (a transfer to a
human), the outputs are said just before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.actors.protocols import AgentView
from envs.records import AgentAction, AgentEvent, ToolCall

if TYPE_CHECKING:
    from envs.domain import Domain
    from envs.spec.schema import Task


class GoldAgent:
    """Knows the task (through the domain and ``view.task_id``), not the state."""

    name = "gold"

    def __init__(self, domain: "Domain"):
        self.domain = domain

    @staticmethod
    def final_message(task: "Task") -> str:
        if not task.outputs:
            return "Your request has been handled."
        return "Here is what you asked for: " + "; ".join(o.value for o in task.outputs) + "."

    def _plan(self, task: "Task") -> list[ToolCall | str]:
        """The steps: each gold action as a call, with the outputs message before a terminal one."""
        steps: list[ToolCall | str] = [
            ToolCall(name=a.name, arguments=dict(a.arguments)) for a in task.expected_actions
        ]
        last = task.expected_actions[-1].name if task.expected_actions else None
        tool = self.domain.agent_tools.tools.get(last) if last else None
        if tool is not None and tool.terminal:
            if task.outputs:
                steps.insert(len(steps) - 1, self.final_message(task))
        else:
            steps.append(self.final_message(task))
        return steps

    async def act(self, view: AgentView) -> AgentAction:
        task = self.domain.tasks[view.task_id]
        steps = self._plan(task)
        done_calls = len(view.tool_events())
        done_msgs = sum(1 for e in view.events if isinstance(e, AgentEvent))
        # Steps are consumed in order: the k-th step is a call or a message, counted separately.
        calls = msgs = 0
        for step in steps:
            if isinstance(step, str):
                if msgs >= done_msgs:
                    return AgentAction.say(step)
                msgs += 1
            else:
                if calls >= done_calls:
                    return AgentAction(tool_calls=[step])
                calls += 1
        return AgentAction.say("Thank you for contacting us. Goodbye.")
