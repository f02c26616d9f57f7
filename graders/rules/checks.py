"""The generic rule checks: a rule's verdict on one agent reply, without a model.

These know no domain (the phrases and tools come from a rule's ``check.params``):
``reply_not_matches``, ``reply_matches_any``, ``reply_returns_to_request``,
``tool_before_reply_matching`` here and
``dates_from_tools`` in ``graders.rules.dates`` and ``tool_values_not_read_out`` in
``graders.rules.disclosure``. A domain's own checks live in its
package and register themselves the same way, with ``@check(name)`` from
``graders.rules.registry``; the helpers they share are in ``graders.rules.replies``.
Importing this module registers every generic check.
"""

from __future__ import annotations

from graders.rules import conditions  # noqa: F401  (registers the generic conditions)
from graders.rules import dates  # noqa: F401  (registers dates_from_tools)
from graders.rules import disclosure  # noqa: F401  (registers tool_values_not_read_out)
from graders.rules.registry import CHECKS, check, run_check, validate_checks
import re

from envs.records import AgentEvent
from graders.rules.replies import (
    agent_tools_before,
    last_user_index,
    pattern_list,
    question_sentences,
    reply_text,
    request_sentences,
    search,
    sentences,
)

__all__ = ["CHECKS", "check", "run_check", "validate_checks", "question_sentences", "sentences"]


@check("reply_not_matches")
def reply_not_matches(events, idx, params):
    """Params: pattern and/or patterns (forbidden); ignore_patterns (spans that never count)."""
    m = search(reply_text(events, idx), pattern_list(params), params.get("ignore_patterns"))
    if m:
        return "VIOLATED", f"the reply says {m.group(0)!r}"
    return "FOLLOWED", "no forbidden phrase in the reply"


@check("reply_matches_any")
def reply_matches_any(events, idx, params):
    """Params: patterns (one required); forbid_patterns (any -> VIOLATED, even with a required
    phrase); ignore_patterns (spans that count for neither); first_patterns: what the required
    phrase must come before (a sentence holding one of them that comes before every sentence
    holding a required phrase -> VIOLATED: "acknowledge ... before moving on")."""
    text = reply_text(events, idx)
    ignore = params.get("ignore_patterns")
    bad = search(text, list(params.get("forbid_patterns") or []), ignore)
    if bad:
        return "VIOLATED", f"the reply says {bad.group(0).strip()!r}"
    m = search(text, list(params["patterns"]), ignore)
    if m:
        later = list(params.get("first_patterns") or [])
        for s in sentences(text) if later else []:
            if search(s, list(params["patterns"]), ignore):
                break
            on = search(s, later, ignore)
            if on:
                return "VIOLATED", f"the reply goes on ({on.group(0)!r}) before it says {m.group(0)!r}"
        return "FOLLOWED", f"the reply says {m.group(0)!r}"
    return "VIOLATED", "the reply has none of the required phrases"


# words too common to show that two questions ask the same thing
_COMMON = frozenset(
    "the and for you your yours with that this these those what which who how when where why have has had was were "
    "are can could would will shall should may might about from into just then than there their them they its our "
    "out now here also any all one some like get got did does not but too very really so okay sure".split()
)


def _words(text: str) -> set[str]:
    """The words of ``text`` that carry its content: amounts and numbers whole ("$26.00"), other
    words of three letters or more that are not among the commonest."""
    return {w for w in re.findall(r"\$?\d[\d,.]*\d|\$?\d|[a-z][a-z'-]{2,}", text.lower()) if w not in _COMMON}


def _takes_up_open_question(events, idx: int, text: str, params: dict) -> str | None:
    """A sentence of the reply that takes up again what the agent's message before the user's had
    asked about the business (a question holding ``patterns``), in that question's own words: at
    least ``shared_words`` of them in common. Returns the words shared."""
    n = int(params.get("shared_words") or 0)
    u = last_user_index(events, idx)
    before = next((e for e in reversed(events[: max(u, 0)]) if isinstance(e, AgentEvent)), None)
    if not n or before is None:
        return None
    open_qs = [q for q in request_sentences(before.content) if search(q, list(params["patterns"]))]
    for q in sentences(text):
        for o in open_qs:
            shared = _words(q) & _words(o)
            if len(shared) >= n:
                return ", ".join(sorted(shared))
    return None


@check("reply_returns_to_request")
def reply_returns_to_request(events, idx, params):
    """The reply brings the conversation back to the request. Params: forbid_patterns (keeping the
    aside going -> VIOLATED, first); patterns (the business in any words -> FOLLOWED);
    ignore_patterns; shared_words: a sentence that takes up again, in its own words, the question
    about the business the agent had left open before the user strayed ("card or store credit for the
    $26.00?") brings it back too, however short the nod to the aside before it. Else VIOLATED."""
    text = reply_text(events, idx)
    ignore = params.get("ignore_patterns")
    bad = search(text, list(params.get("forbid_patterns") or []), ignore)
    if bad:
        return "VIOLATED", f"the reply keeps the aside going ({bad.group(0).strip()!r})"
    m = search(text, list(params["patterns"]), ignore)
    if m:
        return "FOLLOWED", f"the reply turns to the request ({m.group(0).strip()!r})"
    shared = _takes_up_open_question(events, idx, text, params)
    if shared:
        return "FOLLOWED", f"the reply takes up again the question left open ({shared})"
    return "VIOLATED", "the reply does not come back to the request"


@check("tool_before_reply_matching")
def tool_before_reply_matching(events, idx, params):
    """Params: pattern and/or patterns (the statement); tools (one must come before it);
    exempt_before (a match whose clause has this before it is conditional or hedged, not a
    statement); ignore_patterns."""
    m = search(reply_text(events, idx), pattern_list(params), params.get("ignore_patterns"), params.get("exempt_before"))
    if not m:
        return "FOLLOWED", "the reply makes no such statement"
    called = {e.call.name for e in agent_tools_before(events, idx)}
    hit = called & set(params["tools"])
    if hit:
        return "FOLLOWED", f"{sorted(hit)[0]} was called before saying {m.group(0)!r}"
    return "VIOLATED", f"said {m.group(0)!r} before calling any of {', '.join(params['tools'])}"
