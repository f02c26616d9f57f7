"""The simulated user's fidelity, measured per episode from its record.

``simulator_flags(rec, task, domain)`` returns, for each flag below, the hits in that
episode (turn and a snippet of the evidence). Nothing here looks at the agent's wording
beyond what a flag's definition needs (was a question asked, was an answer given away),
so the flags measure the simulator against any agent, not against our scripted ones.

* ``repeated_verbatim``: a user message identical to an earlier one of the episode
  (whitespace and case folded; messages of fewer than ``MIN_REPEAT_WORDS`` words are left
  out, since "yes" said twice is how people talk);
* ``tool_error_spoken``: user text carrying a tool error: the error output of one of the
  user's own tool calls, or error wording ("Error:", "invalid arguments", "Field required",
  a traceback);
* ``unanswered_question``: an agent message that asks about a hidden fact the user holds
  and has not yet given, and the user's next message does not reveal it (``asks_about``
  decides "asks"; ``reveals`` decides "reveals");
* ``premature_stop``: the user left in reply to such an unanswered question;
* ``turn_budget``: the episode ended at the task's ``max_turns``;
* ``lingered``: the user stayed more than ``LINGER_GRACE`` turns after ``goal_met_turn``
  (only measured when the record carries ``goal_met_turn``);
* ``situation_mismatch``: a user turn whose content contradicts its situation label: the
  domain's own hook when its package has a ``fidelity`` module with
  ``situation_mismatch(event, task, domain, agent_text) -> str | None`` (a contradiction of
  the task's content, ``causal``), else the generic rules here (a greeting after the opening
  turn; thanks in a situation the domain describes as angry: tone only, not ``causal``).

``FLAG_NAMES`` lists them in that order. ``measurable(name, rec, task)`` says whether a flag
could be measured on an episode at all (its share is over those episodes).
"""

from __future__ import annotations

import importlib
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel

from envs.records import AgentEvent, EpisodeRecord, Event, ToolEvent, UserEvent

FLAG_NAMES = (
    "repeated_verbatim",
    "tool_error_spoken",
    "unanswered_question",
    "premature_stop",
    "turn_budget",
    "lingered",
    "situation_mismatch",
)
# Flags that say the simulator did not play the task faithfully (graders.causes blames the
# simulator for them); the others describe the episode's shape and may be the agent's doing.
CAUSAL_FLAGS = ("tool_error_spoken", "unanswered_question", "premature_stop", "situation_mismatch")

MIN_REPEAT_WORDS = 4
# The agent needs a turn to tell the user the goal is met and the user one to acknowledge it.
LINGER_GRACE = 2
SNIPPET = 120


class FlagHit(BaseModel):
    """One time a flag fired: the user turn it fired on and what shows it."""

    turn: int | None = None
    evidence: str = ""
    causal: bool = True
    """False for a contradiction of tone only (a greeting mid-conversation, thanks in an angry
    turn): counted as a fidelity fault, but it does not change what the agent had to do."""


def snippet(text: str, n: int = SNIPPET) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


# --- asking and revealing -----------------------------------------------------------------

_SENTENCE = re.compile(r"[^.?!\n]+[.?!]?")
_REQUEST = re.compile(
    r"\b(please|could you|can you|would you|provide|share|confirm|verify|tell me|give me|send me|"
    r"what(?:'s| is| are)|which|need|let me know)\b",
    re.I,
)


def _mentions(text: str, word: str) -> bool:
    return re.search(r"(?<![\w])" + re.escape(word.lower()), text.lower()) is not None


def _asks_by_words(agent_text: str, asked_by: list[str]) -> bool:
    """A sentence of the agent's that names one of the fact's words and is a question or a request."""
    for s in _SENTENCE.findall(agent_text):
        if any(_mentions(s, w) for w in asked_by) and (s.strip().endswith("?") or _REQUEST.search(s)):
            return True
    return False


def _topic_recogniser() -> Callable[[str, Any], bool] | None:
    """The topic recogniser's ``asks_about(text, fact)`` when ``envs.actors.topics`` has one."""
    try:
        topics = importlib.import_module("envs.actors.topics")
    except ImportError:
        return None
    fn = getattr(topics, "asks_about", None)
    return fn if callable(fn) else None


def asks_about(agent_text: str, fact: Any) -> bool:
    """Does ``agent_text`` ask for the hidden ``fact``? The one switch between the fact's
    ``asked_by`` words and the topic recogniser (used when it exists)."""
    rec = _topic_recogniser()
    if rec is not None:
        return bool(rec(agent_text, fact))
    return _asks_by_words(agent_text, fact.asked_by)


_STOP = {"my", "the", "and", "is", "was", "are", "that", "this", "with", "for", "from", "have", "it's", "its", "i'm"}


def reveals(user_text: str, fact_text: str) -> bool:
    """Does ``user_text`` give the fact? Its distinctive tokens (numbers, emails, ids) all
    appear, or, for a fact with none, most of its content words do."""
    low = user_text.lower()
    tokens = [t.strip(".,;:!?()\"'").lower() for t in fact_text.split()]
    marked = [t for t in tokens if t and (any(c.isdigit() for c in t) or "@" in t)]
    if marked:
        return all(t in low for t in marked)
    words = [t for t in tokens if len(t) > 3 and t not in _STOP]
    if not words:
        return fact_text.lower().strip(". ") in low
    # whole words: a name inside an email address ("ethan.brooks@...") is not the name told
    said = {t.strip(".,;:!?()\"'").lower() for t in user_text.split()}
    return sum(1 for w in words if w in said) >= max(1, round(0.6 * len(words)))


# --- the flags ------------------------------------------------------------------------------

_ERROR_WORDS = re.compile(r"(\berror:\s|invalid arguments|field required|traceback \(most recent|validation error)", re.I)
_GREETING = re.compile(r"^\W*(hi|hello|hey|good (?:morning|afternoon|evening)|greetings)\b", re.I)
_THANKS = re.compile(r"\b(thank(?:s| you)|appreciate|grateful)\b", re.I)
_ANGRY = re.compile(r"\b(angry|furious|hostile|rude|irate|enraged)\b", re.I)


def _users(events: list[Event]) -> list[UserEvent]:
    return [e for e in events if isinstance(e, UserEvent)]


def _repeated(events: list[Event]) -> list[FlagHit]:
    seen: dict[str, int] = {}
    hits = []
    for u in _users(events):
        key = " ".join(u.content.lower().split())
        if len(key.split()) < MIN_REPEAT_WORDS:
            continue
        if key in seen:
            hits.append(FlagHit(turn=u.turn, evidence=f"same as turn {seen[key]}: {snippet(u.content)}"))
        else:
            seen[key] = u.turn
    return hits


def _error_core(output: str) -> str:
    """The distinctive part of a tool's error output (what a leak would repeat)."""
    core = re.sub(r"^\s*error:\s*", "", output, flags=re.I).strip()
    return core[:40].lower()


@lru_cache(maxsize=8192)
def _error_words(text: str) -> str | None:
    """The error wording in ``text``, if any (cached by the text: simulated users repeat messages)."""
    m = _ERROR_WORDS.search(text)
    return m.group(0) if m else None


def _tool_error_spoken(events: list[Event]) -> list[FlagHit]:
    hits = []
    errors: list[str] = []
    for e in events:
        if isinstance(e, ToolEvent) and e.side == "user" and not e.ok:
            core = _error_core(e.output)
            if len(core) >= 8:
                errors.append(core)
        elif isinstance(e, UserEvent):
            low = e.content.lower() if errors else ""
            leaked = next((c for c in errors if c in low), None)
            m = _error_words(e.content)
            if leaked or m:
                why = f"repeats its tool's error {leaked!r}" if leaked else f"says {m.strip()!r}"
                hits.append(FlagHit(turn=e.turn, evidence=f"{why}: {snippet(e.content)}"))
    return hits


def _unanswered(events: list[Event], task: Any) -> tuple[list[FlagHit], list[FlagHit]]:
    """(unanswered_question hits, premature_stop hits)."""
    facts = list(task.scenario.hidden_facts) if task is not None else []
    if not facts:
        return [], []
    given: set[str] = set()
    unanswered, stopped = [], []
    pending: list[tuple[AgentEvent, list[Any]]] = []
    for e in events:
        if isinstance(e, AgentEvent):
            asked = [f for f in facts if f.id not in given and asks_about(e.content, f)]
            pending = [(e, asked)] if asked else []
        elif isinstance(e, UserEvent):
            for f in facts:
                if f.id not in given and reveals(e.content, f.fact):
                    given.add(f.id)
            for agent_ev, asked in pending:
                missed = [f for f in asked if f.id not in given]
                for f in missed:
                    hit = FlagHit(
                        turn=e.turn,
                        evidence=f"asked for {f.id} ({snippet(agent_ev.content, 60)}); the reply does not give it: {snippet(e.content, 60)}",
                    )
                    unanswered.append(hit)
                if missed and e.stop:
                    stopped.append(FlagHit(turn=e.turn, evidence=f"left with {', '.join(f.id for f in missed)} asked and not given: {snippet(e.content, 60)}"))
            pending = []
    return unanswered, stopped


def _turn_budget(rec: EpisodeRecord, task: Any) -> list[FlagHit]:
    if rec.termination != "max_turns":
        return []
    budget = task.scenario.max_turns if task is not None else None
    last = max((e.turn for e in rec.transcript), default=None)
    return [FlagHit(turn=last, evidence=f"ended at the turn budget (max_turns {budget})")]


def _lingered(rec: EpisodeRecord) -> list[FlagHit]:
    met = getattr(rec, "goal_met_turn", None)
    if met is None:
        return []
    users = _users(rec.transcript)
    if not users:
        return []
    left = next((u.turn for u in users if u.stop), users[-1].turn)
    extra = left - met
    if extra <= LINGER_GRACE:
        return []
    return [FlagHit(turn=left, evidence=f"goal met at turn {met}, the user left at turn {left} ({extra} turns later)")]


def generic_mismatch(event: UserEvent, situation: Any) -> str | None:
    """The generic contradictions: a greeting after the opening; thanks in an angry situation."""
    if event.turn > 0:
        for s in _SENTENCE.findall(event.content):
            if _GREETING.search(s):
                return f"a greeting after the opening: {snippet(s.strip(), 60)!r}"
    if situation is not None and _ANGRY.search(f"{situation.description} {situation.how_to_play}"):
        m = _THANKS.search(event.content)
        if m:
            return f"{m.group(0)!r} in a situation played as {situation.id} ({snippet(situation.description, 50)})"
    return None


def domain_hook(domain: Any) -> Callable[..., str | None] | None:
    """The domain package's ``fidelity.situation_mismatch``, if it has one."""
    pkg_dir = getattr(domain, "package_dir", None)
    if pkg_dir is None:
        return None
    init = Path(pkg_dir) / "__init__.py"
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if f and Path(f) == init:
            try:
                hook_mod = importlib.import_module(f"{name}.fidelity")
            except ModuleNotFoundError as e:
                if e.name != f"{name}.fidelity":
                    raise
                return None
            fn = getattr(hook_mod, "situation_mismatch", None)
            return fn if callable(fn) else None
    return None


def _mismatch(events: list[Event], task: Any, domain: Any) -> list[FlagHit]:
    situations = getattr(domain, "situations", {}) or {}
    hook = domain_hook(domain) if domain is not None else None
    hits, last_agent = [], ""
    for e in events:
        if isinstance(e, AgentEvent):
            last_agent = e.content
        elif isinstance(e, UserEvent):
            sit = situations.get(e.situation) if e.situation else None
            why = hook(e, task, domain, last_agent) if hook is not None and task is not None else None
            tone = None if why else generic_mismatch(e, sit)
            if why or tone:
                hits.append(FlagHit(turn=e.turn, evidence=f"[{e.situation or '-'}] {why or tone}", causal=why is not None))
    return hits


def simulator_flags(rec: EpisodeRecord, task: Any = None, domain: Any = None) -> dict[str, list[FlagHit]]:
    """Every flag of ``FLAG_NAMES`` -> its hits in the episode (empty: did not fire).

    ``task`` (the episode's Task) is needed for the hidden-fact flags and the turn budget;
    ``domain`` for situation labels and its hook. Either may be None (those parts are then
    not measured: see ``measurable``)."""
    ev = rec.transcript
    unanswered, stopped = _unanswered(ev, task)
    return {
        "repeated_verbatim": _repeated(ev),
        "tool_error_spoken": _tool_error_spoken(ev),
        "unanswered_question": unanswered,
        "premature_stop": stopped,
        "turn_budget": _turn_budget(rec, task),
        "lingered": _lingered(rec),
        "situation_mismatch": _mismatch(ev, task, domain),
    }


def measurable(name: str, rec: EpisodeRecord, task: Any) -> bool:
    """Could ``name`` be measured on this episode (its share's denominator)?"""
    if name in ("unanswered_question", "premature_stop"):
        return task is not None and bool(task.scenario.hidden_facts)
    if name == "lingered":
        return getattr(rec, "goal_met_turn", None) is not None
    return True
