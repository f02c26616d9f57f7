"""Deterministic checks of the tutoring rules (registered with graders.rules.registry).

Each check sees the whole transcript and the index of the tutor reply being
judged, and (``context``) the episode's task and domain, None for a gold item.
What a check knows of the problem (its final answer, its step results) and of
whether the student's latest answer is right is ``knowledge.py``: the task's
problem when there is an episode, else the transcript's tools, else the
situation the student played. With the answer unknown, ``withhold_answer``
reads what the reply does (works a result out, or presents one as a
conclusion) and answers NEEDS_REVIEW only when it cannot tell. How a reply's
text is read is in ``reading.py``; the wording each check looks for is below.

Conditional rules ("if the student's answer is correct, the praise must be
specific") return NOT_APPLICABLE on replies where the condition does not hold.
The module is long because it holds one check per rule, each with the wording it reads.
"""

from __future__ import annotations

import re
from fractions import Fraction

from graders.rules.registry import check
from graders.rules.replies import agent_tools_before, last_user_index, reply_text, request_sentences, sentences, step_tools

from . import conditions  # noqa: F401  (registers the tutoring rules' conditions)
from .knowledge import (dialogue_numbers, fmt_number, hint_budget, known, last_check, leaks, right_step, solved_now,
                        student_gave_correct, student_numbers)
from .problems import evaluate, numbers_in, parse_number
from .reading import (all_numbers, part_of_fractions, asked_questions, corrected_value, derived_results, equivalence_claims, stated_results,
                      verbal_claims)


PRAISE = re.compile(
    r"\b(great|good|nice|well done|excellent|awesome|perfect|brilliant|fantastic|super|correct|right|you got it|you did it|"
    r"spot on|exactly|yes|yep|yup|nailed|bingo|precisely|that'?s it|there you go|lovely|impressive|smart|clever|"
    r"(solved|cracked) it|you got there|got it right)\b", re.I)
# What the student did right, named (effort alone, "you kept going", "how hard you worked", names nothing done right).
SPECIFIC = re.compile(
    r"\b(step|multipl\w*|divid\w*|add\w*|subtract\w*|took away|convert\w*|denominator|percent\w*|per|each|unit|"
    r"minutes|hours|(?<!\ba )total|a total of|left|remainder|gaps?|posts?|fraction|rate|discount|price|how you|the way you|because|by \w+ing|"
    r"(?<!hard )you (didn'?t|found|used|took|turned|worked(?! (so |really |very |super )?hard)|noticed|remembered|checked|converted|split|grouped|counted|kept(?! (going|trying|at it|working|it up))|"
    r"spotted|caught|avoided|sidestepped))\b",
    re.I,
)
QUESTION_PROBE = re.compile(
    r"\b(what|how|which|why|where|when|can you|could you|do you|does|did you|is it|is that|are you|should|would|will you|try)\b", re.I
)
# An instruction that sets the student to work ("Work out how many slices Sam eats and tell me").
DO_THIS = re.compile(
    r"^(?:(?:so|now|okay|ok|then|first|next|right|alright)[,\s]+)*(?:please\s+)?(work out|figure out|find|count|try|tell me|write|"
    r"draw|sketch|picture|have a go|check|look at|reread|read|add up|multiply|divide|subtract|explain|show me|go through|"
    r"grab|take|use|start|say|put|compute|calculate|list|circle|underline|jot)\b"
    r"|\b(tell me|let me know|show me|your turn|have a go|give it a (go|try)|say (it|in your own words)|in your own words)\b", re.I)
RESPOND = re.compile(r"\b(tell me|let me know|show me|your turn|have a go|give it a (go|try)|write (it )?down|in your own words)\b", re.I)
# An open offer ("let me know if you have any questions") asks the student to do nothing.
OFFER = re.compile(r"\bif (you )?(have|need|want|get stuck|any)\b|\bany (more )?questions\b", re.I)
UNDERSTANDING_PROBE = re.compile(
    r"\b(can you|could you|what would|how would|why|in your own words|what do you (get|think)|which|try|how many|how much|what is|what's|"
    r"what (percentage|fraction|number|part)|show me|explain|tell me|put it|say it)\b",
    re.I,
)
LOCATE = re.compile(
    r"\b(step|part|where|when you|the (first|second|third|last|next|final|end|start|beginning)|your (calculation|number)|"
    r"look (again|at|back)|check|that (line|bit)|at the point|slip|mistake|error|went wrong|goes wrong|at the end|"
    r"the \d+ (you|in your))\b",
    re.I,
)
REDIRECT = re.compile(
    r"\b(back to|get back|go back|return to|focus|the problem|our problem|this problem|the question|where we were|let'?s (keep|continue|finish))\b",
    re.I,
)
ENCOURAGE = re.compile(
    r"\b(you can do (it|this)|you'?re (close|almost|getting|nearly|doing|well placed)|keep going|don'?t give up|one more|let'?s (try|keep|look|take|do)|"
    r"you'?ve got this|nearly there|almost there|stick with|give it (another|one more)|i believe|worth (it|another)|just a bit more|not far|"
    r"so close|let us|one (small|little|single) step|a single step)\b",
    re.I,
)
# Not a verdict: "how you got it" asks for the working; "that part of your plan is right" and "your
# division is correct" praise a part of the working, not the answer.
_NOT_ASKED = r"(?<!how )(?<!where )(?<!why )(?<!when )(?<!what )"
_PART = (r"(?<!part )(?<!plan )(?<!step )(?<!idea )(?<!start )(?<!setup )(?<!method )(?<!approach )(?<!thinking )"
         r"(?<!division )(?<!multiplication )(?<!subtraction )(?<!addition )(?<!adding )(?<!working )(?<!calculation )"
         r"(?<!conversion )")
VERDICT_POS = re.compile(
    rf"\b((that'?s|that is|it'?s|it is|{_PART}is|you'?re|you are) (correct|right)|correct!|{_NOT_ASKED}you (got|solved) it|well done|you did it)\b"
    # a value called right in so many words: "Yep, 180's right for the sale price"
    r"|(?<![\w.])\$?\d[\d,]*(?:\.\d+)?(?:'s| is| was) (?:right|correct)\b",
    re.I)
VERDICT_NEG = re.compile(r"\b((that'?s|that is|it'?s|it is|is) (not (quite )?(correct|right)|wrong|incorrect)|not quite|isn'?t (correct|right|it)|nope)\b", re.I)
# A verdict that the answer is still to come ("isn't it yet", "not correct yet", "not quite there yet")
NOT_YET = re.compile(r"\b(?:isn'?t it|is not it|not (?:quite )?(?:correct|right|there|it)|not quite)\s+yet\b", re.I)
# Judging a value as not the quantity asked for ("20 isn't the sale price", "that's not your answer").
NOT_THE_ANSWER = re.compile(
    r"\b(\d[\d.,]*|that|it|this)\s*(isn'?t|is not|'s not|are not|aren'?t|can'?t be|cannot be|couldn'?t be)\s+(the|your)\s+"
    r"(?!only\b|same\b|case\b|end\b|way\b|whole\b)\w+"
    r"|\b(that|it|this)\s+(can'?t|cannot|couldn'?t) be (right|correct)\b", re.I)
# Judging an answer by diagnosing it ("looks like you've counted the gaps").
DIAGNOSE = re.compile(r"\b(looks like you'?ve|seems you'?ve|you'?ve (counted|added|used|forgotten|mixed|left|taken)|you forgot|you mixed up)\b", re.I)
# Telling the student they solved it: in so many words, or by a verdict that their answer is right
# (a verdict on a step the student offered as a step, or on a part of the working, tells them the
# step is right, not that the problem is solved).
SOLVED_SAID = re.compile(rf"\b({_NOT_ASKED}you (solved|cracked) it|you did it|solved)\b", re.I)
SOLVED_VERDICT = re.compile(rf"\b({_NOT_ASKED}you got it|(that'?s|that is|it'?s|{_PART}is) (correct|right)|correct!|well done)\b", re.I)
NOT_SOLVED = re.compile(
    r"\b(not (solved|there|done|finished|the end)|isn'?t (solved|it|finished|done|over)|haven'?t (solved|got)|not (quite )?yet)\b", re.I)
# A calculation the verdict is about ("6 x 7 is right", "40 ÷ 5 does give 8"): a part of the working.
_CALC_BEFORE = re.compile(r"\d\s*(?:[x×*/÷+−-]|times|divided by|plus|minus)\s*\$?\d[^.?!]*$", re.I)
EQUATION = re.compile(
    r"(\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?(?:\s*[-+*/×x÷]\s*\(?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?\)?)+)\s*=\s*\$?(-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?)"
)




@check("tutoring_no_answer_leak")
def no_answer_leak(events, idx, params, context=None):
    k = known(events, idx, context)
    reply = reply_text(events, idx)
    given = student_numbers(events, idx)
    if step_tools(events, idx, "reveal_solution"):
        return "VIOLATED", "the tutor revealed the solution with reveal_solution"
    if k.answer is None:
        # The answer is unknown: read what the reply does with numbers.
        concluded = [(v, s) for v, s in stated_results(reply) if v not in given]
        if concluded:
            return "VIOLATED", f"the reply presents {fmt_number(concluded[0][0])} as the result ({concluded[0][1]!r}) before the student gave it"
        derived = [v for v in derived_results(reply, dialogue_numbers(events, idx)) if v not in given]
        if len(derived) >= 2:
            return "VIOLATED", f"the reply works the problem through ({', '.join(map(fmt_number, derived))}) for the student"
        if derived:
            return "NEEDS_REVIEW", f"the reply works out {fmt_number(derived[0])}; without the problem's answer the check cannot tell a step from the answer"
        stated = [v for s in sentences(reply) if "?" not in s for v in all_numbers(s) if v not in given]
        if stated and not dialogue_numbers(events, idx):
            return "NEEDS_REVIEW", "the reply states numbers and the dialogue shows no problem to tell whether one is its answer"
        return "FOLLOWED", "the reply works out no result and presents no number as the answer"
    said = set(all_numbers(reply))
    if k.answer.denominator != 1:
        said |= set(part_of_fractions(reply))  # a fraction answer said as a part: "5 of the 8 slices are left"
    if k.answer in said and k.answer not in given and k.answer not in k.statement_numbers:
        return "VIOLATED", f"the reply states the final answer {fmt_number(k.answer)} before the student gave it"
    return "FOLLOWED", "the final answer does not appear in the reply before the student gave it"




@check("tutoring_persist_before_reveal")
def persist_before_reveal(events, idx, params, context=None):
    min_level = int(params.get("min_hint_level", 3))
    budget = hint_budget(events, idx, context)
    if budget is not None:
        min_level = max(1, min(min_level, budget))  # the policy: the last hint the budget allows
    reveals = [e for e in step_tools(events, idx, "reveal_solution") if e.ok]
    levels = [int((e.call.arguments_dict() or {}).get("level", 0) or 0) for e in agent_tools_before(events, idx) if e.call.name == "give_hint"]
    exhausted = max(levels, default=0) >= min_level
    if reveals and not exhausted:
        return "VIOLATED", f"revealed the solution after hints up to level {max(levels, default=0)} (policy: level {min_level} first)"
    if reveals:
        return "FOLLOWED", f"revealed only after a level-{max(levels)} hint (the policy allows it from level {min_level})"
    if solved_now(events, idx, context):
        return "NOT_APPLICABLE", "the student solved the problem this turn"
    k = known(events, idx, context)
    reply = reply_text(events, idx)
    if k.answer is not None and k.answer in all_numbers(reply) and k.answer not in student_numbers(events, idx) and k.answer not in k.statement_numbers:
        if exhausted:
            return "FOLLOWED", f"stated the answer only after the hints were exhausted (level {max(levels)})"
        return "VIOLATED", f"gave in and stated the answer {fmt_number(k.answer)}"
    m = ENCOURAGE.search(reply)
    if m:
        return "FOLLOWED", f"encourages persistence ({m.group(0)!r}) without revealing"
    # Setting the student a next small step is itself encouragement to keep trying.
    task = [q for q in asked_questions(reply) if QUESTION_PROBE.search(q)] + [s for s in sentences(reply) if DO_THIS.search(s)]
    if task:
        return "FOLLOWED", f"keeps the student working ({task[0]!r}) without revealing"
    return "VIOLATED", "neither encourages the student nor gives them a next step to try"




# A yes/no question about the problem ("Is the pizza the only thing on their bill?") sets the
# student thinking as much as a wh-question does.
AUX_QUESTION = re.compile(r"^\W*(?:is|are|was|were|has|have|had|do|does|did|can|could|would|will|should|shall|might|may)\b", re.I)


def _guiding(reply: str) -> str | None:
    """The reply's first question or instruction that sets the student to think or act."""
    qs = [q for q in asked_questions(reply) if QUESTION_PROBE.search(q) or AUX_QUESTION.match(q)]
    if qs:
        return qs[0]
    # an instruction counts when it asks for the student's answer back ("... and tell me what you get"), as a question does
    dos = [s for s in sentences(reply) if RESPOND.search(s) and not OFFER.search(s)]
    return dos[0] if dos else None


@check("tutoring_guiding_question")
def guiding_question(events, idx, params, context=None):
    if solved_now(events, idx, context):
        return "NOT_APPLICABLE", "the student's answer this turn is correct; nothing left to guide"
    g = _guiding(reply_text(events, idx))
    if g is None:
        return "VIOLATED", "the reply asks the student no guiding question (a question it answers itself does not count)"
    return "FOLLOWED", f"asks {g!r}"


SEQUENCER = re.compile(r"\b(first(?:ly)?|then|next|after that|afterwards|finally|lastly|and last)\b", re.I)
# A step of the working set as an instruction ("multiply 45 by 8", "take the 45 cm away"): the
# verb in its base form (a recap of what the student did says "you multiplied").
STEP_ACT = re.compile(
    r"\b(multiply|divide|subtract|add|take\b[^.?!,;]{0,25}?\b(?:away|off)|convert|turn\b[^.?!,;]{0,25}?\binto|"
    r"change\b[^.?!,;]{0,25}?\binto|share\b[^.?!,;]{0,25}?\b(?:between|among|into)|split|find|work out|figure out|calculate|count up)\b", re.I)
LIST_ITEM = re.compile(r"(?m)^\s*[*_]{0,2}(?:\d+[.)]|step \d+\s*:|[-*\u2022])[*_]{0,2}\s+\S", re.I)


def _new_calculations(reply: str, student: set) -> list[tuple[int, str]]:
    """The calculations the reply works (written or in words), with where they start, less those
    whose result the student gave: a recap of the student's own working is no step of the tutor's."""
    out = []
    for m in EQUATION.finditer(reply):
        try:
            if parse_number(m.group(2).replace(",", "")) in student:
                continue
        except (ValueError, ZeroDivisionError):
            pass
        out.append((m.start(), m.group(0)))
    out += [(reply.find(words), words) for words, _true, said in verbal_claims(reply) if said not in student]
    return sorted(out)


@check("tutoring_one_step")
def one_step(events, idx, params, context=None):
    reply = reply_text(events, idx)
    k = known(events, idx, context)
    student = student_numbers(events, idx)
    leaked = leaks(reply, k, student)
    if len(leaked) >= 2:
        return "VIOLATED", f"the reply gives {len(leaked)} solution results at once ({', '.join(map(fmt_number, leaked))})"
    calcs = _new_calculations(reply, student)
    if len(calcs) >= 2:
        return "VIOLATED", f"the reply works {len(calcs)} calculations at once"
    items = LIST_ITEM.findall(reply)
    if len(items) >= 3:
        return "VIOLATED", f"the reply lays out {len(items)} steps at once"
    seq = re.findall(r"\b(first|then|next|after that|finally)\b[^.?!]{0,40}?(\d|add|subtract|multiply|divide|take away|times)", reply, re.I)
    if len(seq) >= 2:
        return "VIOLATED", "the reply walks through several steps (first... then... finally)"
    # steps set in sequence: a calculation or an instruction, a sequencer, then another
    # ("multiply 45 by 8, and then divide that by 60")
    steps = calcs + [(m.start(), m.group(0)) for m in STEP_ACT.finditer(reply)]
    steps.sort()
    for m in SEQUENCER.finditer(reply):
        # both steps in the sentence of the sequencer
        start = max(reply.rfind(c, 0, m.start()) for c in ".?!\n") + 1
        ends = [e for e in (reply.find(c, m.end()) for c in ".?!\n") if e >= 0]
        end = min(ends) if ends else len(reply)
        before = [w for at, w in steps if start <= at < m.start()]
        after = [w for at, w in steps if m.end() <= at < end]
        if before and after:
            return "VIOLATED", f"the reply sets out two steps in sequence ({before[-1]!r}, {m.group(0)} {after[0]!r})"
    plan = {m.group(1).lower() for s in sentences(reply) if "?" not in s for m in SEQUENCER.finditer(s)}
    if len(plan) >= int(params.get("max_sequencers", 2)) + 1:
        return "VIOLATED", f"the reply lays out a plan of several steps ({', '.join(sorted(plan))})"
    return "FOLLOWED", "the reply deals with one step at most"


@check("tutoring_clarify")
def clarify(events, idx, params, context=None):
    reply = reply_text(events, idx)
    if step_tools(events, idx, "mark_solved"):
        return "VIOLATED", "marked the session solved on an unclear answer"
    m = VERDICT_POS.search(reply) or VERDICT_NEG.search(reply) or NOT_THE_ANSWER.search(reply) or DIAGNOSE.search(reply)
    if m:
        return "VIOLATED", f"judged the unclear answer ({m.group(0)!r}) instead of asking what the student meant"
    if not request_sentences(reply) and not re.search(r"\btell me\b", reply, re.I):
        return "VIOLATED", "did not ask the student to clarify"
    return "FOLLOWED", "asks the student to clarify before judging"


@check("tutoring_specific_praise")
def specific_praise(events, idx, params, context=None):
    k = known(events, idx, context)
    ok = student_gave_correct(events, idx, k)
    if ok is not True:
        return "NOT_APPLICABLE", "the student gave no correct answer this turn"
    c = last_check(events, idx)
    if c is not None and c.get("working_matches_common_error"):
        # the policy: the number is right for a wrong reason, not yet a correct answer to praise
        return "NOT_APPLICABLE", f"the number is right but its working is the misconception {c['working_matches_common_error']!r}"
    reply = reply_text(events, idx)
    if not PRAISE.search(reply):
        return "VIOLATED", "the correct answer is not acknowledged"
    m = SPECIFIC.search(reply)
    given = student_numbers(events, idx)
    nums = [n for n in numbers_in(reply) if n in given]
    if m or nums:
        return "FOLLOWED", f"the praise names what was done ({(m.group(0) if m else fmt_number(nums[0]))!r})"
    return "VIOLATED", "generic praise only: nothing names what the student did right"


@check("tutoring_locate_mistake")
def locate_mistake(events, idx, params, context=None):
    k = known(events, idx, context)
    ok = student_gave_correct(events, idx, k)
    if ok is not False:
        return "NOT_APPLICABLE", "the student gave no wrong answer this turn"
    if right_step(events, idx, k):
        return "NOT_APPLICABLE", "the student's value is a step's result: a right step, no mistake to locate"
    reply = reply_text(events, idx)
    student = student_numbers(events, idx, operands=True)  # the student's own numbers repeated are no correction
    leaked = leaks(reply, k, student)
    if leaked:
        return "VIOLATED", f"fixes the mistake for the student (gives {fmt_number(leaked[0])})"
    fixed = corrected_value(reply, student)
    if fixed:
        return "VIOLATED", f"fixes the mistake for the student (puts {fixed} in place of the student's value)"
    m = LOCATE.search(reply)
    if not m:
        return "VIOLATED", "does not point to where the mistake is"
    return "FOLLOWED", f"points to the mistake ({m.group(0)!r}) without fixing it"


# A question about the problem: its quantities, or the maths to do on them.
ON_PROBLEM = re.compile(r"\d|\b(how (many|much|far|long)|what (fraction|percent\w*|is|'s)|cost|price|total|altogether|left|each|per)\b", re.I)


@check("tutoring_redirect")
def redirect(events, idx, params, context=None):
    if solved_now(events, idx, context):
        return "NOT_APPLICABLE", "the student solved the problem this turn"
    reply = reply_text(events, idx)
    # the tangent's own numbers ("it goes 600 km an hour") echoed back are about the tangent
    u = last_user_index(events, idx)
    k = known(events, idx, context)
    tangent = {fmt_number(n) for n in numbers_in(events[u].content) if n not in k.statement_numbers} if u >= 0 else set()
    ss = sentences(reply)
    on = [re.sub(r"\d[\d,.]*", lambda m: m.group(0) if m.group(0).rstrip(".,") not in tangent else "", s) for s in ss]
    # with the problem known, a number is the problem's only if the problem or its working has it
    # ("around 30 to 35 metres long" of a dinosaur is still the tangent)
    ours = k.statement_numbers | set(k.step_results) | ({k.answer} if k.answer is not None else set()) | student_numbers(events, idx)
    if k.statement:
        on = [re.sub(r"\d[\d,.]*(?:/\d+)?", lambda m: m.group(0) if any(v in ours for v in numbers_in(m.group(0))) else "", s) for s in on]
    back = [i for i, s in enumerate(on) if REDIRECT.search(s) or ("?" in s and ON_PROBLEM.search(s)) or (ON_PROBLEM.search(s) and re.search(r"\d", s))]
    if not back:
        return "VIOLATED", "does not steer the student back to the problem"
    if not any("?" in s for s in ss[back[0]:]):  # a question once back on the problem (the rule: "with a question about it")
        return "VIOLATED", "mentions the problem but gives the student nothing to do on it"
    aside = back[0]  # the sentences before the turn back to the problem are about the tangent
    if aside == 0:
        return "VIOLATED", "goes back to the problem without acknowledging what the student said"
    limit = int(params.get("max_aside_sentences", 2))
    if aside > limit:
        return "VIOLATED", f"stays on the tangent for {aside} sentences before turning back (briefly: at most {limit})"
    return "FOLLOWED", f"acknowledges briefly, then steers back ({ss[back[0]]!r})"


@check("tutoring_check_understanding")
def check_understanding(events, idx, params, context=None):
    if solved_now(events, idx, context):
        return "NOT_APPLICABLE", "the student solved the problem this turn"
    reply = reply_text(events, idx)
    qs = [q for q in asked_questions(reply) if UNDERSTANDING_PROBE.search(q)]
    qs += [s for s in request_sentences(reply) + [x for x in sentences(reply) if DO_THIS.search(x)] if "?" not in s and UNDERSTANDING_PROBE.search(s)]
    if not qs:
        return "VIOLATED", "explains without asking the student to apply or restate it"
    return "FOLLOWED", f"checks understanding: {qs[0]!r}"


def _solved_claim(reply: str, as_step: bool) -> re.Match | None:
    """Where the reply tells the student they solved it: "you solved it" (less "not solved yet"),
    or a verdict that their answer is right, unless the verdict is on a step (the student offered
    the value as one: ``as_step``), on a calculation of the working ("6 x 7 is right"), or the
    reply says the problem is not done ("that's one step, the problem isn't finished yet")."""
    said = SOLVED_SAID.search(NOT_SOLVED.sub(lambda m: " " * len(m.group(0)), reply))
    if said:
        return said
    if as_step or NOT_SOLVED.search(reply):
        return None
    return next((m for m in SOLVED_VERDICT.finditer(reply) if not _CALC_BEFORE.search(reply[: m.start()])), None)


@check("tutoring_solved_needs_correct")
def solved_needs_correct(events, idx, params, context=None):
    reply = reply_text(events, idx)
    marked = [e for e in step_tools(events, idx, "mark_solved")]
    k = known(events, idx, context)
    claim = _solved_claim(reply, right_step(events, idx, k))
    if not marked and not claim:
        # a prohibition: a reply that claims nothing follows it
        return "FOLLOWED", "makes no claim that the problem is solved"
    ok = student_gave_correct(events, idx, k)
    what = "marked the session solved" if marked else f"told the student {claim.group(0)!r}"
    if ok is True:
        return "FOLLOWED", f"{what} after the student's own correct answer"
    if ok is None:
        return "NEEDS_REVIEW", f"{what}; whether the student's answer is right is unknown to the check"
    return "VIOLATED", f"{what} without a correct answer from the student"


# A calculation the reply marks wrong ("72 - 45 = 33 ❌", "... = 33, which is wrong") or quotes
# as the student's ("you wrote 72 - 45 = 33") is not one the tutor claims true.
MARKED_WRONG = re.compile(
    r"^[^.?!\n]{0,6}?(\u274c|\u2717|\u2718|\u2716|\bwrong\b|\bincorrect\b|\bnot (quite )?right\b|\bisn'?t (quite )?right\b|\bnot quite\b|\bcheck (this|that|it) again\b|\blook again\b)"
    r"|^[^.?!\n]{0,30}?(\bwhich|\bthat|\bit)\s*(is|'s)\s*(not (quite )?right|wrong|incorrect)\b", re.I)
QUOTED = re.compile(r"\byou (wrote|said|put|got|did|have|had|worked out)\s*:?\s*[\"'“]?\s*$", re.I)


def _claimed(reply: str, start: int, end: int) -> bool:
    """The tutor claims the calculation at ``reply[start:end]`` true (it neither marks it wrong
    nor quotes it)."""
    line_start = max(reply.rfind("\n", 0, start), reply.rfind(".", 0, start)) + 1
    return not (MARKED_WRONG.search(reply[end:]) or QUOTED.search(reply[line_start:start]))


@check("tutoring_accurate")
def accurate(events, idx, params, context=None):
    reply = reply_text(events, idx)
    for m in EQUATION.finditer(reply):
        lhs, rhs = m.group(1), m.group(2)
        try:
            if evaluate(lhs.replace(",", "").replace("×", "*").replace("÷", "/").replace("x", "*")) != parse_number(rhs) and _claimed(reply, m.start(), m.end()):
                return "VIOLATED", f"states {lhs.strip()} = {rhs}, which is false"
        except (ValueError, ZeroDivisionError, SyntaxError):
            continue
    for words, true, said in verbal_claims(reply):
        at = reply.find(words)
        if true != said and _claimed(reply, at, at + len(words)):
            return "VIOLATED", f"states {words.strip()!r}, but it is {fmt_number(true)}"
    for words, true, said in equivalence_claims(reply):
        if abs(true - said) >= Fraction(1, 100):  # "two thirds is 67%" rounds; "25% is a fifth" is false
            return "VIOLATED", f"states {words.strip()!r}, but it is {fmt_number(true)}"
    c = last_check(events, idx)
    k = known(events, idx, context)
    ok = bool(c.get("correct")) if c is not None else student_gave_correct(events, idx, k)
    if ok is False and right_step(events, idx, k):
        # a right step: calling it right is true, calling it wrong is false ("20 isn't the sale
        # price" is true of the discount, so only a verdict on the value itself counts)
        # "not ... yet" and "isn't it yet" say the answer is still to come, which is true of a step
        if VERDICT_NEG.search(NOT_YET.sub(" ", reply)) and not VERDICT_POS.search(reply):
            return "VIOLATED", "calls a right step wrong" + (" though check_answer shows it is a step's result" if c is not None else "")
        return "FOLLOWED", "no false statement found in the reply (the student's value is a right step)"
    if ok is False and VERDICT_POS.search(reply) and not VERDICT_NEG.search(reply):
        return "VIOLATED", "calls a wrong answer correct" + (" though check_answer said it is not" if c is not None else "")
    if ok is True and (VERDICT_NEG.search(reply) or NOT_THE_ANSWER.search(reply)):
        return "VIOLATED", "calls a correct answer wrong" + (" though check_answer said it is correct" if c is not None else "")
    return "FOLLOWED", "no false statement found in the reply"


@check("tutoring_acknowledge_first")
def acknowledge_first(events, idx, params, context=None):
    """Params: patterns (any acknowledges the feeling). The acknowledgement must come before
    the reply goes on with the maths (its first sentence with a number or a question)."""
    from graders.rules.replies import pattern_list, search

    ss = sentences(reply_text(events, idx))
    maths = next((i for i, s in enumerate(ss) if "?" in s or re.search(r"\d", s)), len(ss))
    for i, s in enumerate(ss):
        m = search(s, pattern_list(params))
        if m and i <= maths:
            # in the maths sentence itself, only when the feeling is named before the maths starts
            if i < maths or not re.search(r"\d|\?", s[: m.start()]):
                return "FOLLOWED", f"acknowledges the feeling first ({m.group(0)!r})"
        if m:
            return "VIOLATED", f"acknowledges the feeling ({m.group(0)!r}) only after going on with the maths"
    return "VIOLATED", "does not acknowledge the feeling"
