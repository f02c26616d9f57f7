"""The problem as a student types it to a tutor: in shorthand, not copied out.

Every blind rating round named a student who only points at its problem ("the one with Ava's film
from class") as written by no child, and the person-written conversations restate it in a few
words ("coat $60, 20% off. sale price?"). ``shorthand`` does that per episode from the statement:
articles dropped, "and" typed as a comma or "+", a unit clause at the question's end left off, the
question cut to its head where nothing after the verb changes what is asked ("how many buses?",
never "how many seats?" for "how many seats were empty?"), and left out only when it carries no
number. Every number of the statement stays, so the shorthand states the same problem.
"""

from __future__ import annotations

import random
import re

_LEAD = re.compile(r"^(?:A|An|The|There (?:are|is|were))\s+", re.I)
_UNIT_TAIL = re.compile(r",?\s+in (?:dollars|miles|minutes|hours|centimetres|metres|cups|litres|km|kilometres)(?=\?$)", re.I)
_DROP = {"a", "an", "the", "at", "already", "equally", "then"}
_AUX = {"does", "do", "is", "are", "was", "were", "will", "can", "did", "has", "have", "would", "should", "must"}
# words after the question's verb that change what is asked: the question is kept whole then
_MEANS = {"left", "empty", "more", "now", "total", "all", "altogether", "still", "each", "per", "after", "remain",
          "remaining", "spare", "over", "in", "of", "not", "first", "last", "back"}


# units as a child types them in a hurry ("1 hr 40 mins", "2 m"): drawn per sentence, the number kept
_SHORT_UNITS = [(r"\bminutes\b", ["mins", "min"]), (r"\bminute\b", ["min"]), (r"\bhours\b", ["hrs", "hours"]),
                (r"\bhour\b", ["hr", "hour"]), (r"\bcentimetres\b", ["cm"]), (r"\bkilometres\b", ["km"]),
                (r"(?<=\d )metres\b", ["m", "metres"]), (r"(?<=\d )litres\b", ["l", "litres", "L"]),
                (r"\bdollars\b", ["$"]), (r"\bstudents\b", ["kids", "students"]), (r"\bchildren\b", ["kids", "children"])]


def _clipped(s: str, rng: random.Random, terse: bool) -> str:
    """``s`` with some of its words typed short: units abbreviated, "is"/"are" before a number dropped,
    "each" typed as "ea" now and then; every number kept."""
    if rng.random() < (0.7 if terse else 0.45):
        for pat, subs in _SHORT_UNITS:
            if rng.random() < 0.7:
                s = re.sub(pat, rng.choice(subs), s)
    if rng.random() < 0.4:
        s = re.sub(r"\b(?:is|are)\s+(?=\$?\d)", "", s)
    if terse and rng.random() < 0.3:
        s = re.sub(r"\beach\b", "ea", s)
    if rng.random() < 0.5:  # days typed short
        for day, short in (("monday", "mon"), ("tuesday", "tues"), ("friday", "fri"), ("saturday", "sat"), ("sunday", "sun")):
            s = re.sub(rf"\b{day}\b", short, s, flags=re.I)
    if rng.random() < 0.5:  # "4 trays of 12 muffins" -> "4 trays x 12 muffins", "1/4 of fence" -> "1/4 fence"
        s = re.sub(r"(\d+ [a-z]+s) of (?=\d)", r"\1 x ", s) if rng.random() < 0.5 else re.sub(r"(\d/\d+) of (?!it\b|them\b)", r"\1 ", s)
    if rng.random() < 0.5:
        s = re.sub(r"\s+of (?:it|them)\b", "", s)
    if rng.random() < 0.4:
        s = re.sub(r"\bpupils\b", "kids", s)
    return s


def _fact(sentence: str, rng: random.Random, terse: bool, clip: random.Random | None = None) -> str:
    s = _LEAD.sub("", sentence.strip())
    s = re.sub(r"\s+at a steady speed\b", "", s)
    if rng.random() < 0.5:  # "She packs them in boxes of 5" -> "packs them in boxes of 5", "It is on sale" -> "on sale"
        s = re.sub(r"^(?:She|He|It|They)\s+(?:is\s+|are\s+)?(?=\w)", "", s)
    out = " ".join(w for w in s.rstrip(".").split() if w.lower().strip(",") not in _DROP)
    out = _clipped(out, clip or rng, terse)
    return re.sub(r",?\s+and\s+", rng.choice([", ", " and ", " + "] if terse else [", ", " and "]), out)


def _question(q: str, rng: random.Random, clip: random.Random | None = None) -> str:
    q = _UNIT_TAIL.sub("", q.strip())
    m = re.search(r"\b(how (?:many|much|far|long)\b.*)", q, re.I)
    if m:
        words = _clipped(m.group(1).rstrip("?"), clip or rng, False).split()
        cut = next((i for i, w in enumerate(words) if i >= 2 and w.lower() in _AUX), len(words))
        rest = {w.lower().strip(",?") for w in words[cut:]}
        if cut < len(words) and not rest & _MEANS and not re.search(r"\d", " ".join(words[cut:])) and rng.random() < 0.6:
            return " ".join(words[:cut]) + "?"
    w = re.match(r"What is (?:the )?(.+)\?$", q, re.I)
    if w and rng.random() < 0.5:  # "What is the sale price?" -> "sale price?"
        return w.group(1) + "?"
    clip = clip or rng
    if clip.random() < 0.5:  # "what fraction of the fence is still unpainted?" -> "what fraction of fence is unpainted?"
        q = re.sub(r"\b(?:the|still)\s+", "", q, flags=re.I)
    return _clipped(q, clip, False)


def _folded(text: str) -> str:
    return re.sub(r"[^a-z0-9%$/]+", " ", text.lower()).strip()


def shorthand(statement: str, rng: random.Random, terse: bool, clip: random.Random | None = None) -> str:
    """``statement`` as this student types it (lower case and run together when ``terse``); never the
    statement copied out whole (a statement with no article to drop is drawn again, then typed terse).
    ``clip`` draws which words it types short (``rng`` when not given)."""
    for _ in range(6):
        text = _draw(statement, rng, terse, clip)
        if _folded(statement) not in _folded(text):
            return text
    text = re.sub(r"\b(?:the|a|an)\s+", "", _draw(statement, rng, True, clip))
    return re.sub(r"([.,] )(?:she|he|it|they) ", r"\1", text)


def _draw(statement: str, rng: random.Random, terse: bool, clip: random.Random | None = None) -> str:
    sents = re.split(r"(?<=[.?!])\s+", statement.strip())
    parts = [_fact(s, rng, terse, clip) for s in sents if not s.endswith("?")]
    qs = [s for s in sents if s.endswith("?")]
    if qs:
        q = qs[-1]
        cond = re.match(r"If (.*?), (how .*)$", q, re.I)
        if cond:
            parts.append(_fact(cond.group(1), rng, terse, clip))
            q = cond.group(2)
        if re.search(r"\d", q) or rng.random() < 0.7:
            parts.append(_question(q, rng, clip))
    joiner = rng.choice([". ", ", "]) if terse else ". "
    text = joiner.join(p.rstrip("?") if i < len(parts) - 1 else p for i, p in enumerate(parts))
    text = re.sub(r"([.!?] )([a-z])", lambda g: g.group(1) + g.group(2).upper(), text)
    if terse:
        return text.lower()
    return text[:1].upper() + text[1:] + ("" if text.endswith("?") else ".")
