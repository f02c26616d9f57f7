"""The tutoring rules' conditions that need what the tutor knows of the problem (registered as
checks; rules.yaml names them under ``condition``, see graders/rules/conditions.py).

"When the student ... is wrong" arises on a wrong answer, not on a right step of the way (a
``check_answer`` of a step's result says ``correct: false`` with ``equals_result_of_step``);
and "before the student has given it" no longer arises once the student gave the final answer.
"""

from __future__ import annotations

import re

from graders.rules.registry import check
from graders.rules.replies import json_dict, last_user_index, step_tools
from envs.records import ToolEvent

from .knowledge import known, last_check, student_gave_correct
from .problems import numbers_in

APPLIES = "APPLIES"


@check("tutoring_student_wrong")
def student_wrong(events, idx, params, context=None):
    """The student's latest answer is wrong: a right step (a value the problem's working reaches)
    is not a mistake, whatever the final-answer check says of it."""
    c = last_check(events, idx)
    if c is not None:
        if c.get("correct"):
            return "NOT_APPLICABLE", "check_answer says the student's answer is correct"
        if c.get("matches_common_error"):
            return APPLIES, f"check_answer matches the common error {c['matches_common_error']!r}"
        if c.get("equals_result_of_step") not in (None, False):
            return "NOT_APPLICABLE", f"the student's value is the result of step {c['equals_result_of_step']}, a right step"
        return APPLIES, "check_answer says the student's answer is wrong"
    k = known(events, idx, context)
    ok = student_gave_correct(events, idx, k)
    u = last_user_index(events, idx)
    latest = {n for n in numbers_in(events[u].content) if n not in k.statement_numbers} if u >= 0 else set()
    # a step's result offered as a step ("so far", "for the first part") is right; offered as the
    # answer ("I've done it: 8") it is the mistake of stopping a step short
    as_step = u >= 0 and re.search(r"\b(step|so far|first (part|bit|step)|for the first|part one|halfway)\b", events[u].content, re.I)
    if ok is False and not (latest and latest <= set(k.step_results) and as_step):
        return APPLIES, "the student's latest answer is wrong"
    return "NOT_APPLICABLE", "the student's latest answer is not wrong (a right step, or none)"


@check("tutoring_answer_not_yet_given")
def answer_not_yet_given(events, idx, params, context=None):
    """The student has not yet given the final answer: no earlier ``check_answer`` found it
    correct and no earlier ``mark_solved`` succeeded (this reply's own step is the reply's)."""
    steps = {id(e) for e in step_tools(events, idx)}
    for e in events[:idx]:
        if not (isinstance(e, ToolEvent) and e.side == "agent" and e.ok) or id(e) in steps:
            continue
        if e.call.name == "mark_solved":
            return "NOT_APPLICABLE", "the session was marked solved earlier: the student had given the answer"
        d = json_dict(e.output) if e.call.name == "check_answer" else None
        if d is not None and d.get("correct") is True:
            return "NOT_APPLICABLE", "the student had already given the correct final answer"
    return APPLIES, "the student has not given the final answer yet"

