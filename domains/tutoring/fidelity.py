"""Tutoring's hook for the simulator's fidelity flags (``graders.simulator``).

``situation_mismatch``: a ``makes_mistake`` turn that states the problem's correct answer
(one the tutor did not just say), or a ``solves_problem`` turn, other than the student's
leaving line, that states neither it nor the answer the student's misconception gives. The problem statement quoted in a message is left out
before numbers are read, so a number of the problem is never taken for an answer.
"""

from __future__ import annotations

from typing import Any

from .problems import numbers_in, parse_number


def _num(v: Any) -> Any:
    try:
        return parse_number(v)
    except (ValueError, ZeroDivisionError):
        return None


def situation_mismatch(event: Any, task: Any, domain: Any, agent_text: str) -> str | None:
    """Why this user turn contradicts its situation label, or None."""
    mind = (getattr(task, "extra", None) or {}).get("student_mind") or {}
    if "answer" not in mind or event.situation not in ("makes_mistake", "solves_problem"):
        return None
    try:
        answer = parse_number(mind["answer"])
    except (ValueError, ZeroDivisionError):
        return None
    text = event.content.replace(mind.get("statement", ""), " ")
    says = answer in numbers_in(text)
    if event.situation == "makes_mistake" and says and answer not in numbers_in(agent_text or ""):
        return f"states the correct answer {mind['answer']} in a turn played as a mistake"
    # "when their understanding allows": a student who still holds the misconception may
    # state the answer it gives; any other answer, or none, is not solving the problem.
    wrong = mind.get("wrong_answer")
    held = wrong is not None and _num(wrong) in numbers_in(text)
    if event.situation == "solves_problem" and not says and not held and not event.stop:
        return f"does not state the correct answer {mind['answer']} in a turn played as solving the problem"
    return None
