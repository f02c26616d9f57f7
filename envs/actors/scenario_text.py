"""The scenario as the LLM user reads it: every field that shapes how the user behaves, as text.

``scenario_values(scenario, agent_name)`` gives the ``user`` template its
variables: the goal and request, the known facts, the hidden facts with when
to reveal each, the change of mind (what triggers it and what the user then
wants, every detail included), whether the user accepts a proposed change,
the user's own tools with when to use each and what to report, and the
agent's words that mean the goal is met. An empty field gives an empty value
(the template drops its block). Engine text: no domain's words here.
"""

from __future__ import annotations

import json
from typing import Any

from envs.spec.schema import Scenario


def _quoted(words: list[str]) -> str:
    return ", ".join(f'"{w}"' for w in words)


def _topic(name: str | None, topics: Any) -> str:
    """A topic as the user reads it: its name and a few of the words people use for it."""
    if not name:
        return ""
    spec = getattr(getattr(topics, "spec", None), "topics", {}).get(name)
    words = [w for w in (spec.words if spec is not None else []) if w.strip()][:4]
    label = name.replace("_", " ")
    return f"{label} (e.g. {_quoted(words)})" if words else label


def _trigger(topic: str | None, words: list[str], topics: Any) -> str:
    """What the agent must ask about: the topic (any wording) and/or the extra words."""
    parts = [p for p in (_topic(topic, topics), _quoted(words)) if p]
    return " or ".join(parts)


_ACTS = {"confirm": "asks you to confirm something about", "refusal": "refuses something about",
         "done": "tells you it has done what you agreed to about", "any": "proposes or asks about"}


def scenario_values(sc: Scenario, agent_name: str, topics: Any = None) -> dict[str, str]:
    """The ``user`` template's scenario variables (see the module docstring); ``topics`` (the
    domain's recogniser, ``UserTurn.topics``) names the topics a fact or a change of mind waits for."""
    hidden = "\n".join(
        f"- {h.fact} (reveal only when {agent_name} asks about: {_trigger(h.topic, h.asked_by, topics)})" for h in sc.hidden_facts
    )
    tools = []
    for u in sc.user_tools:
        args = json.dumps(u.arguments, ensure_ascii=False) if u.arguments else "{}"
        trig = _trigger(u.topic, u.when_asked, topics)
        when = f"when {agent_name} asks you about: {trig}" if trig else "before your first message"
        report = u.say.replace("{result}", "<what the tool shows>")
        tools.append(f"- call {u.tool} with {args} {when}; then tell {agent_name} what it shows, e.g. \"{report}\"")
    mc = sc.mind_change
    return {
        "goal": sc.goal,
        "request": sc.request,
        "more_requests": "\n".join(f"{i}. {r}" for i, r in enumerate(sc.more_requests, 2)),
        "known_facts": "\n".join(f"- {f}" for f in sc.known_facts),
        "hidden_facts": hidden,
        "mind_change_act": _ACTS[mc.act] if mc else "",
        "mind_change_when": (_trigger(mc.topic, mc.when_asked, topics) or "anything") if mc else "",
        "mind_change_say": mc.say if mc else "",
        "accepts": "yes" if sc.accepts else "",
        "declines": "" if sc.accepts else "yes",
        "tool_uses": "\n".join(tools),
        "done_when": _quoted(sc.done_when) if sc.done_when else "",
    }
