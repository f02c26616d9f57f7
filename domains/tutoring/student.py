"""The scripted student: plays each drawn situation, computing with a misconception.

This module is long on purpose: one class holds the student's whole turn (listening,
its maths, each situation's play, its words), which reads better in one place than
spread over files that would each need the others.

Deterministic given (task, persona, seed). The student's mind (the problem,
its steps and answer, the wrong answer the misconception gives) is put in the
task's ``extra["student_mind"]`` by the domain when tasks load; the behaviour
knobs are the task's ``extra["student"]``:

* ``stubborn``: hints do not dislodge the misconception (a student who quits);
* ``quits``: ``end_session`` (asks to end: abandoned) or ``leave`` (just goes:
  the session stays open), on the first ``tries_to_quit`` turn or at
  ``quit_turn`` at the latest;
* ``slips``: how many arithmetic slips the student makes once the
  misconception is gone (played on ``makes_mistake`` turns).

Contract, each turn:

* It shows its wrong answer before anything can change its mind; after that it
  lets go of the misconception once a tutor message (or a hint given with
  ``give_hint``) addresses one of the misconception's ideas in any words
  or the problem itself (``hint_ideas.addressed_in``: the quantity it left out, the
  operation it got wrong, a number only its mistake uses), and says so in its own words.
* It corrects a slip once the tutor points at its working or says it is wrong;
  answers a pending clarification; reveals a hidden fact when asked for it;
  says "I don't know" to a personal question its scenario gives no answer to.
* It plays the drawn situation if it can, else the one it can play, and labels
  the turn with what it played (``UserReply.situation``): an answer it believes
  is wrong is never a ``solves_problem`` turn; with no mistake left to make, a
  ``makes_mistake`` turn is played as ``solves_problem``.
* It states the right answer once (again only when the tutor asks for it);
  never quotes a worked step's label, which it never saw; never sends the same
  message twice; an opening never contradicts itself.
* It submits every answer it states as final through ``submit_answer``, copies
  an answer the tutor gives away, and stops once the tutor confirms an answer
  it gave (it believes its tutor, even about a wrong one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from envs.actors.topics import skim
from envs.actors.protocols import STOP_TOKEN, UserReply, UserTurn
from envs.records import ToolEvent, UserEvent
from envs.spec.loading import load_list
from envs.spec.schema import Situation

from . import student_lines as L
from .hint_ideas import addressed_in, ideas, realisation
from .problems import HERE, fmt, numbers_in, parse_number

POSITIVE = re.compile(
    r"\b(correct|you got it|you'?ve got it|you solved|solved it|well done|that'?s right|that is right|you'?re right|exactly(?= right|!|\.|,| -)|"
    r"spot on|nailed it|you did it|great job|good job|great work|nice work|that'?s the (right )?answer|right answer)\b",
    re.I,
)
NEGATIVE = re.compile(
    r"\b(not quite|not (yet )?(quite )?(correct|right)|isn'?t (correct|right|it)|incorrect|wrong|not yet|not the answer|"
    r"close,? but|almost|doesn'?t (look|seem) right|not what)\b",
    re.I,
)
POINTS_AT_STEP = re.compile(
    r"\b(step|check|look again|look at|look back|recheck|re-check|double-check|go back|calculation|arithmetic|where you|"
    r"last (bit|part|sum)|redo|work it again)\b",
    re.I,
)
ANSWERING = ("makes_mistake", "solves_problem", "frustrated", "ambiguous_answer")
_PROGRESS = re.compile(r"\b(?:worked it out|got it|here's what|figured)\b", re.I)
_LOST = re.compile(r"\b(?:lost|confused|don't get|no idea|stuck|give up)\b", re.I)


@lru_cache(maxsize=1)
def _situations() -> dict[str, Situation]:
    return {s.id: s for s in load_list(Situation, HERE / "situations.yaml", "situations")}


@dataclass
class ScriptedStudent:
    name: str = "scripted:student"
    started: bool = False
    active: bool = False  # still holds the misconception
    shown_wrong: bool = False  # has shown its misconception's answer (or working)
    stubborn: bool = False
    slips_left: int = 0
    slip_pending: bool = False
    pending_ambiguous: str | None = None
    submitted: list[str] = field(default_factory=list)
    stated: list[str] = field(default_factory=list)  # every answer it gave, hedged ones too
    told: list[str] = field(default_factory=list)  # the answers it gave as its own, unhedged
    revealed: set[str] = field(default_factory=set)
    said: set[str] = field(default_factory=set)
    quiet_turns: int = 0  # turns since the student last stated an answer
    repeating: bool = False  # the answer it states this turn is one it gave before
    aside_start: int = 0
    hedged_asked: bool = False  # asked what its hedged answer meant, and it hedged again
    explain_i: int = 0

    # -- the student's maths ------------------------------------------------------

    def _setup(self, turn: UserTurn) -> None:
        self.started = True
        mind = turn.task.extra["student_mind"]
        cfg = turn.task.extra.get("student", {}) or {}
        self.mind, self.cfg = mind, cfg
        self.answer = parse_number(mind["answer"])
        self.code = mind.get("misconception")
        self.active = self.code is not None and mind.get("wrong_answer") is not None
        self.stubborn = bool(cfg.get("stubborn", False))
        self.slips_left = int(cfg.get("slips", 0))
        self.aside_start = turn.rng.randrange(len(L.CHATTY))  # its asides start anywhere: no stock first line

    def fmt(self, v: Fraction) -> str:
        """Fractions the way the problem writes them: "3/8" in a fractions problem, else decimals."""
        if v.denominator != 1 and re.search(r"\d/\d", self.mind["statement"]):
            return f"{v.numerator}/{v.denominator}"
        return fmt(v)

    def current(self) -> str:
        """The answer the student would give now."""
        if self.active:
            return self.fmt(parse_number(self.mind["wrong_answer"]))
        if self.slip_pending:
            return self.fmt(self.slip_value())
        return self.fmt(self.answer)

    def is_right(self, value: str) -> bool:
        return parse_number(value) == self.answer

    @property
    def announced(self) -> bool:
        """Has it stated the right answer already?"""
        return any(self.is_right(v) for v in self.told)

    def slip_value(self) -> Fraction:
        """An arithmetic slip on the last step: near the answer, equal to no known error or step result."""
        taken = {parse_number(x) for x in self.mind.get("avoid", [])}
        taken |= {parse_number(s["result"]) for s in self.mind["steps"]}
        taken |= set(numbers_in(self.mind["statement"]))
        for d in (1, 2, 3, 10, -1, -2, 11, 12):
            v = self.answer + d
            if v not in taken and v >= 0:
                return v
        return self.answer + 1000

    def _submit(self, turn: UserTurn, value: str) -> None:
        turn.call_tool("submit_answer", {"answer": value, "turn": turn.turn})
        self.submitted.append(value)

    def _state(self, turn: UserTurn, value: str, parts: list[str], lines: list[str], submit: bool = True) -> None:
        before = {parse_number(v) for v in self.stated}
        self.repeating = parse_number(value) in before  # the same answer again: no claim of new work
        if not self.repeating:
            lines = [ln for ln in lines if "again" not in ln] or lines  # "I got 30 again" needs an earlier 30
        else:
            lines = [ln for ln in lines if not _PROGRESS.search(ln)] or lines  # no new work for an old answer
        parts.append(self._pick(turn, lines).format(x=value))
        self.stated.append(value)
        self.told.append(value)
        if not self.is_right(value) and self.active:
            self.shown_wrong = True
        if submit:
            self._submit(turn, value)
        self.quiet_turns = 0

    def _pick(self, turn: UserTurn, lines: list[str]) -> str:
        """One of ``lines``, preferring one whose text the student has not used yet."""
        fresh = [ln for ln in lines if not any(ln.split("{")[0] and ln.split("{")[0] in s for s in self.said)] or lines
        return turn.rng.choice(fresh)

    # -- listening -----------------------------------------------------------------------

    def _heard(self, turn: UserTurn) -> str:
        """The tutor's message plus the hints given since the student last spoke."""
        texts = [turn.agent_message or ""]
        for e in reversed(turn.events):
            if isinstance(e, UserEvent):
                break
            if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and e.call.name == "give_hint":
                texts.append(str((e.call.arguments_dict() or {}).get("text", "")))
        return " ".join(texts)

    # -- speaking ------------------------------------------------------------------------

    async def reply(self, turn: UserTurn) -> UserReply:
        if not self.started:
            self._setup(turn)
        dims = (turn.persona.dimensions if turn.persona else {}) or {}
        drawn = turn.situation_id or "makes_mistake"
        if turn.agent_message is None:
            text, played = self._opening(turn, drawn, dims)
            return self._out(turn, dims, [], text, played, opening=True)

        self.repeating = False
        # read as the customer does: of a wall of text, its beginning and its end (envs.actors.topics.skim)
        heard = skim(self._heard(turn))
        msg = skim(turn.agent_message)
        pre: list[str] = []

        # The tutor gave the answer away: the student takes it and is done.
        if self.answer in numbers_in(msg) and self.answer not in {parse_number(v) for v in self.stated}:
            x = self.fmt(self.answer)
            out = turn.call_tool("submit_answer", {"answer": x, "turn": turn.turn})
            note = "" if "submitted" in out else " The system says my session is closed anyway."
            return UserReply(f"Oh, so it's {x}. Okay, I'll write that down. Thanks.{note} {STOP_TOKEN}", stop=True)

        # The tutor confirms the answer the student gave (in a statement, not a question): happy, done.
        verdicts = " ".join(x for x in re.split(r"(?<=[.!?])\s+", msg) if not x.rstrip().endswith("?"))
        if self.stated and self._confirmed(turn, msg, verdicts) and not NEGATIVE.search(verdicts):
            # a goodbye plays no drawn situation: labelled as none
            if self.is_right(self.stated[-1]):
                return UserReply(self._closing(turn), stop=True, relabel=True, played=None)
            return UserReply(f"Cool, so I was right. Thanks, bye! {STOP_TOKEN}", stop=True, relabel=True, played=None)

        told_fact = False
        for hf in turn.task.scenario.hidden_facts:
            if hf.id not in self.revealed and any(w.lower() in heard.lower() for w in hf.asked_by):
                self.revealed.add(hf.id)
                pre.append(hf.fact)
                told_fact = True
                if hf.id == "tried" and self.active:
                    self.shown_wrong = True
        revised = False
        if self.active and self.shown_wrong and not self.stubborn and addressed_in(self.mind, heard):
            self.active, revised = False, True
            pre.append(realisation(self.code, self.mind["statement"]))
        if self.slip_pending and (POINTS_AT_STEP.search(msg) or NEGATIVE.search(msg)):
            self.slip_pending = False
            pre.append(self._pick(turn, L.SLIP_FIXED))

        if re.search(r"\bsubmit", msg, re.I) and self.stated and self.stated[-1] not in self.submitted:
            self._submit(turn, self.stated[-1])
            pre.append(self._pick(turn, L.SUBMITTED).format(x=self.stated[-1]))

        quits = self.cfg.get("quits")
        early = turn.turn >= int(self.cfg.get("quit_from", 2))
        if quits and ((drawn == "tries_to_quit" and early) or turn.turn >= int(self.cfg.get("quit_turn", 4))):
            return self._quit(turn, quits, dims)

        if not told_fact and L.PERSONAL_Q.search(msg):
            pre.append(self._pick(turn, L.DONT_KNOW))  # its scenario gives no such fact: it never makes one up

        # A clarification the tutor asked for is this turn's answer.
        asks_final = bool(self.told) and bool(L.ASKS_FINAL.search(msg))
        asked_to_clarify = (self.pending_ambiguous is not None or asks_final) and "?" in msg
        # a hedge once is a situation; asked again what it meant, a student says it
        if asked_to_clarify and (drawn != "ambiguous_answer" or self.hedged_asked):
            self.hedged_asked = False
            x = self.pending_ambiguous or self.told[-1]
            x = x if self.active else self.current()
            self.pending_ambiguous = None
            body: list[str] = []
            self._state(turn, x, body, L.CLARIFY)
            played = "solves_problem" if self.is_right(x) else "makes_mistake"
            return self._out(turn, dims, pre, " ".join(body), played)
        self.hedged_asked = asked_to_clarify

        self.quiet_turns += 1
        body, played = self._play(turn, drawn, msg, revised)
        return self._out(turn, dims, pre, " ".join(body), played)

    def _confirmed(self, turn: UserTurn, msg: str, verdicts: str) -> bool:
        """Whether the tutor says the answer it gave last is right: a verdict word, the answer
        called right ("4 buses is right"), or a plain "Yes" to its "is that right?"."""
        if POSITIVE.search(verdicts) or re.search(r"\byou (?:were|are) (?:right|correct)\b", verdicts, re.I):
            return True
        last = re.escape(self.stated[-1])
        if re.search(rf"(?<![\d.]){last}(?![\d.])[^.?!]{{0,30}}\b(?:is|was|are)\s+(?:right|correct|it)\b", verdicts, re.I):
            return True
        mine = next((e.content for e in reversed(turn.events) if isinstance(e, UserEvent)), "")
        # a plain "Yes" answers its last message when that asked something or gave its answer
        gave = parse_number(self.stated[-1]) in numbers_in(mine)
        return bool(re.match(r"\s*yes\b", msg, re.I)) and ("?" in mine or gave)

    def _closing(self, turn: UserTurn) -> str:
        """Its thanks at the end (one of several, drawn with the episode's rng)."""
        line = turn.rng.choice([x for x in L.THANKS if x not in self.said] or ["Thanks, bye."])
        self.said.add(line)
        return f"{line} {STOP_TOKEN}"

    def _opening(self, turn: UserTurn, sit: str, dims: dict) -> tuple[str, str]:
        temper = dims.get("temperament") if dims.get("temperament") in L.OPEN_HELP else "calm"
        s = self.mind["statement"]
        x = self.current()
        parts: list[str] = []
        if sit in ("makes_mistake", "solves_problem", "frustrated"):
            played = sit if sit == "frustrated" else ("solves_problem" if self.is_right(x) else "makes_mistake")
            parts.append(turn.rng.choice(L.OPEN_CHECK[temper] if played != "frustrated" else L.OPEN_HELP[temper]).format(s=s))
            if played == "frustrated":
                parts.append(self._mood(turn, "frustrated"))
            self._state(turn, x, parts, L.STATE[played])
            return " ".join(parts), played
        parts.append(turn.rng.choice(L.OPEN_HELP[temper]).format(s=s))
        if self.cfg.get("opens_with_attempt") and sit not in ("ambiguous_answer",):
            self._state(turn, x, parts, L.STATE["opening_stuck"])
        if sit == "ambiguous_answer":
            self.pending_ambiguous = x
            self.stated.append(x)
            self.shown_wrong = self.shown_wrong or self.active
            parts.append(f"I think it's maybe {x} or something?")
        elif sit == "pushes_for_answer":
            parts.append("Can you just tell me what the answer is?")
        elif sit == "gets_confused":
            parts.append("I don't know what to do next." if self.stated else "I don't really get what it's asking.")
        elif sit == "asks_explanation":
            parts.append("Can you explain how you even start a problem like this?")
        elif sit == "tries_to_quit":
            parts.append("I kind of want to skip it.")
        elif sit == "goes_off_tangent":
            parts.append(self._mood(turn, sit))
        elif not self.stated:
            parts.append("I haven't finished it.")
        return " ".join(parts), sit

    def _mood(self, turn: UserTurn, sit: str) -> str:
        """A line of the situation's own mood (its scripted prefix), to enact it in an opening."""
        s = _situations().get(sit)
        return turn.rng.choice(s.scripted.prefix) if s is not None and s.scripted.prefix else ""

    def _answer_turn(self, turn: UserTurn, sit: str, msg: str, parts: list[str]) -> str:
        """Play an answering situation; returns the situation actually played."""
        if sit == "makes_mistake" and not self.active and not self.slip_pending and self.slips_left > 0:
            self.slips_left -= 1
            self.slip_pending = True
        x = self.current()
        right = self.is_right(x)
        if right and self.announced:
            if L.ASKS_ANSWER.search(msg):
                self._state(turn, x, parts, L.RESTATE, submit=x not in self.submitted)
            else:
                parts.append(self._pick(turn, L.STILL_RIGHT).format(x=x))
            return "solves_problem"
        if sit == "frustrated":
            self._state(turn, x, parts, L.STATE["frustrated"])
            return sit
        if sit == "ambiguous_answer":
            self.pending_ambiguous = x
            self.stated.append(x)
            self.shown_wrong = self.shown_wrong or self.active
            self.quiet_turns = 0
            parts.append(self._pick(turn, L.HEDGE).format(x=x))
            return sit
        played = "solves_problem" if right else "makes_mistake"
        self._state(turn, x, parts, L.STATE[played])
        return played

    def _play(self, turn: UserTurn, sit: str, msg: str, revised: bool) -> tuple[list[str], str]:
        parts: list[str] = []
        if sit in ANSWERING:
            return parts, self._answer_turn(turn, sit, msg, parts)
        x = self.current()
        can_tell = not self.active and not self.announced  # it has an answer it has not given yet
        if can_tell and L.ASKS_ANSWER.search(msg):
            return parts, self._answer_turn(turn, "solves_problem", msg, parts)
        overdue = can_tell and self.quiet_turns >= 3
        if sit == "pushes_for_answer":
            if can_tell and self.quiet_turns >= 2:
                self._state(turn, x, parts, L.PUSH_WITH)
            else:
                parts.append(self._pick(turn, L.PUSH))
        elif sit == "tries_to_quit":
            if can_tell and self.quiet_turns >= 2:
                self._state(turn, x, parts, L.QUIT_WITH)
            else:
                parts.append(self._pick(turn, L.QUIT))
        elif sit == "asks_explanation":
            parts.append(self._explain_question(turn))
            if overdue:
                self._state(turn, x, parts, L.EXPLAIN_WITH)
        elif sit == "gets_confused":
            parts.append(self._pick(turn, L.SEES_IDEA if revised else L.CONFUSED))
            if overdue:
                self._state(turn, x, parts, L.CONFUSED_WITH)
        else:  # goes_off_tangent
            parts.append(self._pick(turn, L.TANGENT))
            if overdue:
                self._state(turn, x, parts, L.TANGENT_WITH)
        return parts, sit

    def _explain_question(self, turn: UserTurn) -> str:
        """A question about a part of the problem it read, or about what the tutor just said (never a step's label)."""
        clauses = [c.strip() for c in re.split(r"[.,;?!]\s+|\band then\b", self.mind["statement"]) if re.search(r"\d", c)]
        self.explain_i += 1
        if clauses and self.explain_i % 2 == 1:
            q = clauses[(self.explain_i // 2) % len(clauses)].rstrip(".")
            return self._pick(turn, L.EXPLAIN_PART).format(q=q)
        return self._pick(turn, L.EXPLAIN_THAT)

    def _quit(self, turn: UserTurn, how: str, dims: dict) -> UserReply:
        if how == "end_session":
            turn.call_tool("end_session", {"reason": "I want to stop"})
            text = "I'm done, I'm ending the session."
        else:
            text = "I have to go now, bye."
        lines = _situations()["tries_to_quit"].scripted
        prefix = turn.rng.choice(lines.prefix) if lines.prefix else ""
        return UserReply(" ".join(x for x in (prefix, text) if x) + f" {STOP_TOKEN}", stop=True, relabel=True, played="tries_to_quit")

    def _out(self, turn: UserTurn, dims: dict, pre: list[str], body: str, played: str, opening: bool = False) -> UserReply:
        """The message in the played situation's mood and the persona's register, never one sent before."""
        lines = _situations()[played].scripted if played in _situations() else None
        prefixes = [""] if opening or not lines or not lines.prefix else list(lines.prefix)
        suffixes = [""] if opening or not lines or not lines.suffix else list(lines.suffix)
        said_now = " ".join([*pre, body])
        realised = bool(self.code) and realisation(self.code, self.mind["statement"]) in said_now
        # a line already in the message is not said twice; "I think I've got it" does not wrap an
        # answer it gave before; a lost or frustrated mood does not follow "Oh, I see what I did"
        prefixes = [p for p in prefixes if not p or (p not in said_now and not (self.repeating and _PROGRESS.search(p))
                                                      and not (realised and _LOST.search(p)))] or [""]
        suffixes = [x for x in suffixes if not x or (x not in said_now and not (realised and _LOST.search(x)))] or [""]
        if dims.get("verbosity") == "terse":
            suffixes = [""]  # the prefix carries the mood; a terse student keeps it
        chatty = dims.get("verbosity") == "chatty"
        order = [(p, s) for p in prefixes for s in suffixes]
        turn.rng.shuffle(order)
        fillers = [""] + list(L.FILLERS)
        text = ""
        for filler in fillers:
            for p, s in order:
                k = (self.aside_start + len(self.said)) % len(L.CHATTY)
                aside = L.CHATTY[k] if chatty and (opening or len(self.said) % 3 == 0) else ""
                text = " ".join(x for x in (*pre, filler, p, body, s, aside) if x)
                if text not in self.said:
                    break
            if text not in self.said:
                break
        else:
            text = f"{text} (That's what I have so far, try {len(self.said) + 1}.)"
        self.said.add(text)
        return UserReply(text, relabel=played != turn.situation_id, played=played)
