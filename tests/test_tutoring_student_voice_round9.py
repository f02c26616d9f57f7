"""The eighth blind rating's named faults, each tested as a class over every task (not one transcript's words).

Raters named as assembled: stock lines across conversations (a stuck frame, "I began and ended up with 195,
then I got stuck", "I see what you mean, but where does it go?", "Oops. Last sum?"); asides bolted on (a
taste or habit from nowhere, "I quite like the ones with shopping in them", "I always do these on paper",
an aside in the first message or with "tbh" glued on); answers arriving ready-made ("Answer: 61", "final:
72", a tidy whole working right after one hint); the same push reworded ("could you just say the answer?
... just tell me the answer"); lines that don't fit the moment ("The clock thing!" with no clock said, "get
it sorted soon").
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from domains.tutoring import student_lines as L
from domains.tutoring.problems import load_handwritten
from graders.repetition import sentences
from tests.test_tutoring_student_voice import played  # noqa: F401 (the played fixture)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import student_classes as C  # noqa: E402

_FILL = {"{x}": "195", "{w}": "60+40+55=155", "{q}": "the 55 minutes", "{c}": "60+40=100", "{u}": "", "{s}": "256",
         "{p}": "the one about the film", "{{w}}": "60+40=100", "{{r}}": "100"}


def _filled(lines: list[str]) -> list[str]:
    out = []
    for ln in lines:
        for k, v in _FILL.items():
            ln = ln.replace(k, v)
        out.append(ln)
    return out


def _asides(task) -> set[str]:
    return {a.lower().rstrip(".!") for a in L.expand(*(task.extra["student_mind"].get("asides") or []))}


def test_no_stock_stuck_frame_in_any_line_nor_any_conversation(played):
    """Stuck, a child says what it did in its own numbers, or just the number: no "I began and ended up with
    X, then I got stuck", no "I see what you mean, but where does it go?", no "Last sum?"."""
    pools = [*L.STATE["opening_stuck"], *L.OPEN_NEXT, *L.SEES_IDEA, *L.SLIP_FIXED, *L.CONFUSED]
    bad = [ln for ln in _filled(pools) if C.STUCK_FRAME.search(ln)]
    assert not bad, bad[:5]
    assert not [m for _, msgs in played for m in msgs if C.STUCK_FRAME.search(m)]


def test_a_stuck_opening_shows_what_it_did(played):
    """A student who opens stuck with an attempt (``opens_with_attempt``) and may show its working says the
    calculation it did, not only a frame around its number."""
    seen = shown = 0
    for task, msgs in played:
        cfg = task.extra.get("student") or {}
        if not cfg.get("opens_with_attempt") or cfg.get("working_when_asked") or not task.extra["student_mind"].get("wrong_expr"):
            continue
        if not re.search(r"\b(?:stuck|so far|for now|then what|is that (?:it|the end)|or is there more|stopped|up to)\b", msgs[0], re.I):
            continue  # (it opened another way: with its answer to check, a question)
        seen += 1
        shown += bool(C.CALC.search(msgs[0]))
    assert seen and shown >= seen * 0.6, (shown, seen)


def test_an_aside_has_a_moment_never_planted_nor_first_nor_with_a_habit(played):
    """No taste or habit from nowhere in any line; no aside of its problem in the first message, before any
    work; an aside takes no "tbh", "lol" or "so basically"."""
    assert not [ln for ln in _filled([*L.CHATTY, *L.AFTER_HARD]) if C.PLANTED_ASIDE.search(ln)]
    bad = []
    for task, msgs in played:
        asides = _asides(task)
        for i, m in enumerate(msgs):
            if C.PLANTED_ASIDE.search(m):
                bad.append(m)
            low = m.lower()
            if any(a in low for a in asides):
                if i == 0:
                    bad.append(m)
                if any(C.HABIT_ON_ASIDE.search(s.strip()) for s in sentences(m)):
                    bad.append(m)
    assert not bad, bad[:5]
    for p in load_handwritten():  # what its problem gives it to drift to is plain: the tail is no part of it
        for a in L.expand(*p.asides):
            assert not re.search(r"\b(?:tbh|lol|haha)\s*$", a), (p.id, a)


def test_an_answer_has_no_test_paper_label(played):
    """"Answer: 61", "final: 72", "Final answer: 45" are a test paper's form, not a chat."""
    pools = [*L.STATE["solves_problem"], *L.STATE["makes_mistake"], *L.AFTER_WORK, *L.CLARIFY, *L.RESTATE, *L.GO_ON]
    assert not [ln for ln in _filled(pools) if C.ANSWER_LABEL.search(ln)]
    assert not [m for _, msgs in played for m in msgs if C.ANSWER_LABEL.search(m)]


def test_moved_by_a_hint_it_often_does_the_next_line_only(played):
    """After the hint that moved it, with three or more lines of working left, a child more often does the
    next line and asks than writes the whole tidy working at once."""
    whole = step = 0
    for _, msgs in played:
        if len(msgs) < 2:
            continue
        calcs = len(C.CALC.findall(msgs[1]))
        whole += calcs >= 3
        step += calcs == 1 and msgs[1].rstrip().endswith("?")
    assert step > whole * 0.6, (step, whole)


def test_a_push_changes_and_is_said_once_a_message(played):
    """Asking again is louder, a bargain, a sulk, or it gives up and tries: never the first ask reworded, nor
    two asks in one message."""
    bad = []
    for _, msgs in played:
        n = 0
        for m in msgs:
            asks = [s for s in sentences(m) if C.PUSHY.search(s)]
            if len(asks) >= 2:
                bad.append(m)
            if asks:
                n += 1
                if n >= 2 and not C.CHANGED_PUSH.search(m):
                    bad.append(m)
    assert len(bad) <= 3, bad[:5]
    for ln in [*L.PUSH_AGAIN, *L.PUSH_SULK]:
        assert C.CHANGED_PUSH.search(ln), ln
    # the mood beside a push is no second push
    assert not [p for p in L.MOOD["pushes_for_answer"][0] + L.MOOD["pushes_for_answer"][1] if C.PUSHY.search(p)]


def test_no_reference_to_a_thing_nobody_named_nor_an_adults_phrasing(played):
    """"The clock thing!" only after a clock was named; a child's hurry, not "get it sorted soon" or "I'd like
    to be told the answer"."""
    pools = [*L.OPEN_HELP["impatient"], *L.OPEN_CHECK["impatient"], *L.PUSH, *L.OPEN_PUSH, *L.PUSH_AGAIN,
             *L.MOOD["pushes_for_answer"][0], *L.MOOD["pushes_for_answer"][1]]
    assert not [ln for ln in _filled(pools) if C.ADULT_WORDS.search(ln)]
    assert not [m for _, msgs in played for m in msgs if C.ADULT_WORDS.search(m)]


def test_the_counters_find_each_class_in_the_rated_packet():
    """The counters see what the raters named (the eighth round's scripted conversations)."""
    packet = (Path(__file__).resolve().parents[1] / "benchmarks/realism_ratings/round8-tutoring/packet.txt").read_text()
    assert C.STUCK_FRAME.search(packet) and C.ANSWER_LABEL.search(packet) and C.PLANTED_ASIDE.search(packet)
    assert C.ADULT_WORDS.search(packet) and C.THING_BACK.search(packet)
    assert C.HABIT_ON_ASIDE.search("so basically i want a coat with a fluffy hood tbh")
