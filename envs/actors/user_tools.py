"""A simulated user's tool arguments, taken from the episode (domain-neutral).

A task's ``user_tools`` entry may write ``{entity}`` in an argument's value (the
domain's entities, ``topics.yaml``); a required parameter of the tool named like an
entity and not given is filled the same way. The value is the last one the user has
said so far, else the last one in the facts it holds (request, known facts, hidden
facts revealed, then all hidden facts): the order a person means is the one they
talk about. ``check_user_tool`` validates a task's entry at load time.
"""

from __future__ import annotations

import re
from typing import Any

from envs.actors.topics import Recogniser

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _needed(tool: Any, use: Any, rec: Recogniser) -> dict[str, Any]:
    """The entry's arguments plus required parameters named like an entity ({name} placeholders)."""
    args = dict(use.arguments)
    fields = getattr(getattr(tool, "args_model", None), "model_fields", {}) if tool is not None else {}
    for name, f in fields.items():
        if name not in args and f.is_required() and name in rec.spec.entities:
            args[name] = "{" + name + "}"
    return args


def _fill(args: dict[str, Any], value_of) -> dict[str, Any] | None:
    out = {}
    for k, v in args.items():
        if isinstance(v, str):
            names = _PLACEHOLDER.findall(v)
            for n in names:
                got = value_of(n)
                if got is None:
                    return None
                v = v.replace("{" + n + "}", got)
        out[k] = v
    return out


def scenario_texts(scenario: Any, revealed: set[str] | None = None) -> list[str]:
    """The facts the user holds, in the order it would mention them."""
    hidden = scenario.hidden_facts
    first = [h.fact for h in hidden if revealed is None or h.id in revealed]
    rest = [h.fact for h in hidden if revealed is not None and h.id not in revealed]
    return [scenario.request, *scenario.known_facts, *rest, *first]


def resolve_arguments(use: Any, rec: Recogniser, scenario: Any, spoken: list[str], revealed: set[str]) -> dict[str, Any] | None:
    """The call's arguments for this point of the episode; None when a value is not known.
    (The domain has written the entity parameters into ``use.arguments`` at load.)"""

    def value_of(name: str) -> str | None:
        return rec.entity(name, spoken) or rec.entity(name, scenario_texts(scenario, revealed))

    return _fill(dict(use.arguments), value_of)


def check_user_tool(use: Any, tool: Any, rec: Recogniser, scenario: Any) -> tuple[str, str] | None:
    """(field, reason) when the entry cannot be called as written, else None. Writes the
    entity parameters it fills into ``use.arguments`` (as ``{entity}`` placeholders)."""
    args = _needed(tool, use, rec)
    use.arguments = args
    for k, v in args.items():
        for n in _PLACEHOLDER.findall(v) if isinstance(v, str) else []:
            if n not in rec.spec.entities:
                return f"arguments.{k}", f"{{{n}}} is not an entity of the domain's topics.yaml"
            if rec.entity(n, scenario_texts(scenario)) is None:
                return f"arguments.{k}", f"{{{n}}} has no value in the scenario's request or facts"
    filled = _fill(args, lambda n: rec.entity(n, scenario_texts(scenario)))
    try:
        tool.validate(filled)
    except Exception as e:  # ToolError: the reason, one line
        return "arguments", str(e)
    return None
