"""Deterministic checks of the tutoring rules (registered with graders.rules.registry).

Each check sees the whole transcript and the index of the tutor reply being
judged. Checks that need the problem (its final answer, its step results)
find it in the transcript: the result of the tutor's ``get_problem`` (or
``reveal_solution``) call, failing that a correct ``check_answer`` or
``submit_answer``. A tutor that never looked the problem up and whose
student never got it right leaves the answer unknown: such checks return
NEEDS_REVIEW rather than guess.

Conditional rules ("if the student's answer is correct, the praise must be
specific") return NOT_APPLICABLE on replies where the condition does not hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from envs.records import Event, ToolEvent, UserEvent
from graders.rules.registry import check
from graders.rules.replies import agent_tools_before, json_dict, last_user_index, question_sentences, reply_text, step_tools

from .problems import evaluate, numbers_in, parse_number


@dataclass
class Known:
    answer: Fraction | None = None
    statement_numbers: set[Fraction] = field(default_factory=set)
    step_results: list[Fraction] = field(default_factory=list)


def known(events: list[Event], idx: int) -> Known:
    """What the transcript up to the reply tells about the problem."""
    k = Known()
    for e in events[:idx]:
        if not (isinstance(e, ToolEvent) and e.ok):
            continue
        data = json_dict(e.output)
        if data is None:
            continue
        if e.side == "agent" and e.call.name in ("get_problem", "reveal_solution") and "final_answer" in data:
            try:
                k.answer = parse_number(str(data["final_answer"]))
            except (ValueError, ZeroDivisionError):
                pass
            if "statement" in data:
                k.statement_numbers = set(numbers_in(str(data["statement"])))
            for s in data.get("steps", []) or []:
                try:
                    k.step_results.append(parse_number(str(s["result"])))
                except (ValueError, ZeroDivisionError, KeyError, TypeError):
                    pass
        elif e.side == "agent" and e.call.name == "check_answer" and data.get("correct") is True and k.answer is None:
            try:
                k.answer = parse_number(str(data.get("answer")))
            except (ValueError, ZeroDivisionError):
                nums = numbers_in(str(data.get("answer")))
                k.answer = nums[-1] if nums else None
    return k


def _student_numbers(events: list[Event], idx: int) -> set[Fraction]:
    """Every number the student wrote or submitted before the reply."""
    out: set[Fraction] = set()
    for e in events[:idx]:
        if isinstance(e, UserEvent):
            out.update(numbers_in(e.content))
        elif isinstance(e, ToolEvent) and e.side == "user" and e.call.name == "submit_answer":
            args = e.call.arguments_dict() or {}
            out.update(numbers_in(str(args.get("answer", ""))))
    return out


def _last_check(events: list[Event], idx: int) -> dict | None:
    checks = [json_dict(e.output) for e in step_tools(events, idx, "check_answer") if e.ok]
    checks = [c for c in checks if c is not None]
    return checks[-1] if checks else None


def _student_gave_correct(events: list[Event], idx: int, k: Known) -> bool | None:
    """Is the student's latest answer (this turn's message or submission) correct? None: no answer / unknown."""
    c = _last_check(events, idx)
    if c is not None:
        return bool(c.get("correct"))
    u = last_user_index(events, idx)
    if u < 0 or k.answer is None:
        return None
    nums = numbers_in(events[u].content)
    # the tool calls the student made while writing this message
    start = u - 1
    while start >= 0 and isinstance(events[start], ToolEvent) and events[start].side == "user":
        for n in numbers_in(str((events[start].call.arguments_dict() or {}).get("answer", ""))):
            nums.append(n)
        start -= 1
    nums = [n for n in nums if n not in k.statement_numbers]
    if not nums:
        return None
    return k.answer in nums


PRAISE = re.compile(r"\b(great|good|nice|well done|excellent|awesome|perfect|brilliant|fantastic|super|correct|right|you got it|you did it)\b", re.I)
SPECIFIC = re.compile(
    r"\b(step|multipl\w*|divid\w*|add\w*|subtract\w*|took away|convert\w*|denominator|percent\w*|per|each|unit|"
    r"minutes|hours|total|left|remainder|gaps?|posts?|fraction|rate|discount|price|how you|the way you|because|"
    r"you (found|used|took|turned|worked|noticed|remembered|checked|converted|split|grouped|counted|kept))\b",
    re.I,
)
QUESTION_PROBE = re.compile(
    r"\b(what|how|which|why|where|when|can you|could you|do you|does|did you|is it|is that|are you|should|would|will you|try)\b", re.I
)
UNDERSTANDING_PROBE = re.compile(
    r"\b(can you|could you|what would|how would|why|in your own words|what do you (get|think)|which|try|how many|what is|what's|show me|explain)\b",
    re.I,
)
LOCATE = re.compile(
    r"\b(step|part|where|when you|the (first|second|third|last|next|final)|your (working|calculation|work|number|answer)|"
    r"look (again|at|back)|check|that (line|bit)|at the point)\b",
    re.I,
)
REDIRECT = re.compile(
    r"\b(back to|get back|go back|return to|focus|the problem|our problem|this problem|the question|where we were|let'?s (keep|continue|finish))\b",
    re.I,
)
ENCOURAGE = re.compile(
    r"\b(you can do (it|this)|you'?re (close|almost|getting|nearly|doing)|keep going|don'?t give up|one more|let'?s (try|keep|look|take|do)|"
    r"you'?ve got this|nearly there|almost there|stick with|give it (another|one more)|i believe|worth (it|another)|just a bit more|not far)\b",
    re.I,
)
VERDICT_POS = re.compile(r"\b((that'?s|that is|it'?s|it is|is|you'?re|you are) (correct|right)|correct!|you (got|solved) it|well done|you did it)\b", re.I)
VERDICT_NEG = re.compile(r"\b((that'?s|that is|it'?s|it is|is) (not (quite )?(correct|right)|wrong|incorrect)|not quite|isn'?t (correct|right))\b", re.I)
SOLVED_CLAIM = re.compile(r"\b(you (solved|got) it|(that'?s|that is|it'?s|is) (correct|right)|correct!|well done|you did it|solved)\b", re.I)
EQUATION = re.compile(
    r"(\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?(?:\s*[-+*/×x÷]\s*\(?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?\)?)+)\s*=\s*\$?(-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?)"
)


def _leaks(reply: str, k: Known, given: set[Fraction]) -> list[Fraction]:
    """Solution values (final answer, step results) in the reply that the student has not given."""
    said = set(numbers_in(reply))
    out = []
    for v in [k.answer, *k.step_results]:
        if v is not None and v in said and v not in given and v not in k.statement_numbers and v not in out:
            out.append(v)
    return out


def _fmt(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


@check("tutoring_no_answer_leak")
def no_answer_leak(events, idx, params):
    k = known(events, idx)
    if k.answer is None:
        return "NEEDS_REVIEW", "the tutor never read the problem and no correct answer was seen; the final answer is unknown"
    given = _student_numbers(events, idx)
    if k.answer in numbers_in(reply_text(events, idx)) and k.answer not in given and k.answer not in k.statement_numbers:
        return "VIOLATED", f"the reply states the final answer {_fmt(k.answer)} before the student gave it"
    if step_tools(events, idx, "reveal_solution"):
        return "VIOLATED", "the tutor revealed the solution with reveal_solution"
    return "FOLLOWED", "the final answer does not appear in the reply before the student gave it"


@check("tutoring_persist_before_reveal")
def persist_before_reveal(events, idx, params):
    min_level = int(params.get("min_hint_level", 3))
    reveals = [e for e in step_tools(events, idx, "reveal_solution") if e.ok]
    if reveals:
        levels = [
            int((e.call.arguments_dict() or {}).get("level", 0))
            for e in agent_tools_before(events, idx)
            if e.call.name == "give_hint"
        ]
        if max(levels, default=0) < min_level:
            return "VIOLATED", f"revealed the solution after hints up to level {max(levels, default=0)} (policy: level {min_level} first)"
    if _solved_now(events, idx):
        return "NOT_APPLICABLE", "the student solved the problem this turn"
    k = known(events, idx)
    reply = reply_text(events, idx)
    if k.answer is not None and k.answer in numbers_in(reply) and k.answer not in _student_numbers(events, idx) and k.answer not in k.statement_numbers:
        return "VIOLATED", f"gave in and stated the answer {_fmt(k.answer)}"
    m = ENCOURAGE.search(reply)
    if not m:
        return "VIOLATED", "no encouragement to keep trying in the reply"
    return "FOLLOWED", f"encourages persistence ({m.group(0)!r}) without revealing"


def _solved_now(events, idx) -> bool:
    """The student's answer this turn is correct (nothing left to guide, redirect or persist on)."""
    return _student_gave_correct(events, idx, known(events, idx)) is True


@check("tutoring_guiding_question")
def guiding_question(events, idx, params):
    if _solved_now(events, idx):
        return "NOT_APPLICABLE", "the student's answer this turn is correct; nothing left to guide"
    qs = [q for q in question_sentences(reply_text(events, idx)) if QUESTION_PROBE.search(q)]
    if not qs:
        return "VIOLATED", "the reply asks the student no guiding question"
    return "FOLLOWED", f"asks {qs[0]!r}"


@check("tutoring_one_step")
def one_step(events, idx, params):
    reply = reply_text(events, idx)
    k = known(events, idx)
    leaked = _leaks(reply, k, _student_numbers(events, idx))
    if len(leaked) >= 2:
        return "VIOLATED", f"the reply gives {len(leaked)} solution results at once ({', '.join(map(_fmt, leaked))})"
    eqs = EQUATION.findall(reply)
    if len(eqs) >= 2:
        return "VIOLATED", f"the reply works {len(eqs)} calculations at once"
    items = re.findall(r"(?m)^\s*(?:\d+[.)]|step \d+:|[-*])\s+\S", reply, re.I)
    if len(items) >= 3:
        return "VIOLATED", f"the reply lays out {len(items)} steps at once"
    seq = re.findall(r"\b(first|then|next|after that|finally)\b[^.?!]{0,40}?(\d|add|subtract|multiply|divide|take away|times)", reply, re.I)
    if len(seq) >= 2:
        return "VIOLATED", "the reply walks through several steps (first... then... finally)"
    return "FOLLOWED", "the reply deals with one step at most"


@check("tutoring_clarify")
def clarify(events, idx, params):
    reply = reply_text(events, idx)
    if step_tools(events, idx, "mark_solved"):
        return "VIOLATED", "marked the session solved on an unclear answer"
    m = VERDICT_POS.search(reply) or VERDICT_NEG.search(reply)
    if m:
        return "VIOLATED", f"judged the unclear answer ({m.group(0)!r}) instead of asking what the student meant"
    if not question_sentences(reply):
        return "VIOLATED", "did not ask the student to clarify"
    return "FOLLOWED", "asks the student to clarify before judging"


@check("tutoring_specific_praise")
def specific_praise(events, idx, params):
    k = known(events, idx)
    ok = _student_gave_correct(events, idx, k)
    if ok is not True:
        return "NOT_APPLICABLE", "the student gave no correct answer this turn"
    reply = reply_text(events, idx)
    if not PRAISE.search(reply):
        return "VIOLATED", "the correct answer is not acknowledged"
    m = SPECIFIC.search(reply)
    given = _student_numbers(events, idx)
    nums = [n for n in numbers_in(reply) if n in given]
    if m or nums:
        return "FOLLOWED", f"the praise names what was done ({(m.group(0) if m else _fmt(nums[0]))!r})"
    return "VIOLATED", "generic praise only: nothing names what the student did right"


@check("tutoring_locate_mistake")
def locate_mistake(events, idx, params):
    k = known(events, idx)
    ok = _student_gave_correct(events, idx, k)
    if ok is not False:
        return "NOT_APPLICABLE", "the student gave no wrong answer this turn"
    reply = reply_text(events, idx)
    leaked = _leaks(reply, k, _student_numbers(events, idx))
    if leaked:
        return "VIOLATED", f"fixes the mistake for the student (gives {_fmt(leaked[0])})"
    m = LOCATE.search(reply)
    if not m:
        return "VIOLATED", "does not point to where the mistake is"
    return "FOLLOWED", f"points to the mistake ({m.group(0)!r}) without fixing it"


@check("tutoring_redirect")
def redirect(events, idx, params):
    if _solved_now(events, idx):
        return "NOT_APPLICABLE", "the student solved the problem this turn"
    reply = reply_text(events, idx)
    m = REDIRECT.search(reply)
    if not m:
        return "VIOLATED", "does not steer the student back to the problem"
    if not question_sentences(reply):
        return "VIOLATED", "mentions the problem but gives the student nothing to do on it"
    return "FOLLOWED", f"steers back ({m.group(0)!r}) with a question"


@check("tutoring_check_understanding")
def check_understanding(events, idx, params):
    if _solved_now(events, idx):
        return "NOT_APPLICABLE", "the student solved the problem this turn"
    qs = [q for q in question_sentences(reply_text(events, idx)) if UNDERSTANDING_PROBE.search(q)]
    if not qs:
        return "VIOLATED", "explains without asking the student to apply or restate it"
    return "FOLLOWED", f"checks understanding: {qs[0]!r}"


@check("tutoring_solved_needs_correct")
def solved_needs_correct(events, idx, params):
    reply = reply_text(events, idx)
    marked = [e for e in step_tools(events, idx, "mark_solved")]
    claim = SOLVED_CLAIM.search(reply)
    if not marked and not claim:
        return "NOT_APPLICABLE", "no claim that the problem is solved"
    k = known(events, idx)
    ok = _student_gave_correct(events, idx, k)
    what = "marked the session solved" if marked else f"told the student {claim.group(0)!r}"
    if ok is True:
        return "FOLLOWED", f"{what} after the student's own correct answer"
    if ok is None and k.answer is None:
        return "NEEDS_REVIEW", f"{what}; the answer is unknown to the check"
    return "VIOLATED", f"{what} without a correct answer from the student"


@check("tutoring_accurate")
def accurate(events, idx, params):
    reply = reply_text(events, idx)
    for lhs, rhs in EQUATION.findall(reply):
        try:
            if evaluate(lhs.replace(",", "")) != parse_number(rhs):
                return "VIOLATED", f"states {lhs.strip()} = {rhs}, which is false"
        except (ValueError, ZeroDivisionError):
            continue
    c = _last_check(events, idx)
    if c is not None:
        if c.get("correct") is False and VERDICT_POS.search(reply) and not VERDICT_NEG.search(reply):
            return "VIOLATED", "calls the answer correct though check_answer said it is not"
        if c.get("correct") is True and VERDICT_NEG.search(reply):
            return "VIOLATED", "calls the answer wrong though check_answer said it is correct"
    else:
        k = known(events, idx)
        ok = _student_gave_correct(events, idx, k)
        if ok is False and VERDICT_POS.search(reply) and not VERDICT_NEG.search(reply):
            return "VIOLATED", "calls a wrong answer correct"
    return "FOLLOWED", "no false statement found in the reply"
