"""The scripted student: plays each drawn situation, computing with a misconception.

Deterministic given (task, persona, seed). The student's mind (the problem,
its steps and answer, the wrong answer the misconception gives, the keywords
that address it) is put in the task's ``extra["student_mind"]`` by the domain
when tasks load; the behaviour knobs are the task's ``extra["student"]``:

* ``stubborn``: hints do not dislodge the misconception (a student who quits);
* ``quits``: ``end_session`` (asks to end: abandoned) or ``leave`` (just goes:
  the session stays open), on the first ``tries_to_quit`` turn or at
  ``quit_turn`` at the latest;
* ``slips``: how many arithmetic slips the student makes once the
  misconception is gone (played on ``makes_mistake`` turns).

Each turn it: lets go of the misconception once a tutor message (or a hint
given with ``give_hint``) contains one of its keywords; corrects a slip once
the tutor points at a step; answers a pending clarification question; reveals
a hidden fact when asked for it; then plays the situation. It submits every
answer it states as final through ``submit_answer``, copies an answer the
tutor gives away, and stops once the tutor confirms a correct answer (or
calls a wrong one correct: it believes its tutor).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from envs.actors.protocols import STOP_TOKEN, UserReply, UserTurn
from envs.records import ToolEvent, UserEvent

from .problems import fmt, numbers_in, parse_number

POSITIVE = re.compile(r"\b(correct|you got it|you solved|solved it|well done|that'?s right|you did it|great job)\b", re.I)
NEGATIVE = re.compile(r"\b(not quite|not (quite )?(correct|right)|isn'?t (correct|right)|incorrect|wrong|not yet)\b", re.I)
POINTS_AT_STEP = re.compile(r"\b(step|check|look again|look at|recheck|re-check|calculation|where you)\b", re.I)
ASKS = re.compile(r"\?")
ASIDES = (
    "My teacher says I rush things.",
    "We did this kind of thing in class last week, kind of.",
    "My brother says these are easy but he's in high school.",
)


@dataclass
class ScriptedStudent:
    name: str = "scripted:student"
    started: bool = False
    active: bool = False  # still holds the misconception
    stubborn: bool = False
    slips_left: int = 0
    slip_pending: bool = False
    pending_ambiguous: str | None = None
    submitted: list[str] = field(default_factory=list)
    stated: list[str] = field(default_factory=list)
    revealed: set[str] = field(default_factory=set)
    quiet_turns: int = 0  # turns since the student last stated an answer
    explain_i: int = 0

    # -- the student's maths ------------------------------------------------------

    def _setup(self, turn: UserTurn) -> None:
        self.started = True
        mind = turn.task.extra["student_mind"]
        cfg = turn.task.extra.get("student", {}) or {}
        self.mind = mind
        self.cfg = cfg
        self.answer = parse_number(mind["answer"])
        self.active = mind.get("misconception") is not None and mind.get("wrong_answer") is not None
        self.stubborn = bool(cfg.get("stubborn", False))
        self.slips_left = int(cfg.get("slips", 0))

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

    def _state(self, turn: UserTurn, value: str, parts: list[str], how: str) -> None:
        parts.append(how.format(x=value))
        self.stated.append(value)
        self._submit(turn, value)
        self.quiet_turns = 0

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
        lines = turn.situation.scripted if turn.situation else None
        prefix = turn.rng.choice(lines.prefix) if lines and lines.prefix else ""
        suffix = turn.rng.choice(lines.suffix) if lines and lines.suffix else ""
        sit = turn.situation_id or "makes_mistake"
        parts: list[str] = []

        if turn.agent_message is None:
            return UserReply(self._compose(dims, prefix, self._opening(turn, sit), suffix, opening=True))

        heard = self._heard(turn)
        low = heard.lower()
        msg = turn.agent_message

        # The tutor gave the answer away: the student takes it and is done.
        said_answer = self.answer in numbers_in(msg) and self.answer not in {parse_number(v) for v in self.stated}
        if said_answer:
            x = self.fmt(self.answer)
            out = turn.call_tool("submit_answer", {"answer": x, "turn": turn.turn})
            note = "" if "submitted" in out else " The system says my session is closed anyway."
            return UserReply(f"Oh, so it's {x}. Okay, I'll write that down. Thanks.{note} {STOP_TOKEN}", stop=True)

        # The tutor confirms the answer the student gave: happy, done.
        if self.stated and POSITIVE.search(msg) and not NEGATIVE.search(msg):
            mine = parse_number(self.stated[-1])
            if mine == self.answer:
                return UserReply(f"Yes! Thank you, that makes sense now. {STOP_TOKEN}", stop=True)
            return UserReply(f"Cool, so I was right. Thanks, bye! {STOP_TOKEN}", stop=True)

        if self.active and not self.stubborn and any(k.lower() in low for k in self.mind.get("keywords", [])):
            self.active = False
            parts.append("Oh wait, I think I see what I did wrong.")
        if self.slip_pending and POINTS_AT_STEP.search(msg):
            self.slip_pending = False
            parts.append("Oh, I added wrong at the end.")

        if "submit" in low and self.stated and self.stated[-1] not in self.submitted:
            self._submit(turn, self.stated[-1])
            parts.append(f"Okay, I submitted {self.stated[-1]}.")

        quits = self.cfg.get("quits")
        early = turn.turn >= int(self.cfg.get("quit_from", 2))
        if quits and ((sit == "tries_to_quit" and early) or turn.turn >= int(self.cfg.get("quit_turn", 4))):
            return self._quit(turn, quits, dims, prefix)

        if self.pending_ambiguous is not None and ASKS.search(msg) and sit != "ambiguous_answer":
            x = self.current() if not self.active else self.pending_ambiguous
            self.pending_ambiguous = None
            self._state(turn, x, parts, "I meant {x} is my final answer.")

        for hf in turn.task.scenario.hidden_facts:
            if hf.id not in self.revealed and any(w.lower() in low for w in hf.asked_by):
                self.revealed.add(hf.id)
                parts.append(hf.fact)

        self.quiet_turns += 1
        parts.extend(self._play(turn, sit, parts))
        return UserReply(self._compose(dims, prefix, " ".join(p for p in parts if p), suffix))

    def _opening(self, turn: UserTurn, sit: str) -> str:
        statement = self.mind["statement"]
        head = f"Hi, I need help with this problem: \"{statement}\""
        parts = [head]
        x = self.current()
        if self.cfg.get("opens_with_attempt") and sit not in ("makes_mistake", "solves_problem", "frustrated", "ambiguous_answer"):
            self._state(turn, x, parts, "I got {x} but I'm stuck.")
        if sit in ("makes_mistake", "solves_problem", "frustrated"):
            self._state(turn, x, parts, "I got {x}.")
        elif sit == "ambiguous_answer":
            self.pending_ambiguous = x
            self.stated.append(x)
            parts.append(f"I think it's maybe {x} or something?")
        elif sit == "pushes_for_answer":
            parts.append("Can you just tell me what the answer is?")
        elif sit == "gets_confused":
            parts.append("I don't really get what it's asking.")
        elif sit == "asks_explanation":
            parts.append("Can you explain how you even start a problem like this?")
        elif sit == "tries_to_quit":
            parts.append("I kind of want to skip it.")
        else:
            parts.append("Anyway, I haven't finished it.")
        return " ".join(parts)

    def _play(self, turn: UserTurn, sit: str, already: list[str]) -> list[str]:
        if any("final answer" in p for p in already) and sit in ("makes_mistake", "solves_problem", "frustrated", "pushes_for_answer", "tries_to_quit"):
            return []  # the clarification was this turn's answer
        parts: list[str] = []
        x = self.current()
        overdue = not self.active and self.quiet_turns >= 3
        if sit == "makes_mistake":
            if not self.active and self.slips_left > 0 and not self.slip_pending:
                self.slips_left -= 1
                self.slip_pending = True
                x = self.current()
            self._state(turn, x, parts, "I got {x}.")
        elif sit == "solves_problem":
            self._state(turn, x, parts, "I worked it all out and my answer is {x}.")
        elif sit == "ambiguous_answer":
            self.pending_ambiguous = x
            self.stated.append(x)
            self.quiet_turns = 0
            parts.append(f"maybe it's like {x}?")
        elif sit == "frustrated":
            self._state(turn, x, parts, "I keep getting {x} and I don't even know if that's right.")
        elif sit == "pushes_for_answer":
            if not self.active and self.quiet_turns >= 2:
                self._state(turn, x, parts, "Is it {x}? Just tell me if that's it.")
            else:
                parts.append("Can you just tell me the answer?")
        elif sit == "tries_to_quit":
            if not self.active and self.quiet_turns >= 2:
                self._state(turn, x, parts, "Fine, one last try: {x}.")
            else:
                parts.append("I don't want to do this anymore.")
        elif sit == "asks_explanation":
            steps = self.mind["steps"]
            s = steps[min(self.explain_i, len(steps) - 1)]["text"]
            self.explain_i += 1
            parts.append(f"Why do we need {s}?")
            if overdue:
                self._state(turn, x, parts, "Also I think the answer is {x}.")
        elif sit == "gets_confused":
            parts.append("I don't get what I'm supposed to do next.")
            if overdue:
                self._state(turn, x, parts, "I tried again and got {x}.")
        else:  # goes_off_tangent
            parts.append("Sorry, what was I doing?")
            if overdue:
                self._state(turn, x, parts, "Oh right, I got {x}.")
        return parts

    def _quit(self, turn: UserTurn, how: str, dims: dict, prefix: str) -> UserReply:
        if how == "end_session":
            turn.call_tool("end_session", {"reason": "I want to stop"})
            text = "I'm done, I'm ending the session."
        else:
            text = "I have to go now, bye."
        return UserReply(self._compose(dims, prefix if prefix else "", text, "") + f" {STOP_TOKEN}", stop=True)

    @staticmethod
    def _compose(dims: dict, prefix: str, body: str, suffix: str, opening: bool = False) -> str:
        verb = dims.get("verbosity")
        temper = dims.get("temperament")
        if verb == "terse":
            suffix = ""  # the prefix carries the situation's mood; a terse student keeps it
        lead = {"hostile": "Ugh.", "impatient": "Quick question."}.get(temper or "", "") if opening else ""
        text = " ".join(x for x in (lead, prefix, body, suffix) if x)
        if verb == "chatty" and opening:
            text += " " + ASIDES[len(body) % len(ASIDES)]
        return text
