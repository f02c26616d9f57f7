"""Deterministic seed data: students, their mastery, the problems, and a session history.

Same seed, same problems: same bytes. Every timestamp is ``NOW`` minus a
whole number of hours drawn from the seeded generator.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Sequence

from sqlalchemy.orm import Session

from domains.tutoring import models as m
from domains.tutoring.problems import Problem, misconceptions

N_STUDENTS = 160
N_HISTORY = 420

FIRST = (
    "Ava Ben Chloe Dev Ema Finn Gia Hugo Isla Jay Kofi Lena Milo Nia Omar Pia Quinn Ravi Sana Theo Uma Vik Wren Yara Zane "
    "Amir Bea Cruz Dina Eli Fay Gus Hana Ivo Jade Kai Lior Mae Nico Ola"
).split()
LAST_INITIAL = "ABCDEFGHJKLMNPRSTW"
CORE_SKILLS = ("arithmetic", "multi_step", "fractions", "percentages", "rates", "money", "time", "units", "division")


def seed(session: Session, seed_value: int, problems: Sequence[Problem]) -> None:
    m.LogBase.metadata.create_all(session.connection())
    rng = random.Random(seed_value)

    for p in problems:
        session.add(
            m.Problem(
                id=p.id,
                statement=p.statement,
                answer=p.answer,
                topic=p.topic,
                skills=",".join(p.skills),
                grade=p.grade,
                source=p.source,
            )
        )
        for i, s in enumerate(p.steps, start=1):
            session.add(m.SolutionStep(problem_id=p.id, n=i, text=s.text[:200], expr=s.expr[:200], result=s.result))
        for e in p.common_errors:
            session.add(m.CommonError(problem_id=p.id, code=e.code, answer=e.answer, working=e.expr))
    session.flush()

    students = []
    for i in range(N_STUDENTS):
        sid = f"S-{i + 1:04d}"
        grade = rng.randint(3, 6)
        students.append(sid)
        session.add(
            m.Student(
                id=sid,
                name=f"{rng.choice(FIRST)} {rng.choice(LAST_INITIAL)}.",
                grade=grade,
                confidence=rng.choice(("low", "medium", "medium", "high")),
                joined_at=m.NOW - dt.timedelta(days=rng.randint(30, 700)),
            )
        )
        for skill in CORE_SKILLS:
            base = 0.25 + 0.1 * (grade - 3)
            session.add(SkillMasteryRow(sid, skill, round(min(0.95, max(0.05, rng.gauss(base, 0.15))), 2)))
    session.flush()

    codes = sorted(misconceptions())
    statuses = ("solved", "solved", "solved", "answer_revealed", "abandoned")
    for k in range(N_HISTORY):
        p = problems[rng.randrange(len(problems))]
        sid = students[rng.randrange(N_STUDENTS)]
        opened = m.NOW - dt.timedelta(hours=rng.randint(48, 24 * 200))
        status = rng.choice(statuses)
        hints = rng.randint(0, 4)
        ts = m.TutoringSession(
            id=f"TS-{k + 1:04d}",
            student_id=sid,
            problem_id=p.id,
            status=status,
            solved_by_student=status == "solved",
            hint_budget=3,
            hints_given=hints,
            max_hint_level=min(3, hints),
            hints_over_budget=hints > 3,
            opened_at=opened,
            closed_at=opened + dt.timedelta(minutes=rng.randint(5, 40)),
        )
        session.add(ts)
        if p.common_errors and rng.random() < 0.6:
            err = p.common_errors[rng.randrange(len(p.common_errors))]
            session.add(m.MisconceptionLog(session_id=ts.id, code=err.code, evidence="seeded history", logged_at=opened))
        elif rng.random() < 0.1:
            session.add(m.MisconceptionLog(session_id=ts.id, code=rng.choice(codes), evidence="seeded history", logged_at=opened))
        outcome = {"solved": "solved", "answer_revealed": "answer_revealed"}.get(status, "not_solved")
        session.add(
            m.ProgressRecord(session_id=ts.id, skill=p.skills[0] if p.skills else "arithmetic", outcome=outcome, note="", recorded_at=opened)
        )
        n_attempts = rng.randint(1, 3)
        for a in range(1, n_attempts + 1):
            last = a == n_attempts
            correct = last and status == "solved"
            session.add(
                m.Attempt(
                    session_id=ts.id,
                    n=a,
                    turn=None,
                    answer=p.answer if correct else (p.common_errors[0].answer if p.common_errors else "0"),
                    correct=correct,
                    submitted_at=opened + dt.timedelta(minutes=3 * a),
                )
            )
    session.flush()


def SkillMasteryRow(student_id: str, skill: str, mastery: float) -> m.SkillMastery:
    return m.SkillMastery(student_id=student_id, skill=skill, mastery=mastery)
