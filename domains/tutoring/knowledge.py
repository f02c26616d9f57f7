"""What the tutoring checks know of the problem and of the student's answer, for the reply judged.

``known`` is the problem as the grader knows it: the episode task's problem (``context``), else
what the transcript tells (the result of the tutor's ``get_problem`` or ``reveal_solution`` call,
failing that a correct ``check_answer``). ``student_gave_correct`` says whether the student's latest
answer is right: from ``check_answer`` when the tutor called it, else from the answer, else from the
situation the student played (``makes_mistake``: wrong, ``solves_problem``: right); None when
nothing tells (None too when the student only asks, having offered no value yet). ``right_step``
says whether that answer, though not the final one, is a step's result offered as a step (no
mistake). The rest are the numbers the student (or anyone) gave before the reply, the solution
values a reply leaks, and the session's hint budget. No rule params are read here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from envs.records import Event, ToolEvent, UserEvent
from graders.rules.replies import json_dict, last_user_index, step_tools

from .problems import numbers_in, parse_number
from .reading import all_numbers

# What the student's answer is, by the situation the student played, when no tool says.
SITUATION_ANSWER = {"makes_mistake": False, "solves_problem": True}


@dataclass
class Known:
    answer: Fraction | None = None
    statement_numbers: set[Fraction] = field(default_factory=set)
    step_results: list[Fraction] = field(default_factory=list)
    # the words only the problem's question uses ("left" of "How many muffins are left?")
    question_words: set[str] = field(default_factory=set)
    statement: str = ""


_STOP = {"how", "many", "much", "what", "which", "the", "does", "did", "are", "is", "was", "were", "she", "he",
         "they", "get", "will", "would", "can", "for", "and", "her", "his", "their", "its", "there", "that",
         "this", "with", "from", "all", "have", "has", "do", "in", "of", "to", "a", "an", "at", "on", "be", "it"}


def _word(w: str) -> str:
    """A word in its singular ("boxes" and "box" alike)."""
    w = w.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and re.search(r"(x|ch|sh|ss)es$", w):
        return w[:-2]
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def question_words(statement: str) -> set[str]:
    """The words the problem's question (its last question) uses and the rest of the statement
    does not: what the question asks for ("left", "change", "hours")."""
    parts = re.split(r"(?<=[.?!])\s+", statement.strip())
    qi = max((i for i, p in enumerate(parts) if p.rstrip().endswith("?")), default=len(parts) - 1)
    if qi < 0:
        return set()
    # the question from its wh-word on ("At the same price per box, how much do 10 boxes cost?")
    m = re.search(r"\b(how|what|which|who|when|where)\b", parts[qi], re.I)
    asked = parts[qi][m.start():] if m else parts[qi]
    rest = {_word(w) for i, p in enumerate(parts) if i != qi for w in re.findall(r"[a-z]+", p, re.I)}
    rest |= {_word(w) for w in re.findall(r"[a-z]+", parts[qi][: m.start()] if m else "", re.I)}
    # a quantity the question gives ("in 2 hours 30 minutes") is not what it asks for
    given = {_word(w) for w in re.findall(r"\d\s*([a-z]+)", asked, re.I)}
    return {_word(w) for w in re.findall(r"[a-z]+", asked, re.I) if w.lower() not in _STOP and len(w) > 2} - rest - given


def _from_task(context) -> Known | None:
    """The problem of the episode's task, as the grader knows it (None without an episode)."""
    task, domain = getattr(context, "task", None), getattr(context, "domain", None)
    pid = (getattr(task, "extra", None) or {}).get("problem_id")
    problems = getattr(domain, "problems", None)
    if pid is None or not isinstance(problems, dict) or pid not in problems:
        return None
    p = problems[pid]
    k = Known(statement_numbers=set(numbers_in(p.statement)), question_words=question_words(p.statement),
              statement=p.statement)
    try:
        k.answer = parse_number(p.answer)
        k.step_results = [parse_number(st.result) for st in p.steps]
    except (ValueError, ZeroDivisionError, AttributeError):
        pass
    return k


def known(events: list[Event], idx: int, context=None) -> Known:
    """What the grader knows about the problem: the task's (with an episode), else what the
    transcript up to the reply tells."""
    k = _from_task(context)
    if k is not None and k.answer is not None:
        return k
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
                k.question_words = question_words(str(data["statement"]))
                k.statement = str(data["statement"])
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


# "360 / 100" is read as the fraction 18/5; written as working, the student also wrote 360 and 100.
_OVER = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*/\s*(\d[\d,]*(?:\.\d+)?)")


def _written(text: str, operands: bool) -> list[Fraction]:
    out = numbers_in(text)
    if operands:
        for m in _OVER.finditer(text):
            out += [Fraction(m.group(1).replace(",", "")), Fraction(m.group(2).replace(",", ""))]
    return out


def student_numbers(events: list[Event], idx: int, operands: bool = False) -> set[Fraction]:
    """Every number the student wrote or submitted before the reply; with ``operands``, both
    sides of a division too ("360 / 100" holds 360, the student's own minutes)."""
    out: set[Fraction] = set()
    for e in events[:idx]:
        if isinstance(e, UserEvent):
            out.update(_written(e.content, operands))
        elif isinstance(e, ToolEvent) and e.side == "user" and e.call.name == "submit_answer":
            args = e.call.arguments_dict() or {}
            out.update(_written(str(args.get("answer", "")), operands))
    return out


def last_check(events: list[Event], idx: int) -> dict | None:
    checks = [json_dict(e.output) for e in step_tools(events, idx, "check_answer") if e.ok]
    checks = [c for c in checks if c is not None]
    return checks[-1] if checks else None


def student_gave_correct(events: list[Event], idx: int, k: Known) -> bool | None:
    """Is the student's latest answer (this turn's message or submission) correct? None: no answer / unknown."""
    c = last_check(events, idx)
    if c is not None:
        return bool(c.get("correct"))
    u = last_user_index(events, idx)
    if u < 0:
        return None
    if k.answer is None:
        if only_asks(events, u, k):
            return None
        return SITUATION_ANSWER.get(getattr(events[u], "situation", None) or "")
    nums = numbers_in(events[u].content)
    # the tool calls the student made while writing this message
    start = u - 1
    while start >= 0 and isinstance(events[start], ToolEvent) and events[start].side == "user":
        for n in numbers_in(str((events[start].call.arguments_dict() or {}).get("answer", ""))):
            nums.append(n)
        start -= 1
    nums = [n for n in nums if n not in k.statement_numbers]
    if not nums:
        if only_asks(events, u, k):
            return None
        return SITUATION_ANSWER.get(events[u].situation or "")
    return k.answer in nums


def only_asks(events: list[Event], u: int, k: Known) -> bool:
    """The student asks a question and has offered no value of their own, in this message or
    before (no number but the problem's): an answer is neither right nor wrong when none was
    given. (A question after a wrong answer leaves that mistake standing.)"""
    if "?" not in events[u].content:
        return False
    return not [n for e in events[: u + 1] if isinstance(e, UserEvent) for n in all_numbers(e.content) if n not in k.statement_numbers]


# A value offered as the answer: the student calls it its answer, in any order of words ("my final
# answer is 12", "the answer I got is 12", "is 12 the answer?", "12 is my answer").
FINAL_ANSWER = re.compile(r"\b(final answer|(my|the|an|as|for) answer|answer (is|was|would be)|the answer'?s)\b", re.I)


def offered_as_answer(text: str, k: Known) -> bool:
    """The student offers their value as the problem's answer: calls it its answer, or names it in
    the question's own words ("72 muffins left" to "How many muffins are left?"); a value called a
    step ("right so far?", "for the first part") is not offered as the answer."""
    if AS_STEP.search(text):
        return False
    return bool(FINAL_ANSWER.search(text)) or bool(k.question_words & {_word(w) for w in re.findall(r"[a-z]+", text, re.I)})


def right_step(events: list[Event], idx: int, k: Known) -> bool:
    """The student's latest value is the result of a step of the working: a right step of the
    way, whatever misconception would also give that value (``check_answer``'s
    ``equals_result_of_step``; without it, the student's new numbers are all step results). A
    step's result offered as the problem's answer is the mistake of stopping a step short. A value
    a misconception also gives is a right step only when the student says which step it is: calls it
    a step ("so far", "for the first part"), names what it counts ("72 muffins altogether", "the
    discount is 20"), or shows working the check does not match to a misconception ("25% of 80 is
    20"); a bare value ("8", "I'll go with 15", "I did 20-4-2 and got 14") is that misconception."""
    u = last_user_index(events, idx)
    text = events[u].content if u >= 0 else ""
    if offered_as_answer(text, k):
        return False
    question_known = bool(k.statement)
    c = last_check(events, idx)
    if c is not None:
        if c.get("correct") or c.get("equals_result_of_step") in (None, False):
            return False
        if not c.get("matches_common_error"):
            return True
        if c.get("working_matches_common_error"):
            return False
        # what it counts, or its working, tells a step from the answer only against the question ("8 posts"
        # is the answer to "how many posts?"); with the question unknown only a value called a step is one
        said = re.sub(r"\"[^\"]*\"", " ", text)  # the problem it quotes names nothing of its own
        named = question_known and bool(NAMED_VALUE.search(said) or SHOWN_CALC.search(said))
        return bool(AS_STEP.search(text)) or named
    if u < 0 or k.answer is None:
        return False
    latest = {n for n in numbers_in(text) if n not in k.statement_numbers}
    if not (latest and latest <= set(k.step_results) and k.answer not in latest):
        return False
    return question_known or bool(AS_STEP.search(text))


# A value with what it counts named: "72 muffins altogether", "the discount is 20" (a word after the number
# that is not a function word, or "the <thing> is <number>")
_FUNCTION = ("and|answer|because|but|correct|each|erm|final|for|from|haha|here|i'm|isn't|it's|just|like|lol|maybe|not|now|"
             "okay|overall|please|right|sorry|that|the|then|there|this|though|too|total|was|when|which|with|yet")  # 3+ letters
NAMED_VALUE = re.compile(rf"\d(?:[\d.,]*\d)?%?\s+(?!(?:{_FUNCTION})\b)[a-z]{{3,}}|\bthe [a-z]+(?: [a-z]+)? (?:is|was|comes to|came to) \$?\d", re.I)
# working shown: an operation between two numbers ("25% of 80", "4.20 / 6", "3 x 4")
SHOWN_CALC = re.compile(r"\d%?\s*(?:[x×*/÷+−-]|of|times|divided by|plus|minus)\s*\$?\d", re.I)

# A value offered as a step of the way, not as the answer ("step by step" is how it worked, not what
# the value is; "to start" in "how do I start this one" is not a value's).
AS_STEP = re.compile(r"\b(step(?! by step)(?<!by step)|so far|first (part|bit|step)|for the first|part one|halfway|"
                     r"to start with|to begin with|up to now|as far as I got|got as far as)\b", re.I)


def leaks(reply: str, k: Known, given: set[Fraction]) -> list[Fraction]:
    """Solution values (final answer, step results) in the reply that the student has not given."""
    said = set(numbers_in(reply))
    out = []
    for v in [k.answer, *k.step_results]:
        if v is not None and v in said and v not in given and v not in k.statement_numbers and v not in out:
            out.append(v)
    return out


def fmt_number(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def dialogue_numbers(events: list[Event], idx: int) -> set[Fraction]:
    """Every number said or shown before the reply (the student's, the tutor's, the tools')."""
    out: set[Fraction] = set()
    for e in events[:idx]:
        out.update(all_numbers(e.output if isinstance(e, ToolEvent) else e.content))
    return out


def hint_budget(events: list[Event], idx: int, context) -> int | None:
    """The session's hint budget: from the tools' outputs, else the task's initial session row."""
    for e in reversed(events[:idx]):
        if isinstance(e, ToolEvent) and e.ok:
            d = json_dict(e.output)
            if d is not None and isinstance(d.get("hint_budget"), int):
                return d["hint_budget"]
    task = getattr(context, "task", None)
    for ins in getattr(getattr(task, "initial_state", None), "insert", None) or []:
        row = getattr(ins, "row", None) or {}
        if isinstance(row, dict) and isinstance(row.get("hint_budget"), int):
            return row["hint_budget"]
    return None


def solved_now(events, idx, context=None) -> bool:
    """The student's answer this turn is correct (nothing left to guide, redirect or persist on)."""
    return student_gave_correct(events, idx, known(events, idx, context)) is True
