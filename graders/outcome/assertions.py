"""Task-level assertions over a transcript.

Deterministic types never call a model. ``llm_judge`` assertions need a
judge; without one (or before the judge has run) they are ``needs_review``.
Each result carries evidence (the quoted text or the tool call) and the turn
number (None for whole-transcript patterns such as "never said X").
"""

from __future__ import annotations

import json
import re

from envs.records import AgentEvent, AssertionResult, Event, ToolEvent, UserEvent
from envs.spec.schema import AssertionSpec


def _messages(events: list[Event], speaker: str) -> list[tuple[int, str]]:
    out = []
    for e in events:
        if isinstance(e, AgentEvent) and speaker in ("agent", "all"):
            out.append((e.turn, e.content))
        elif isinstance(e, UserEvent) and speaker in ("user", "all"):
            out.append((e.turn, e.content))
    return out


def _find(pattern: str, regex: bool, text: str) -> str | None:
    if regex:
        m = re.search(pattern, text, re.I)
        return m.group(0) if m else None
    i = text.lower().find(pattern.lower())
    return text[i : i + len(pattern)] if i >= 0 else None


def _quote(text: str, found: str) -> str:
    i = text.lower().find(found.lower())
    lo, hi = max(0, i - 40), min(len(text), i + len(found) + 40)
    return ("..." if lo else "") + text[lo:hi] + ("..." if hi < len(text) else "")


def _matches_args(call_args: dict | None, wanted: dict | None) -> bool:
    if not wanted:
        return True
    if call_args is None:
        return False
    return all(call_args.get(k) == v for k, v in wanted.items())


def _tool_calls(events: list[Event]) -> list[tuple[int, int, ToolEvent]]:
    """(index in transcript, turn, event) of every tool call, agent or user."""
    return [(i, e.turn, e) for i, e in enumerate(events) if isinstance(e, ToolEvent)]


def _fmt_call(e: ToolEvent) -> str:
    args = e.call.arguments if isinstance(e.call.arguments, str) else json.dumps(e.call.arguments, sort_keys=True)
    return f"{e.call.name}({args})"


def check_one(a: AssertionSpec, events: list[Event]) -> AssertionResult:
    base = {"type": a.type, "description": a.description}
    if a.type in ("transcript_contains", "transcript_not_contains", "transcript_contains_any"):
        pats = a.texts if a.type == "transcript_contains_any" else [a.text or ""]
        for turn, text in _messages(events, a.speaker):
            for p in pats:
                found = _find(p, a.regex, text)
                if found is not None:
                    ok = a.type != "transcript_not_contains"
                    return AssertionResult(**base, result="pass" if ok else "fail", evidence=_quote(text, found), turn=turn)
        ok = a.type == "transcript_not_contains"
        what = " / ".join(repr(p) for p in pats)
        return AssertionResult(
            **base, result="pass" if ok else "fail", evidence=f"no {a.speaker} message contains {what}", turn=None
        )
    calls = _tool_calls(events)
    if a.type in ("tool_called", "tool_not_called"):
        hit = next(
            ((t, e) for _, t, e in calls if e.call.name == a.tool and _matches_args(e.call.arguments_dict(), a.arguments)),
            None,
        )
        if hit:
            ok = a.type == "tool_called"
            return AssertionResult(**base, result="pass" if ok else "fail", evidence=_fmt_call(hit[1]), turn=hit[0])
        ok = a.type == "tool_not_called"
        return AssertionResult(**base, result="pass" if ok else "fail", evidence=f"{a.tool} never called", turn=None)
    if a.type == "tool_called_before":
        first = next(((i, t, e) for i, t, e in calls if e.call.name == a.tool and _matches_args(e.call.arguments_dict(), a.arguments)), None)
        later = next(((i, t, e) for i, t, e in calls if e.call.name == a.before), None)
        if later is None:
            # Nothing to order against: vacuously true, and said so.
            return AssertionResult(**base, result="pass", evidence=f"{a.before} never called", turn=None)
        if first is not None and first[0] < later[0]:
            return AssertionResult(
                **base, result="pass", evidence=f"{_fmt_call(first[2])} then {_fmt_call(later[2])}", turn=first[1]
            )
        ev = f"{_fmt_call(later[2])} " + (f"before {_fmt_call(first[2])}" if first else f"without {a.tool} first")
        return AssertionResult(**base, result="fail", evidence=ev, turn=later[1])
    # llm_judge: answered by the judge after the episode, when there is one.
    return AssertionResult(**base, result="needs_review", evidence="no judge model configured", turn=None)


def check_assertions(specs: list[AssertionSpec], events: list[Event]) -> list[AssertionResult]:
    return [check_one(a, events).model_copy(update={"required": True}) if a.required else check_one(a, events) for a in specs]
