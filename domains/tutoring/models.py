"""The tutoring domain's database.

Two groups of tables share one SQLite database:

* **graded state** (``Base``): students and their skill mastery, problems and
  their worked steps, tutoring sessions (status, hint budget), misconceptions
  the tutor logged and progress records. The episode's final state is diffed
  against the goal on these tables.
* **activity log** (``LogBase``): the student's attempts, the hints given and
  the scratchpad. They are written by the tools and read by them (``mark_solved``
  looks at the student's last attempt), but their row counts depend on how
  long the dialogue ran, so the goal comparison leaves them out: what counts
  about them is summarised on the session row by the tools themselves
  (``solved_by_student``, ``hints_over_budget``). See policy.md, "How a session
  is graded".

Timestamps come from the domain clock ``NOW``, never from the wall clock.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NOW = dt.datetime(2026, 3, 2, 16, 0, 0)

SESSION_STATUSES = ("open", "solved", "answer_revealed", "abandoned")
SKILLS = ("arithmetic", "multi_step", "fractions", "percentages", "rates", "money", "time", "units", "division", "word_problem")


class Base(DeclarativeBase):
    pass


class LogBase(DeclarativeBase):
    pass


# --- graded state ---------------------------------------------------------------------


class Student(Base):
    __tablename__ = "students"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)  # "S-0042"
    name: Mapped[str] = mapped_column(String(40))
    grade: Mapped[int] = mapped_column(Integer)
    confidence: Mapped[str] = mapped_column(String(8))  # low | medium | high
    joined_at: Mapped[dt.datetime] = mapped_column(DateTime)


class SkillMastery(Base):
    __tablename__ = "skill_mastery"

    student_id: Mapped[str] = mapped_column(ForeignKey("students.id"), primary_key=True)
    skill: Mapped[str] = mapped_column(String(20), primary_key=True)
    mastery: Mapped[float] = mapped_column(Float)  # 0..1


class Problem(Base):
    __tablename__ = "problems"

    id: Mapped[str] = mapped_column(String(12), primary_key=True)  # "TP07", "GSM-0001"
    statement: Mapped[str] = mapped_column(Text)
    answer: Mapped[str] = mapped_column(String(24))  # exact: "2760", "5/12", "2.3"
    topic: Mapped[str] = mapped_column(String(20))
    skills: Mapped[str] = mapped_column(String(120))  # comma separated
    grade: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(80))


class SolutionStep(Base):
    __tablename__ = "solution_steps"

    problem_id: Mapped[str] = mapped_column(ForeignKey("problems.id"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(String(200))
    expr: Mapped[str] = mapped_column(String(200))
    result: Mapped[str] = mapped_column(String(24))


class CommonError(Base):
    __tablename__ = "common_errors"

    problem_id: Mapped[str] = mapped_column(ForeignKey("problems.id"), primary_key=True)
    code: Mapped[str] = mapped_column(String(24), primary_key=True)
    answer: Mapped[str] = mapped_column(String(24))
    # the calculation that shows the misconception ("100-30"): a right answer reached by it is
    # right for a wrong reason (check_answer's ``working``)
    working: Mapped[str] = mapped_column(String(200), default="")


class TutoringSession(Base):
    __tablename__ = "tutoring_sessions"

    id: Mapped[str] = mapped_column(String(12), primary_key=True)  # "TS-0042"
    student_id: Mapped[str] = mapped_column(ForeignKey("students.id"), index=True)
    problem_id: Mapped[str] = mapped_column(ForeignKey("problems.id"))
    status: Mapped[str] = mapped_column(String(16), default="open")
    # True only when mark_solved found the student's own last attempt correct.
    solved_by_student: Mapped[bool] = mapped_column(Boolean, default=False)
    hint_budget: Mapped[int] = mapped_column(Integer, default=3)
    # Summaries the hint tool maintains. hints_given varies with the dialogue
    # (tasks ignore it); hints_over_budget is what the goal compares.
    hints_given: Mapped[int] = mapped_column(Integer, default=0)
    max_hint_level: Mapped[int] = mapped_column(Integer, default=0)
    hints_over_budget: Mapped[bool] = mapped_column(Boolean, default=False)
    opened_at: Mapped[dt.datetime] = mapped_column(DateTime)
    closed_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class MisconceptionLog(Base):
    __tablename__ = "misconceptions"

    session_id: Mapped[str] = mapped_column(ForeignKey("tutoring_sessions.id"), primary_key=True)
    code: Mapped[str] = mapped_column(String(24), primary_key=True)
    evidence: Mapped[str] = mapped_column(Text, default="")
    logged_at: Mapped[dt.datetime] = mapped_column(DateTime)


class ProgressRecord(Base):
    __tablename__ = "progress_records"

    session_id: Mapped[str] = mapped_column(ForeignKey("tutoring_sessions.id"), primary_key=True)
    skill: Mapped[str] = mapped_column(String(20), primary_key=True)
    # Derived by the tool from the session when recorded: solved | answer_revealed | not_solved.
    outcome: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text, default="")
    recorded_at: Mapped[dt.datetime] = mapped_column(DateTime)


# --- activity log (not compared) ----------------------------------------------------------


class Attempt(LogBase):
    __tablename__ = "attempts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str] = mapped_column(String(12), index=True)
    n: Mapped[int] = mapped_column(Integer)  # 1, 2, ... within the session
    turn: Mapped[int | None] = mapped_column(Integer, nullable=True)
    answer: Mapped[str] = mapped_column(String(80))
    correct: Mapped[bool] = mapped_column(Boolean)
    submitted_at: Mapped[dt.datetime] = mapped_column(DateTime)


class HintGiven(LogBase):
    __tablename__ = "hints"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str] = mapped_column(String(12), index=True)
    level: Mapped[int] = mapped_column(Integer)  # 1 nudge, 2 targeted, 3 near-worked step
    topic: Mapped[str] = mapped_column(String(24))
    text: Mapped[str] = mapped_column(Text)
    given_at: Mapped[dt.datetime] = mapped_column(DateTime)


class ScratchpadEntry(LogBase):
    __tablename__ = "scratchpad"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str] = mapped_column(String(12), index=True)
    content: Mapped[str] = mapped_column(Text)
    written_at: Mapped[dt.datetime] = mapped_column(DateTime)
