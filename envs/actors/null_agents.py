"""Agents that do nothing, for every domain: the floor a task must hold its score above.

``scripted:silent`` replies "..." every turn; ``scripted:read-loop`` calls one read-only tool
(one that does not mutate the state) again and again and never speaks. Neither can do what a
task asks, so each must score 0 on every task: a task such an agent passes requires nothing
observable of the agent (``envs.spec.lint.silent_agent_passes``), and an episode it ends by
looping (``max_steps``) or by exhausting the turn budget is a failure (``graders.evaluate``).

They need no domain words: ``roles.agent_factory`` offers them in every domain whose own
scripted agents do not already use the name.
"""

from __future__ import annotations

from typing import Any

from envs.actors.protocols import AgentView
from envs.records import AgentAction, ToolCall


class SilentAgent:
    """Says "..." and nothing else, every turn."""

    name = "scripted:silent"

    async def act(self, view: AgentView) -> AgentAction:
        return AgentAction.say("...")


def _placeholder(prop: dict[str, Any]) -> Any:
    """A value of the property's JSON-schema type that passes its pattern and bounds (the tool
    may still refuse it: a well-formed id of no record)."""
    if "enum" in prop and prop["enum"]:
        return prop["enum"][0]
    kind = prop.get("type")
    if kind is None and prop.get("anyOf"):
        kind = next((p.get("type") for p in prop["anyOf"] if p.get("type") not in (None, "null")), None)
    if kind == "integer":
        return int(prop.get("minimum", 1))
    if kind == "array":
        return [_placeholder(prop.get("items", {}))] * max(1, int(prop.get("minItems", 1)))
    if kind == "string":
        text = _matching(prop["pattern"]) if "pattern" in prop else "x"
        return text.ljust(int(prop.get("minLength", 1)), "x")
    return {"number": 1, "boolean": False, "object": {}}.get(kind, "1")


def _matching(pattern: str) -> str:
    """The shortest-ish string the regular expression matches (first choice of every class)."""
    import re._parser as sre  # the standard library's own parse of the pattern

    def emit(items) -> str:
        out = []
        for op, av in items:
            name = str(op)
            if name == "LITERAL":
                out.append(chr(av))
            elif name == "IN":
                out.append(emit_class(av))
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                lo, _hi, sub = av
                out.append(emit(sub) * lo)
            elif name == "SUBPATTERN":
                out.append(emit(av[-1]))
            elif name == "BRANCH":
                out.append(emit(av[1][0]))
            elif name == "CATEGORY":
                out.append(emit_class([(op, av)]))
            elif name == "ANY":
                out.append("x")
        return "".join(out)

    def emit_class(items) -> str:
        if any(str(op) == "NEGATE" for op, _ in items):
            return "a"  # the classes negated in tool schemas exclude spaces and punctuation
        for op, av in items:
            name = str(op)
            if name == "LITERAL":
                return chr(av)
            if name == "RANGE":
                return chr(av[0])
            if name == "CATEGORY":
                return {"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " "}.get(str(av), "a")
        return "a"

    return emit(sre.parse(pattern))


class ReadLoopAgent:
    """Calls the first read-only agent tool (by its schema, with placeholder arguments) forever."""

    name = "scripted:read-loop"

    def __init__(self, read_tool: str | None = None):
        self.read_tool = read_tool

    async def act(self, view: AgentView) -> AgentAction:
        schemas = {s["function"]["name"]: s["function"] for s in view.tools}
        name = self.read_tool if self.read_tool in schemas else next(iter(schemas), None)
        if name is None:
            return AgentAction.say("...")
        params = schemas[name].get("parameters", {})
        props = params.get("properties", {})
        args = {k: _placeholder(props.get(k, {})) for k in params.get("required", [])}
        return AgentAction(tool_calls=[ToolCall(name=name, arguments=args)])


def null_agents(domain: Any) -> dict[str, Any]:
    """``{variant: factory}`` of the do-nothing agents for ``domain`` (its first read-only tool)."""
    reads = [t.name for t in domain.agent_tools.tools.values() if not t.mutates and not t.terminal]
    first = reads[0] if reads else None
    return {"silent": SilentAgent, "read-loop": lambda: ReadLoopAgent(first)}
