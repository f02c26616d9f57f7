"""Playing a drawn situation at one point of a conversation (domain-neutral).

A situation's scripted lines (``ScriptedLines``) wrap the user's message. A line
fits a point when its ``fits`` entry allows it: the opening or a later turn, an
answer to the agent's question or not, a line about a pause only where there was one
(the user went and checked something, or was asked to wait), a persona's own line only from that
persona, pushing back on a no only once there was one, thanks only right after the agent did something for the user, and warm lines
(thanks, kind words) never from a cold persona nor after a turn played in a cold mood.
A cold mood (angry, hurried) speaks its lines only where they react to something: the
opening's complaint, or what the agent just did (a refusal, a delay, a question asked
again, a long wait), one line a message; at any other point (a plain question, a
proposal) the mood is in the user's own words (the situation's ``voice``) and no
line is glued to the answer ("Disgraceful!" after an email address). ``enact`` picks
one fitting prefix and suffix with the episode's rng and says whether the situation
could be played at all: it cannot when a list it has holds no fitting line (a line
already said this episode fits no more: "I am furious right now" three times is a
template, not a person), or when its lines for the episode are spent (``per_episode``),
or when a withholding situation is drawn after the opening (nothing is volunteered
any more, so nothing can be held back), or a cold one right after the agent did what
the user agreed to ("I'm livid!" after a refund), or a situation that lives in how the
request is first put (``at: opening``) is drawn later. The caller labels the turn with
what was played, so rules judged on the agent's reply fit the message it answers.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from envs.spec.schema import LineFit, ScriptedLines

REPERTOIRE = 3  # lines of one list an episode speaks (see enact)


@dataclass
class Point:
    """Where in the conversation the user speaks."""

    opening: bool
    answering: bool  # the message answers something the agent asked
    cold: bool  # the persona is cold, or an earlier turn was played in a cold mood
    said: frozenset[str] = frozenset()  # lines the user has already said this episode
    helped: bool = True  # the agent has just done something for the user (since its last message)
    changed: bool = True  # the user has changed its mind this episode
    done: bool = False  # the agent has just done what the user agreed to (since its last message)
    refused: bool = False  # the agent's message the user answers is a refusal
    refused_once: bool = False  # the agent has refused something this episode (this message or before)
    key: int | None = None  # a stable number per episode and situation: which realisation it speaks
    # the agent's message gives a mood something to react to: a refusal, a delay, a question
    # asked again, a long wait (a plain question or a proposal gives it none)
    react: bool = True
    pause: bool = False  # the user comes back from checking something, or was asked to wait
    persona: Mapping[str, str] = field(default_factory=dict)  # the persona's dimension values
    deciding: bool = False  # the user decides something here (a proposal, a choice, a change of mind)
    # what the message reacts to: "opening" (the complaint), "refusal", "delay", "again", "wait"
    reasons: frozenset[str] = frozenset()
    about: str = ""  # the request in hand, as the task writes it (what a line about the matter must fit)


@dataclass
class Enacted:
    prefix: str
    suffix: str
    played: bool
    said: tuple[str, ...] = ()  # the lines chosen, as written (what ``Point.said`` holds)
    aside: bool = False  # a line of an aside situation was chosen: the message needs no other aside


def stable_hash(text: str) -> int:
    """A stable, well-mixed number for ``text`` (the same in every process). Not crc32: it is
    linear, so the choices of one line's alternations, keyed by strings that differ in one digit,
    came out correlated (a line of 128 realisations said a handful of them)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


_ALTERNATION = re.compile(r"\{([^{}]*\|[^{}]*)\}")


def realise(line: str, key: int | None) -> str:
    """A line with ``{a|b|c}`` alternations, said the way ``key`` (a task's) says it: one
    line written with a few alternations gives each episode its own wording of it."""
    if not line or "{" not in line:
        return line
    if key is None:
        key = 0
    n = [0]

    def one(m: re.Match) -> str:
        n[0] += 1
        options = m.group(1).split("|")
        return options[stable_hash(f"{key}:{n[0]}:{line}") % len(options)]

    return re.sub(r"  +", " ", _ALTERNATION.sub(one, line)).strip()


def fits(line: str, fit: LineFit | None, at: Point) -> bool:
    """Whether ``line`` may be said at ``at``."""
    if fit is None or not line:
        return True
    if fit.at == "opening" and not at.opening or fit.at == "later" and at.opening:
        return False
    if fit.at == "pause" and not at.pause:
        return False
    if any(at.persona.get(k) != v for k, v in fit.when.items()):
        return False
    if fit.answering and not at.answering:
        return False
    if fit.telling and (not at.answering or at.deciding):
        return False
    if fit.after_help and not at.helped or fit.after_change and not at.changed or fit.deciding and not at.deciding:
        return False
    if fit.after_refusal and not (at.refused or at.refused_once):
        return False
    if fit.reacts_to and not set(fit.reacts_to) & at.reasons:
        return False
    if fit.about and not re.search(fit.about, at.about, re.I):
        return False
    # no thanks from a cold mood, nor in answer to a refusal ("Then I want a manager. Cheers.")
    return not (fit.warm and (at.cold or at.refused))


def _spent(lines: ScriptedLines, at: Point) -> bool:
    """The situation's lines for the episode are said (``per_episode``)."""
    if not lines.per_episode:
        return False
    return sum(x in at.said for x in {*lines.prefix, *lines.suffix} if x) >= lines.per_episode


def enact(lines: ScriptedLines | None, at: Point, rng: random.Random) -> Enacted:
    """The lines that play ``lines`` at ``at`` (one rng draw per non-empty list, fitting or not,
    so the episode's later draws do not depend on what fitted)."""
    if lines is None:
        return Enacted("", "", True)
    played = not (lines.withhold and not at.opening)
    # a cold mood (angry, hurried) is no reply to the agent having just done what was asked
    if lines.at == "opening" and not at.opening or lines.cold and at.done or _spent(lines, at):
        for options in (lines.prefix, lines.suffix):
            if options:
                rng.random()  # the same draws as a played turn: later draws do not depend on this
        return Enacted("", "", False)
    out = []
    for i, options in enumerate((lines.prefix, lines.suffix)):
        if not options:
            out.append("")
            continue
        ok = [x for x in options if fits(x, lines.fits.get(x), at) and (not x or x not in at.said)]
        pick = rng.random()
        if not ok:
            played = False
            out.append("")
        elif at.key is not None:
            # a person has a few phrases of their own: the episode's repertoire (its first REPERTOIRE
            # lines in an order of its own) is what it says, so a run does not put one sentence in
            # every task's mouth; once those are said, it says nothing more in that mood
            order = sorted(options, key=lambda x: stable_hash(f"{at.key}:{i}:{x}"))
            mine = [x for x in order[:REPERTOIRE] if x in ok]
            if not mine and "" in ok:
                mine = [""]
            if not mine:
                played = False
                out.append("")
            else:
                out.append(mine[int(pick * len(mine)) % len(mine)])
        else:
            out.append(ok[int(pick * len(ok)) % len(ok)])
    reacting = lines.cold or lines.reacts
    if reacting and not at.opening and not at.react:
        # nothing just happened for the mood to react to (a plain question, a proposal): its lines
        # are not glued to the answer; the answer is in the mood's own words, when it has them
        # (without a voice the situation is not played here)
        return Enacted("", "", bool(lines.voice))
    if reacting and out[0] and out[1]:
        # one line of the mood a message: after the complaint at the opening, first when it reacts
        out[0 if at.opening else 1] = ""
    elif not at.opening and at.answering and out[0] and out[1]:
        # a person answering a question answers, with at most one remark after it
        out[0] = ""
    fit = lines.fits.get(out[1])
    if out[1] and not out[0] and fit is not None and fit.at == "pause":
        # what happened while it went to look comes first, then what it found ("Sorry for the wait,
        # the dog followed me out. Nothing at the door, ..."), not as an aside after the report
        out = [out[1], ""]
    chosen = tuple(x for x in out if x)
    aside = lines.aside and bool(chosen)
    return Enacted(realise(out[0], at.key), realise(out[1], at.key), played, chosen, aside)
