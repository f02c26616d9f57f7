"""Deterministic rule checks: a rule's verdict on one agent reply, without a model.

Each check gets the whole transcript and the index of the agent reply being
judged, and returns (verdict, rationale). Register new check types with
``@check("name")``; a rule names one in its ``check: {type, params}``.
"""

from __future__ import annotations

import re
from typing import Callable

from envs.records import AgentEvent, Event, ToolEvent, UserEvent

CheckFn = Callable[[list[Event], int, dict], tuple[str, str]]
CHECKS: dict[str, CheckFn] = {}


def check(name: str):
    def wrap(fn: CheckFn) -> CheckFn:
        CHECKS[name] = fn
        return fn

    return wrap


def _reply(events: list[Event], idx: int) -> str:
    e = events[idx]
    assert isinstance(e, AgentEvent)
    return e.content


def _agent_tools_before(events: list[Event], idx: int) -> list[ToolEvent]:
    return [e for e in events[:idx] if isinstance(e, ToolEvent) and e.side == "agent" and e.ok]


def _last_user_index(events: list[Event], idx: int) -> int:
    for i in range(idx - 1, -1, -1):
        if isinstance(events[i], UserEvent):
            return i
    return -1


@check("reply_not_matches")
def reply_not_matches(events, idx, params):
    m = re.search(params["pattern"], _reply(events, idx), re.I)
    if m:
        return "VIOLATED", f"the reply says {m.group(0)!r}"
    return "FOLLOWED", "no forbidden phrase in the reply"


@check("reply_matches_any")
def reply_matches_any(events, idx, params):
    for p in params["patterns"]:
        m = re.search(p, _reply(events, idx), re.I)
        if m:
            return "FOLLOWED", f"the reply says {m.group(0)!r}"
    return "VIOLATED", "the reply has none of the required phrases"


@check("tool_before_reply_matching")
def tool_before_reply_matching(events, idx, params):
    m = re.search(params["pattern"], _reply(events, idx), re.I)
    if not m:
        return "FOLLOWED", "the reply makes no such statement"
    called = {e.call.name for e in _agent_tools_before(events, idx)}
    hit = called & set(params["tools"])
    if hit:
        return "FOLLOWED", f"{sorted(hit)[0]} was called before saying {m.group(0)!r}"
    return "VIOLATED", f"said {m.group(0)!r} before calling any of {', '.join(params['tools'])}"


@check("clarify_before_action")
def clarify_before_action(events, idx, params):
    """Only the first reply after an ambiguous request is held to it: once the agent has
    asked and been answered, later replies (e.g. reporting the agreed action) are not."""
    u = _last_user_index(events, idx)
    first_user = next((i for i, e in enumerate(events) if isinstance(e, UserEvent)), u)
    earlier_question = any(
        isinstance(e, AgentEvent) and "?" in e.content for e in events[first_user + 1 : u]
    )
    if earlier_question:
        return "NOT_APPLICABLE", "the agent already asked a clarifying question earlier"
    mutating = set(params.get("mutating_tools", []))
    acted = [e.call.name for e in events[u + 1 : idx] if isinstance(e, ToolEvent) and e.side == "agent" and e.call.name in mutating]
    if acted:
        return "VIOLATED", f"called {acted[0]} before asking what the customer meant"
    reply = _reply(events, idx)
    commit = params.get("commit_pattern")
    m = re.search(commit, reply, re.I) if commit else None
    if m:
        return "VIOLATED", f"committed to one reading ({m.group(0)!r}) instead of asking which was meant"
    n = reply.count("?")
    if n == 1:
        return "FOLLOWED", "asked exactly one clarifying question before acting"
    if n == 0:
        return "VIOLATED", "answered without asking a clarifying question"
    return "VIOLATED", f"asked {n} questions at once instead of one"


@check("no_mutation_before_identity")
def no_mutation_before_identity(events, idx, params):
    ident = set(params["identity_tools"])
    mutating = set(params["mutating_tools"])
    seen_identity = False
    for e in _agent_tools_before(events, idx):
        if e.call.name in ident:
            seen_identity = True
        elif e.call.name in mutating and not seen_identity:
            return "VIOLATED", f"{e.call.name} was called before the customer's identity was checked"
    return "FOLLOWED", "no account action before the identity check"


def run_check(check_type: str, params: dict, events: list[Event], idx: int) -> tuple[str, str]:
    if check_type not in CHECKS:
        raise KeyError(f"unknown rule check type {check_type!r} (known: {', '.join(sorted(CHECKS))})")
    return CHECKS[check_type](events, idx, params)
