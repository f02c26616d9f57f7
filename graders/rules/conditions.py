"""Applicability: whether a rule's condition arises on a reply, decided before its check or judge.

A rule's text says when it holds ("If the customer is angry, ...", "If the agent gives a date,
..."). Its ``condition: {type, params}`` in rules.yaml reads that from the dialogue, in one place
for every way the rule is judged: where the condition does not arise, the rule is NOT_APPLICABLE
on that reply, whatever its check or a judge would say (a verdict there would move the rule's
compliance denominator). A situation label says what the simulated user was told to play; the
condition says whether the dialogue shows it, so a reply is judged on what was said, also in gold
sets and replays whose turns carry no label.

A condition is a registered check (``graders.rules.registry``) that answers ``APPLIES`` or
``NOT_APPLICABLE`` with the reason; the generic ones are here and know no domain (the words
come from the rule's params), a domain registers its own the same way (e.g. a demand outside the
return window, read from the tools' outputs).
"""

from __future__ import annotations

import re
from typing import Any

from graders.rules.registry import CheckContext, check, run_check
from graders.rules.replies import json_value, last_user_index, question_sentences, reply_text, search, sentences, statement_sentences
from envs.records import AgentEvent, Event, ToolEvent, UserEvent

APPLIES = "APPLIES"


def _user_turns(events: list[Event], idx: int, scope: str, answered: list[str] | None = None) -> list[UserEvent]:
    """The user messages a condition reads: ``last`` the one the reply answers, ``conversation``
    every one before the reply, ``unanswered`` those after the last agent message that answered
    the condition (one of ``answered`` in it: "I'm sorry for the trouble" answers anger)."""
    if scope == "unanswered":
        start = next((i for i in range(idx - 1, -1, -1) if isinstance(events[i], AgentEvent)
                      and search(events[i].content, list(answered or []))), -1)
        return [e for e in events[start + 1 : idx] if isinstance(e, UserEvent)]
    if scope == "conversation":
        return [e for e in events[:idx] if isinstance(e, UserEvent)]
    u = last_user_index(events, idx)
    return [events[u]] if u >= 0 else []  # type: ignore[list-item]


def _only_details(text: str, skip: list[str]) -> bool:
    """The message holds nothing but ``skip`` (details handed over: "ann@x.org, zip 10001")."""
    for p in skip:
        text = re.sub(p, " ", text, flags=re.I)
    return not re.search(r"\w", text)


def _the_request(events: list[Event], idx: int, skip: list[str]) -> list[UserEvent]:
    """The user message the reply answers, past those that only hand over details (``skip``):
    after "priya@x.org, zip 78704" the reply still answers the request made before it."""
    users = [e for e in events[:idx] if isinstance(e, UserEvent)]
    for e in reversed(users):
        if not _only_details(e.content, skip):
            return [e]
    return users[-1:]


def _flat(patterns) -> list[str]:
    """Patterns, with lists nested in them (a YAML alias of another rule's list) spread out."""
    out: list[str] = []
    for p in patterns:
        out.extend(_flat(p) if isinstance(p, list) else [p])
    return out


@check("user_says")
def user_says(events, idx, params):
    """The user said it: one of ``patterns`` (minus ``ignore_patterns``) in the user messages of
    ``scope`` (``last``, the default: the message the reply answers; ``conversation``: any before;
    ``unanswered``: any since the last agent message holding one of ``answered_patterns``); a
    message that also holds one of ``unless_patterns`` does not raise it. With ``skip_patterns``
    (scope ``last``), a message holding nothing but them (an email and a zip handed over) is passed
    over for the request before it."""
    pats = _flat(params["patterns"])
    unless = _flat(params.get("unless_patterns") or [])
    skip = _flat(params.get("skip_patterns") or [])
    scope = params.get("scope", "last")
    turns = (_the_request(events, idx, skip) if skip and scope == "last"
             else _user_turns(events, idx, scope, _flat(params.get("answered_patterns") or [])))
    for e in reversed(turns):
        m = search(e.content, pats, params.get("ignore_patterns"))
        if m and unless and search(e.content, unless):
            continue  # said, but in a form the rule's condition leaves out (unless_patterns)
        if m:
            return APPLIES, f"the user said {m.group(0).strip()!r}"
    return "NOT_APPLICABLE", params.get("absent", "the user said nothing that raises the rule's condition")


_STOP = frozenset("that this what with have from your they them there here just about would could really".split())


def _talk(said: str, about: list[str], skip: list[str], filler: list[str]) -> list[str]:
    """The sentences of a user message that are talk beside the request: not about it
    (``about``), and more than details handed over or a filler ("Right, sorry.")."""
    return [x for x in sentences(said) if not search(x, about) and not _only_details(x, skip + filler)]


def _stems(text: str) -> set[str]:
    return {w[:4] for w in re.findall(r"[^\W\d_]{4,}", text.lower()) if w not in _STOP}


def _took_up(agent_said: str, talk: list[str], about: list[str]) -> bool:
    """An agent message that reacted to the aside (a sentence not about the request that answers
    it: an exclamation, or one sharing a word with it, "Snow in June, that's wild!") and then
    turned to the request: the drift is answered there."""
    said = sentences(agent_said)
    words = set().union(*(_stems(t) for t in talk)) if talk else set()
    for i, x in enumerate(said):
        if not search(x, about) and (x.rstrip().endswith("!") or _stems(x) & words):
            return any(search(y, about) or "?" in y for y in said[i + 1:])
    return False


@check("user_drifts")
def user_drifts(events, idx, params):
    """The user strays from their request in the message the reply answers (past messages that only
    hand over details, ``skip_patterns``). Not when the message closes the conversation
    (``unless_patterns``); nor when every sentence in it is about the request (``statement_patterns``,
    else ``request_patterns``; or what befell the parcel or item, ``effect_patterns``: "It rained all afternoon and the box was
    left out, so the book is soaked" tells the damage), past fillers (``filler_patterns``: "Right,
    sorry."); nor when what looks like an aside is part of a question about the request: every
    question in it is about the request and one of them, or a sentence telling what the remark does
    to the parcel (``effect_patterns``), ties the remark to it (``tie_patterns``: "It's pouring
    here. Will the rain hold it up?"). A message that marks its aside as one
    (``aside_patterns``: "by the way") strays, whatever else it asks. Past a message of details only,
    an aside the agent's message since took up and turned back from is answered already."""
    skip = _flat(params.get("skip_patterns") or [])
    turns = _the_request(events, idx, skip) if skip else _user_turns(events, idx, "last")
    if not turns:
        return "NOT_APPLICABLE", "no user message yet"
    said = turns[-1].content
    if search(said, _flat(params.get("unless_patterns") or [])):
        return "NOT_APPLICABLE", params.get("absent", "the user closes the conversation")
    about = _flat(params.get("request_patterns") or [])
    told = _flat(params.get("statement_patterns") or []) or about
    talk = _talk(said, told + _flat(params.get("effect_patterns") or []), skip,
                 _flat(params.get("filler_patterns") or []))
    at = next(i for i in range(idx - 1, -1, -1) if events[i] is turns[-1])
    took_up = next((e for e in events[at + 1: idx] if isinstance(e, AgentEvent) and _took_up(e.content, talk, about)), None)
    if took_up is not None:
        return "NOT_APPLICABLE", "the agent already took up the aside and came back to the request"
    aside = search(said, _flat(params.get("aside_patterns") or []))
    if aside:
        return APPLIES, f"the user marks an aside ({aside.group(0).strip()!r})"
    if not talk:
        return "NOT_APPLICABLE", "every sentence of the user's message is about the request"
    asks = question_sentences(said)
    ties = _flat(params.get("tie_patterns") or [])
    # the tie in a question ("Will the rain hold it up?"), or in a sentence of the message that says
    # what the remark does to the parcel ("If they leave it on the step the paper will be soaked.")
    effects = [x for x in sentences(said) if search(x, _flat(params.get("effect_patterns") or []))]
    tie = next((m for q in asks + effects for m in [search(q, ties)] if m), None)
    if asks and tie and all(search(q, about) for q in asks):
        return "NOT_APPLICABLE", f"the remark is part of a question about the request ({tie.group(0).strip()!r})"
    return APPLIES, "the user's message carries talk beside the request"


@check("reply_says")
def reply_says(events, idx, params):
    """The reply says it: one of ``patterns`` (minus ``ignore_patterns``)."""
    m = search(reply_text(events, idx), list(params["patterns"]), params.get("ignore_patterns"))
    if m:
        return APPLIES, f"the reply says {m.group(0).strip()!r}"
    return "NOT_APPLICABLE", params.get("absent", "the reply says nothing that raises the rule's condition")


def _has_field(obj: Any, fields: set[str]) -> str | None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in fields and v not in (None, "", [], {}):
                return k
            found = _has_field(v, fields)
            if found:
                return found
    elif isinstance(obj, list):
        for v in obj:
            found = _has_field(v, fields)
            if found:
                return found
    return None


@check("tool_shows")
def tool_shows(events, idx, params):
    """A successful agent tool call before the reply (its own step included) output one of
    ``fields`` (a JSON key, at any depth, with a value)."""
    fields = set(params["fields"])
    for e in events[:idx]:
        if isinstance(e, ToolEvent) and e.side == "agent" and e.ok:
            f = _has_field(json_value(e.output), fields)
            if f:
                return APPLIES, f"{e.call.name} showed {f}"
    return "NOT_APPLICABLE", params.get("absent", f"no tool output showed {', '.join(sorted(fields))}")


@check("tool_called")
def tool_called(events, idx, params):
    """The agent called one of ``tools`` (any tool when not given) before the reply, its own step
    included, with ``outcome``: ``ok`` (the default), ``failed`` (the system refused the call,
    e.g. a detail that matched nothing) or ``any``; ``step_only``: in the reply's own step only."""
    tools = set(params.get("tools") or [])
    want = params.get("outcome", "ok")
    start = last_user_index(events, idx) + 1 if params.get("step_only") else 0
    for e in events[start:idx]:
        if isinstance(e, ToolEvent) and e.side == "agent" and (not tools or e.call.name in tools):
            if want == "any" or (want == "ok") == e.ok:
                return APPLIES, f"{e.call.name} was called" + ("" if e.ok else " and refused")
    return "NOT_APPLICABLE", params.get("absent", f"no call of {', '.join(sorted(tools)) or 'a tool'} ({want})")


@check("reply_states")
def reply_states(events, idx, params):
    """The reply states something (a sentence that is neither a question nor a request), one
    matching ``patterns`` when they are given: a reply that only asks states nothing to be true."""
    pats = list(params.get("patterns") or [])
    text = reply_text(events, idx)
    # a statement run into a question by a dash or a semicolon ("hmm, not quite - how many 12s fit into
    # 144?") is stated all the same
    said = statement_sentences(text) + [part for q in question_sentences(text) for part in re.split(r"\s[—–-]\s|;\s", q)[:-1]]
    for s in said:
        if not pats or search(s, pats):
            return APPLIES, f"the reply states {s[:60]!r}"
    return "NOT_APPLICABLE", params.get("absent", "the reply states nothing (it only asks)")


@check("any_of")
def any_of(events, idx, params, context=None):
    """The condition arises when one of ``conditions`` (each ``{type, params}``) does."""
    why = []
    for c in params["conditions"]:
        v, r = run_check(c["type"], c.get("params") or {}, events, idx, context=context)
        if v != "NOT_APPLICABLE":
            return APPLIES, r
        why.append(r)
    return "NOT_APPLICABLE", "; ".join(why)


@check("all_of")
def all_of(events, idx, params, context=None):
    """The condition arises when every one of ``conditions`` (each ``{type, params}``) does."""
    why = []
    for c in params["conditions"]:
        v, r = run_check(c["type"], c.get("params") or {}, events, idx, context=context)
        if v == "NOT_APPLICABLE":
            return "NOT_APPLICABLE", r
        why.append(r)
    return APPLIES, "; ".join(why)


def condition_verdict(rule, events: list[Event], idx: int, context: CheckContext | None = None) -> tuple[str, str] | None:
    """("NOT_APPLICABLE", why) when ``rule`` has a condition and it does not arise on the reply at
    ``events[idx]``; None when the rule is to be judged (no condition, or it arises)."""
    cond = getattr(rule, "condition", None)
    if cond is None:
        return None
    v, why = run_check(cond.type, cond.params, events, idx, rule=rule.id, context=context)
    if v == "NOT_APPLICABLE":
        return "NOT_APPLICABLE", f"the rule's condition does not arise: {why}"
    return None

