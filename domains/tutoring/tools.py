"""Agent (tutor) tools and user (student) tools of the tutoring domain.

The tutor's console: find the session it is assigned to, read the student and
the problem (with the worked solution and the teacher's guide of common
errors), check an answer (correct or not, never the answer), give a hint at a
level, log a misconception, record progress, mark the session solved, reveal
the solution. The code enforces what the platform would: hints escalate one
level at a time and never contain the final answer; a session is marked
solved only when the student's own last attempt is correct; closed sessions
take no more hints. What is pedagogy (asking before telling, when revealing
is acceptable) is left to the tutor and written in policy.md. The module is
long because it holds both sides' tools and the platform's rules they enforce.

The student's tools: submit an answer (an attempt, correct or not), write on
the scratchpad, ask to end the session. Timestamps are the domain's ``NOW``.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Annotated, Literal

from pydantic import Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.tutoring import models as m
from domains.tutoring.problems import misconceptions, numbers_in, parse_number
from envs.domain.tools import ToolError, tool

SessionId = Annotated[str, Field(description="Tutoring session id, e.g. TS-0042.", pattern=r"^TS-[A-Z0-9-]{1,9}$")]
StudentId = Annotated[str, Field(description="Student id, e.g. S-0042.", pattern=r"^S-\d{4}$")]
ProblemId = Annotated[str, Field(description="Problem id, e.g. TP07 or GSM-0001.", pattern=r"^[A-Z]{2,4}-?\d{1,5}$")]
AnswerText = Annotated[str, Field(min_length=1, max_length=80, description="An answer as written, e.g. '42', '$2.30', '5/12'.")]
Text500 = Annotated[str, Field(min_length=1, max_length=500)]
Text2000 = Annotated[str, Field(min_length=1, max_length=2000)]

MisconceptionCode = Literal[tuple(sorted(misconceptions()))]  # type: ignore[valid-type]
HintLevel = Annotated[int, Field(ge=1, le=3, description="1: a nudge/question, 2: targeted at the misconception, 3: a near-worked step.")]


def _session(db: Session, session_id: str) -> m.TutoringSession:
    s = db.get(m.TutoringSession, session_id)
    if s is None:
        raise ToolError(f"no tutoring session {session_id}")
    return s


def _problem(db: Session, problem_id: str) -> m.Problem:
    p = db.get(m.Problem, problem_id)
    if p is None:
        raise ToolError(f"no problem {problem_id}")
    return p


def _value(answer: str) -> Fraction | None:
    """The number a written answer states: the whole text if it is a number, else its last number."""
    try:
        return parse_number(answer)
    except (ValueError, ZeroDivisionError):
        nums = numbers_in(answer)
        return nums[-1] if nums else None


def _last_attempt(db: Session, session_id: str) -> m.Attempt | None:
    return db.scalars(
        select(m.Attempt).where(m.Attempt.session_id == session_id).order_by(m.Attempt.n.desc()).limit(1)
    ).first()


def _session_view(s: m.TutoringSession) -> dict:
    return {
        "session_id": s.id,
        "student_id": s.student_id,
        "problem_id": s.problem_id,
        "status": s.status,
        "hint_budget": s.hint_budget,
        "hints_given": s.hints_given,
        "max_hint_level": s.max_hint_level,
    }


# --- agent tools ---------------------------------------------------------------------


@tool
def get_active_session(db: Session) -> dict:
    """The tutoring session you are assigned to now (the open session), with its student and problem ids."""
    rows = db.scalars(
        select(m.TutoringSession).where(m.TutoringSession.status == "open").order_by(m.TutoringSession.opened_at.desc(), m.TutoringSession.id)
    ).all()
    if not rows:
        raise ToolError("there is no open tutoring session")
    return _session_view(rows[0])


@tool
def get_session(db: Session, session_id: SessionId) -> dict:
    """Read one tutoring session: status, hints given, misconceptions logged.

    Args:
        session_id: The session id.
    """
    s = _session(db, session_id)
    out = _session_view(s)
    out["misconceptions"] = [r.code for r in db.scalars(select(m.MisconceptionLog).where(m.MisconceptionLog.session_id == s.id))]
    out["attempts"] = db.scalar(select(func.count()).select_from(m.Attempt).where(m.Attempt.session_id == s.id))
    return out


@tool
def get_student(db: Session, student_id: StudentId) -> dict:
    """Read a student's profile: grade, confidence, skill mastery (0 to 1) and recent sessions.

    Args:
        student_id: The student id.
    """
    st = db.get(m.Student, student_id)
    if st is None:
        raise ToolError(f"no student {student_id}")
    mastery = {r.skill: r.mastery for r in db.scalars(select(m.SkillMastery).where(m.SkillMastery.student_id == st.id).order_by(m.SkillMastery.skill))}
    recent = db.scalars(
        select(m.TutoringSession)
        .where(m.TutoringSession.student_id == st.id, m.TutoringSession.status != "open")
        .order_by(m.TutoringSession.opened_at.desc())
        .limit(5)
    ).all()
    history = []
    for s in recent:
        codes = [r.code for r in db.scalars(select(m.MisconceptionLog).where(m.MisconceptionLog.session_id == s.id))]
        history.append({"session_id": s.id, "problem_id": s.problem_id, "status": s.status, "misconceptions": codes})
    return {"student_id": st.id, "name": st.name, "grade": st.grade, "confidence": st.confidence, "mastery": mastery, "recent_sessions": history}


@tool
def get_problem(db: Session, problem_id: ProblemId) -> dict:
    """Read a problem: statement, final answer, worked solution steps, skills, and the guide's common errors.

    The final answer and the steps are for you, the tutor: never tell them to the student.

    Args:
        problem_id: The problem id.
    """
    p = _problem(db, problem_id)
    steps = db.scalars(select(m.SolutionStep).where(m.SolutionStep.problem_id == p.id).order_by(m.SolutionStep.n)).all()
    errs = db.scalars(select(m.CommonError).where(m.CommonError.problem_id == p.id).order_by(m.CommonError.code)).all()
    guide = misconceptions()
    return {
        "problem_id": p.id,
        "statement": p.statement,
        "final_answer": p.answer,
        "skills": p.skills.split(",") if p.skills else [],
        "steps": [{"n": s.n, "text": s.text, "expr": s.expr, "result": s.result} for s in steps],
        "common_errors": [
            {
                "misconception": e.code,
                "wrong_answer": e.answer,
                "description": guide[e.code].description if e.code in guide else "",
                "suggested_hint": guide[e.code].hint if e.code in guide else "",
            }
            for e in errs
        ],
    }


@tool
def check_answer(
    db: Session,
    session_id: SessionId,
    answer: AnswerText,
    working: Annotated[str, Field(max_length=500, description="The student's calculation as they wrote it, e.g. '100 - 30', or '' if they showed none.")] = "",
) -> dict:
    """Check an answer against the session's problem. Says whether it is correct; never gives the answer.

    When it is wrong, says whether it equals one of the guide's common errors (or, when two
    misconceptions give that answer, ``matches_common_errors`` lists both until ``working`` tells
    which the student's calculation is) or an
    intermediate step's result (useful to locate the mistake; a step's result is right for
    that step). With ``working`` (the student's calculations), says whether that working is a
    common error's own (``working_matches_common_error``), even when the answer is right:
    an answer right for a wrong reason.

    Args:
        session_id: The session id.
        answer: The answer to check, as the student wrote it.
        working: The calculation the student showed, as they wrote it ('' if none).
    """
    s = _session(db, session_id)
    p = _problem(db, s.problem_id)
    errors = list(db.scalars(select(m.CommonError).where(m.CommonError.problem_id == p.id).order_by(m.CommonError.code)))
    shown = _calculations(working)
    by_working = next((e.code for e in errors if shown and e.working and shown == _calculations(e.working)), None)
    v = _value(answer)
    if v is None:
        return {"answer": answer, "correct": False, "note": "no number in this answer; ask the student what they mean"}
    if v == parse_number(p.answer):
        out: dict = {"answer": answer, "correct": True}
        if by_working:
            out["working_matches_common_error"] = by_working
        return out
    out = {"answer": answer, "correct": False}
    same = [e.code for e in errors if parse_number(e.answer) == v]
    if len(same) == 1 or by_working in same:
        out["matches_common_error"] = by_working if by_working in same else same[0]
    elif same:
        # two misconceptions reach this answer by different working: only the student's calculation tells which
        out["matches_common_errors"] = same
        out["note"] = ("more than one misconception in the guide gives this answer; ask the student how they got it and"
                       " check again with their working before logging one")
    for st in db.scalars(select(m.SolutionStep).where(m.SolutionStep.problem_id == p.id).order_by(m.SolutionStep.n)):
        if parse_number(st.result) == v:
            out["equals_result_of_step"] = st.n
            break
    if by_working:
        out["working_matches_common_error"] = by_working
    return out


_RESULT = re.compile(r"=\s*\$?-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?")


def _calculations(working: str) -> frozenset[str]:
    """The calculations in a written working, normalised: "100 x 30 / 100 = 30, then 100 - 30" ->
    {"100*30/100", "100-30"}. Results after "=" and words are dropped; only the operations count."""
    text = _RESULT.sub(" ", working.lower().replace("\u00d7", "*").replace("\u00f7", "/").replace("$", ""))
    text = re.sub(r"(?<=[\d)])\s*x\s*(?=[\d(])", "*", text)
    out = set()
    for m_ in re.finditer(r"[\d(][\d\s.,()+\-*/]*[\d)]", text):
        expr = re.sub(r"[\s,]", "", m_.group(0))
        if re.search(r"[+\-*/]", expr):
            out.add(_unwrapped(expr))
    return frozenset(out)


def _unwrapped(expr: str) -> str:
    """"(2+3)" -> "2+3"; "(2+2)*5" stays as it is."""
    while expr.startswith("(") and expr.endswith(")"):
        depth = 0
        for i, ch in enumerate(expr):
            depth += (ch == "(") - (ch == ")")
            if depth == 0 and i < len(expr) - 1:
                return expr
        expr = expr[1:-1]
    return expr


@tool(mutates=True)
def give_hint(
    db: Session,
    session_id: SessionId,
    level: HintLevel,
    text: Text500,
    topic: Annotated[str, Field(max_length=24, description="The misconception code or step the hint targets, or 'general'.")] = "general",
) -> dict:
    """Give the student a hint (recorded against the session's hint budget). Hints escalate one level at a time.

    Args:
        session_id: The session id.
        level: 1 a nudge or question, 2 targeted at the misconception, 3 a near-worked step.
        text: The hint as the student will read it. It may not contain the final answer.
        topic: What the hint targets.
    """
    s = _session(db, session_id)
    if s.status != "open":
        raise ToolError(f"session {s.id} is {s.status}; no more hints")
    if level > s.max_hint_level + 1:
        raise ToolError(f"hints escalate one level at a time: the next hint may be level {s.max_hint_level + 1} at most")
    answer = parse_number(_problem(db, s.problem_id).answer)
    if answer in numbers_in(text):
        raise ToolError("a hint may not contain the final answer")
    db.add(m.HintGiven(session_id=s.id, level=level, topic=topic, text=text, given_at=m.NOW))
    s.hints_given += 1
    s.max_hint_level = max(s.max_hint_level, level)
    s.hints_over_budget = s.hints_given > s.hint_budget
    left = s.hint_budget - s.hints_given
    return {"session_id": s.id, "hints_given": s.hints_given, "hint_budget": s.hint_budget, "hints_left": max(0, left), "over_budget": s.hints_over_budget}


@tool(mutates=True)
def log_misconception(db: Session, session_id: SessionId, code: MisconceptionCode, evidence: Text500) -> str:
    """Log a misconception the student showed in this session (once per code).

    Args:
        session_id: The session id.
        code: The misconception, from the guide's list.
        evidence: What the student said or did that shows it.
    """
    s = _session(db, session_id)
    if db.get(m.MisconceptionLog, (s.id, code)) is not None:
        raise ToolError(f"{code} is already logged for {s.id}")
    db.add(m.MisconceptionLog(session_id=s.id, code=code, evidence=evidence, logged_at=m.NOW))
    return f"Logged {code} for {s.id}."


@tool(mutates=True)
def record_progress(
    db: Session,
    session_id: SessionId,
    skill: Annotated[str, Field(max_length=20, description="One of the problem's skills.")],
    note: Annotated[str, Field(max_length=500)] = "",
) -> dict:
    """Record the student's progress on a skill of this problem; the outcome is taken from the session's status.

    Recording again for the same skill updates the record.

    Args:
        session_id: The session id.
        skill: A skill of the session's problem (see get_problem).
        note: What the student can now do, or still needs.
    """
    s = _session(db, session_id)
    p = _problem(db, s.problem_id)
    skills = p.skills.split(",") if p.skills else []
    if skill not in skills:
        raise ToolError(f"{skill!r} is not a skill of {p.id} (skills: {', '.join(skills)})")
    outcome = "solved" if s.solved_by_student else ("answer_revealed" if s.status == "answer_revealed" else "not_solved")
    rec = db.get(m.ProgressRecord, (s.id, skill))
    if rec is None:
        db.add(m.ProgressRecord(session_id=s.id, skill=skill, outcome=outcome, note=note, recorded_at=m.NOW))
    else:
        rec.outcome, rec.note, rec.recorded_at = outcome, note, m.NOW
    return {"session_id": s.id, "skill": skill, "outcome": outcome}


@tool(mutates=True)
def mark_solved(db: Session, session_id: SessionId) -> str:
    """Mark the session solved by the student. Only valid when the student's own last submitted answer is correct.

    Args:
        session_id: The session id.
    """
    s = _session(db, session_id)
    if s.status != "open":
        raise ToolError(f"session {s.id} is {s.status}, not open")
    last = _last_attempt(db, s.id)
    if last is None:
        raise ToolError("the student has not submitted an answer; they must submit their own answer first")
    if not last.correct:
        raise ToolError("the student's last submitted answer is not correct; the session cannot be marked solved")
    s.status = "solved"
    s.solved_by_student = True
    s.closed_at = m.NOW
    return f"Session {s.id} marked solved by the student."


@tool(mutates=True)
def reveal_solution(db: Session, session_id: SessionId) -> dict:
    """Reveal the worked solution and final answer to the student. An open session becomes answer_revealed.

    Args:
        session_id: The session id.
    """
    s = _session(db, session_id)
    p = _problem(db, s.problem_id)
    if s.status == "open":
        s.status = "answer_revealed"
        s.closed_at = m.NOW
    steps = db.scalars(select(m.SolutionStep).where(m.SolutionStep.problem_id == p.id).order_by(m.SolutionStep.n)).all()
    return {
        "session_id": s.id,
        "status": s.status,
        "final_answer": p.answer,
        "solution": [f"{st.text}: {st.expr} = {st.result}" for st in steps],
    }


AGENT_TOOLS = [
    get_active_session,
    get_session,
    get_student,
    get_problem,
    check_answer,
    give_hint,
    log_misconception,
    record_progress,
    mark_solved,
    reveal_solution,
]


# --- user (student) tools ----------------------------------------------------------------


def _my_session(db: Session) -> m.TutoringSession:
    s = db.scalars(select(m.TutoringSession).order_by(m.TutoringSession.opened_at.desc(), m.TutoringSession.id.desc()).limit(1)).first()
    if s is None:
        raise ToolError("you have no tutoring session")
    return s


@tool(side="user", mutates=True)
def submit_answer(
    db: Session, answer: AnswerText, turn: Annotated[int | None, Field(ge=0, le=1000)] = None
) -> str:
    """Submit your answer to the problem into the system (recorded as an attempt).

    Args:
        answer: Your answer, e.g. '42' or '5/12'.
        turn: The conversation turn you are answering in, if you know it.
    """
    s = _my_session(db)
    if s.status != "open":
        raise ToolError(f"your session is {s.status.replace('_', ' ')}; no more answers can be submitted")
    p = _problem(db, s.problem_id)
    v = _value(answer)
    correct = v is not None and v == parse_number(p.answer)
    n = (db.scalar(select(func.max(m.Attempt.n)).where(m.Attempt.session_id == s.id)) or 0) + 1
    db.add(m.Attempt(session_id=s.id, n=n, turn=turn, answer=answer, correct=correct, submitted_at=m.NOW))
    return f"Answer {answer!r} submitted (attempt {n})."


@tool(side="user", mutates=True)
def show_work(db: Session, content: Text2000) -> str:
    """Write your working on the scratchpad so your tutor can see how you got there.

    Args:
        content: Your working, e.g. '4 x 3 = 12, 12 + 6 = 18'.
    """
    s = _my_session(db)
    db.add(m.ScratchpadEntry(session_id=s.id, content=content, written_at=m.NOW))
    return "Written on your scratchpad."


@tool(side="user", mutates=True)
def end_session(db: Session, reason: Annotated[str, Field(max_length=200)] = "") -> str:
    """Ask to end the tutoring session now (it is closed as abandoned unless already solved).

    Args:
        reason: Why you want to stop, if you want to say.
    """
    s = _my_session(db)
    if s.status == "open":
        s.status = "abandoned"
        s.closed_at = m.NOW
        return "Session ended."
    return f"Your session is already closed ({s.status.replace('_', ' ')})."


USER_TOOLS = [submit_answer, show_work, end_session]
