"""The tutoring rules' conditions that need what the tutor knows of the problem (registered as
checks; rules.yaml names them under ``condition``, see graders/rules/conditions.py).

"When the student ... is wrong" arises on a wrong answer, not on a right step of the way (a
``check_answer`` of a step's result says ``correct: false`` with ``equals_result_of_step``);
"before the student has given it" no longer arises once the student gave the final answer; and
"if the student goes off on a tangent" arises on a message that leaves the problem.
"""

from __future__ import annotations

import re

from graders.rules.registry import check
from graders.rules.replies import json_dict, last_user_index, question_sentences, sentences, step_tools
from envs.records import AgentEvent, ToolEvent

from .knowledge import _STOP, known, last_check, right_step, student_gave_correct
from .problems import numbers_in

APPLIES = "APPLIES"


@check("tutoring_student_wrong")
def student_wrong(events, idx, params, context=None):
    """The student's latest answer is wrong: a right step (a value the problem's working reaches)
    is not a mistake, whatever the final-answer check says of it and whatever misconception
    would also give that value."""
    c = last_check(events, idx)
    if c is not None and c.get("correct"):
        return "NOT_APPLICABLE", "check_answer says the student's answer is correct"
    k = known(events, idx, context)
    if right_step(events, idx, k):
        step = c.get("equals_result_of_step") if c is not None else None
        return "NOT_APPLICABLE", f"the student's value is the result of a step{f' (step {step})' if step else ''}, a right step"
    if c is not None:
        if c.get("matches_common_error"):
            return APPLIES, f"check_answer matches the common error {c['matches_common_error']!r}"
        return APPLIES, "check_answer says the student's answer is wrong"
    if student_gave_correct(events, idx, k) is False:
        return APPLIES, "the student's latest answer is wrong"
    return "NOT_APPLICABLE", "the student's latest answer is not wrong (a right step, or none)"


@check("tutoring_session_open")
def session_open(events, idx, params, context=None):
    """The session is still open when the student writes: no ``mark_solved``, ``reveal_solution``
    or ``end_session`` succeeded before the message the reply answers. After it, a tangent has no
    problem to come back to, and wanting to stop is not quitting the problem."""
    u = last_user_index(events, idx)
    for e in events[:max(u, 0)]:
        if (isinstance(e, ToolEvent) and e.side == "agent" and e.ok
                and e.call.name in ("mark_solved", "reveal_solution", "end_session")):
            return "NOT_APPLICABLE", f"the session was closed ({e.call.name}) before the student's message"
    return APPLIES, "the session is open"


@check("tutoring_answer_not_yet_given")
def answer_not_yet_given(events, idx, params, context=None):
    """The student has not yet given the final answer: no ``check_answer`` found it correct (an
    earlier one, or this reply's own check of the message it answers) and no earlier
    ``mark_solved`` succeeded (this reply's own is the reply's)."""
    steps = {id(e) for e in step_tools(events, idx)}
    for e in events[:idx]:
        if not (isinstance(e, ToolEvent) and e.side == "agent" and e.ok) or id(e) in steps:
            continue
        if e.call.name == "mark_solved":
            return "NOT_APPLICABLE", "the session was marked solved earlier: the student had given the answer"
        d = json_dict(e.output) if e.call.name == "check_answer" else None
        if d is not None and d.get("correct") is True:
            return "NOT_APPLICABLE", "the student had already given the correct final answer"
    c = last_check(events, idx)
    if c is not None and c.get("correct") is True:
        return "NOT_APPLICABLE", "the student gave the correct final answer in the message the reply answers"
    return APPLIES, "the student has not given the final answer yet"



# The student's message works on the problem when it uses the problem's numbers, the maths done
# on them, or asks what the problem's words mean ("what's a tray?").
_MATHS = re.compile(
    r"[%=×÷]|\d\s*[-+x*/]\s*\d|\b(times|plus|minus|divided?|multipl\w*|subtract\w*|take (it |that |them )?(away|off)|"
    r"per ?cent|percent|left over|altogether|in total|total|answer|step|equals?|how (many|much))\b", re.I)
_WHAT_WORD = re.compile(r"\bwhat(?:'s| is| are| does| do)\s+(?:a|an|the)\s+([a-z]+)", re.I)
_CONTENT = re.compile(r"[a-z]{3,}", re.I)
# an aside marked as one ("btw", "off topic but"): a tangent whatever numbers it uses
_ASIDE = re.compile(r"\b(btw|by the way|off[- ]topic|random (q|question|thought)|unrelated|totally different)\b", re.I)
# a question whose subject is one of the story's things ("does a bus have to ...", "can the vans ...")
_STORY_QUESTION = re.compile(r"\b(?:does|do|can|could|would|will|is|are|has|have|must|should)\s+(?:the |a |an |all the |those |these |each |every |her |his |their )?(?:\d+ )?([a-z]{3,})(?:\s+([a-z]{3,}))?", re.I)
# the problem's text said to leave something open ("the problem doesn't say", "in the story")
_PROBLEM_SAYS = re.compile(r"\b(the (problem|question|story) (doesn'?t|does not|didnt|doesnt|never) (say|tell|mention)|in the (problem|story)|it doesn'?t say)\b", re.I)


def _problem_text(events, idx, context) -> str:
    """The problem as the dialogue shows it: get_problem's statement, else what the tutor said."""
    for e in events[:idx]:
        if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and e.call.name == "get_problem":
            d = json_dict(e.output)
            if d and d.get("statement"):
                return str(d["statement"])
    task, domain = getattr(context, "task", None), getattr(context, "domain", None)
    pid = (getattr(task, "extra", None) or {}).get("problem_id")
    problems = getattr(domain, "problems", None)
    if isinstance(problems, dict) and pid in problems:
        return problems[pid].statement
    return " ".join(e.content for e in events[:idx] if isinstance(e, AgentEvent))


@check("tutoring_off_topic")
def off_topic(events, idx, params, context=None):
    """The student went off on a tangent: their latest message neither uses a number of the
    problem (its statement's, a step's, the answer), nor does maths, nor asks what one of the
    problem's words means. A story about a coat 25% off that asks what "off" does to the price
    is about the problem."""
    u = last_user_index(events, idx)
    if u < 0:
        return "NOT_APPLICABLE", "the student said nothing"
    text = events[u].content
    k = known(events, idx, context)
    problem = _problem_text(events, idx, context)
    theirs = set(numbers_in(problem)) | k.statement_numbers | set(k.step_results) | ({k.answer} if k.answer is not None else set())
    aside = _ASIDE.search(text)
    used = [n for n in numbers_in(text) if n in theirs]
    if used and not aside:  # "btw my scooter was $100 like this one" is an aside all the same
        return "NOT_APPLICABLE", f"the student uses the problem's number {used[0]}"
    # a score or a range written with a dash ("we won 4-1", "a 9-5 job") is no sum, once the problem's
    # numbers are known and none of them is in it
    m = next((x for x in _MATHS.finditer(text) if not (theirs and re.fullmatch(r"\d+\s?[-–]\s?\d+", x.group(0).strip()))), None)
    if m:
        return "NOT_APPLICABLE", f"the student works on the maths ({m.group(0)!r})"
    words = {w.lower().rstrip("s") for w in _CONTENT.findall(problem)}
    asked = [w for w in _WHAT_WORD.findall(text) if w.lower().rstrip("s") in words]
    if asked:
        return "NOT_APPLICABLE", f"the student asks what the problem's word {asked[0]!r} means"
    # a question about how the problem's own world works ("does a bus have to be full to leave?",
    # "could the 3 extra kids ride with the teacher? the problem doesn't say"): the problem, read closely
    if not aside:
        for q in question_sentences(text) + [x for x in sentences(text) if _PROBLEM_SAYS.search(x)]:
            subjects = {w.lower().rstrip("s") for m in _STORY_QUESTION.finditer(q) for w in m.groups() if w}
            if _PROBLEM_SAYS.search(q) or subjects & (words - _STOP):
                return "NOT_APPLICABLE", "the student asks about the problem's own story"
    return APPLIES, "the student's message is not about the problem"
