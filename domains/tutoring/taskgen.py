"""Tasks built from a problem: for GSM8K-format files (``--problems FILE``).

One task per problem: one of the student personas (personas/tutoring), the problem's common error
as the student's misconception (when the file's worked answer gives one),
what the student tried as a hidden fact, and a mix of situations. The goal
is the policy's outcome: misconception logged, the student's own correct
answer, session marked solved, progress recorded, hints within budget. A student who holds a
misconception opens with the attempt that shows it (``known_facts`` and ``opens_with_attempt``),
so a goal that logs it follows from what happens.
``build_task`` is also the shape of the hand-written tasks in tasks/tutoring.
"""

from __future__ import annotations

from typing import Any, Sequence

from envs.spec.schema import Action, HiddenFact, InitialStatePatch, RowInsert, Scenario, Task

from .models import NOW
from .problems import Problem

IGNORE = [
    "tutoring_sessions.hints_given",
    "tutoring_sessions.max_hint_level",
    "misconceptions.evidence",
    "progress_records.note",
]
ASKED_BY_TRIED = ["tried", "your work", "show me", "how did you get", "what did you do"]
DEFAULT_SITUATIONS = ["makes_mistake", "gets_confused", "pushes_for_answer", "solves_problem", "frustrated"]


def session_row(session_id: str, student_id: str, problem_id: str, hint_budget: int) -> dict[str, Any]:
    return {
        "id": session_id,
        "student_id": student_id,
        "problem_id": problem_id,
        "status": "open",
        "hint_budget": hint_budget,
        "opened_at": NOW.isoformat(),
    }


def expected_actions(
    session_id: str, problem: Problem, misconception: str | None, outcome: str
) -> list[dict[str, Any]]:
    """The tutor's (and, where the goal presupposes it, the student's) actions for an outcome.

    outcome: ``solved`` (the student solves it), ``abandoned`` (the student ends the
    session), ``open`` (the student leaves without ending it).
    """
    acts: list[dict[str, Any]] = [
        {"name": "get_active_session"},
        {"name": "get_problem", "arguments": {"problem_id": problem.id}},
    ]
    if misconception:
        acts.append(
            {
                "name": "log_misconception",
                "arguments": {"session_id": session_id, "code": misconception, "evidence": "the student's wrong answer"},
            }
        )
    if outcome == "solved":
        acts += [
            {"name": "submit_answer", "arguments": {"answer": problem.answer}},
            {"name": "mark_solved", "arguments": {"session_id": session_id}},
            {
                "name": "record_progress",
                "arguments": {"session_id": session_id, "skill": (problem.skills or ("arithmetic",))[0]},
            },
        ]
    elif outcome == "abandoned":
        acts.append({"name": "end_session", "arguments": {"reason": "the student quits"}})
    return acts


def tried_fact(problem: Problem, misconception: str | None) -> str:
    err = next((e for e in problem.common_errors if e.code == misconception), None)
    if err is not None:
        return f"I did {err.expr.replace('*', ' x ').replace('//', ' / ')} and got {err.answer}."
    return "I haven't written anything down yet, I wanted to check how to start."


def build_task(
    task_id: str,
    domain: str,
    problem: Problem,
    *,
    persona: str,
    student_id: str,
    session_id: str,
    misconception: str | None,
    situations: Sequence[str],
    outcome: str = "solved",
    hint_budget: int = 3,
    max_turns: int = 16,
    student: dict[str, Any] | None = None,
    catches: Sequence[str] = ("teller",),
    description: str = "",
    tags: Sequence[str] = (),
) -> Task:
    facts = [HiddenFact(id="tried", fact=tried_fact(problem, misconception), asked_by=ASKED_BY_TRIED)]
    cfg = dict(student or {})
    # A goal that logs the misconception needs the student to show it for certain (the task
    # lint): every simulator opens with the attempt, not only when asked or when a draw says so.
    opening_facts = [facts[0].fact] if misconception else []
    if misconception:
        cfg.setdefault("opens_with_attempt", True)
        facts = []  # the attempt is volunteered (a known fact), so it is no longer held back
    goal = {
        "solved": "Get unstuck and solve the problem yourself; submit your answer when you think it is right.",
        "abandoned": "You find this hard and soon want to stop: after a couple of turns you end the session.",
        "open": "You have to leave soon: after a couple of turns you say goodbye and go, without ending the session.",
    }[outcome]
    if misconception:
        from .problems import misconceptions

        err = next(e for e in problem.common_errors if e.code == misconception)
        belief = misconceptions()[misconception].description
        goal += f" Your misconception, as a teacher would describe it: {belief} It gives you {err.answer}."
        goal += (
            " Hints do not change your mind." if cfg.get("stubborn") else " You keep it until a hint addresses exactly that."
        )
    return Task(
        id=task_id,
        domain=domain,
        description=description or f"{problem.id}: student holds {misconception or 'no misconception'}; outcome {outcome}",
        persona=persona,
        scenario=Scenario(
            goal=goal,
            request=f"Help me with this problem: {problem.statement}",
            known_facts=opening_facts,
            hidden_facts=facts,
            situations=list(situations),
            max_turns=max_turns,
        ),
        initial_state=InitialStatePatch(
            insert=[RowInsert(table="tutoring_sessions", row=session_row(session_id, student_id, problem.id, hint_budget))]
        ),
        expected_actions=[Action.model_validate(a) for a in expected_actions(session_id, problem, misconception, outcome)],
        ignore_columns=list(IGNORE),
        catches=list(catches),
        tags=list(tags),
        extra={"problem_id": problem.id, "misconception": misconception, "student": cfg},
    )


def tasks_for_problems(problems: Sequence[Problem], domain: str) -> list[Task]:
    """One task per problem (GSM8K mode): the domain's personas and the situations rotate deterministically."""
    from envs.spec.personas import all_personas

    personas = [p.id for p in all_personas(domain)]
    rot = ["gets_confused", "asks_explanation", "ambiguous_answer", "goes_off_tangent"]
    out = []
    for i, p in enumerate(problems):
        code = p.common_errors[0].code if p.common_errors else None
        out.append(
            build_task(
                f"tutoring-{p.id.lower()}",
                domain,
                p,
                persona=personas[i % len(personas)],
                student_id=f"S-{(i % 160) + 1:04d}",
                session_id=f"TS-G{i + 1:05d}",
                misconception=code,
                situations=DEFAULT_SITUATIONS[:3] + [rot[i % len(rot)], "solves_problem"],
                student={"confidence": "medium", "slips": i % 2},
                catches=("teller",) if code else (),
                tags=["gsm8k"],
            )
        )
    return out
