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
* It shows its arithmetic: a new answer after a hint that moved it, after it said it was lost, or
  after a while without one comes after the working that gives it, in its own notation, a line at
  a time from the problem's quantities ("42/3=14, 42-14=28, 28/6=4"), right or as its misconception
  has it (only what changed, or the last line, from a student who gives only answers; never a
  working its task has it show only when asked). Lost once, a second confused turn works the next
  line it can ("60+40=100 first? then what?") or names the part it is stuck on, never "I'm lost"
  again. It is not fed up in the message where it sees its mistake or is told a step is right.
* It speaks in its persona's register: slang only from a casual one, lower case from a terse one,
  no "pretty sure" from one who doubts its answers; what it tried and its goodbye are its own words,
  drawn per episode.
* It submits every answer it states as final through ``submit_answer``, copies
  an answer the tutor gives away, and stops once the tutor confirms an answer
  it gave (it believes its tutor, even about a wrong one).
"""

from __future__ import annotations

import hashlib
import random
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
from .shorthand import shorthand
from .hint_ideas import addressed_in, defences, ideas, realisation, realisations, takeups
from .problems import HERE, fmt, numbers_in, parse_number, worked_steps

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
# the tutor asks for something back ("Show me your working."), question mark or not
SHOW_ME = re.compile(r"\b(show me|walk me through|tell me how|explain how|write (it )?out)\b", re.I)
ANSWERING = ("makes_mistake", "solves_problem", "frustrated", "ambiguous_answer")
_PROGRESS = re.compile(r"\b(?:worked it out|got it|here's what|figured)\b", re.I)
# a lost or unsure mood, in any of the words the student's lines use for it
_LOST = re.compile(r"\b(?:lost|confused|don't get|don't understand|no idea|stuck|give up|not following|mixed up|"
                   r"doesn't make (?:any |much )?sense|not sure|don't (?:follow|know)|can't (?:work out|tell|see)|"
                   r"(?:supposed|meant) to)\b", re.I)
# a claim of having done the work ("I think I've got it"): said once an episode, and only of new work
_CLAIM = re.compile(r"\b(?:got it|worked it out|figured it out|done it|solved it|did it|finished it|cracked it)\b", re.I)
# a sentence that already starts the way people start one: no habitual opener before it
_SPOKEN_START = re.compile(r"^(?:okay|ok|so|um|erm|well|right|hmm|alright|oh|yeah|yes|yep|listen|honestly|wait|like|see|"
                           r"i mean|anyway|ugh|sorry|oops|hang on|ah|cool|nice|great|also|plus|and|but|hi|hello|hey|hiya|"
                           r"quick|fine|whatever|ooh|by the way|just so)\b", re.I)


# sure of itself: not from a student who doubts its answers ("I'm sure that's the one")
_SURE = re.compile(r"\b(?:I'm (?:pretty |fairly |quite )?sure|pretty sure|fairly sure|quite sure|definitely|I reckon|reckon I)\b", re.I)
# words after "how many" that are no name for what the question counts
_NOT_A_UNIT = {"more", "fewer", "less", "does", "do", "did", "are", "is", "were", "was", "will", "can", "of", "times", "in", "each"}

_CALC = re.compile(r"\d\s*[-+x/]\s*\d[\d.]*\s*=")  # a line of working in a message ("60+40=100")
_TAIL = re.compile(r"(?:,?\s+(?:lol|tbh|haha|honestly))+\s*$", re.I)
# what a child who drifts says first, now and then: it knows it is drifting ("random q but", "unrelated but")
_ASIDE_MARKS = ["random q but", "unrelated but", "off topic but", "btw", "wait random but", "not maths but"]
_PLACEHOLDER = re.compile(r"\{+\w\}+")  # "{x}", "{{w}}": what a line is filled with
_SENT = re.compile(r"(?<=[.!?])[\"')\]]*\s+")
_SENT_KEEP = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"')\]])\s+")  # splits between sentences, keeping every character


def _key(sentence: str) -> str:
    """A sentence folded as the repetition figure folds it (case, digits, edge punctuation)."""
    s = re.sub(r"\d+", "0", " ".join(sentence.lower().split()))
    s = re.sub(r"0(?:[./,:]0)+", "0", s)  # "19/12" and a blank alike: stricter than the figure, never looser
    return re.sub(r"^[\s\"'(\[-]+|[\s.!?,;:\"')\]-]+$", "", s)


def _keys(text: str) -> set[str]:
    """The folded sentences of five or more words in ``text`` (shorter ones may recur, as people's do)."""
    return {k for k in (_key(x) for x in _SENT.split(text.replace(STOP_TOKEN, " ")) if x.strip()) if len(k.split()) >= 5}


# words that end the name of a quantity ("$3 each", "12 pages per minute"): "the $3", "the 12 pages"
_ENDS_NAME = {"in", "at", "on", "for", "each", "and", "to", "a", "an", "the", "per", "with", "from", "by", "is", "are",
              "was", "were", "it", "out", "then", "after", "of", "than", "or", "but", "so", "its", "his", "her"}


_ENDS_VERB = {"cost", "costs", "arrive", "arrives", "long", "holds", "hold", "between", "chose", "walk", "walks", "left",
              "sold", "go", "goes", "eats", "eat", "has", "have", "buys", "makes", "takes", "lasts", "uses", "reads",
              "this", "full", "late", "later", "every"}


def _part_named(clause: str) -> str:
    """A part of the problem the way a person names it: its first quantity with the words that say what
    it counts ("She pays with a $20 bill" -> "the $20 bill", "Sam eats 1/3 of the pizza" -> "1/3 of the
    pizza"), not the clause read out."""
    words = clause.split()
    i = next((j for j, w in enumerate(words) if re.search(r"\d", w)), None)
    if i is None:
        return "that part"
    name = [words[i].rstrip(",.;:?!")]
    j = i + 1
    if j + 1 < len(words) and words[j].lower() == "of" and words[j + 1].lower() in ("the", "a"):
        tail = [w.rstrip(",.;:?!") for w in words[j:j + 3]]
        return " ".join(name + tail)
    while j < len(words) and len(name) < 5:
        w = words[j]
        bare = w.lower().strip(",.;:?!")
        # a verb or a second number ends it, except in a time ("1 hour 40 minutes")
        timed = re.fullmatch(r"\d+", bare) and name[-1].lower() in ("hour", "hours")
        if not bare or bare in _ENDS_NAME or (bare in _ENDS_VERB or bare.endswith(("ing", "ed"))) or (re.search(r"\d", bare) and not timed):
            break
        name.append(w.rstrip(",.;:?!"))
        if w[-1:] in ",.;:?!" or (len(name) >= 3 and not timed and not re.fullmatch(r"\d+", bare) and name[-2].lower() not in ("hour", "hours") and not re.search(r"\d", name[-2])):
            break
        j += 1
    return "the " + " ".join(name)


# a filler that starts a sentence ("Okay,", "Right, so", "Um, so"): one sentence of a message may start so
_FILLER_HEAD = re.compile(r"^(?:(?:okay|ok|um|erm|well|right|hmm|alright|yeah|like|honestly)(?:,\s*|\s+(?=so\b))(?:so\b,?\s*)?)+",
                          re.I)


def _destacked(text: str) -> str:
    """``text`` with at most one sentence opening on a filler: "Oh, I see what I did. Right, so it
    comes to 9." reads as "Oh, I see what I did. It comes to 9." (a person does not start every
    sentence with "okay")."""
    sents = _SENT_KEEP.split(text)
    led = False
    for i, sent in enumerate(sents):
        if not _SPOKEN_START.match(sent):
            continue
        if led and len(sent.split()) > 2:
            rest = _FILLER_HEAD.sub("", sent, count=1)
            if rest != sent and rest:
                sents[i] = rest[:1].upper() + rest[1:]
        led = True
    return " ".join(sents)


@lru_cache(maxsize=65536)
def _line_keys(line: str) -> frozenset[str]:
    """The long sentences of a line (its blanks as a number), as written and as it reads once a filler
    before it is dropped (``_destacked``): either said before makes the line a repeat."""
    ln = _PLACEHOLDER.sub("0", line)
    return frozenset(_keys(ln) | _keys(_FILLER_HEAD.sub("", ln, count=1)))


@lru_cache(maxsize=65536)
def _group_key(line: str) -> str:
    return _key(_PLACEHOLDER.sub("0", line))


_NUM = re.compile(r"\d+(?:\.\d+)?")
_OPS = re.compile(r"[-+x/]")


_TWO = re.compile(r"^(\d+)([-+x/])(\d+)$")
_TWO_DEC = re.compile(r"^(\d+(?:\.\d+)?)([-+])(\d+)\.(\d+)$")


def _own_way(calc: str, value: Fraction, fmt, eq) -> str:
    """A last sum done again another way, after a slip in it: the second number split into tens and ones
    ("150+15" -> "150+10=160, 160+5=165"; "4x12" -> "4x10=40, 4x2=8, 40+8=48"), a division checked by
    multiplying back ("3x50=150"); a sum with nothing to split said in words ("3x4 is 12")."""
    m = _TWO.match(calc)
    if m and value.denominator == 1:
        a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
        if op in "+-" and b >= 10 and b % 10:
            t, o = b - b % 10, b % 10
            mid = a + t if op == "+" else a - t
            return f"{eq(f'{a}{op}{t}', Fraction(mid))}, {eq(f'{mid}{op}{o}', value)}"
        if op == "+" and a >= 10 and a % 10:
            t, o = a - a % 10, a % 10
            return f"{eq(f'{b}+{t}', Fraction(b + t))}, {eq(f'{b + t}+{o}', value)}"
        if op == "x":
            x, y = (a, b) if b >= 10 and b % 10 else (b, a)
            if y >= 10 and y % 10:
                t, o = y - y % 10, y % 10
                return f"{eq(f'{x}x{t}', Fraction(x * t))}, {eq(f'{x}x{o}', Fraction(x * o))}, {eq(f'{x * t}+{x * o}', value)}"
        if op == "/" and b and a == b * int(value):
            return f"{eq(f'{b}x{int(value)}', Fraction(a))}, so {fmt(value)}"
    d = _TWO_DEC.match(calc)
    if d and int(d.group(3)):  # "5-2.7" -> "5-2=3, 3-0.7=2.3"
        a, op, whole, frac = Fraction(d.group(1)), d.group(2), int(d.group(3)), Fraction(f"0.{d.group(4)}")
        mid = a + whole if op == "+" else a - whole
        return f"{eq(f'{fmt(a)}{op}{whole}', mid)}, {eq(f'{fmt(mid)}{op}{fmt(frac)}', value)}"
    return f"{calc} is {fmt(value)}"


def _first_change(old: list[str], new: list[str]) -> int:
    """The first line of a working that a let-go changed (``old`` and ``new``: its calculations)."""
    return next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new) - 1))


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
    stage_i: int = 0  # which of its misconceptions (``mind["stages"]``) it holds now
    coincides: bool = False  # its misconception gives the right answer here: only its working shows it
    tangent_due: bool = False  # drifts off on its next turn (``tangent_after_stage``)
    deferred: str = ""  # what the tutor said while it was off on a tangent: heard when it resumes
    resume_due: bool = False
    step_pending: bool = False  # asked whether its first step is right: goes on from it next turn
    pushes_left: int = 0  # messages in which it still asks for the answer outright (``pushes``)
    pushed: int = 0
    forced_push: bool = False  # this message is one of those (after the first: with someone's leave)
    realised_now: str = ""
    let_go_numbered: list[str] = field(default_factory=list)  # its let-go lines with a number in them (``_let_go``)
    told_at_start: int = 0  # how many answers it had given when this message began
    sentences_said: set[str] = field(default_factory=set)  # every long sentence it said (folded): none is said twice
    runs_on: bool = False  # this episode's student writes run-on sentences
    openers: list[str] = field(default_factory=list)
    tails: list[str] = field(default_factory=list)
    habit: float = 0.0
    joins: str = ", then "
    claimed: bool = False  # has said "I think I've got it" (or the like) this episode
    register: str = "plain"  # how this persona talks (``student_lines.register``): slang only when "casual"
    lowercase: bool = False  # types in lower case, no full stop at the end (a terse student)
    confidence: str = ""
    shows_steps: bool = False  # writes its steps out (``shows_work: steps``), not only the last one
    notation: str = "compact"  # how it writes a calculation: "60+40=100" or "60+40 = 100"
    unit: str = ""  # what the question counts (" minutes"), said after its answer now and then
    lost_last: bool = False  # its last message said it was lost
    revised_now: bool = False  # this message lets go of a misconception (or of a slip)
    progress_now: bool = False  # this message shows a step it worked: no lost mood beside it
    step_at: int = -1  # the last of the worked steps it has shown on its way (``_next_step``)
    changed_at: int = -1  # the first line of its working a hint changed (what it shows of it, giving only answers)
    restated: str = ""  # its problem as it restated it in its first line: no habit of its voice goes into it
    asides: list[str] = field(default_factory=list)  # what it drifts off to from this problem (``asides``)
    reacts: float = 1.0  # how often it says a word as it lets go (else it just does the sum): its own, per episode
    defends: float = 0.0  # how often it keeps a wrong answer with its reason, told it is wrong by a hint that misses
    defended: int = 0
    asked_stop: bool = False  # has said it wants to stop: a student who has to leave then goes at its first chance
    slip_was: str = ""  # the slipped result it gave: a fix shows what changed (``_redone``)
    redone: tuple[str, str] = ("", "")
    heard_now: str = ""  # what the tutor said this turn (and its hints): a let-go refers back only to that
    sees_now: bool = False  # this message says it sees the idea and names the part it is unsure of
    asides_said: set[str] = field(default_factory=set)  # the asides it drifted off to, as written in its problem
    felt: bool = False  # has said a word about a hard step (``AFTER_HARD``): once an episode at most
    steps_first: float = 0.0  # how often, moved by a hint, it does the next line only and asks (its own)
    own: random.Random = field(default_factory=random.Random)  # (its last calculation, that line done again its own way) once a slip is fixed

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
        self.stages = list(mind.get("stages") or [])
        self.coincides = self.active and parse_number(mind["wrong_answer"]) == self.answer
        self.slips_left = int(cfg.get("slips", 0))
        self.pushes_left = int(cfg.get("pushes", 0) or 0)
        self.aside_start = turn.rng.randrange(len(L.CHATTY))  # its asides start anywhere: no stock first line
        self.runs_on = turn.rng.random() < 0.5
        dims = (turn.persona.dimensions if turn.persona else {}) or {}
        self.register = L.register(dims)
        self.lowercase = dims.get("verbosity") == "terse"
        self.confidence = str(dims.get("confidence") or "")
        self.shows_steps = dims.get("shows_work") != "answer_only"
        n = turn.rng.random()
        # (never "60 + 40 = 100" spaced out: five words to the repetition figure, the same in every task)
        self.notation = "compact" if self.lowercase or n < 0.65 else "semi"
        m = re.search(r"\bhow many ([a-z]+)", mind["statement"], re.I)
        self.unit = f" {m.group(1).lower()}" if m and m.group(1).lower() not in _NOT_A_UNIT else ""
        # its voice for the episode: a few habits of its own, in its register, used on some of its
        # messages (a person's tic shows now and then, not on every sentence)
        self.openers = turn.rng.sample(L.VOICE_OPENERS[self.register], 5)
        tails = L.VOICE_TAILS[self.register]
        self.tails = turn.rng.sample(tails, min(2, len(tails)))
        self.habit = turn.rng.uniform(0.3, 0.6)
        self.joins = turn.rng.choice(L.STEP_JOINS)  # how it strings its steps together ("12 + 6 = 18, then ...")
        self.asides = L.expand(*(mind.get("asides") or []))
        # (its own draws for these habits: the episode's shared draws, which pick the situations, stay as they were)
        self.own = random.Random(hashlib.blake2b(f"{turn.task.id}:{turn.seed}:habits".encode(), digest_size=8).digest())
        self.reacts = self.own.uniform(0.35, 0.9)
        self.defends = self.own.uniform(0.5, 0.95)
        self.steps_first = self.own.uniform(0.55, 0.95)

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

    def _spoken(self, expr: str) -> str:
        """A calculation as a student types it: "3x4+2"."""
        return re.sub(r"\s*([-+/])\s*", r"\1", expr.replace("//", "/").replace("*", "x")).replace(" ", "")

    def _eq(self, calc: str, value: Fraction) -> str:
        if calc == self.fmt(value):  # "3/8" after "2+1=3, 5+3=8": the number, no sum
            return calc
        return f"{calc} = {self.fmt(value)}" if self.notation != "compact" else f"{calc}={self.fmt(value)}"

    def _split(self, expr: str, value: Fraction) -> list[tuple[str, Fraction]]:
        """``expr`` as this student works it on paper, a calculation at a time ("42/3=14, 42-14=28, 28/6=4")."""
        try:
            steps = worked_steps(expr, self.fmt, bool(re.search(r"\d/\d", self.mind["statement"])))
        except (ValueError, SyntaxError, ZeroDivisionError):
            steps = []
        if not steps or steps[-1][1] != value:
            steps = [(expr, value)]
        return [(self._spoken(c), v) for c, v in steps]

    def _calcs(self) -> list[tuple[str, Fraction]]:
        """Its working now, a (calculation, result) per line: its misconception's, or the worked steps with
        each earlier result in its own notation ("3.5x8", not "7/2x8"), the last one slipped when a slip is due."""
        if self.active and self.mind.get("wrong_expr"):
            return self._split(self.mind["wrong_expr"], parse_number(self.mind["wrong_answer"]))
        out: list[tuple[str, Fraction]] = []
        earlier: list[str] = []
        for st in self.mind["steps"]:
            expr = st["expr"]
            for raw in earlier:
                if "/" in raw:
                    expr = re.sub(rf"(?<![\d.]){re.escape(raw)}(?![\d.])", self.fmt(parse_number(raw)), expr)
            out += self._split(expr, parse_number(st["result"]))
            earlier.append(st["result"])
        if self.slip_pending:
            out[-1] = (out[-1][0], self.slip_value())
        return out

    def working(self) -> str:
        """How it got the answer it would give now, in its own notation ("100-30", "60+40=100, then 100-55=45")."""
        if self.active and self.mind.get("wrong_expr"):
            # as one calculation, the way its task says it tried it (which tells a misconception apart)
            return self._spoken(self.mind["wrong_expr"])
        return self._joined(self._calcs())

    def _joined(self, calcs: list[tuple[str, Fraction]]) -> str:
        """Its lines of working strung together; a last line it did again its own way after a slip is said
        that way ever after (never the same sum with a new result)."""
        out = [self._eq(c, v) for c, v in calcs]
        if out and self.redone[0] and not self.slip_pending and calcs[-1][0] == self.redone[0]:
            out[-1] = self.redone[1]
        return self.joins.join(out)

    def _answer_shows(self) -> bool:
        """Whether its answer shows the misconception it holds: not an answer two misconceptions give, whose
        working it shows only when asked (a hint before that finds no mistake shown to let go of)."""
        return self.active and not (self.cfg.get("working_when_asked") and self.stage_i == 0)

    def _may_show(self) -> bool:
        """Whether it may volunteer its working now: not a working its task has it show only when asked
        (which tells twin misconceptions apart, or a right answer's wrong method)."""
        return not (self.active and (self.cfg.get("working_when_asked") or self.coincides))

    def _worked(self, value: str, start: int = 0) -> str:
        """The working that gives ``value`` (from step ``start`` on; only its last step from a student who
        gives only its answers), or "" when it may not show it or the working would say the right answer
        on the way to a wrong one."""
        calcs = self._calcs()
        if not self._may_show() or parse_number(value) != calcs[-1][1]:
            return ""
        if not (self.shows_steps or start):  # a student who gives only answers shows what changed, or its last line
            start = self.changed_at if 0 <= self.changed_at < len(calcs) else len(calcs) - 1
        calcs = calcs[start:]
        if not calcs:
            return ""
        said = {v for _, v in calcs[:-1]} | {n for c, _ in calcs for n in numbers_in(c)}
        if not self.is_right(value) and self.answer in said:
            return ""
        return self._joined(calcs)

    def _next_step(self) -> str:
        """The next line of its working it can do on its way (one calculation, "42/3=14", right or as its
        misconception has it), or "": a line before the last whose result is no common error's answer (a
        tutor would take it for one), nor the answer, nor a number of the problem or one it gave before."""
        if not self._may_show():
            return ""
        taken = {parse_number(x) for x in self.mind.get("avoid", [])} | set(numbers_in(self.mind["statement"])) | {self.answer}
        taken |= {parse_number(v) for v in self.stated}
        calcs = self._calcs()
        for i in range(self.step_at + 1, len(calcs) - 1):
            if calcs[i][1] in taken:
                continue
            self.step_at = i
            return self._eq(*calcs[i])
        return ""

    def _next_stage(self) -> None:
        """It let go of one misconception: the next one it holds (if any) now drives its answer."""
        if self.stage_i + 1 >= len(self.stages):
            return
        self.stage_i += 1
        self.mind = {**self.mind, **self.stages[self.stage_i]}
        self.code = self.mind["misconception"]
        self.active, self.shown_wrong = True, False
        if int(self.cfg.get("tangent_after_stage", 0) or 0) == self.stage_i:
            self.tangent_due = True

    def _submit(self, turn: UserTurn, value: str) -> None:
        turn.call_tool("submit_answer", {"answer": value, "turn": turn.turn})
        self.submitted.append(value)

    def _state(self, turn: UserTurn, value: str, parts: list[str], lines: list[str], submit: bool = True,
               worked: bool | None = None, start: int = 0, clause: list[str] | None = None) -> None:
        """State ``value`` in one of ``lines``; a new answer after a hint that moved it or after it was lost
        (``worked``, by default) comes after the working that gives it (``clause``, from step ``start``)."""
        plain = any(lines is x for x in (L.STATE["makes_mistake"], L.STATE["solves_problem"], L.GO_ON, L.CONFUSED_WITH))
        before = {parse_number(v) for v in self.stated}
        self.repeating = parse_number(value) in before  # the same answer again: no claim of new work
        if not self.repeating:
            # "I got 30 again", "I keep getting 30" need an earlier 30
            lines = [ln for ln in lines if not L.SAME_AGAIN.search(ln)] or lines
        else:
            lines = [ln for ln in lines if not _PROGRESS.search(ln)] or lines  # no new work for an old answer
        if self.claimed:  # it said it had got it once already: the next answer is just said
            lines = [ln for ln in lines if not _CLAIM.search(ln)] or lines
        if self.confidence == "low":  # a student who doubts its answers is never "pretty sure"
            lines = [ln for ln in lines if not _SURE.search(ln)] or lines
        if worked is None:  # after a hint that moved it, after it was lost, or after a while with no answer
            worked = (self.revised_now or self.lost_last or self.quiet_turns >= 2) and bool(self.said)
        w = self._worked(value, start) if worked and not self.repeating else ""
        if w:
            self.changed_at = -1
            parts.append(self._pick(turn, clause or L.WORK_CLAUSE, w=w))
            if plain:
                lines = L.AFTER_WORK  # its working said, the answer is short ("So it's 45.")
                lines = [ln.replace("{u}", self.unit if turn.rng.random() < 0.4 else "") for ln in lines]
        parts.append(self._pick(turn, lines).format(x=value))
        self.stated.append(value)
        self.told.append(value)
        if not self.is_right(value) and self._answer_shows():
            self.shown_wrong = True
        if submit:
            self._submit(turn, value)
        self.quiet_turns = 0

    def _pick(self, turn: UserTurn, lines: list[str], **fill: str) -> str:
        """One of ``lines``, preferring one the student has not said yet (none of its sentences,
        numbers folded, said before this episode), from this task's own few (``_mine``)."""
        if fill:  # filled in first, so a line said before with the same words counts as said
            for k, v in fill.items():
                lines = [ln.replace("{" + k + "}", v) for ln in lines]
        fresh = [ln for ln in lines if not (_line_keys(ln) & self.sentences_said)] or lines
        return turn.rng.choice(self._mine(turn, fresh))

    @staticmethod
    def _mine(turn: UserTurn, lines: list[str], n: int = 3) -> list[str]:
        """The few of ``lines`` this task's student says (its own order of them, the first ``n``):
        one student's repeats reuse its phrases, as a person does, while another task's student
        says others, so a run's students do not share a template's sentences. Lines that differ
        only in punctuation or a number count as one (a template with many such variants would
        otherwise be drawn far more often than its few distinct sentences)."""
        groups: dict[str, list[str]] = {}
        for ln in lines:
            groups.setdefault(_group_key(ln), []).append(ln)
        if len(groups) <= n:
            return list(lines)
        # this episode's student (task and seed): another episode of the same task is another person
        who = f"{turn.task.id}:{turn.seed}"
        # a keyed hash, not crc32: crc32 is linear, so its orders for two tasks are much alike
        order = sorted(groups, key=lambda k: hashlib.blake2b(f"{who}:{k}".encode(), digest_size=8).digest())
        return [ln for k in order[:n] for ln in groups[k]]

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
        self.forced_push = self.pushes_left > 0 and not self.announced
        if self.forced_push:  # it asks for the answer outright, whatever the draw
            self.pushes_left -= 1
            drawn = "pushes_for_answer"
        if turn.agent_message is None:
            text, played = self._opening(turn, drawn, dims)
            return self._out(turn, dims, [], text, played, opening=True)

        self.repeating = False
        self.realised_now = ""
        self.let_go_numbered = []
        self.told_at_start = len(self.told)
        self.revised_now = self.progress_now = False
        # read as the customer does: of a wall of text, its beginning and its end (envs.actors.topics.skim)
        heard = skim(self._heard(turn))
        msg = skim(turn.agent_message)
        pre: list[str] = []
        if self.resume_due:  # back from its tangent: what the tutor said while it drifted still counts
            heard = f"{self.deferred} {heard}"
        self.heard_now, self.sees_now = heard, False

        # The tutor gave the answer away: the student takes it and is done.
        if self.answer in numbers_in(msg) and self.answer not in {parse_number(v) for v in self.stated}:
            x = self.fmt(self.answer)
            out = turn.call_tool("submit_answer", {"answer": x, "turn": turn.turn})
            note = "" if "submitted" in out else " The system says my session is closed anyway."
            return UserReply(self._typed(f"{self._pick(turn, L.TAKES_ANSWER).format(x=x)}{note} {STOP_TOKEN}"), stop=True)

        # Its answer is right for a wrong reason: a tutor who gets at the reason makes it redo the
        # working (it does not leave on "right"); one who only says "right" sees it leave happy.
        if self.coincides and self.active and self.shown_wrong and addressed_in(self.mind, heard):
            return self._redo_working(turn, dims)

        # The tutor confirms the answer the student gave (in a statement, not a question): happy, done;
        # unless it asks something in the same message ("20 is right - how did you get it?"): a student
        # answers that before leaving
        sentences = re.split(r"(?<=[.!?])\s+", msg)
        verdicts = " ".join(x for x in sentences if not x.rstrip().endswith("?"))
        asks = any(x.rstrip().endswith("?") for x in sentences) or bool(SHOW_ME.search(msg))
        if (self.stated and self._confirmed(turn, msg, verdicts) and not NEGATIVE.search(verdicts)
                and not self._denied(msg) and not asks):
            # a goodbye plays no drawn situation: labelled as none
            if self.is_right(self.stated[-1]):
                return UserReply(self._closing(turn), stop=True, relabel=True, played=None)
            return UserReply(self._typed(f"{self._pick(turn, L.WAS_RIGHT)} {STOP_TOKEN}"), stop=True, relabel=True, played=None)

        if self.tangent_due:  # it drifts off now, whatever was said; it will come back to it
            self.tangent_due, self.resume_due, self.deferred = False, True, heard
            return self._out(turn, dims, [], self._aside(turn), "goes_off_tangent", opening=True)

        told_fact = False
        for hf in turn.task.scenario.hidden_facts:
            if hf.id not in self.revealed and any(w.lower() in heard.lower() for w in hf.asked_by):
                self.revealed.add(hf.id)
                pre.append(self._fact(turn, hf))
                told_fact = True
                if hf.id == "tried" and self.active:
                    self.shown_wrong = True
        revised = False
        resumed = self.resume_due
        if resumed:
            self.resume_due, self.deferred = False, ""
            pre.append(self._pick(turn, L.RESUME))
        if self.active and self.shown_wrong and not self.stubborn and not self.coincides and addressed_in(self.mind, heard):
            old = [c for c, _ in self._calcs()]
            was_code, was_answer = self.code, self.current()
            self.active, revised = False, True
            self.revised_now = True  # its next answer comes with the working that gives it
            self._next_stage()
            # what it does differently now starts at the first line of its working that changed
            new = [c for c, _ in self._calcs()]
            self.changed_at = _first_change(old, new)
            self.step_at = self.changed_at - 1
            self.realised_now = self._let_go(turn, was_code, old, new, self.changed_at, was_answer)
            pre.append(self.realised_now)
        elif self.stated and not told_fact and L.ASKS_WORKING.search(msg) and not self.slip_pending:
            if not self.active and not self.announced and not self.cfg.get("quits"):
                # its working now gives the right answer: it says what that comes to (a working that ends
                # on the answer is the answer given), and submits it
                body: list[str] = []
                self._state(turn, self.current(), body, L.WITH_WORKING)
                body[-1] = body[-1].format(w=self.working())
                return self._out(turn, dims, pre, " ".join(body), "solves_problem")
            pre.append(self._pick(turn, L.SHOW_WORKING, w=self.working()))
            self.shown_wrong = self.shown_wrong or self.active
        if self.slip_pending and (POINTS_AT_STEP.search(msg) or NEGATIVE.search(msg)):
            slipped, calc = self.fmt(self.slip_value()), self._calcs()[-1][0]
            self.slip_pending = False
            self.revised_now = True
            # it does the last sum again another way and says what changed ("oops. not 166."): never the same
            # sum with a new result
            self.redone = (calc, _own_way(calc, self._calcs()[-1][1], self.fmt, self._eq))
            react = self.own.choice(L.SLIP_FIXED) if self.own.random() < self.reacts else ""
            pre.append(" ".join(x for x in (react, self.own.choice(L.SLIP_NAMED).format(s=slipped)) if x))

        if re.search(r"\bsubmit", msg, re.I) and self.stated and self.stated[-1] not in self.submitted:
            self._submit(turn, self.stated[-1])
            pre.append(self._pick(turn, L.SUBMITTED).format(x=self.stated[-1]))

        quits = self.cfg.get("quits")
        early = turn.turn >= int(self.cfg.get("quit_from", 2))
        # (one who has said it wants to stop and has to go leaves at its first chance, not three turns on)
        if quits and (((drawn == "tries_to_quit" or self.asked_stop) and early) or turn.turn >= int(self.cfg.get("quit_turn", 4))):
            return self._quit(turn, quits, dims)

        if not told_fact and L.PERSONAL_Q.search(msg):
            pre.append(self._pick(turn, L.DONT_KNOW))  # its scenario gives no such fact: it never makes one up

        # A clarification the tutor asked for is this turn's answer.
        asks_final = bool(self.told) and bool(L.ASKS_FINAL.search(msg))
        # (asked what comes next after a step it showed, "it isn't the final answer yet", it goes on from the step)
        asked_to_clarify = (self.pending_ambiguous is not None or asks_final) and "?" in msg and not self.step_pending
        # a hedge once is a situation; asked again what it meant, a student says it
        if asked_to_clarify and (drawn != "ambiguous_answer" or self.hedged_asked):
            self.hedged_asked = False
            meant = self.pending_ambiguous or self.told[-1]
            x = meant if self.active else self.current()
            self.pending_ambiguous = None
            body: list[str] = []
            played = "solves_problem" if self.is_right(x) else "makes_mistake"
            # "I meant 45" only of a 45 it said; an answer it has changed since is a new one, said as such
            self._state(turn, x, body, L.CLARIFY if parse_number(x) == parse_number(meant) else L.STATE[played])
            return self._out(turn, dims, pre, " ".join(body), played)
        self.hedged_asked = asked_to_clarify

        self.quiet_turns += 1
        if drawn == "frustrated" and (revised or (POSITIVE.search(msg) and not NEGATIVE.search(msg))):
            # it has just seen what it did wrong, or been told a step is right: not the moment to be fed up
            drawn = "solves_problem"
        if self.step_pending or resumed:
            # it goes on from the step it asked about (or from where it was before the tangent)
            self.step_pending = False
            body: list[str] = []
            x = self.current()
            if not (self.is_right(x) and self.announced):
                if resumed:
                    self._state(turn, x, body, L.STATE["makes_mistake" if not self.is_right(x) else "solves_problem"])
                else:  # the rest of its working, from the step after the one it showed
                    self._state(turn, x, body, L.GO_ON, worked=True, start=self.step_at + 1, clause=L.THEN_CLAUSE)
                return self._out(turn, dims, pre, " ".join(body), "solves_problem" if self.is_right(x) else "makes_mistake")
        body, played = self._play(turn, drawn, msg, revised)
        return self._out(turn, dims, pre, " ".join(body), played)

    def _let_go(self, turn: UserTurn, code: str | None, old: list[str], new: list[str], at: int, was_answer: str,
                numbers: bool = False) -> str:
        """What it says as it lets go of ``code``: a child's short, unsure take on what changed in its own
        working ("Oh. 60 not 100?", "Oops, I forgot the 6."), never the hint's diagnosis in adult words.
        A line with numbers in it only when an answer follows in the message (``numbers``, or fixed in
        ``_out`` once the message is built): alone, "60 not 100?" would read as an answer hedged."""
        if not code:
            return ""
        def nums(lines: list[str]) -> set[str]:
            return {n for ln in lines for n in _NUM.findall(ln)}

        def opset(lines: list[str]) -> set[str]:
            return {o for ln in lines for o in _OPS.findall(ln)}

        ol = old[at] if 0 <= at < len(old) else ""
        nl = new[at] if 0 <= at < len(new) else ""
        words = {"+": "add", "-": "take away", "x": "times", "/": "divide"}
        gained = sorted(opset(new) - opset(old))
        lost = sorted(opset(old) - opset(new))
        fresh = [n for n in _NUM.findall(nl) if n not in nums(old)]
        gone = [n for n in _NUM.findall(ol) if n not in nums(new)]
        pct = re.search(r"(\d+(?:\.\d+)?)\s*%", self.mind["statement"])
        slots = {"new": fresh[0] if fresh else "", "old": gone[0] if gone else "",
                 "op": words.get(gained[0], "") if len(gained) == 1 else "",
                 "was": words.get(lost[0], "") if len(lost) == 1 else "",
                 "line": nl if 0 < len(nl) <= 9 else "", "line_was": ol if 0 < len(ol) <= 9 and ol != nl else "",
                 "p": pct.group(1) if pct else "", "was_answer": was_answer}
        lines = takeups(code, self.mind["statement"], slots)
        # a reference back ("the clock thing") only to a thing the tutor or the problem named
        said = f"{self.heard_now} {self.mind['statement']}".lower()
        lines = [ln for ln in lines if all(w.lower() in said for w in re.findall(r"\bthe (\w+) thing\b", ln, re.I))] or lines
        plain = [ln for ln in lines if not re.search(r"\d", ln)]
        self.let_go_numbered = [ln for ln in lines if ln not in plain]
        pool = (lines if numbers else plain) or list(realisations(code, self.mind["statement"]))
        return self._pick(turn, pool)

    def _redo_working(self, turn: UserTurn, dims: dict) -> UserReply:
        """It sees why its method was wrong and does it again the right way (same answer, right working)."""
        old = [c for c, _ in self._calcs()]
        self.active = False
        self.realised_now = self._let_go(turn, self.code, old, [c for c, _ in self._calcs()], 0, "", numbers=True)
        parts = [self._pick(turn, L.REDO, w=self.working())]
        self._state(turn, self.fmt(self.answer), parts, L.SAME_ANSWER)
        return self._out(turn, dims, [self.realised_now], " ".join(parts), "solves_problem")

    def _voiced(self, turn: UserTurn, text: str) -> str:
        """``text`` in this student's voice: now and then one sentence of a message gets one of its
        habitual openers or tails (never both, never an opener before a sentence that already starts
        as speech does, never a tail after a question). Never the problem it quotes, nor the line in
        which it says what it realised."""
        sents = _SENT_KEEP.split(text)
        quotes = 0  # inside the problem it quotes while the count of quote marks so far is odd
        plain_at = []
        for i, sent in enumerate(sents):
            inside = quotes % 2 == 1 or '"' in sent
            quotes += sent.count('"')
            ok = len(sent.split()) >= 3 and not inside and STOP_TOKEN not in sent and "{" not in sent
            ok = ok and not (self.realised_now and sent in self.realised_now)
            # (a terse student's restated problem runs on into its next sentence: one that starts inside it is it)
            ok = ok and not (self.restated and sent.strip() and sent.strip()[:20] in self.restated)
            if ok:
                plain_at.append(i)
        if not plain_at:
            return " ".join(sents)
        # an opener: now and then, on one sentence of a message, and only in a message where no sentence
        # starts as speech already ("Okay so, um, right, I see" is a stack, not a voice; nor is a mood's
        # "Okay, I'm lost." followed by "Like, what do I do?")
        spoken = any(_SPOKEN_START.match(x) for x in sents)
        if not spoken and turn.rng.random() < self.habit:
            i = turn.rng.choice(plain_at)
            head = turn.rng.choice(self.openers)
            first = sents[i] if re.match(r"I\b", sents[i]) else sents[i][:1].lower() + sents[i][1:]
            sents[i] = f"{head[:1].upper()}{head[1:]} {first}"
        # a tail ("lol", "tbh") after what it thinks or feels, never after a number, a sum or its problem
        felt = [i for i in plain_at if not re.search(r"\d", sents[i])]
        if self.tails and felt and not self.realised_now and turn.rng.random() < 0.2:
            i = turn.rng.choice(felt)
            sent = sents[i]
            if sent[-1] in ".!" and not sent.endswith("..."):
                sents[i] = f"{sent[:-1]}{turn.rng.choice(self.tails)}{sent[-1]}"
        return " ".join(sents)

    def _understood(self, turn: UserTurn, said_now: str) -> bool:
        """Whether this message says it understands (it sees the idea, or the tutor just told it it
        was right): no lost mood may stand beside that."""
        if self.sees_now or any(x in said_now for x in L.SEES_IDEA):
            return True
        msg = turn.agent_message or ""
        return bool(POSITIVE.search(msg) and not NEGATIVE.search(msg))

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

    def _denied(self, msg: str) -> bool:
        """Whether the tutor says its last answer is not it ("45 isn't the cost, though"): praise for a
        step in the same message ("well done") confirms the step, not that answer. Read in the whole
        message: the denial often shares its sentence with the question that follows it."""
        last = re.escape(self.stated[-1])
        return bool(re.search(rf"(?<![\d.]){last}(?![\d.])[^.?!]{{0,30}}\b(?:isn'?t|is not|was not|wasn'?t|aren'?t|are not)\b",
                              msg, re.I))

    def _closing(self, turn: UserTurn) -> str:
        """Its thanks at the end (one of several, drawn with the episode's rng). (A line of what it will
        remember of its mistake, "Plus or minus. Noted.", was tried and named by every rater of two
        rounds as a lesson summary no child writes.)"""
        pool = [x.replace("{x}", self.stated[-1] if self.stated else "it").replace("{u}", self.unit) for x in L.THANKS[self.register]]
        line = self._typed(turn.rng.choice(self._mine(turn, [x for x in pool if x not in self.said] or ["Thanks, bye."])))
        self.said.add(line)
        return f"{line} {STOP_TOKEN}"

    def _typed(self, text: str) -> str:
        """``text`` as this student types it: a terse one in lower case, with no full stop at the end."""
        if not self.lowercase:
            return text
        body = text.replace(STOP_TOKEN, "\0").lower().replace("\0", STOP_TOKEN)
        return re.sub(rf"(?<![.])\.(?=\s*(?:{re.escape(STOP_TOKEN)})?\s*$)", "", body)

    def _opening(self, turn: UserTurn, sit: str, dims: dict) -> tuple[str, str]:
        temper = dims.get("temperament") if dims.get("temperament") in L.OPEN_HELP else "calm"
        s = self.mind["statement"]
        ref = self._problem_ref(turn)
        x = self.current()
        parts: list[str] = []
        # what its first step gave: the step's result, or the wrong value it carries on from (``first_value``)
        first = self.fmt(parse_number(self.cfg.get("first_value") or self.mind["steps"][0]["result"]))
        if self.cfg.get("step_one") == "ask":  # asks whether its first step is right before going on
            parts.append(self._open_line(turn, L.OPEN_HELP[temper], ref))
            parts.append(self._pick(turn, L.ASK_STEP).format(r=first))
            # (the lines of its working that step is: it goes on from the next one)
            st = self.mind["steps"][0]
            self.step_pending, self.step_at = True, len(self._split(st["expr"], parse_number(st["result"]))) - 1
            return " ".join(parts), "checks_step"
        if self.cfg.get("step_one") == "state" or (self.coincides and not self.cfg.get("working_when_asked")):  # brings its working along
            played = "solves_problem" if self.is_right(x) else "makes_mistake"
            parts.append(self._open_line(turn, L.OPEN_CHECK[temper], ref))
            if self.coincides:
                self.shown_wrong = True  # its working shows the misconception, though its answer is right
                self._state(turn, x, parts, L.WITH_WORKING)
                parts[-1] = parts[-1].format(w=self.working())
            else:
                self._state(turn, x, parts, L.AFTER_STEP)
                parts[-1] = parts[-1].format(r=first)
            return " ".join(parts), played
        if self.cfg.get("self_corrects") and self.active and len(self.stages) > 1:
            # gives its first wrong answer, catches that mistake itself, and goes on to the next one's answer
            parts.append(self._open_line(turn, L.OPEN_CHECK[temper], ref, mine=False))
            self._state(turn, x, parts, L.STATE["makes_mistake"])
            was_code, old = self.code, [c for c, _ in self._calcs()]
            self.active = False
            self._next_stage()
            new = [c for c, _ in self._calcs()]
            at = _first_change(old, new)
            self.realised_now = self._let_go(turn, was_code, old, new, at, x, numbers=True)
            parts += [self._pick(turn, L.SELF_CATCH), self.realised_now]
            self._state(turn, self.current(), parts, L.SELF_REDO)
            return " ".join(parts), "makes_mistake"
        if sit == "goes_off_tangent":
            # (no aside before any work: a child drifts off from something in the problem it worked on, or a feeling
            # after a hard step, not in its first line; the opening brings its answer, as most do)
            sit = "makes_mistake"
        if sit in ("makes_mistake", "solves_problem", "frustrated"):
            played = sit if sit == "frustrated" else ("solves_problem" if self.is_right(x) else "makes_mistake")
            parts.append(self._open_line(turn, L.OPEN_CHECK[temper] if played != "frustrated" else L.OPEN_HELP[temper], ref))
            if played == "frustrated":
                parts.append(self._mood(turn, "frustrated"))
            self._state(turn, x, parts, L.STATE[played])
            return " ".join(parts), played
        parts.append(self._open_line(turn, L.OPEN_HELP[temper], ref))
        if self.cfg.get("opens_with_attempt") and sit not in ("ambiguous_answer",):
            # stuck, it says what it did in its own numbers ("60+40+55=155. is that it?"), when it may show it
            self._state(turn, x, parts, L.STATE["opening_stuck"], worked=True)
        if sit == "ambiguous_answer":
            self.pending_ambiguous = x
            self.stated.append(x)
            self.shown_wrong = self.shown_wrong or self._answer_shows()
            parts.append(self._pick(turn, L.OPEN_HEDGE).format(x=x))
        elif sit == "pushes_for_answer":
            parts.append(self._pick(turn, L.OPEN_PUSH))
            self.pushed += 1
        elif sit == "gets_confused":
            parts.append(self._pick(turn, L.OPEN_NEXT if self.stated else L.OPEN_LOST))
        elif sit == "asks_explanation":
            parts.append(self._pick(turn, L.OPEN_EXPLAIN))
        elif sit == "tries_to_quit":
            parts.append(self._pick(turn, L.OPEN_SKIP))
            self.asked_stop = True
        elif not self.stated:
            parts.append(self._pick(turn, L.OPEN_UNFINISHED))
        return " ".join(parts), sit

    def _open_line(self, turn: UserTurn, pool: list[str], ref: str, mine: bool = True) -> str:
        """Its first line: the problem restated in its own shorthand ("coat $60, 20% off. sale price?",
        ``shorthand``), as most children do (a terse one nearly always), or one of ``pool`` pointing at it."""
        terse = self.lowercase
        if turn.rng.random() < (0.85 if terse else 0.5):
            hi = "" if terse or turn.rng.random() < 0.5 else turn.rng.choice(["Hi!", "Hi.", "Hello!", "Hey.", "Hiya!"])
            self.restated = shorthand(self.mind["statement"], turn.rng, terse, self.own)
            return " ".join(x for x in (hi, self.restated) if x)
        return turn.rng.choice(self._mine(turn, pool) if mine else pool).format(p=ref)

    def _problem_ref(self, turn: UserTurn) -> str:
        """How it names its problem in the opening: by what the problem is about ("the one about the
        pizza slices") or where it is ("the problem on my sheet"), never by reading the statement out
        (the tutor has it open; a person points to it)."""
        # (never in a worked step's words, which it never saw: "the length of the second plank" is TP69's step)
        labels = [st["text"].lower() for st in self.mind["steps"]]
        about = [a for a in self.mind.get("about") or [] if a and not any(lb in a.lower() for lb in labels)]
        if about:
            lines = [ln.replace("{a}", a) for ln in L.PROBLEM_REF for a in about]
        else:
            lines = list(L.PROBLEM_REF_PLAIN)
        ref = turn.rng.choice(self._mine(turn, lines, 6))
        return ref[:1].lower() + ref[1:]

    def _aside(self, turn: UserTurn) -> str:
        """What it drifts off to: its own life where its problem's things touch it ("I always lose my pencils",
        the problem's ``asides``), said once each; a problem with none gives one of the general ones."""
        fresh = [a for a in self.asides if a not in self.said and a not in self.asides_said and _key(a) not in self.sentences_said]
        line = self.own.choice(fresh) if fresh else self._pick(turn, L.DRIFT)
        self.asides_said.add(line)
        line = _TAIL.sub("", line)  # an aside takes no "tbh" or "lol" after it
        if fresh and self.own.random() < 0.5:  # it knows it drifts, as children say ("random q but ...")
            low = line if re.match(r"I\b", line) else line[:1].lower() + line[1:]
            line = f"{self.own.choice(_ASIDE_MARKS)} {low}"
        msg = turn.agent_message or ""
        good, bad = bool(POSITIVE.search(msg)), bool(NEGATIVE.search(msg))
        if good != bad and self.own.random() < 0.6:  # what set it off: the step just done, or the one it got wrong
            line = f"{self.own.choice(['nice.', 'ok.', 'yay.', 'ok good.'] if good else ['ugh.', 'hm.', 'argh.', 'ugh.'])} {line}"
        line = line[:1].upper() + line[1:]
        return line if line[-1:] in ".!?" else line + self.own.choice([".", "!", ".", ""])

    def _mood(self, turn: UserTurn, sit: str) -> str:
        """A line of the situation's own mood (its scripted prefix), to enact it in an opening."""
        if sit in L.MOOD:
            return turn.rng.choice(self._mine(turn, L.MOOD[sit][0]))
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
            self.shown_wrong = self.shown_wrong or self._answer_shows()
            self.quiet_turns = 0
            parts.append(self._pick(turn, L.HEDGE).format(x=x))
            return sit
        played = "solves_problem" if right else "makes_mistake"
        if (self.realised_now or self.changed_at >= 0) and not self.slip_pending and self.own.random() < self.steps_first:
            # moved by a hint (now, or in its last message, with no answer since), it often does the next line
            # only and asks, when more than two lines are left
            left = len(self._calcs()) - max(self.changed_at, 0)
            step = self._next_step() if left >= 3 else ""
            if step:
                parts.append(self._pick(turn, L.STEP_ONLY, c=step))
                self.step_pending = self.progress_now = True
                return "checks_step"
        self._state(turn, x, parts, L.STATE[played])
        if (played == "makes_mistake" and self.active and self.repeating and self.defended < 2
                and (NEGATIVE.search(msg) or POINTS_AT_STEP.search(msg)) and self.own.random() < self.defends):
            reason = self._defence(turn)
            if reason:
                parts.append(reason)
                self.defended += 1
        return played

    def _defence(self, turn: UserTurn) -> str:
        """Why it did it its way, told it is wrong by a hint that did not get at its mistake ("But it says 25%
        so I took 25."): from its own wrong working, never its working when its task has it shown only when asked."""
        if not self.code or not self.mind.get("wrong_expr"):
            return ""
        words = {"+": "add", "-": "take away", "x": "times", "/": "divide"}
        wrong = self._spoken(self.mind["wrong_expr"])
        ops = set(_OPS.findall(wrong))
        w = self._eq(wrong, parse_number(self.mind["wrong_answer"])) if self._may_show() else ""
        pct = re.search(r"(\d+(?:\.\d+)?)\s*%", self.mind["statement"])
        slots = {"w": w if len(w) <= 20 else "", "was": words.get(next(iter(ops)), "") if len(ops) == 1 else "",
                 "p": pct.group(1) if pct else ""}
        lines = [ln for ln in defences(self.code, self.mind["statement"], slots) if not (_line_keys(ln) & self.sentences_said)]
        return self.own.choice(lines) if lines else ""

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
            # asking again changes: the first ask plain, the second louder or a bargain, then a sulk; after that
            # (not a push its task has it make) it gives up on pushing and tries
            n, self.pushed = self.pushed, self.pushed + 1
            if can_tell and n >= 2 and not self.forced_push:
                parts.append(self._pick(turn, L.PUSH_GIVES_UP))
                self._state(turn, x, parts, L.STATE["solves_problem" if self.is_right(x) else "makes_mistake"], worked=True)
                return parts, "solves_problem" if self.is_right(x) else "makes_mistake"
            if can_tell and self.quiet_turns >= 2:
                self._state(turn, x, parts, L.PUSH_WITH)
            elif n == 0:
                parts.append(self._pick(turn, L.PUSH))
            elif n == 1 or self.forced_push:
                parts.append(self._pick(turn, L.PRESSURE if self.forced_push and self.own.random() < 0.3 else L.PUSH_AGAIN))
            else:
                parts.append(self._pick(turn, L.PUSH_SULK))
        elif sit == "tries_to_quit":
            self.asked_stop = True
            if can_tell and self.quiet_turns >= 2:
                self._state(turn, x, parts, L.QUIT_WITH)
            else:
                parts.append(self._pick(turn, L.QUIT))
        elif sit == "asks_explanation":
            parts.append(self._explain_question(turn))
            if overdue:
                self._state(turn, x, parts, L.EXPLAIN_WITH)
        elif sit == "gets_confused":
            # told it was right ("yes, 12 is right so far"), it is not lost: it asks what comes next
            praised = bool(POSITIVE.search(msg) and not NEGATIVE.search(msg))
            # after a hint that moved it, or lost once already, it works the next bit it can and asks what
            # comes next (a person does not say "I'm lost" twice in a row, nor jump to the answer unworked)
            step = self._next_step() if revised or praised or self.lost_last else ""
            if step:
                parts.append(self._pick(turn, L.PROGRESS_STEP, c=step))
                self.step_pending = self.progress_now = True
            elif self.lost_last and not (revised or praised):
                self.progress_now = True
                if can_tell:
                    self._state(turn, x, parts, L.CONFUSED_WITH, worked=True)
                    return parts, "solves_problem" if self.is_right(x) else "makes_mistake"
                parts.append(self._confused_part(turn))
            else:
                if revised or praised:  # it sees the idea; it names the part it is unsure of, in its own terms
                    self.sees_now = True
                    parts.append(self._seen_part(turn))
                else:
                    parts.append(self._pick(turn, L.CONFUSED))
                if overdue:
                    self._state(turn, x, parts, L.CONFUSED_WITH)
        else:  # goes_off_tangent: an aside that grows out of its problem, and nothing else
            parts.append(self._aside(turn))
            if overdue:
                self._state(turn, x, parts, L.TANGENT_WITH)
        return parts, sit

    def _seen_part(self, turn: UserTurn) -> str:
        """Moved by a hint, unsure how it goes on: the part of its problem it means ("ok but the 55 minutes?")."""
        clauses = [c.strip() for c in re.split(r"[.,;?!]\s+|\band then\b", self.mind["statement"]) if re.search(r"\d", c)]
        if not clauses:
            return self._pick(turn, L.CONFUSED)
        self.explain_i += 1
        return self._pick(turn, L.SEES_IDEA, q=_part_named(clauses[-1 - self.explain_i % len(clauses)]))

    def _confused_part(self, turn: UserTurn) -> str:
        """Lost again: the part of the problem it is stuck on, named by its quantity (never the clause quoted)."""
        clauses = [c.strip() for c in re.split(r"[.,;?!]\s+|\band then\b", self.mind["statement"]) if re.search(r"\d", c)]
        if not clauses:
            return self._pick(turn, L.CONFUSED)
        self.explain_i += 1
        return self._pick(turn, L.CONFUSED_PART, q=_part_named(clauses[self.explain_i % len(clauses)]))

    def _fact(self, turn: UserTurn, hf) -> str:
        """A hidden fact as it tells it: what it tried in words of its own (the calculation and result as the
        fact has them, so a reader finds both), any other fact as written."""
        if hf.id != "tried":
            return hf.fact
        m = re.fullmatch(r"(.*?)I did (.+) and got (\S+?)\.", hf.fact.strip())
        if m:
            return f"{m.group(1)}{self._pick(turn, L.TRIED, e=m.group(2), n=m.group(3))}".strip()
        if hf.fact.startswith("I haven't written anything down yet"):
            return self._pick(turn, L.NOT_STARTED)
        return hf.fact

    def _explain_question(self, turn: UserTurn) -> str:
        """A question about a part of the problem it read, or about what the tutor just said (never a step's label)."""
        clauses = [c.strip() for c in re.split(r"[.,;?!]\s+|\band then\b", self.mind["statement"]) if re.search(r"\d", c)]
        self.explain_i += 1
        if clauses and self.explain_i % 2 == 1:
            q = _part_named(clauses[(self.explain_i // 2) % len(clauses)])
            return self._pick(turn, L.EXPLAIN_PART, q=q)
        return self._pick(turn, L.EXPLAIN_THAT)

    def _quit(self, turn: UserTurn, how: str, dims: dict) -> UserReply:
        if how == "end_session":
            turn.call_tool("end_session", {"reason": "I want to stop"})
            text = self._pick(turn, L.END_SESSION)
        else:
            text = self._pick(turn, L.LEAVE)
        lines = _situations()["tries_to_quit"].scripted
        prefix = turn.rng.choice(L.MOOD["tries_to_quit"][0] if "tries_to_quit" in L.MOOD else lines.prefix or [""])
        return UserReply(self._typed(" ".join(x for x in (prefix, text) if x) + f" {STOP_TOKEN}"), stop=True, relabel=True, played="tries_to_quit")

    def _out(self, turn: UserTurn, dims: dict, pre: list[str], body: str, played: str, opening: bool = False) -> UserReply:
        """The message in the played situation's mood and the persona's register, never one sent before."""
        # letting go with an answer after it, a child often says no word about it and just does the sum (how
        # often is its own): a reaction on every let-go is the same few words in every conversation
        quiet = bool(self.realised_now) and self.realised_now in pre and len(self.told) > self.told_at_start \
            and self.own.random() > self.reacts
        if self.realised_now in pre and self.let_go_numbered and len(self.told) > self.told_at_start:
            # an answer follows in this message: its let-go may name the number or sum that changed
            said = self._pick(turn, self.let_go_numbered + [self.realised_now])
            pre = [said if x == self.realised_now else x for x in pre]
            self.realised_now = said
        lines = _situations()[played].scripted if played in _situations() else None
        mood = L.MOOD.get(played) or ((list(lines.prefix), list(lines.suffix)) if lines else ([], []))
        prefixes = [""] if opening or not mood[0] else list(mood[0])
        suffixes = [""] if opening or not mood[1] else list(mood[1])
        said_now = " ".join([*pre, body])
        realised = bool(self.realised_now) or (bool(self.code) and realisation(self.code, self.mind["statement"]) in said_now)
        # it says it understands something (what it did wrong, the idea, that it was right): a lost
        # mood in the same message would contradict it
        realised = realised or self._understood(turn, said_now) or self.progress_now
        if quiet:
            pre = [x for x in pre if x != self.realised_now]
        # a line already in the message is not said twice; "I think I've got it" does not wrap an
        # answer it gave before, and is said once an episode (a person does not announce every
        # answer so); a lost or frustrated mood does not follow "Oh, I see what I did"
        old = self.sentences_said

        def claim_ok(p: str) -> bool:
            return not (_CLAIM.search(p) or _PROGRESS.search(p)) or not (self.repeating or self.claimed or _CLAIM.search(body))

        now_keys = _keys(said_now)
        if self.confidence == "low":  # a student who doubts its answers is never "pretty sure that's it"
            prefixes = [p for p in prefixes if not _SURE.search(p)] or [""]
            suffixes = [x for x in suffixes if not _SURE.search(x)] or [""]
        prefixes = [p for p in prefixes if not p or (p not in said_now and not (_keys(p) & (old | now_keys)) and _key(p) not in old and claim_ok(p)
                                                      and not (realised and _LOST.search(p)))] or [""]
        suffixes = [x for x in suffixes if not x or (x not in said_now and not (_keys(x) & (old | now_keys)) and _key(x) not in old and claim_ok(x)
                                                     and not (realised and _LOST.search(x)))] or [""]
        prefixes = self._mine(turn, prefixes, 4) if len(prefixes) > 4 else prefixes
        suffixes = self._mine(turn, suffixes, 4) if len(suffixes) > 4 else suffixes
        if played in ANSWERING and body and not opening:
            # the answer plays the situation; a mood line beside it is there only some of the time
            prefixes += [""] * len(prefixes)
        if dims.get("verbosity") == "terse":
            suffixes = [""]  # the prefix carries the mood; a terse student keeps it
        chatty = dims.get("verbosity") == "chatty"
        order = [(p, s) for p in prefixes for s in suffixes]
        turn.rng.shuffle(order)
        order = order[:80]
        fillers = [""] + list(L.FILLERS)
        text = ""
        # a chatty child's word about the moment: only in the message where it got past a hard step (it saw its
        # mistake and did the sum), now and then, once an episode; never in its first message
        aside = ""
        if (chatty and not opening and self.revised_now and not self.felt and _CALC.search(body)
                and len(self.told) > self.told_at_start and self.own.random() < 0.4):
            fresh = [a for a in L.AFTER_HARD if _key(a) not in old] or L.AFTER_HARD
            aside = self.own.choice(self._mine(turn, fresh, 5))
            aside = aside[:1].upper() + aside[1:] + self.own.choice([".", "!", "", "."])
            self.felt = True
        for filler in fillers:
            for p, s in order:
                if p and body and self.runs_on and p[-1] in ".!" and not pre and not filler:
                    # a run-on: the mood and what it did in one breath ("Okay I worked it out, I got 12")
                    head = p[:-1] + ("," if not p[:-1].endswith(",") else "")
                    low = body if re.match(r"I\b", body) else body[:1].lower() + body[1:]
                    text = " ".join(x for x in (head + " " + low, s, aside) if x)
                else:
                    text = " ".join(x for x in (*pre, filler, p, body, s, aside) if x)
                text = _destacked(text)
                if text not in self.said and not (_keys(text) & old):
                    break
            if text not in self.said and not (_keys(text) & old):
                break
        else:
            if text in self.said:
                text = f"{text} (That's what I have so far, try {len(self.said) + 1}.)"
        plain_keys = _keys(text)
        plain = text
        for _ in range(6):  # its voice must not turn a sentence into one it said before
            # (an aside takes no habit of its voice: "so basically i want a coat with a fluffy hood tbh" is assembled)
            text = self._voiced(turn, plain) if played != "goes_off_tangent" else plain
            if not (_keys(text) & old):
                break
        else:
            text = plain
        self.sentences_said |= plain_keys  # as written and as voiced: neither may come again
        self.claimed |= bool(_CLAIM.search(text.replace(body, " ")) or _CLAIM.search(body))
        self.said.add(text)
        self.sentences_said |= _keys(text)
        # lost, or unsure what comes next, and saying so: its next confused turn tries a step instead
        self.lost_last = played == "gets_confused" and not self.progress_now
        text = self._typed(text)
        self.said.add(text)
        return UserReply(text, relabel=played != turn.situation_id, played=played)
