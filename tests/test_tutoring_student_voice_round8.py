"""The seventh blind rating's named faults, each tested as a class over every task (not one transcript's words).

Raters named as still assembled: a stock lead-in before an answer ("step by step, my number is 8"), a
habitual tail glued to the restated problem or to a number ("bike costs $150, honestly."), an aside from
nowhere followed at once by "sorry, what was i doing?", a slip "fixed" from the same sum with no change
shown, a push on a made-up adult's leave and an adult's way of leaving; and as real: a misconception
defended with a reason, asides that grow out of the problem.
"""

from __future__ import annotations

import re
import sys
from fractions import Fraction
from pathlib import Path

from domains.tutoring import student_lines as L
from domains.tutoring.hint_ideas import defences, ideas
from domains.tutoring.problems import fmt, load_handwritten
from domains.tutoring.student import _own_way
from graders.repetition import sentences
from tests.test_tutoring_student_voice import played  # noqa: F401 (the played fixture)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import student_classes as C  # noqa: E402

_EQ = re.compile(r"(\d+(?:[./]\d+)*(?:[-+x/]\d+(?:[./]\d+)*)+)\s*(?:=|\bis\b)\s*(\d+(?:[./]\d+)*)")


def test_no_answer_line_has_a_lead_in_before_it():
    """A child says the number or the working: no "When I did it," / "Step by step," / "Doing the sums,"
    clause, no "my number is", in any line it states an answer or its working with."""
    pools = [*L.STATE["makes_mistake"], *L.STATE["solves_problem"], *L.AFTER_WORK, *L.WORK_CLAUSE, *L.GO_ON,
             *L.SELF_REDO, *L.REDO]
    bad = [ln for ln in pools if C.LEAD_IN.search(ln.replace("{x}", "45").replace("{w}", "60+40=100").replace("{u}", ""))]
    assert not bad, bad[:5]


def test_no_habit_glued_to_a_number_or_inside_the_restated_problem(played):
    """A tail ("lol", "tbh", "honestly") follows what it thinks or feels, never a number; no habitual opener
    goes into the first message's restated problem."""
    bad = []
    for task, msgs in played:
        nums = set(re.findall(r"\d+", task.extra["student_mind"]["statement"]))
        for i, m in enumerate(msgs):
            for s in sentences(m):
                if C.TAILS.search(s):
                    bad.append(s)
                if i == 0 and len(set(re.findall(r"\d+", s)) & nums) >= 2 and C.OPENERS.match(s) and not re.search(r"\d[-+x/]\d", s):
                    bad.append(s)
    assert not bad, bad[:5]


def test_a_tangent_grows_out_of_its_problem_and_asks_nothing_back(played):
    """The aside is about the child's life where its problem's things touch it, and is the whole message:
    never "sorry, what was I doing?" in the same breath."""
    tangents = 0
    for task, msgs in played:
        asides = {a.lower().rstrip(".!") for a in L.expand(*(task.extra["student_mind"].get("asides") or []))}
        for m in msgs:
            if C.RETURN.search(m):
                raise AssertionError(m)
            if any(a in m.lower() for a in asides):
                tangents += 1
    assert tangents >= 20
    for p in load_handwritten():
        assert p.asides, p.id
        for a in L.expand(*p.asides):
            assert not re.search(r"\d", a), (p.id, a)


def test_a_slip_is_fixed_another_way_never_from_the_same_sum(played):
    """The last sum done again shows what changed: never the same calculation said again with a new result
    and the old one not named."""
    assert _own_way("150+15", Fraction(165), fmt, lambda c, v: f"{c}={fmt(v)}") == "150+10=160, 160+5=165"
    assert _own_way("4x12", Fraction(48), fmt, lambda c, v: f"{c}={fmt(v)}").startswith("4x10=40")
    bad = []
    for _, msgs in played:
        said: dict[str, str] = {}
        for m in msgs:
            now = {}
            for lhs, res in _EQ.findall(m):
                if lhs in said and said[lhs] != res and said[lhs] not in re.findall(r"\d+(?:[./]\d+)*", m):
                    bad.append(m)
                now[lhs] = res
            said.update(now)
    assert not bad, bad[:3]


def test_a_misconception_is_defended_with_a_reason(played):
    """Every misconception has reasons a child gives for its way; told it is wrong by a hint that misses,
    some students keep their answer with one."""
    for code in ideas():
        assert defences(code, "How many posts are there?", {"w": "80-25=55", "was": "add", "p": "25"}), code
    said = [m for _, msgs in played for m in msgs]
    assert sum(any(p.search(m) for p in C._DEFENCES) for m in said) >= 3


def test_no_adults_way_of_leaving_nor_a_made_up_adults_leave(played):
    """It leaves as a child does ("gotta go, bye") and pushes from where it is stuck: no "I'm ending the
    session", no "my mum said you would tell me", no deadline from nowhere."""
    for ln in [*L.LEAVE, *L.END_SESSION, *L.PRESSURE]:
        assert not C.ADULT_LEAVE.search(ln), ln
    assert not [m for _, msgs in played for m in msgs if C.ADULT_LEAVE.search(m)]
