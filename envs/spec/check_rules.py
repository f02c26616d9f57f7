"""Checks of a domain's situations and rules before any episode: ids, check types, check params.

``check_rules(domain)`` returns one ``FILE: field: reason`` line per problem (all of them, not
the first): a situation naming a rule that does not exist, a rule whose check type nobody
registered, a check param the check never reads (a typo: the check would silently use its
default), a param that must be a regex and does not compile, a param that names tools the
domain does not have, and a check that crashes on a plain test reply with these params, or reads a required param
that is missing (tried on a reply with no tool call, one after a tool call, and one after a
call of every agent tool, so that the params read on those paths are read). The known params of a check are the string constants in the source
of the module that defines it (its helpers read params there too), plus ``pattern`` /
``patterns`` when it reads them through ``pattern_list``.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from envs.errors import SpecError
from envs.records import AgentEvent, ToolCall, ToolEvent, UserEvent

VERDICTS = {"FOLLOWED", "VIOLATED", "NOT_APPLICABLE", "NEEDS_REVIEW"}


@lru_cache(maxsize=None)
def _module_strings(module_name: str) -> frozenset[str]:
    mod = sys.modules.get(module_name)
    try:
        tree = ast.parse(inspect.getsource(mod)) if mod else None
    except (OSError, TypeError):
        return frozenset()
    if tree is None:
        return frozenset()
    return frozenset(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))


def known_params(fn: Any) -> frozenset[str] | None:
    """The param names a check can read, or None when its source cannot be read (then any goes)."""
    strings = _module_strings(getattr(fn, "__module__", ""))
    if not strings:
        return None
    try:
        own = inspect.getsource(fn)
    except (OSError, TypeError):
        own = ""
    extra = {"pattern", "patterns"} if "pattern_list(" in own or "pattern_list(" in "".join(strings) else set()
    return strings | extra


class _Params(dict):
    """The params, recording a required key that is missing (``params["x"]`` on a KeyError)."""

    missing: list[str]

    def __missing__(self, key: str) -> Any:
        self.missing = [*getattr(self, "missing", []), key]
        raise KeyError(key)


def _test_transcripts(domain) -> list[tuple[list, int]]:
    """Plain transcripts to run a check on: a reply with no tool call, and one after a tool call."""
    tool = next(iter(domain.agent_tools.names()), "a_tool")
    user = UserEvent(turn=1, content="Hi, can you help me with this? I'm not sure what to do.", situation=None)
    reply = AgentEvent(turn=1, content="Sure. Could you tell me a little more about it?")
    call = ToolEvent(turn=1, side="agent", call=ToolCall(id="c1", name=tool, arguments={}), output="{}", ok=True)
    every = [
        ToolEvent(turn=1, side="agent", call=ToolCall(id=f"c{i}", name=n, arguments={}), output="{}", ok=True)
        for i, n in enumerate(domain.agent_tools.names())
    ]
    return [([user, reply], 1), ([user, call, reply], 2), ([user, *every, reply], len(every) + 1)]


def _tool_names(domain) -> set[str]:
    return set(domain.agent_tools.names()) | set(domain.user_tools.names())


def _check_param_values(where: str, params: dict, domain) -> list[str]:
    out = []
    tools = _tool_names(domain)
    for key, value in params.items():
        if "pattern" in key:
            values = value if isinstance(value, list) else [value]
            for i, p in enumerate(values):
                if not isinstance(p, str):
                    out.append(f"{where}.{key}: expected a regex string, got {type(p).__name__}")
                    continue
                try:
                    re.compile(p)
                except re.error as e:
                    out.append(f"{where}.{key}{f'.{i}' if isinstance(value, list) else ''}: not a valid regex ({e})")
        elif key.endswith("tools"):
            if not isinstance(value, list):
                out.append(f"{where}.{key}: expected a list of tool names")
                continue
            for name in value:
                if name not in tools:
                    out.append(f"{where}.{key}: unknown tool {name!r}")
        elif key == "actions" and isinstance(value, dict):
            for name, p in value.items():
                if name not in tools:
                    out.append(f"{where}.{key}: unknown tool {name!r}")
                try:
                    re.compile(str(p))
                except re.error as e:
                    out.append(f"{where}.{key}.{name}: not a valid regex ({e})")
    return out


def check_rules(domain) -> list[str]:
    """Every problem of ``domain``'s situations.yaml and rules.yaml, one line each (see module doc)."""
    from graders.rules import checks as _generic  # noqa: F401  (registers the generic checks)
    from graders.rules.registry import CHECKS

    pkg = Path(domain.package_dir)
    rules_file, sits_file = pkg / "rules.yaml", pkg / "situations.yaml"
    problems: list[str] = []
    try:
        rules = domain.rules
    except SpecError as e:
        problems.append(str(e))
        rules = {}
    try:
        situations = domain.situations
    except SpecError as e:
        problems.append(str(e))
        situations = {}
    for i, s in enumerate(situations.values()):
        for j, rid in enumerate(s.rules):
            if rid not in rules:
                problems.append(f"{sits_file}: situations[{i} {s.id}].rules.{j}: unknown rule {rid!r}")
    for i, r in enumerate(rules.values()):
        if r.check is None:
            continue
        where = f"rules[{i} {r.id}].check"
        fn = CHECKS.get(r.check.type)
        if fn is None:
            known = ", ".join(sorted(CHECKS))
            problems.append(f"{rules_file}: {where}.type: unknown check type {r.check.type!r} (known: {known})")
            continue
        names = known_params(fn)
        bad_keys = [k for k in r.check.params if names is not None and k not in names]
        for k in bad_keys:
            problems.append(f"{rules_file}: {where}.params.{k}: the check {r.check.type} reads no param {k!r}")
        value_problems = [f"{rules_file}: {p}" for p in _check_param_values(f"{where}.params", r.check.params, domain)]
        problems.extend(value_problems)
        if bad_keys or value_problems:
            continue
        for n, (events, idx) in enumerate(_test_transcripts(domain)):
            params = _Params(r.check.params)
            try:
                verdict, _why = fn(events, idx, params)
            except Exception as e:  # the check's own failure on a plain reply is the finding
                missing = getattr(params, "missing", [])
                if n == 2 and not missing:
                    break  # every tool called with empty outputs is not a plain reply: only a missing param counts
                why = f"needs param {missing[0]!r}" if missing else f"crashes on a plain reply ({type(e).__name__}: {e})"
                problems.append(f"{rules_file}: {where}.params: {why}")
                break
            if verdict not in VERDICTS:
                problems.append(f"{rules_file}: {where}.type: {r.check.type} returned {verdict!r}, not a verdict")
                break
    return problems
