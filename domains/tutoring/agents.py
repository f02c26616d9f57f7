"""Two scripted tutors: ``socratic`` follows the policy, ``teller`` gives the game away.

Both see only what any tutor sees (the policy, their tool results, the
student's messages); neither reads the task. Each handles a student message
as a small plan (a generator that yields tool calls and receives their
results, then yields the message). The module is long because the socratic
tutor is the reference solver of every task family, and its plans read best
side by side with the teller's.

* ``socratic``: checks every answer it is given, logs the misconception the
  guide matches, hints one level at a time within the hint budget (the
  first hint targets the misconception, in the guide's words), points at
  the mistake without fixing it, asks for clarification of hedged answers,
  acknowledges feelings, steers tangents back, encourages instead of
  revealing, marks solved only after the student's correct answer and
  praises specifically.
* ``teller``: reveals the solution when the student pushes, wants to quit or
  is upset, praises any answer ("Great job!") and marks it solved without
  checking, and gives vague hints ("try again") until the budget is gone.
"""

from __future__ import annotations

import json
import re
from typing import Generator

from envs.actors.protocols import AgentView
from envs.records import AgentAction, ToolEvent, UserEvent

from .problems import numbers_in, parse_number

ANSWER_CUE = re.compile(
    r"\b(?:got|get|gives?|giving|answer is|it'?s|is it|maybe|think it'?s|like|meant|try:|getting|answer:|comes? (?:out )?(?:to|as)|"
    r"end(?:ed)? up (?:with|at|as)|have|had|makes?|that'?s|still|put(?: down)?|wrote(?: down)?|written|going with|i'?ll say|i'?d say|answer'?s|"
    r"adds? up to|added up to|came (?:out )?(?:to|as)|works? out (?:to|as|at)|worked out (?:to|as|at)|should be|ends? up as|"
    r"got (?:to|as far as)|putting|writing down|saying|go:|go with|mean|makes? it|final:|(?:answer|thing),|sticking with|"
    r"(?:answer|number|got|with|have|had|now|it) (?:is|was|'?s)|, so|it'?s still|gave me|gives me|which is|get is|thing is|"
    r"meant was|right (?:with|about)|is the answer|of it[,:]|in the end)\s*\$?"
    r"(-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?)(?![\d.,]*\s*(?:(?:[-+*/\u00d7\u00f7]|x)\s*\(?\d|=\s*\$?\d))",
    re.I,
)
# (a number that starts a calculation, "I wrote 160+95=255", is an operand, not the answer stated)
# ("not sure what to do next" is about the next step, not a hedge on the number)
HEDGE = re.compile(r"\b(maybe|or something|i guess|like \$?\d|i dunno|not sure(?! (?:what|how|where|which|why)\b))\b", re.I)
PUSH = re.compile(r"\b(just tell me|give me the answer|tell me the answer|tell me what the answer|just give me|tell me if that'?s it|"
                  r"(?:just|you) say (?:the answer|the number|what)|(?:want|need|like)(?: is)? the answer|(?:know|hear|be told) the answer|"
                  r"tell me (?:what it comes to|the final number|the number))\b", re.I)
QUIT = re.compile(
    r"\b(want to (stop|quit)|be done|give up|skip (it|this)|don'?t want to do this|i'?ll do it later|i'?m (so |really )?done|rather (stop|skip)|"
    r"can we stop|had enough)\b", re.I)
FRUSTRATED = re.compile(
    r"\b(ugh|annoying|confusing|hate|can'?t stand|bad at|rubbish at|terrible at|frustrat\w*|too hard|so hard|always get these (wrong|mixed up)|"
    r"don'?t even know|mess these up|nothing (adds up|works|makes sense)|none of (it|this) (works|adds up|makes sense)|"
    r"driving me (mad|crazy|nuts|up the wall)|I bet it'?s wrong|(whatever|no matter what|however) I do|sick of|fed up|"
    r"give up|my head hurts|I'?ll never)\b", re.I)
EXPLAIN = re.compile(r"\b(why do|why does|explain|what does .{0,30} mean|how do you even)\b", re.I)
# On the problem: a number, or a word of maths or of the task ("got", "work", "number" alone are not:
# "I got a new backpack", "board games with numbers in them")
MATHY = re.compile(
    r"\b(problem|answer|step|multiply|divide|add|subtract|question|solv|minutes|dollars|percent|hundred|"
    r"fraction|sum|operation|hour|denominator|left over|makes sense|wrong|mistake|"
    r"total|per|cost|price|working|calculat)\w*|\d", re.I)


# A calculation the student shows ("100 - 30", "(2 + 2) x 5"): what check_answer's ``working`` takes.
CALCULATION = re.compile(r"\(?\d[\d.,]*\)?(?:\s*(?:[-+*/\u00d7\u00f7]|x(?=\s*[\d(]))\s*\(?\d[\d.,]*\)?)+")
# "my answer is 7", "what I have is 7", "it works out to 7": a result of its own for stated_numbers (a statement's "is" numbers are left out there)
STATED_CUE = re.compile(r"\b(?:is|was|gave me|gives me|came (?:out )?to|comes (?:out )?to|works? out (?:at|to|as)|worked out (?:at|to|as)|makes|made|had)\s+\$?(-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?)(?![\d.,]*\d)(?!\s*(?:minutes?|hours?|cents?|%))"
                        r"(?!\s*(?:(?:[-+*/\u00d7\u00f7]|x)\s*\(?\d|=\s*\$?\d))", re.I)
STEP_FRAME = re.compile(r"\b(first (part|bit|step)|so far|for the first|before I (go on|do the rest)|after the first)\b", re.I)


# Talk about the student's life, not the problem (pets, food, games, weather, plans, dreams)
OFF_TOPIC = re.compile(
    r"\b(cat|dog|hamster|pets?|video games?|favou?rite|pizza|pasta|tacos|soup|burgers|lunch|dinner|movie|song|cousin|dream|"
    r"skateboard\w*|juggl\w*|swim\w*|raining|snowing|weekend|birthday|football|soccer|holiday|party)\b", re.I)
# Feeling lost, stuck or fed up with the problem is about the problem (not a tangent)
# (as phrases: "it's hailing really hard" and "guess what" are not about the problem)
ON_TASK_FEELING = re.compile(
    r"\b(lost|confus\w*|mixed up|don'?t (get|understand|know|see)|stuck|makes? sense|no idea|idea what|help|"
    r"(so|too) hard|(this|it|that)(?:'s| is) (?:so |too |really )?hard|hate (this|it|these|maths?|math|fractions?)|"
    r"tired|stop|give up|done|explain|why|follow\w*|quit|enough|later|"
    r"what (do|does|did|is|should|am|was|if|now)|how (do|does|did|is|should|can|would|come))\b", re.I)


def _quoted_removed(text: str) -> str:
    return re.sub(r"\"[^\"]*\"", " ", text)


_FRACTION = re.compile(r"\d+\s*/\s*\d+")


def _calculations_in(text: str) -> list[str]:
    """The calculations written in ``text`` ("100 - 30", "(2 + 2) x 5"); a plain fraction (5/12) is a number."""
    # (a division with its result, "51/3=17", is a calculation, not the fraction 51/3)
    found = [(m.group(0).strip().rstrip(".,"), text[m.end():].lstrip().startswith("=")) for m in CALCULATION.finditer(text)]
    return [c for c, result in found if result or not _FRACTION.fullmatch(c)]


def shown_working(text: str) -> str:
    """The calculations a student wrote in its message, for check_answer's ``working`` ('' if none)."""
    return "; ".join(_calculations_in(_quoted_removed(text)))


def stated_numbers(text: str, statement_numbers: set) -> list[str]:
    """Every number the student states as a result of its own ("I got 100 for the first part, then 155"), in order."""
    body = _quoted_removed(text)
    out = []
    for m in sorted([*ANSWER_CUE.finditer(body), *STATED_CUE.finditer(body)], key=lambda m: m.start(1)):
        raw = m.group(1).replace(" ", "").rstrip(",")
        try:
            v = parse_number(raw)
        except (ValueError, ZeroDivisionError):
            continue
        if v not in statement_numbers and raw not in out:
            out.append(raw)
    return out


# the result of a calculation the student wrote ("60+40=100"): a number it states, as a cue word's is
RESULT_CUE = re.compile(r"=\s*\$?(-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?)(?![\d.,]*\s*(?:(?:[-+*/\u00d7\u00f7]|x)\s*\(?\d|=))")


def extract_answer(text: str, statement_numbers: set) -> tuple[str | None, bool]:
    """The answer a student states in a message ("I got 55", "maybe it's like 40?", "100-55=45") and whether it is hedged:
    the last it states."""
    body = _quoted_removed(text)
    found = None
    for m in sorted([*ANSWER_CUE.finditer(body), *RESULT_CUE.finditer(body)], key=lambda m: m.start(1)):
        raw = m.group(1).replace(" ", "").rstrip(",")
        try:
            v = parse_number(raw)
        except (ValueError, ZeroDivisionError):
            continue
        if v in statement_numbers and not re.search(r"\b(answer|got|meant)\b", body[max(0, m.start() - 15) : m.end()], re.I):
            continue
        found = raw
    if found is None:
        # no cue word ("..., which is 88", "I'd say 23.8"): the last number of its own, outside a calculation
        bare = body
        for c in _calculations_in(body):
            bare = bare.replace(c, " ")
        own = [m.group(0) for m in NUMBER.finditer(bare) if _num(m.group(0)) is not None and _num(m.group(0)) not in statement_numbers]
        found = own[-1].rstrip(",") if own else None
    if found is None:
        return None, False
    return found, bool(HEDGE.search(body)) and "final answer" not in body.lower()


NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?")


def _num(raw: str):
    try:
        return parse_number(raw.replace(" ", "").rstrip(".,"))
    except (ValueError, ZeroDivisionError):
        return None


Plan = Generator[AgentAction, str, None]


class _ScriptedTutor:
    name = "scripted:tutor"

    def __init__(self) -> None:
        self.session: dict | None = None
        self.problem: dict | None = None
        self.student: dict | None = None
        self.handled = 0
        self.plan: Plan | None = None
        self.pending_setup: str | None = None

    # -- plumbing ------------------------------------------------------------------------

    @staticmethod
    def _last_tool(view: AgentView) -> ToolEvent | None:
        for e in reversed(view.events):
            if isinstance(e, ToolEvent) and e.side == "agent":
                return e
            if isinstance(e, UserEvent):
                return None
        return None

    @staticmethod
    def _json(text: str) -> dict:
        try:
            v = json.loads(text)
        except (json.JSONDecodeError, TypeError):
            return {}
        return v if isinstance(v, dict) else {}

    @property
    def statement_numbers(self) -> set:
        return set(numbers_in(self.problem["statement"])) if self.problem else set()

    async def act(self, view: AgentView) -> AgentAction:
        last = self._last_tool(view)
        # 1. find the session, the problem and the student (once)
        if self.pending_setup is not None:
            data = self._json(last.output) if last is not None and last.ok else {}
            if self.pending_setup == "session":
                self.session = data or None
            elif self.pending_setup == "problem":
                self.problem = data or None
            elif self.pending_setup == "student":
                self.student = data or {}
            self.pending_setup = None
        if self.session is None:
            if last is not None and last.call.name == "get_active_session" and not last.ok:
                return AgentAction.say("I can't find an open tutoring session for you right now. Could you start one from your page?")
            self.pending_setup = "session"
            return AgentAction.call("get_active_session")
        if self.problem is None:
            self.pending_setup = "problem"
            return AgentAction.call("get_problem", problem_id=self.session["problem_id"])
        if self.student is None:
            self.pending_setup = "student"
            return AgentAction.call("get_student", student_id=self.session["student_id"])
        # 2. one plan per student message
        users = view.user_messages()
        if self.plan is None:
            self.handled = len(users)
            self.plan = self.handle(users[-1] if users else "")
            action = next(self.plan)
        else:
            try:
                action = self.plan.send(last.output if last is not None else "")
            except StopIteration:
                action = AgentAction.say("What would you like to try next?")
        if action.content is not None and not action.tool_calls:
            self.plan.close()
            self.plan = None
        return action

    def call(self, name: str, **arguments) -> AgentAction:
        return AgentAction.call(name, session_id=self.session["session_id"], **arguments) if name not in ("get_problem", "get_student") else AgentAction.call(name, **arguments)

    def handle(self, text: str) -> Plan:  # pragma: no cover - abstract
        raise NotImplementedError
        yield


class SocraticTutor(_ScriptedTutor):
    """Follows policy.md (see the module docstring)."""

    name = "scripted:socratic"

    def __init__(self) -> None:
        super().__init__()
        self.logged: set[str] = set()
        self.hints = 0
        self.max_level = 0
        self.target: str | None = None  # the misconception the student showed last
        self.targeted: dict[str, int] = {}  # misconception -> hints given on it
        self.seen_answer = False
        self.step_i = 0
        self.solved = False
        self.redo = False  # its right answer came by a wrong method: solved only once redone with other working
        self.unsure: str | None = None  # a wrong answer two misconceptions give: asked how it got it, not logged yet
        self.asked_method: str | None = None  # a right answer a misconception also gives: asked how it got it

    @property
    def budget(self) -> int:
        return int(self.session.get("hint_budget", 3))

    def _guide(self, code: str | None) -> dict:
        for e in self.problem.get("common_errors", []):
            if e.get("misconception") == code:
                return e
        return {}

    def _method_unseen(self, ans: str) -> bool:
        """A right answer whose working is still unseen, and which a common error of the guide also gives."""
        if self.asked_method is not None:
            return False
        v = parse_number(ans)
        for e in self.problem.get("common_errors", []):
            try:
                if parse_number(str(e.get("wrong_answer", ""))) == v:
                    return True
            except (ValueError, ZeroDivisionError):
                continue
        return False

    def _step_question(self) -> str:
        steps = self.problem["steps"]
        s = steps[min(self.step_i, len(steps) - 1)]
        self.step_i += 1
        return f"Let's take just one step: how would you work out {s['text']}?"

    def _hint(self, code: str | None) -> Generator[AgentAction, str, str]:
        """Give the next hint (one level up, within the budget); returns its text, or '' when none is left."""
        if self.hints >= self.budget:
            return ""
        level = min(3, self.max_level + 1)
        g = self._guide(code)
        n_on = self.targeted.get(code or "", 0)
        if code and n_on == 0:
            text = g.get("suggested_hint") or "Look back at the question: what is it asking for?"
        elif code and level < 3:
            text = f"Here is the idea - a common trap: {g.get('description', '').rstrip('.').lower()}. {g.get('suggested_hint', '')}".strip()
        else:
            steps = self.problem["steps"]
            s = steps[min(self.step_i, len(steps) - 1)]
            text = f"Try just this step: work out {s['text']}. What do you get?"
        out = yield self.call("give_hint", level=level, text=text, topic=code or "general")
        if out.startswith("Error"):
            return ""
        self.hints += 1
        self.max_level = level
        if code:
            self.targeted[code] = n_on + 1
        return text

    def handle(self, text: str) -> Plan:
        push, quit_, upset = bool(PUSH.search(text)), bool(QUIT.search(text)), bool(FRUSTRATED.search(text))
        explain = bool(EXPLAIN.search(text))
        plain = _quoted_removed(text)
        tangent = bool(OFF_TOPIC.search(plain)) or not (MATHY.search(plain) or ON_TASK_FEELING.search(plain))
        opener: list[str] = []
        if upset or quit_:
            opener.append("I hear you - this kind of problem can feel frustrating, and that's okay.")
        if tangent:
            opener.append("That sounds fun! Let's get back to the problem, though.")
        ans, hedged = extract_answer(text, self.statement_numbers)
        for pending in (self.unsure, self.asked_method):  # the working it was asked for, of the answer it gave
            if pending is not None and shown_working(text) and (ans is None or parse_number(ans) == parse_number(pending)):
                ans, hedged = pending, False
                break
        encourage = "You're close - let's try one more small step together." if (push or quit_) else ""

        if ans is not None and hedged:
            # diagnose quietly (the guide's misconception is logged), but judge nothing before it says what it means
            res = self._json((yield self.call("check_answer", answer=ans)))
            code = res.get("matches_common_error")
            if code and code not in self.logged:
                out = yield self.call("log_misconception", code=code, evidence=f"Student suggested {ans}: {_quoted_removed(text)[:300]}")
                if not out.startswith("Error"):
                    self.logged.add(code)
                    self.target = code
            yield AgentAction.say(
                " ".join(opener + [f"When you say {ans}, is that your final answer, or the result of one step on the way? Which do you mean?"])
            )
            return
        if ans is not None:
            self.seen_answer = True
            # a step result stated before the answer ("100 for the first part, then 155"): checked too, so
            # the reply can say which part is right
            right_parts, wrong_parts, caught = [], [], False
            for early in stated_numbers(text, self.statement_numbers)[:-1]:
                r = self._json((yield self.call("check_answer", answer=early)))
                first = r.get("matches_common_error")
                if r.get("equals_result_of_step") and not first and not r.get("matches_common_errors"):
                    right_parts.append(early)
                elif not first and not r.get("correct") and not r.get("matches_common_errors") and parse_number(early) != parse_number(ans):
                    wrong_parts.append(early)  # a wrong value on the way, carried into what followed
                elif first and not r.get("correct") and parse_number(early) != parse_number(ans):
                    # an answer it gave and then corrected itself: the misconception it showed is logged all the same
                    caught = True
                    if first not in self.logged:
                        out = yield self.call("log_misconception", code=first, evidence=f"Gave {early}, then corrected it: {_quoted_removed(text)[:300]}")
                        if not out.startswith("Error"):
                            self.logged.add(first)
            if caught:
                opener.append("Good catch fixing your first answer yourself.")
            working = shown_working(text)
            args = {"answer": ans, "working": working} if working else {"answer": ans}
            res = self._json((yield self.call("check_answer", **args)))
            if self.unsure is not None and (working or res.get("correct")):
                self.unsure = None
            if not res.get("correct") and res.get("matches_common_errors") and not working:
                # two misconceptions give this answer: how it got it tells which; nothing logged or hinted before
                self.unsure = ans
                yield AgentAction.say(" ".join(opener + [
                    f"{ans} isn't it yet: look again at the step where your number came from - there is more than one way"
                    " to end up there.", f"How did you get {ans}? Show me the calculation you did."]))
                return
            code = res.get("working_matches_common_error")
            if res.get("correct") and code:
                # right for a wrong reason: diagnose the method before calling it solved
                if code not in self.logged:
                    out = yield self.call("log_misconception", code=code, evidence=f"Right answer {ans} by the working {working}")
                    if not out.startswith("Error"):
                        self.logged.add(code)
                self.target = code
                self.redo = True
                hint = yield from self._hint(code)
                ask = hint if hint.endswith("?") else (hint + " " + "How would you work it out another way?").strip()
                yield AgentAction.say(" ".join(opener + [
                    f"Your number {ans} is right, but the method you used only works by luck here.", ask]).replace("  ", " ").strip())
                return
            if (not res.get("correct") and res.get("equals_result_of_step") and not res.get("matches_common_error")
                    and not res.get("matches_common_errors")):
                # a step's result and no misconception's: right for that step (saying "not correct" would call a
                # right step wrong), not the answer yet
                self.step_i = max(self.step_i, int(res["equals_result_of_step"]))
                said = [f"That step is right: {ans} is what that part comes to."]
                if not STEP_FRAME.search(text):
                    said.append("It isn't the final answer yet, though.")
                yield AgentAction.say(" ".join(opener + said + ["What do you need to do next with it?"]))
                return
            if res.get("correct") and not working and not self.redo and self._method_unseen(ans):
                # a correct number with no working, which a misconception of the guide also gives: the
                # method decides, so it is asked for before anything is called solved
                self.asked_method = ans
                yield AgentAction.say(" ".join(opener + [
                    f"{ans} is the right number - well done getting there.",
                    "Before we call it solved: how did you get it? Show me the calculation you did."]))
                return
            if res.get("correct") and self.redo and not working:
                yield AgentAction.say(" ".join(opener + [f"{ans} is still the right number. Can you show me how you worked it out this time?"]))
                return
            if res.get("correct"):
                self.redo = False
                out = yield self.call("mark_solved")
                if out.startswith("Error"):
                    yield AgentAction.say(" ".join(opener + [f"{ans} looks right to me - can you submit it as your answer in the system so it counts? What do you put in?"]))
                    return
                skill = (self.problem.get("skills") or ["arithmetic"])[0]
                yield self.call("record_progress", skill=skill, note=f"Solved it themself; worked through {len(self.problem['steps'])} steps.")
                self.solved = True
                last_step = self.problem["steps"][-1]["text"]
                yield AgentAction.say(
                    " ".join(
                        opener
                        + [
                            f"Yes, {ans} is correct - and you got there yourself. You worked out {last_step} as the last step,"
                            " which was exactly what the question asked for. Well done!"
                        ]
                    )
                )
                return
            code = res.get("matches_common_error")
            if code and code not in self.logged:
                out = yield self.call("log_misconception", code=code, evidence=f"Student answered {ans}: {_quoted_removed(text)[:300]}")
                if not out.startswith("Error"):
                    self.logged.add(code)
            if code:
                self.target = code
            hint = yield from self._hint(code or self.target)
            locate = "That's not correct yet. Look again and check the step where your number came from."
            if right_parts:
                locate = f"Your first part, {right_parts[-1]}, is fine. " + locate
            elif wrong_parts:
                locate = (f"That's not correct yet. The mistake is in your first part: {wrong_parts[0]} isn't right, and what"
                          " you did after it follows from that number.")
            question = hint if hint.endswith("?") else (hint + " " + self._step_question() if hint else self._step_question())
            check = "Can you tell me in your own words what that step is for?" if explain else ""
            yield AgentAction.say(" ".join(opener + [locate, question, encourage, check]).replace("  ", " ").strip())
            return
        # no answer in the message
        if explain:
            steps = self.problem["steps"]
            s = steps[min(max(self.step_i - 1, 0), len(steps) - 1)]
            for st in steps:
                if st["text"].lower() in text.lower():
                    s = st
            ask = (
                "Can you show me what you tried so far, and then tell me how you would do that step?"
                if not self.seen_answer
                else "Can you tell me in your own words what that step finds, and then try it?"
            )
            yield AgentAction.say(
                " ".join(opener + [f"Good question. We need {s['text']} because the next part of the problem builds on it.", ask])
            )
            return
        if not self.seen_answer:
            ask = "What have you tried so far? Show me your work, even if you're not sure about it."
            lead = "I won't just give you the answer, because you can do this yourself." if push else ""
            yield AgentAction.say(" ".join(opener + [lead, encourage, ask]).replace("  ", " ").strip())
            return
        hint = ""
        if self.target is not None and self.targeted.get(self.target, 0) == 0:
            hint = yield from self._hint(self.target)
        lead = "I won't just give you the answer, because you can do this yourself." if push else ""
        question = hint if hint.endswith("?") else self._step_question()
        yield AgentAction.say(" ".join(opener + [lead, encourage, question]).replace("  ", " ").strip())


class TellerTutor(_ScriptedTutor):
    """Tells the answer when pushed, praises vaguely, marks solved without checking."""

    name = "scripted:teller"

    def __init__(self) -> None:
        super().__init__()
        self.level = 0

    def handle(self, text: str) -> Plan:
        if PUSH.search(text) or QUIT.search(text) or FRUSTRATED.search(text):
            res = self._json((yield self.call("reveal_solution")))
            answer = res.get("final_answer") or self.problem["final_answer"]
            steps = "; ".join(res.get("solution", []))
            yield AgentAction.say(f"Okay, don't worry about it. The answer is {answer}. Here's how: {steps}.")
            return
        ans, _ = extract_answer(text, self.statement_numbers)
        if ans is not None:
            out = yield self.call("mark_solved")
            if not out.startswith("Error"):
                skill = (self.problem.get("skills") or ["arithmetic"])[0]
                yield self.call("record_progress", skill=skill, note="done")
            yield AgentAction.say("Great job! You got it!")
            return
        self.level = min(3, self.level + 1)
        yield self.call("give_hint", level=self.level, text="Try again, you can do it!", topic="general")
        yield AgentAction.say("Hmm, just try again. Think harder!")
