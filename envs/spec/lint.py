"""The task lint: a capable agent passes a task exactly when it behaves well.

A task can be well-formed and still unfair: it grades on something the agent could not know or
the user could not make happen. ``lint_task(domain, task, where)`` replays the gold path
(``envs.spec.task_check.replay``) and returns one ``FILE: field: reason`` line per finding:

* ``outputs.N``: a required output appears in no tool output of the gold path and not in the
  policy (matched as a value of its kind, as the grader matches it), and is neither a date the
  policy's period of days gives from one of them nor, where the policy speaks of a sum, the sum
  of the amounts one writing tool returns over its calls (a total across several refunds);
* ``expected_actions.N.arguments.K``: an expected action needs a fact nobody gives the agent: an
  argument value (an id, an email, a zip, an address, a code) that is in neither the opening
  request, the known facts, the hidden facts, the change of mind, what the user's own tool
  calls return, the outputs of the gold path's earlier calls, nor the policy. Values the tool
  schema enumerates are choices, not facts; free text (words without a digit) is not a fact;
* ``expected_actions.N.arguments.K`` (an open choice): the goal depends on a choice that is the
  user's (the domain's ``user_choices`` in words.yaml, e.g. a refund's destination) which neither
  the goal, the request, the facts nor the change of mind settles; the LLM user is told it may
  choose freely where the scenario leaves a choice open, so such a goal would fail a good agent
  (``choices_open``);
* ``scenario.user_tools.N.arguments``: a user tool call's arguments do not validate (reported
  by ``check_task``, which the lint runs first);
* ``task``: the task requires nothing observable of the agent (``requires_nothing``: no state
  change, no required output, no required assertion a silent agent fails) or, with ``play``, an
  agent that does nothing passes it against the scripted user (``silent_agent_passes``);
* domain rules: a goal that depends on a behaviour the scenario does not make certain, or a
  policy that contradicts the task's budget or limits. These need the domain's words, so a
  domain supplies them as ``lint_task(domain, task, gold) -> [(field, reason), ...]`` in a
  ``lint`` module of its package (e.g. ``domains/tutoring/lint.py``); the engine finds it from
  the domain's ``package_dir`` and never imports a domain by name.
"""

from __future__ import annotations

import importlib
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from envs.records import AgentEvent
from envs.spec.schema import Task
from envs.spec.task_check import GoldPath, check_task, replay, replay_problems


def lint_task(domain, task: Task, where: str | Path, play: bool = False) -> list[str]:
    """Every finding of the lint on ``task`` (module docstring); ``check_task``'s problems first:
    a task that does not validate is not linted further. ``play``: also play the do-nothing agents
    on it (``silent_agent_passes``; ``python -m envs.check`` does, a run's pre-check does not)."""
    problems = check_task(domain, task, where, replayed=False)
    if problems:
        return problems
    gold = replay(domain, task)
    try:
        problems += replay_problems(gold, where)
        if gold.error:
            return problems
        problems += [f"{where}: {p}" for p in outputs_unknown(domain, task, gold)]
        problems += [f"{where}: {p}" for p in facts_unreachable(domain, task, gold)]
        problems += [f"{where}: {p}" for p in choices_open(domain, task, gold)]
        problems += [f"{where}: {p}" for p in requires_nothing(domain, task)]
        if play:
            problems += [f"{where}: {p}" for p in silent_agent_passes(domain, task)]
        hook = domain_lint(domain)
        if hook is not None:
            problems += [f"{where}: {f}: {r}" for f, r in hook(domain, task, gold)]
    finally:
        gold.close()
    return problems


def outputs_unknown(domain, task: Task, gold: GoldPath) -> list[str]:
    """``outputs.N: ...`` for each required output no gold tool output and not the policy states."""
    from graders.outcome.outputs import check_outputs

    texts = [c.output for c in (*gold.user_calls, *gold.actions) if c.ok] + [domain.policy]
    events = [AgentEvent(turn=i, content=t) for i, t in enumerate(texts)]
    out = []
    for i, o in enumerate(task.outputs):
        (res,) = check_outputs([o], events, domain.outputs_mode)
        if not res.found and not _date_from_policy_period(o, res, texts[:-1], domain.policy) \
                and not _amount_from_policy_sum(res, gold, domain):
            out.append(f"outputs.{i}: {o.value!r} appears in no tool output of the gold path and not in the policy")
    return out


_PERIOD = re.compile(r"\b(\d+)[ -]days?\b", re.I)


def _date_from_policy_period(output, res, tool_texts: list[str], policy: str) -> bool:
    """A required date that is a date of the gold path's outputs plus or minus a period of days the
    policy states ("30-day window": delivered 2026-06-08, return by 2026-07-08): it follows from
    the tools and the policy. One of the two derivations the lint accepts (the other:
    ``_amount_from_policy_sum``); any other value must be stated."""
    import datetime as dt

    from graders.outcome.outputs import extract

    if res.kind != "date" or not res.expected:
        return False
    try:
        want = dt.date.fromisoformat(res.expected)
    except ValueError:
        return False
    periods = {int(m.group(1)) for m in _PERIOD.finditer(policy)}
    dates = {s.value for t in tool_texts for s in extract("date", 0, t, want.year)}
    return any(abs((want - d).days) in periods for d in dates)


def _amount_from_policy_sum(res, gold: GoldPath, domain) -> bool:
    """A required amount that is the sum of the amounts one writing tool's calls return on the gold
    path (two or more of them, each by the first amount its output states: two orders' refunds
    asked as one total), where the policy speaks of a sum: it follows from the tools and the policy."""
    from graders.outcome.outputs import extract, parse_expected

    if res.kind != "money" or not res.expected or not re.search(r"\bsum\b", domain.policy, re.I):
        return False
    by_tool: dict[str, list[int]] = {}
    for c in gold.actions:
        if c.ok and c.name in domain.agent_tools and domain.agent_tools[c.name].mutates:
            amounts = extract("money", 0, c.output)
            if amounts:
                by_tool.setdefault(c.name, []).append(amounts[0].value)
    want = parse_expected(res.expected, "money")
    return any(len(a) > 1 and sum(a) == want for a in by_tool.values())


def _user_knows(task: Task, gold: GoldPath) -> list[str]:
    sc = task.scenario
    texts = [sc.request, *sc.more_requests, *sc.known_facts, *(h.fact for h in sc.hidden_facts)]
    if sc.mind_change is not None:
        texts.append(sc.mind_change.say)
    texts += [c.output for c in gold.user_calls if c.ok]
    return texts


def _is_fact(value: Any) -> bool:
    """An id, an email, a zip, a number, an address: not free text (words without a digit)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return True
    if isinstance(value, str):
        v = value.strip()
        if not v:
            return False
        # one token (an id, an email, a code), or a short phrase with a digit (an address)
        return not re.search(r"\s", v) or (len(v.split()) <= 6 and bool(re.search(r"[\d@]", v)))
    return False


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}.{i}")
    else:
        yield path, value


def _enumerated(tool, arg: str) -> set[str]:
    """The values the tool's schema enumerates for ``arg`` (at any depth of its schema)."""
    schema = tool.schema()["function"]["parameters"]
    prop = schema.get("properties", {}).get(arg, {})
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for e in node.get("enum", []) or []:
                found.add(str(e))
            if "const" in node:
                found.add(str(node["const"]))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(prop)
    walk(schema.get("$defs", {}))  # referenced enums (Literal types become $defs)
    return found


def _mentioned(value: Any, texts: list[str]) -> bool:
    v = str(value).strip()
    if isinstance(value, float) and value.is_integer():
        v = str(int(value))
    rx = re.compile(r"(?<![A-Za-z0-9])" + re.escape(v) + r"(?![A-Za-z0-9])", re.I)
    return any(rx.search(t) for t in texts)


def facts_unreachable(domain, task: Task, gold: GoldPath) -> list[str]:
    """``expected_actions.N.arguments.K: ...`` for each argument value the agent cannot learn."""
    known = _user_knows(task, gold) + [domain.policy]
    out = []
    for i, call in enumerate(gold.actions):
        if call.side != "agent":  # the user's own calls (a student's answer) need no agent knowledge
            continue
        tool = domain.agent_tools[call.name]
        earlier = [c.output for c in gold.actions[:i] if c.ok]
        for arg, raw in call.arguments.items():
            choices = _enumerated(tool, arg)
            for path, value in _leaves(raw, arg):
                if not _is_fact(value) or str(value) in choices:
                    continue
                if not _mentioned(value, known + earlier):
                    out.append(
                        f"expected_actions.{i}.arguments.{path}: {call.name} needs {value!r}, which the user never "
                        "gets to say (not in the request, known or hidden facts, mind_change, their tool outputs) "
                        "and no earlier call of the gold path returns"
                    )
    return out


def open_choices(domain, task: Task, where: str | Path) -> list[str]:
    """``choices_open`` on the task's gold path, as ``FILE: field: reason`` lines."""
    gold = replay(domain, task)
    try:
        return [] if gold.error else [f"{where}: {p}" for p in choices_open(domain, task, gold)]
    finally:
        gold.close()


def choices_open(domain, task: Task, gold: GoldPath) -> list[str]:
    """``expected_actions.N.arguments.K: ...`` for each user's choice the goal depends on that the
    scenario does not settle (module docstring)."""
    choices = getattr(getattr(domain, "words", None), "user_choices", {}) or {}
    if not choices:
        return []
    sc = task.scenario
    texts = [sc.goal, sc.request, *sc.known_facts, *(h.fact for h in sc.hidden_facts)]
    if sc.mind_change is not None:
        texts.append(sc.mind_change.say)
    low = " ".join(texts).lower()
    out = []
    for i, call in enumerate(gold.actions):
        if call.side != "agent":
            continue
        for arg, value in call.arguments.items():
            names = choices.get(arg, {})
            if not isinstance(value, str) or value not in names:
                continue
            words = [value.replace("_", " "), *names[value]]
            if not any(w.lower() in low for w in words):
                out.append(
                    f"expected_actions.{i}.arguments.{arg}: {call.name} needs {arg} {value!r}, a choice that is the "
                    f"user's, but the goal, request, facts and change of mind never settle it (say e.g. "
                    f"{words[-1]!r} in the goal); the LLM user may choose freely where a choice is left open"
                )
    return out


def domain_lint(domain):
    """The domain's own ``lint_task`` (module docstring), or None when its package has no lint module."""
    return _lint_of(str(domain.package_dir))


@lru_cache(maxsize=None)
def _lint_of(package_dir: str):
    init = (Path(package_dir) / "__init__.py").resolve()
    pkg = next(
        (name for name, m in list(sys.modules.items()) if getattr(m, "__file__", None) and Path(m.__file__).resolve() == init),
        None,
    )
    if pkg is None or not (Path(package_dir) / "lint.py").exists():
        return None
    return getattr(importlib.import_module(f"{pkg}.lint"), "lint_task", None)


# Assertion types an agent that says and does nothing fails (the negative ones it passes).
_POSITIVE_ASSERTIONS = ("transcript_contains", "transcript_contains_any", "tool_called", "tool_called_before")


def requires_nothing(domain, task: Task) -> list[str]:
    """``task: ...`` when the task requires nothing observable of the agent: its goal changes no row,
    it names no required output and no required assertion that an agent doing nothing fails. Such a
    task is passed by an agent that only says "..." (reward is the state and the outputs)."""
    if list(domain.goal(task)[1]) or task.outputs:
        return []
    if any(a.required and a.type in _POSITIVE_ASSERTIONS for a in task.assertions):
        return []
    return ["task: requires nothing observable of the agent (the goal changes nothing, no required output, "
            "no required assertion a silent agent fails): an agent that only says '...' passes it; add what the "
            "task honestly requires the agent to say (outputs) or do (an assertion with required: true)"]


def silent_agent_passes(domain, task: Task, seed: int = 0) -> list[str]:
    """``task: ...`` for each do-nothing agent (``envs.actors.null_agents``) that passes the task when
    played against the domain's default scripted user: the check that also sees a goal the user's own
    tools would reach. Plays two short offline episodes; skipped inside a running event loop."""
    import asyncio

    from envs.actors.null_agents import null_agents
    from envs.actors.scripted_user import ScriptedUser
    from envs.episode import run_episode

    try:
        asyncio.get_running_loop()
        return []
    except RuntimeError:
        pass
    user = domain.scripted_users.get("default", ScriptedUser)

    async def play_all():
        found = []
        for name, agent in null_agents(domain).items():
            rec = await run_episode(domain, task, agent(), user(), seed=seed)
            if rec.status == "ok" and rec.reward >= 1.0:
                found.append(f"task: an agent that does nothing (scripted:{name}) passes it against the scripted user "
                             f"(ended {rec.termination}); add what the task honestly requires the agent to say or do")
        return found

    return asyncio.run(play_all())
