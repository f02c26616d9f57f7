"""Event bookkeeping shared by both scripted support agents.

An agent reads only its ``AgentView``: each step it absorbs the events it has
not seen yet, records what the customer said in ``Facts`` and keeps the last
result (or error) of each of its own tool calls by tool name.
"""

from __future__ import annotations

from typing import Any, Callable

from envs.actors.protocols import AgentView
from envs.records import AgentAction, ToolEvent, UserEvent

from .reading import Facts, parse_output


class ScriptedAgentBase:
    """Event bookkeeping shared by both agents.

    ``act`` calls ``_absorb(view)`` first; subclasses react to each of their
    tool results in ``on_tool``, called after ``results``/``errors`` are updated.
    """

    name = "scripted"

    def __init__(self) -> None:
        self.facts = Facts()
        self._seen = 0
        self.results: dict[str, Any] = {}  # last successful result per tool name
        self.errors: dict[str, str] = {}  # last error per tool name
        self.new_user_text = ""

    def _absorb(self, view: AgentView) -> None:
        new = view.events[self._seen :]
        self._seen = len(view.events)
        users = []
        for e in new:
            if isinstance(e, UserEvent):
                self.facts.read(e.content)
                users.append(e.content)
            elif isinstance(e, ToolEvent) and e.side == "agent":
                key = e.call.name
                if e.ok:
                    self.results[key] = parse_output(e.output)
                    self.errors.pop(key, None)
                else:
                    self.errors[key] = e.output
                self.on_tool(key, e)
        self.new_user_text = " ".join(users)

    def on_tool(self, name: str, event: ToolEvent) -> None:  # hook
        pass


def first_step(*steps: Callable[[], AgentAction | None]) -> AgentAction | None:
    """Run the steps in order and return the first action one of them gives (None if none does).

    Later steps do not run once one acts: a step may change the agent's state.
    """
    for step in steps:
        action = step()
        if action is not None:
            return action
    return None
