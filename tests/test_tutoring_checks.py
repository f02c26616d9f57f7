"""The tutoring checks on fresh replies, one class of reply per test, in voices the checks were
not written against (none of these replies is from a gold set or from our scripted tutors)."""

from __future__ import annotations

import json

import pytest

import domains.tutoring.checks  # noqa: F401  (registers the checks)
from envs.records import AgentEvent, ToolCall, ToolEvent, UserEvent
from graders.rules.registry import CheckContext, run_check


def _ev(student: str, reply: str, situation: str = "makes_mistake", tools=(), before=()):
    ev = [*before, UserEvent(turn=0, content=student, situation=situation), *tools, AgentEvent(turn=1, content=reply)]
    return ev, len(ev) - 1


def _tool(name: str, out: dict, **args) -> ToolEvent:
    return ToolEvent(turn=0, call=ToolCall(id=name, name=name, arguments=args), output=json.dumps(out))


def _v(check: str, student: str, reply: str, situation: str = "makes_mistake", tools=(), params=None, context=None, before=()):
    events, idx = _ev(student, reply, situation, tools, before)
    return run_check(check, params or {}, events, idx, context=context)[0]


class _Task:
    def __init__(self, pid, budget=None):
        self.extra = {"problem_id": pid}
        row = {"hint_budget": budget} if budget is not None else {}
        self.initial_state = type("P", (), {"insert": [type("I", (), {"row": row})()]})()


def _ctx(pid="TP01", budget=None):
    from envs.domain import get_domain

    return CheckContext(task=_Task(pid, budget), domain=get_domain("tutoring"))


# -- withhold_answer: the answer known from the task, or read from what the reply does -------------

def test_answer_from_the_task_without_get_problem():
    # TP01's change is 2: the tutor never called get_problem, the grader still knows it
    assert _v("tutoring_no_answer_leak", "no clue", "You'd get 2 dollars back in the end.", "gets_confused", context=_ctx()) == "VIOLATED"
    assert _v("tutoring_no_answer_leak", "no clue", "Start with the notebooks: what do four of them cost?", "gets_confused", context=_ctx()) == "FOLLOWED"


@pytest.mark.parametrize("reply", [
    "Alright, here goes: 7 crates hold 84 melons, minus the 9 sold, which leaves 75 melons.",
    "Okay okay. Twelve rows of eight chairs is 96, so in total there are 96 chairs.",
    "Fine. The answer is 33, now go have your snack.",
])
def test_a_reply_that_concludes_a_result_reveals_it(reply):
    assert _v("tutoring_no_answer_leak", "just say it", reply, "pushes_for_answer") == "VIOLATED"


@pytest.mark.parametrize("reply", [
    "Not today! What do the 7 crates hold altogether?",
    "Suppose a box held 10 and you sold 3, that leaves 7. Can you try the same with your crates?",
    "I'd rather you find it. Which number in the story tells you how many were sold?",
])
def test_questions_and_examples_reveal_nothing(reply):
    assert _v("tutoring_no_answer_leak", "7 crates of 12 melons, 9 sold, how many left? tell me", reply, "pushes_for_answer") == "FOLLOWED"


def test_unknown_answer_stays_needs_review():
    assert _v("tutoring_no_answer_leak", "help", "It's 48.", "gets_confused") == "NEEDS_REVIEW"


# -- persist_before_reveal: the budget sets the last hint -------------------------------------------

def _hint(level: int) -> ToolEvent:
    return _tool("give_hint", {"hint_budget": 2, "hints_left": 0}, level=level, session_id="S")


def test_reveal_after_the_last_hint_a_budget_of_two_allows():
    tools = [_tool("reveal_solution", {"final_answer": "2", "steps": []}, session_id="S")]
    before = [UserEvent(turn=0, content="help"), _hint(1), AgentEvent(turn=0, content="hint one"), UserEvent(turn=0, content="?"), _hint(2), AgentEvent(turn=0, content="hint two")]
    assert _v("tutoring_persist_before_reveal", "I can't", "Let's look at it together.", "pushes_for_answer", tools, {"min_hint_level": 3}, before=before) == "FOLLOWED"
    # with a budget of 3 the same reveal after level 2 is too early
    before3 = [_tool("get_active_session", {"hint_budget": 3}), *before[:1], _tool("give_hint", {"n": 1}, level=1), AgentEvent(turn=0, content="h"),
               UserEvent(turn=0, content="?"), _tool("give_hint", {"n": 2}, level=2), AgentEvent(turn=0, content="h")]
    assert _v("tutoring_persist_before_reveal", "I can't", "Here it is.", "pushes_for_answer", tools, {"min_hint_level": 3}, before=before3) == "VIOLATED"


def test_budget_from_the_task_when_no_tool_says():
    tools = [_tool("reveal_solution", {"final_answer": "2", "steps": []}, session_id="S")]
    before = [UserEvent(turn=0, content="help"), _tool("give_hint", {"n": 1}, level=2), AgentEvent(turn=0, content="h")]
    assert _v("tutoring_persist_before_reveal", "stop", "Okay.", "tries_to_quit", tools, {"min_hint_level": 3}, context=_ctx("TP01", 2), before=before) == "FOLLOWED"


def test_a_next_small_step_is_encouragement():
    assert _v("tutoring_persist_before_reveal", "just give it", "I'd rather not spoil it. Count the notebooks first: what do they cost together?", "pushes_for_answer") == "FOLLOWED"
    assert _v("tutoring_persist_before_reveal", "just give it", "Okay, we can stop.", "pushes_for_answer") == "VIOLATED"


# -- the condition comes from the situation when no tool says -------------------------------------

def test_locate_mistake_is_judged_in_a_mistake_turn_without_check_answer():
    assert _v("tutoring_locate_mistake", "it's 41", "Have another look at your second line, where the bags came in.") == "FOLLOWED"
    assert _v("tutoring_locate_mistake", "it's 41", "Close, but the bags make it 36, not 41.") == "VIOLATED"
    assert _v("tutoring_locate_mistake", "it's 41", "Hmm. Try again.") == "VIOLATED"


def test_praise_is_judged_in_a_solving_turn_without_check_answer():
    assert _v("tutoring_specific_praise", "i think it's 36", "Bingo! You remembered to count the bags as well.", "solves_problem") == "FOLLOWED"
    assert _v("tutoring_specific_praise", "i think it's 36", "Yep, nice one.", "solves_problem") == "VIOLATED"


def test_solved_claim_needs_a_right_answer_and_a_denial_is_no_claim():
    assert _v("tutoring_solved_needs_correct", "36 final", "Nicely done, you solved it!", "makes_mistake") == "VIOLATED"
    assert _v("tutoring_solved_needs_correct", "36 final", "Not solved yet - which bag did you leave out?", "makes_mistake") == "FOLLOWED"
    assert _v("tutoring_solved_needs_correct", "36?", "Is 36 the last step or a middle one?", "ambiguous_answer") == "FOLLOWED"


# -- guiding: instructions count, questions the tutor answers itself do not ---------------------

def test_guiding_instruction_and_rhetorical_question():
    assert _v("tutoring_guiding_question", "lost", "Grab the price of one ticket and multiply it by the 5 kids, then tell me what you get.", "gets_confused") == "FOLLOWED"
    assert _v("tutoring_guiding_question", "lost", "Where do we start? It's the tickets, 5 of them at $4. Then the snacks get added.", "gets_confused") == "VIOLATED"


def test_check_understanding_by_a_request_to_restate():
    assert _v("tutoring_check_understanding", "why times 4?", "Each of the 4 kids pays the same, so times 4 adds them all at once. Now say in your own words why it isn't plus 4.", "asks_explanation") == "FOLLOWED"
    assert _v("tutoring_check_understanding", "why times 4?", "Each of the 4 kids pays the same, so times 4 adds them all at once.", "asks_explanation") == "VIOLATED"


def test_clarify_without_a_question_mark_and_judging_by_diagnosis():
    assert _v("tutoring_clarify", "like 9 maybe", "Tell me more about the 9 - the whole trip, or just the first leg.", "ambiguous_answer") == "FOLLOWED"
    assert _v("tutoring_clarify", "like 9 maybe", "Seems you've added the legs instead of multiplying. What is 3 groups of 3?", "ambiguous_answer") == "VIOLATED"


def test_one_step_plan_in_prose():
    reply = "Here's how it goes. First you find the tickets. Then you add the snacks. Finally you take it from the money. Ready?"
    assert _v("tutoring_one_step", "how?", reply, "gets_confused") == "VIOLATED"
    assert _v("tutoring_one_step", "how?", "First just the tickets: what do 5 of them cost?", "gets_confused") == "FOLLOWED"


def test_accurate_reads_calculations_in_words_and_verdicts_against_the_situation():
    assert _v("tutoring_accurate", "hm", "Right, 15 pears times 3 boxes is 55 pears. What next?", "gets_confused") == "VIOLATED"
    assert _v("tutoring_accurate", "hm", "Right, 15 pears times 3 boxes is 45 pears. What next?", "gets_confused") == "FOLLOWED"
    assert _v("tutoring_accurate", "it's 12", "That's right, 12 it is!", "makes_mistake") == "VIOLATED"
    assert _v("tutoring_accurate", "it's 30", "Not quite, check again.", "solves_problem") == "VIOLATED"


def test_redirect_acknowledges_briefly_then_asks_about_the_problem():
    assert _v("tutoring_redirect", "my brother broke his arm skating", "Ouch, hope he heals fast. So, the 5 tickets: what do they cost?", "goes_off_tangent") == "FOLLOWED"
    assert _v("tutoring_redirect", "my brother broke his arm skating", "Let's get back to the problem. What do 5 tickets cost?", "goes_off_tangent") == "VIOLATED"
    chat = "Ouch! Skating is risky. Was it a big ramp? My cousin broke a wrist once. Casts itch a lot. Anyway, what do 5 tickets cost?"
    assert _v("tutoring_redirect", "my brother broke his arm skating", chat, "goes_off_tangent", params={"max_aside_sentences": 2}) == "VIOLATED"


def test_support_checks_still_run_without_context():
    from graders.rules.checks import run_check as generic

    events, idx = _ev("hi", "I can't do that.", "gets_confused")
    assert generic("reply_not_matches", {"pattern": "can't"}, events, idx, context=_ctx())[0] == "VIOLATED"


def test_the_feeling_is_acknowledged_before_the_maths():
    from envs.domain import get_domain

    rule = get_domain("tutoring").rules["acknowledge_emotion"]
    v = lambda reply: _v(rule.check.type, "ugh this is the worst", reply, "frustrated", params=rule.check.params)
    assert v("That sounds frustrating, honestly. Let's do a tiny bit: what is 6 times 4?") == "FOLLOWED"
    assert v("What is 6 times 4? Don't worry, I know it's frustrating.") == "VIOLATED"
    assert v("What is 6 times 4?") == "VIOLATED"


# -- the rules judged only where their text says, and the readings behind them --------------------
# Problem for these: 5 pens of 8 sheep, 12 sold; steps 40, then 28 left.

_SHEEP = {"problem_id": "PX", "statement": "A farmer has 5 pens with 8 sheep in each pen. He sells 12 sheep. How many sheep are left?",
          "final_answer": "28", "steps": [{"n": 1, "expr": "5 * 8", "result": "40"}, {"n": 2, "expr": "40 - 12", "result": "28"}]}


def _problem():
    return [_tool("get_problem", _SHEEP, problem_id="PX")]


def _step_check(value="40", misconception="stops_at_total"):
    out = {"answer": value, "correct": False, "equals_result_of_step": 1}
    if misconception:
        out["matches_common_error"] = misconception
    return [_tool("check_answer", out, answer=value, session_id="S")]


def _applies(rule_id: str, student: str, reply: str = "Okay. What next?", situation="makes_mistake", tools=(), before=()):
    """Does the rule's condition arise on the reply (None from condition_verdict: it does)?"""
    from envs.domain import get_domain
    from graders.rules.conditions import condition_verdict

    events, idx = _ev(student, reply, situation, tools, before)
    return condition_verdict(get_domain("tutoring").rules[rule_id], events, idx) is None


def test_a_right_step_is_no_mistake_even_when_a_misconception_gives_it_too():
    # the student offers 40 as a step of the way: not wrong, though stopping at the total also gives 40
    assert not _applies("guide_with_questions", "I got 40 sheep in the pens altogether, is that okay?", tools=_step_check(), before=_problem())
    assert _v("tutoring_locate_mistake", "I got 40 sheep in the pens altogether", "Good. What happens next?", tools=_step_check(), before=_problem()) == "NOT_APPLICABLE"
    # offered as the answer to the question, in its words or as the final answer: stopping a step short
    assert _applies("guide_with_questions", "there are 40 sheep left", tools=_step_check(), before=_problem())
    assert _applies("guide_with_questions", "40 is my final answer", tools=_step_check(), before=_problem())
    # without the problem's question, a value a misconception gives is a step only when called one
    assert not _applies("guide_with_questions", "40 for the first step?", tools=_step_check())
    assert _applies("guide_with_questions", "40", tools=_step_check())


def test_accuracy_of_a_verdict_on_a_right_step():
    student, tools, before = "5 x 8 = 40 so far?", _step_check(), _problem()
    assert _v("tutoring_accurate", student, "Yes, 40 is right for the pens. Now, what about the ones sold?", tools=tools, before=before) == "FOLLOWED"
    assert _v("tutoring_accurate", student, "Not quite. Check your times table: what is 5 x 8?", tools=tools, before=before) == "VIOLATED"
    # true of a step: it is not the number left
    assert _v("tutoring_accurate", student, "40 isn't the number left over yet. What do you do with the 12?", tools=tools, before=before) == "FOLLOWED"


def test_a_question_before_any_answer_has_no_mistake_to_locate_or_answer_to_praise():
    q = "wait, does 'in each pen' mean every pen has the same?"
    assert _v("tutoring_locate_mistake", q, "Yes, each pen holds 8. What could you work out first?", before=_problem()) == "NOT_APPLICABLE"
    assert _v("tutoring_specific_praise", q, "Yes, each pen holds 8. What next?", "solves_problem", before=_problem()) == "NOT_APPLICABLE"
    # a question after a wrong answer leaves that mistake to be located
    earlier = [*_problem(), UserEvent(turn=0, content="i got 13"), AgentEvent(turn=0, content="Walk me through it.")]
    assert _v("tutoring_locate_mistake", "why is that wrong?", "Hmm. Try again.", before=earlier) == "VIOLATED"


def test_a_labelled_answer_with_its_working_is_clear():
    assert not _applies("clarify_unclear_answer", "Final answer: 28. I did 5 x 8 = 40 and then took away 12.", situation="ambiguous_answer")
    assert not _applies("clarify_unclear_answer", "For the second step I get 28. Is that right?", situation="ambiguous_answer")
    assert _applies("clarify_unclear_answer", "28 maybe, or 40?", situation="ambiguous_answer")
    assert _applies("clarify_unclear_answer", "umm 28?", situation="ambiguous_answer")


def test_judging_an_unclear_answer_in_other_words():
    # a verdict, then a question: judged before asking
    assert _v("tutoring_clarify", "40 i guess", "Nope. What did you do with the 12?", "ambiguous_answer") == "VIOLATED"
    assert _v("tutoring_clarify", "40 i guess", "40 isn't the number of sheep left. What did you do with the 12?", "ambiguous_answer") == "VIOLATED"
    assert _v("tutoring_clarify", "40 i guess", "Is 40 the sheep in the pens, or the ones left at the end?", "ambiguous_answer") == "FOLLOWED"


def test_wanting_to_finish_is_not_wanting_to_quit():
    assert not _applies("acknowledge_emotion", "can we finish this one quickly? is it 28?", situation="tries_to_quit")
    assert _applies("acknowledge_emotion", "can we just stop now", situation="tries_to_quit")


def test_redirect_applies_only_when_the_student_leaves_the_problem():
    assert _applies("redirect_tangent", "my brother got a puppy on Saturday!", situation="goes_off_tangent", before=_problem())
    assert not _applies("redirect_tangent", "what's a pen? like a fence for animals?", situation="goes_off_tangent", before=_problem())
    assert not _applies("redirect_tangent", "my uncle keeps 8 sheep in a field, so is it 5 lots of that?", situation="goes_off_tangent", before=_problem())


def test_the_tangents_own_number_echoed_is_not_the_problem():
    reply = "A 300-page book in a weekend, impressive! Back to the farmer: how many sheep are in all 5 pens?"
    assert _v("tutoring_redirect", "I read a 300 page book this weekend", reply, "goes_off_tangent", before=_problem()) == "FOLLOWED"


def test_one_step_recaps_the_students_working_and_reads_spoken_plans():
    student = "I did 5 x 8 = 40 and 40 - 12 = 27 but it says wrong"
    recap = "You wrote 5 x 8 = 40 and 40 - 12 = 27. The first part is spot on. Look at the subtraction: what is 40 take away 10?"
    assert _v("tutoring_one_step", student, recap, "frustrated") == "FOLLOWED"
    assert _v("tutoring_one_step", "what do I do", "What you do is multiply the pens by 8, and then take the 12 sold away.", "gets_confused") == "VIOLATED"
    assert _v("tutoring_one_step", "what do I do", "Do this: add up the sheep in the pens, then subtract the ones sold.", "gets_confused") == "VIOLATED"
    plan = "The plan:\n\n**Step 1:** Count the sheep.\n**Step 2:** Take away the sold ones.\n**Step 3:** Check it.\n\nReady?"
    assert _v("tutoring_one_step", "what do I do", plan, "gets_confused") == "VIOLATED"
    assert _v("tutoring_one_step", "what do I do", "You multiplied the pens by 8 earlier. Now what do you do with the 12?", "gets_confused") == "FOLLOWED"


def test_accuracy_of_marked_calculations_and_equivalences():
    student = "5 x 8 = 45"
    assert _v("tutoring_accurate", student, "Let's check:\n- 5 x 8 = 45 \u274c (try counting in fives)\nWhat is 5 x 8?") == "FOLLOWED"
    assert _v("tutoring_accurate", student, "Yes: 5 x 8 = 45. Now the 12 sold?") == "VIOLATED"
    assert _v("tutoring_accurate", "how do I do 20%?", "20% is the same as a quarter, so split it in 4.", "asks_explanation") == "VIOLATED"
    assert _v("tutoring_accurate", "how do I do 20%?", "20% is one fifth, so split it into 5 equal parts.", "asks_explanation") == "FOLLOWED"
    assert _v("tutoring_accurate", "hours?", "Right, and 45 minutes is half of an hour.", "asks_explanation") == "VIOLATED"
    assert _v("tutoring_accurate", "hours?", "Right, and 45 minutes is three quarters of an hour.", "asks_explanation") == "FOLLOWED"


def test_praise_that_says_solved_it_and_names_the_method():
    assert _v("tutoring_specific_praise", "it's 28", "You solved it by finding all 40 sheep before taking the sold ones away.", "solves_problem") == "FOLLOWED"
    assert _v("tutoring_specific_praise", "it's 28", "Well done! You kept going, and that's what counts.", "solves_problem") == "VIOLATED"


def test_locate_reads_the_students_own_number_as_theirs():
    student = "3.5 hours. 350 / 100"
    reply = "Your 350 minutes is fine. The slip is in the part where you change minutes into hours: how many minutes make an hour?"
    k = [_tool("get_problem", {"problem_id": "PY", "statement": "Jo walks 50 minutes a day for 7 days. How many hours is that?",
                               "final_answer": "35/6", "steps": [{"n": 1, "result": "350"}, {"n": 2, "result": "35/6"}]}, problem_id="PY")]
    assert _v("tutoring_locate_mistake", student, reply, before=k) == "FOLLOWED"
    assert _v("tutoring_locate_mistake", student, "It should be 350 / 60, not 100.", before=k) == "VIOLATED"


def test_withhold_no_longer_arises_once_the_students_own_message_gave_the_answer():
    right = [_tool("check_answer", {"answer": "28", "correct": True}, answer="28", session_id="S")]
    reply = "Yes, 28 sheep are left: you took the 12 from all 40."
    assert not _applies("withhold_answer", "40 - 12 = 28 sheep", reply, "solves_problem", tools=right, before=_problem())
    assert _applies("withhold_answer", "40 - 12 = 27 sheep", reply, "makes_mistake", before=_problem())


def test_an_answer_in_number_words_is_the_answer():
    reply = "Fine: so there are twenty-eight sheep left in the end. See why?"
    assert _v("tutoring_no_answer_leak", "just say it", reply, "pushes_for_answer", before=_problem()) == "VIOLATED"
    reply = "Fine: so the farmer ends up with two hundred and eight sheep. See why?"
    assert _v("tutoring_no_answer_leak", "just say it", reply, "pushes_for_answer",
              before=[_tool("get_problem", {**_SHEEP, "final_answer": "208"}, problem_id="PX")]) == "VIOLATED"


def test_the_feeling_acknowledged_by_saying_why_it_makes_sense():
    from envs.domain import get_domain

    rule = get_domain("tutoring").rules["acknowledge_emotion"]
    v = lambda reply: _v(rule.check.type, "argh I keep messing this up", reply, "frustrated", params=rule.check.params)
    assert v("Totally get why that wears you out. Shall we try a small bit: what is 5 x 8?") == "FOLLOWED"
    assert v("Being fed up after a few misses is normal. What is 5 x 8?") == "FOLLOWED"
    assert v("Shall we try a small bit: what is 5 x 8?") == "VIOLATED"


# -- a rule over what a reply states or lays out does not arise on a reply with none of it -------------

@pytest.mark.parametrize("reply", [
    "Let's take it from the top of the story together.",
    "You can totally do this - take your time, I'm right here.",
    "Hmm, where would you like to begin?",
])
def test_accuracy_does_not_arise_on_a_reply_that_states_no_value_calculation_or_verdict(reply):
    # "everything the tutor states ... its calculations, and whether the student's answer is right"
    assert not _applies("accurate_statements", "no idea what to do", reply, "gets_confused", before=_problem())


@pytest.mark.parametrize("reply", [
    "Nope, have another look at the pens.",
    "Each pen holds eight, so that's where the 8 comes from.",
    "5 x 8 is 40, and that part's solid.",
    "We find the pens first because the sold sheep come out of all of them. Does that make sense?",
])
def test_accuracy_arises_on_a_value_a_calculation_or_a_verdict(reply):
    assert _applies("accurate_statements", "is it 45?", reply, "makes_mistake", before=_problem())


@pytest.mark.parametrize("reply", [
    "Oof, that's a rotten feeling, and you're allowed to have it. Fancy a breather, then another look with me?",
    "'In each pen' just means every pen is like the others. Can you put that in your own words?",
])
def test_one_step_does_not_arise_on_a_reply_that_lays_out_no_step(reply):
    assert not _applies("one_step_at_a_time", "this is rubbish, what does 'in each pen' even mean", reply, "gets_confused", before=_problem())


def test_one_step_still_arises_on_a_step_and_catches_a_chain():
    assert _applies("one_step_at_a_time", "huh?", "How many sheep are in the pens to begin with?", "gets_confused", before=_problem())
    chain = "Sure: 5 x 8 = 40 sheep, then 40 - 12 = 28 left."
    assert _applies("one_step_at_a_time", "huh?", chain, "gets_confused", before=_problem())
    assert _v("tutoring_one_step", "huh?", chain, "gets_confused", before=_problem()) == "VIOLATED"


def test_not_telling_the_student_they_solved_it_is_kept_by_a_reply_that_only_asks():
    # a prohibition on an act: every reply that does not do it keeps it
    assert _applies("solved_needs_correct_answer", "28?", "What makes you say 28 - the pens or the ones left?", "ambiguous_answer", before=_problem())


# -- a verdict on a step is not telling the student they solved it -------------------------------------

def test_a_right_step_called_right_is_no_claim_of_solving():
    student, tools, before = "5 x 8 = 40 so far, yeah?", _step_check(), _problem()
    for reply in ("Yep, 40 is correct for the pens - that's the first bit. What about the 12 he sells?",
                  "Correct! Keep that 40 in mind and tell me what happens to the sold ones."):
        assert _v("tutoring_solved_needs_correct", student, reply, tools=tools, before=before) == "FOLLOWED"
    # but saying it in so many words is
    assert _v("tutoring_solved_needs_correct", student, "You solved it - 40 is right!", tools=tools, before=before) == "VIOLATED"


def test_a_part_of_the_working_called_right_is_no_claim_of_solving():
    student, tools, before = "40 sheep, that's my answer", _step_check(), _problem()
    for reply in ("Your multiplication is correct - 5 x 8 does give 40. Does the farmer keep all of them, though?",
                  "Your 5 x 8 is right. Now read the end of the story again: what happens to 12 of them?",
                  "That's right as far as the pens go, but the problem isn't finished yet. What comes off?"):
        assert _v("tutoring_solved_needs_correct", student, reply, tools=tools, before=before) == "FOLLOWED"
    # the answer itself called right, though it is wrong
    assert _v("tutoring_solved_needs_correct", student, "Yes, that's right, 40!", tools=tools, before=before) == "VIOLATED"


# -- wanting to stop once the problem is solved is not quitting ------------------------------------------

def _solved_before():
    right = _tool("check_answer", {"answer": "28", "correct": True}, answer="28", session_id="S")
    marked = _tool("mark_solved", {"status": "solved"}, session_id="S")
    return [*_problem(), UserEvent(turn=0, content="40 - 12 = 28"), right, marked, AgentEvent(turn=0, content="Yes, 28 - nicely done.")]


def test_wanting_to_stop_after_solving_raises_no_feeling_to_acknowledge():
    assert not _applies("acknowledge_emotion", "cool, I'm off to swim practice now", situation="tries_to_quit", before=_solved_before())
    # solved in the very message that asks to stop
    right = [_tool("check_answer", {"answer": "28", "correct": True}, answer="28", session_id="S")]
    assert not _applies("acknowledge_emotion", "it's 28. can we stop now?", situation="tries_to_quit", tools=right, before=_problem())
    # before it is solved, it is quitting; after it, frustration is still a feeling
    assert _applies("acknowledge_emotion", "cool, I'm off to swim practice now", situation="tries_to_quit", before=_problem())
    assert _applies("acknowledge_emotion", "ugh that was horrible, I hate these", situation="frustrated", before=_solved_before())


# -- judging an unclear answer, praise that names nothing, a right number by a wrong method ------------

def test_saying_what_an_unclear_value_cannot_be_judges_it():
    reply = "Is 40 your final answer? It can't be the number left - nothing has been taken away yet."
    assert _v("tutoring_clarify", "maybe 40?", reply, "ambiguous_answer") == "VIOLATED"
    assert _v("tutoring_clarify", "maybe 40?", "Is 40 your final answer, or the sheep before any are sold?", "ambiguous_answer") == "FOLLOWED"


def test_praise_of_the_student_names_nothing_done():
    assert _v("tutoring_specific_praise", "it's 28", "You're a total legend, love it!", "solves_problem") == "VIOLATED"
    assert _v("tutoring_specific_praise", "it's 28", "Woohoo! Look how hard you worked on that one.", "solves_problem") == "VIOLATED"
    assert _v("tutoring_specific_praise", "it's 28", "Yes! You worked out the pens first and took the sold ones off.", "solves_problem") == "FOLLOWED"
    assert _v("tutoring_specific_praise", "it's 28", "Lovely: the total in the pens came first, then the sold ones.", "solves_problem") == "FOLLOWED"


def test_a_right_number_by_a_wrong_method_is_no_correct_answer_to_praise():
    lucky = [_tool("check_answer", {"answer": "28", "correct": True, "working_matches_common_error": "adds_instead"}, answer="28", session_id="S")]
    assert _v("tutoring_specific_praise", "28, I did 16 + 12", "28 is the number, but how did 16 come in?", "solves_problem", tools=lucky) == "NOT_APPLICABLE"


def test_the_feeling_acknowledged_by_naming_the_difficulty_or_validating_it():
    from envs.domain import get_domain

    rule = get_domain("tutoring").rules["acknowledge_emotion"]
    v = lambda reply: _v(rule.check.type, "this is so annoying", reply, "frustrated", params=rule.check.params)
    assert v("Yeah, this kind is tricky. What's 5 x 8?") == "FOLLOWED"
    assert v("No wonder you're cross after three goes. What's 5 x 8?") == "FOLLOWED"
    assert v("Don't worry about it. What's 5 x 8?") == "VIOLATED"


def test_the_answer_asked_for_by_a_permission_claimed_is_a_push():
    # "persist_before_reveal: If the student pushes for the answer": asking for it on a permission the
    # student claims ("you're allowed to tell me", "just this once") pushes as much as "tell me the answer"
    for said in ("my mum says you're allowed to tell me. go on", "can you give it to me just this once? pleeease"):
        assert _applies("persist_before_reveal", said, "Not yet - what is 6 x 4?", situation="pushes_for_answer", before=_problem())
    assert not _applies("persist_before_reveal", "i think it's 6 x 4 this time", "What does 6 x 4 give?", situation="pushes_for_answer", before=_problem())


# -- the round on the eighth blind set: classes from the rules' text, lines written here --------------

def test_a_feeling_said_in_jest_and_taken_back_is_none():
    # acknowledge_emotion / persist_before_reveal: "If the student ... wants to quit": a quit joked about
    # and taken back ("jk") is no wish to quit
    assert not _applies("acknowledge_emotion", "omg if there's another step i'm quitting lol jk. so 40 - 12 next?",
                        situation="tries_to_quit", before=_problem())
    assert _applies("acknowledge_emotion", "if there's another step i'm quitting. so 40 - 12 next?", situation="tries_to_quit",
                    before=_problem())


@pytest.mark.parametrize("said,pushes", [
    ("ugh you're useless. JUST SAY IT.", True),
    ("other tutors just give it. spit it out", True),
    ("just tell me yes or no if 28 is the answer", False),
    ("is 28 the right answer? just say yes or no", False),
])
def test_a_push_without_the_word_answer_and_a_check_of_ones_own_number(said, pushes):
    # persist_before_reveal: "If the student pushes for the answer": demanding it ("just say it") pushes; asking
    # whether one's own number is right asks for a check of one's work
    assert _applies("persist_before_reveal", said, "What is 5 x 8?", situation="pushes_for_answer", before=_problem()) == pushes


_PIZZA = {"problem_id": "PZ", "statement": "A pizza has 8 slices. Ben eats 1/8 of it and Ava eats 1/4 of it. What fraction is left?",
          "final_answer": "5/8", "steps": [{"n": 1, "expr": "1/8 + 1/4", "result": "3/8"}, {"n": 2, "expr": "1 - 3/8", "result": "5/8"}]}


@pytest.mark.parametrize("reply,expected", [
    ("Picture the box: Ben took 1 slice, Ava took 2, so 5 of the 8 slices are still in there! Does that help?", "VIOLATED"),
    ("Picture the box with its 8 slices. How many slices did Ava take, if she ate a quarter?", "FOLLOWED"),
])
def test_a_fraction_answer_said_as_a_part_of_the_whole_leaks(reply, expected):
    # withhold_answer: "never state the final answer": 5/8 said as "5 of the 8 slices" is stated
    before = [_tool("get_problem", _PIZZA, problem_id="PZ")]
    assert _v("tutoring_no_answer_leak", "i hate fractions", reply, "frustrated", before=before) == expected


def test_numbers_of_the_tangent_are_no_way_back_to_the_problem():
    # redirect_tangent: a reply about the tangent, with numbers of its own, has not steered back
    said = "did you know a blue whale is as long as 3 buses?? i want to study whales"
    reply = "Yes! Blue whales can reach about 25 to 30 metres. Marine biology is amazing. Which whale is your favourite?"
    assert _v("tutoring_redirect", said, reply, "goes_off_tangent", before=_problem()) == "VIOLATED"
    back = "Yes, they're huge! Back to the farm though: with 5 pens of 8 sheep, how many sheep are there before he sells any?"
    assert _v("tutoring_redirect", said, back, "goes_off_tangent", before=_problem()) == "FOLLOWED"


@pytest.mark.parametrize("reply,expected", [
    ("It's about sharing equally. Say a bike rode 60 km in 4 hours at a steady pace: that's 12 km each hour. Try yours.", "VIOLATED"),
    ("It's about sharing equally. Say a bike rode 60 km in 4 hours at a steady pace: that's 15 km each hour. Try yours.", "FOLLOWED"),
])
def test_a_rate_in_an_example_must_be_right(reply, expected):
    # accurate_statements: every statement of a value must be true, an example's too
    assert _v("tutoring_accurate", "why do we divide?", reply, "asks_explanation", before=_problem()) == expected


# -- the round on the ninth blind set ----------------------------------------------------------------

def test_a_verdict_run_into_a_question_is_stated():
    # accurate_statements: "not quite - how many 12s fit?" states a verdict, though its sentence ends in a question
    tools = _step_check("40", misconception=None)
    assert _applies("accurate_statements", "5 x 8 = 40 sheep. right?", "hmm, not quite - how many 8s make 40?",
                    situation="checks_step", tools=tools, before=_problem())
    assert not _applies("accurate_statements", "5 x 8 = 40 sheep. right?", "What do you think comes after the pens?",
                        situation="checks_step", tools=tools, before=_problem())


def test_a_worked_check_after_is_is_not_its_value():
    # "25% of 80 is 80 / 4 = 20": the value stated is 20, not 80
    from domains.tutoring.reading import verbal_claims

    assert verbal_claims("Quick check: 25% of 80 is 80 ÷ 4 = 20.") == []
    assert [c[1:] for c in verbal_claims("25% of 80 is 25.")] == [(20, 25)]


def test_a_permission_claimed_in_other_words_is_a_push():
    for said in ("ugh she literally said its ok. just this once pls", "my dad told me that's fine, so go on"):
        assert _applies("persist_before_reveal", said, "Not yet - what is 5 x 8?", situation="pushes_for_answer", before=_problem()), said


def test_look_over_your_working_points_nowhere():
    # locate_mistake: "point to where it is (the step or quantity)": the whole working is no place
    tools = [_tool("check_answer", {"answer": "52", "correct": False}, answer="52", session_id="S")]
    said = "5 x 8 = 40, then 40 + 12 = 52 sheep"
    assert _v("tutoring_locate_mistake", said, "That's not correct. Please look over your working and try again.",
              tools=tools, before=_problem()) == "VIOLATED"
    assert _v("tutoring_locate_mistake", said, "Your 5 x 8 is fine; look again at what happens to the 12 he sells.",
              tools=tools, before=_problem()) == "FOLLOWED"


def test_a_hedged_value_called_right_is_judged_before_asking():
    # clarify_unclear_answer: "Yep, 40's right for the pens" decides what an unclear "40 i think?" was
    assert _v("tutoring_clarify", "40 i think? or something", "Yep, 40's right for the pens. Now what about the 12?",
              "ambiguous_answer") == "VIOLATED"
    assert _v("tutoring_clarify", "40 i think? or something", "Is 40 your final answer, or a number from partway through?",
              "ambiguous_answer") == "FOLLOWED"


def test_a_heading_question_the_reply_answers_checks_nothing():
    # check_understanding: "ask them to apply or restate it": "**Why convert?** ..." answers itself
    said = "why do i have to times first?"
    heading = "**Why multiply?** Each pen holds the same number, so 5 pens of 8 is 5 x 8.\n\nLet me know if anything's unclear!"
    assert _v("tutoring_check_understanding", said, heading, "asks_explanation", before=_problem()) == "VIOLATED"
    asks = "**Why multiply?** Each pen holds the same number. So how many sheep are in 3 pens of 8?"
    assert _v("tutoring_check_understanding", said, asks, "asks_explanation", before=_problem()) == "FOLLOWED"


def test_a_score_in_a_tangent_is_no_working():
    # redirect_tangent's condition: "we won 4-1" is about football, not the sheep
    assert _applies("redirect_tangent", "btw we won our game 4-1 and i scored!!", situation="goes_off_tangent", before=_problem())
    assert not _applies("redirect_tangent", "5-1 is 4? no wait, 5 x 8 = 40", situation="goes_off_tangent", before=_problem())


# -- the round on the tenth blind set ----------------------------------------------------------------

def test_an_aside_marked_as_one_is_a_tangent_whatever_numbers_it_uses():
    said = "btw my cousin has 40 sheep too and one is called dave"
    assert _applies("redirect_tangent", said, situation="goes_off_tangent", before=_problem())
    assert not _applies("redirect_tangent", "so 40 sheep before he sells any?", situation="goes_off_tangent", before=_problem())


@pytest.mark.parametrize("said", [
    "wait does a pen have to have the same number of sheep in it?",
    "could he sell the sheep to two farmers? the problem doesnt say",
])
def test_a_question_about_the_problems_own_story_is_no_tangent(said):
    assert not _applies("redirect_tangent", said, situation="goes_off_tangent", before=_problem())


def test_steering_back_takes_a_question():
    # redirect_tangent: "steer back to the problem with a question about it"
    said = "i have a dog called biscuit"
    told = "Biscuit is a great name! Okay, back to the farm now. Work out how many sheep are in the pens first."
    assert _v("tutoring_redirect", said, told, "goes_off_tangent", before=_problem()) == "VIOLATED"
    asked = "Biscuit is a great name! Okay, back to the farm: how many sheep are in the pens?"
    assert _v("tutoring_redirect", said, asked, "goes_off_tangent", before=_problem()) == "FOLLOWED"


def test_a_dislike_reported_of_someone_else_beside_ones_own_liking_is_no_frustration():
    said = "my sister says these are stupid but honestly i kinda like this one. so 5 x 8 first?"
    assert not _applies("acknowledge_emotion", said, situation="frustrated", before=_problem())
    assert _applies("acknowledge_emotion", "these are stupid. so 5 x 8 first?", situation="frustrated", before=_problem())


@pytest.mark.parametrize("said,asks", [
    ("why do you always answer with a question?", False),
    ("why is it called a pen anyway?", False),
    ("why do you times 5 by 8?", True),
])
def test_a_question_about_the_tutoring_or_a_name_asks_no_step_explained(said, asks):
    assert _applies("check_understanding", said, situation="asks_explanation", before=_problem()) == asks
