"""Reading one agent reply in its transcript: the helpers every domain's rule checks share.

A check gets the whole transcript (``events``) and the index ``idx`` of the agent reply it
judges. These helpers find what a check needs around that reply (the reply's text, the user
message it answers, the agent's tool calls before it or in its step), split text into
sentences, read tool outputs as JSON, and search regexes with spans masked out. None of
them knows a domain: the words to look for come from a rule's ``check.params``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from envs.records import AgentEvent, Event, ToolEvent, UserEvent

# -- where the reply stands --------------------------------------------------------------


def reply_text(events: list[Event], idx: int) -> str:
    """The text of the agent reply at ``events[idx]`` (it must be an agent message)."""
    e = events[idx]
    assert isinstance(e, AgentEvent)
    return e.content


def last_user_index(events: list[Event], idx: int) -> int:
    """Index of the last user message before ``idx`` (the one the reply answers), or -1."""
    for i in range(idx - 1, -1, -1):
        if isinstance(events[i], UserEvent):
            return i
    return -1


def agent_tools_before(events: list[Event], idx: int) -> list[ToolEvent]:
    """The agent's successful tool calls anywhere before the reply."""
    return [e for e in events[:idx] if isinstance(e, ToolEvent) and e.side == "agent" and e.ok]


def step_tools(events: list[Event], idx: int, name: str | None = None) -> list[ToolEvent]:
    """The agent's tool calls (failed ones too) between the user's last message and the reply,
    i.e. in the reply's own step; only those named ``name`` when it is given."""
    u = last_user_index(events, idx)
    return [
        e
        for e in events[u + 1 : idx]
        if isinstance(e, ToolEvent) and e.side == "agent" and (name is None or e.call.name == name)
    ]


def user_text_before(events: list[Event], idx: int) -> str:
    """Everything the user said before the reply, joined and lower-cased."""
    return " ".join(e.content for e in events[:idx] if isinstance(e, UserEvent)).lower()


# -- sentences ---------------------------------------------------------------------------

# A sentence ends at . ! or ? followed by space (so "$24.99" and "e.g.x" stay whole), or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


# A line that holds only sentence marks ("?" under an address block): the end of the lines before it.
_MARKS_ONLY = re.compile(r"^[?!.]+$")
_TERMINAL = re.compile(r"[.!?][\"'’”)\]*]*$")


def sentences(text: str) -> list[str]:
    """The non-empty sentences of ``text``, stripped. A line of marks alone closes the lines
    before it, back to the last one that ended a sentence: "Shall I change the address to" /
    "55 Elm Road" / "?" is one question, as its writer meant."""
    out: list[str] = []
    open_lines = 0  # how many of the last sentences came from lines that ended no sentence
    for line in (text or "").split("\n"):
        line = line.strip()
        if not line:
            continue
        if _MARKS_ONLY.match(line) and out:
            k = max(open_lines, 1)
            out[-k:] = [" ".join(out[-k:]) + line]
            open_lines = 0
            continue
        parts = [x.strip() for x in _SENTENCE_END.split(line) if x.strip()]
        out.extend(parts)
        open_lines = open_lines + 1 if len(parts) == 1 and not _TERMINAL.search(line) else (0 if _TERMINAL.search(line) else 1)
    return out


# A question asks something in words: "???" or a stray mark in garbage is none.
_WORDS = re.compile(r"[^\W\d_]{2,}(?:\W+[^\W\d_]+)")


def question_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that ask something in words (checks of several domains share this)."""
    return [x for x in sentences(text) if "?" in x and _WORDS.search(x)]


# -- tool outputs as JSON ----------------------------------------------------------------


def json_value(text: str) -> Any:
    """A tool output parsed as JSON, or None when it is not JSON."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None


def json_dict(text: str) -> dict | None:
    """A tool output parsed as a JSON object, or None when it is not one."""
    v = json_value(text)
    return v if isinstance(v, dict) else None


def json_field(obj: Any, path: str) -> Any:
    """The value at a dotted ``path`` ("default_address.zip") of a JSON value, or None."""
    for key in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def json_leaves(obj: Any) -> Iterator[Any]:
    """The scalar values of a JSON value, at any depth (booleans and nulls left out)."""
    if isinstance(obj, dict):
        for v in obj.values():
            yield from json_leaves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from json_leaves(v)
    elif obj is not None and not isinstance(obj, bool):
        yield obj


# -- pattern search ----------------------------------------------------------------------


def pattern_list(params: dict, one: str = "pattern", many: str = "patterns") -> list[str]:
    """A check's regexes: ``pattern`` (one string) and/or ``patterns`` (a list, any may match)."""
    out = list(params.get(many) or [])
    if params.get(one):
        out.insert(0, params[one])
    return out


def mask(text: str, ignore: list[str] | None) -> str:
    """Blank out (same length, so offsets stay valid) spans that must not count, e.g. a
    negated phrase ("not your fault", "I can't make an exception")."""
    for p in ignore or []:
        text = re.sub(p, lambda m: " " * len(m.group(0)), text, flags=re.I)
    return text


# A clause ends at a sentence mark or at a "but"/"however" that turns it around, so a
# hedge or condition ("if ...", "I can't say ...") governs only what follows it up to there.
_CLAUSE_END = re.compile(r"[.!?;:](?=\s|$)|\b(but|however)\b", re.I)


def clause_before(text: str, pos: int) -> str:
    """The part of the clause around ``pos`` that comes before it."""
    start = 0
    for m in _CLAUSE_END.finditer(text, 0, pos):
        start = m.end()
    return text[start:pos]


def search(text: str, patterns: list[str], ignore: list[str] | None = None,
           exempt_before: str | None = None) -> re.Match | None:
    """First match (case-insensitive) of any pattern in text, skipping masked spans and matches
    whose clause, before the match, contains ``exempt_before`` (a condition or a hedge). The
    match is on the masked text: its offsets are the original's."""
    masked = mask(text, ignore)
    for p in patterns:
        for m in re.finditer(p, masked, re.I):
            if exempt_before and re.search(exempt_before, clause_before(masked, m.start()), re.I):
                continue
            return m
    return None


# -- what a sentence does ----------------------------------------------------------------

# What a request asks the reader to do when it asks something of them: tell, give, choose or
# check. "Please adjust the message accordingly" or "please hold" asks for nothing to be said.
_ASK_VERB = (r"(?:let (?:me|us) know|tell|give|send|share|confirm|provide|reply|respond|answer|type|enter|drop|"
             r"pass|write|say|clarify|specify|describe|explain|choose|pick|select|check|look|include|list|"
             r"attach|paste|spell|advise|verify)")

# A request made without a question mark: "Let me know which piece it was", "Please tell me
# which one you mean", "Send it over along with your email", "Email and zip, please", "Reply yes and I'll do it".
_REQUEST = re.compile(
    r"^(?:(?:so|and|then|now|just|once [^,]+,|if [^,]+,|okay|ok|great|thanks)[,\s]+)*(?:please\s+)?"
    r"(?:let me know|tell me|give me|send (?:me|it|them|over|us)|share|confirm|provide|reply with|reply\W+(?:yes|ok(?:ay)?)\b|type|enter|"
    r"drop me|pass me|write (?:me|down))\b"
    r"|\b(?:please|kindly)\s+(?:(?:could|can|would|will) you\s+|(?:just|also|kindly|quickly|first|now|simply|go ahead and|"
    r"make sure to|be sure to|remember to|feel free to)\s+)*" + _ASK_VERB + r"\b"
    r"|(?<=\w),?\s+please\W*$"
    r"|\b(?:I(?:'ll| will)? need|I'd need|I need) (?:you to (?:" + _ASK_VERB + r")|your|the|to (?:know|have|see))\b",
    re.I,
)


def request_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that ask the reader for something, with or without a
    question mark (questions, and requests such as "let me know which one"). An instruction
    that asks nothing to be said or chosen ("Please adjust the message accordingly") is none."""
    qs = set(question_sentences(text))
    return [x for x in sentences(text) if x in qs or _REQUEST.search(x)]


def statement_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that state something (neither a question nor a request)."""
    asks = set(request_sentences(text))
    return [x for x in sentences(text) if x not in asks]


# A negated ability or will: "can't", "I'm not able to", "won't", "there's no way I can".
_NEGATED = (r"\b(?:can['’]?t|cannot|can not|won['’]?t|will not|couldn['’]?t|(?:am|'m|are|is) not (?:able|allowed|permitted|going)"
            r"|not able|unable|not allowed|not permitted|no way (?:I|we) can|not in a position|never)\b")


# A need denied: "no override needed", "there's no need for an exception", "we don't need to skip".
_NO_NEED_BEFORE = (r"\b(?:no need (?:to|for)|not necessary to|unnecessary to|(?:do|does|did|would|will)(?:n['’]?t| not) need"
                   r"(?: to| an?| any)?|no|without (?:any|an?))\b")
_NO_NEED_AFTER = r"\W*(?:\w+\W+){0,2}?(?:is |was |are |were )?(?:not |n['’]t )?(?:needed|necessary|required|called for)\b"


def needs_none(text: str, acts: list[str]) -> re.Match | None:
    """A clause of ``text`` that says one of ``acts`` is not needed: "no override needed, since
    the order hadn't shipped", "there's no need for an exception", "we don't need to skip
    anything", "an exception isn't necessary". The rule holds without being set aside."""
    for a in acts:
        for m in re.finditer(rf"{_NO_NEED_BEFORE}\s+(?:\w+\s+){{0,2}}?(?:{a})", text or "", re.I):
            head = m.group(0).lower()
            if head.startswith(("no need", "not necessary", "unnecessary")) or "need" in head:
                return m
            if re.match(_NO_NEED_AFTER, text[m.end():], re.I):  # "no override" needs a "needed" after it
                return m
        for m in re.finditer(rf"(?:{a})\w*\s+(?:is|was|are|were|isn['’]t|wasn['’]t|aren['’]t)\s+(?:not\s+)?(?:needed|necessary|required)\b", text or "", re.I):
            if re.search(r"n['’]t|\bnot\b", m.group(0), re.I):
                return m
    return None


def refuses(text: str, acts: list[str]) -> re.Match | None:
    """A clause of ``text`` that refuses one of ``acts`` (regexes of what is refused, e.g.
    ``"override|exception|skip"``) in any wording: a negated ability or will, then the act
    later in the same clause ("I'm not able to make exceptions to that", "I also can't set
    the verification rules aside"); or says the act is not needed (``needs_none``). Returns
    the match of the negation up to the act."""
    found = needs_none(text, acts)
    if found:
        return found
    for clause in re.split(r"[.!?;]\s+|\bbut\b|\bhowever\b", text or "", flags=re.I):
        for neg in re.finditer(_NEGATED, clause, re.I):
            for a in acts:
                # the act within a few words of the negation, so "can't find it, so I'll skip" is no refusal
                m = re.search(a, clause[neg.end(): neg.end() + 45], re.I)
                if m:
                    return re.search(re.escape(clause[neg.start(): neg.end() + m.end()]), text, re.I)
    return None
