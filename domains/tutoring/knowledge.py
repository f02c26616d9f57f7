"""What the tutoring checks know of the problem and of the student's answer, for the reply judged.

``known`` is the problem as the grader knows it: the episode task's problem (``context``), else
what the transcript tells (the result of the tutor's ``get_problem`` or ``reveal_solution`` call,
failing that a correct ``check_answer``). ``student_gave_correct`` says whether the student's latest
answer is right: from ``check_answer`` when the tutor called it, else from the answer, else from the
situation the student played (``makes_mistake``: wrong, ``solves_problem``: right); None when
nothing tells. The rest are the numbers the student (or anyone) gave before the reply, the solution
values a reply leaks, and the session's hint budget. No rule params are read here.
"""

from __future__ import annotations

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


def _from_task(context) -> Known | None:
    """The problem of the episode's task, as the grader knows it (None without an episode)."""
    task, domain = getattr(context, "task", None), getattr(context, "domain", None)
    pid = (getattr(task, "extra", None) or {}).get("problem_id")
    problems = getattr(domain, "problems", None)
    if pid is None or not isinstance(problems, dict) or pid not in problems:
        return None
    p = problems[pid]
    k = Known(statement_numbers=set(numbers_in(p.statement)))
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


def student_numbers(events: list[Event], idx: int) -> set[Fraction]:
    """Every number the student wrote or submitted before the reply."""
    out: set[Fraction] = set()
    for e in events[:idx]:
        if isinstance(e, UserEvent):
            out.update(numbers_in(e.content))
        elif isinstance(e, ToolEvent) and e.side == "user" and e.call.name == "submit_answer":
            args = e.call.arguments_dict() or {}
            out.update(numbers_in(str(args.get("answer", ""))))
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
        return SITUATION_ANSWER.get(events[u].situation or "")
    return k.answer in nums


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
