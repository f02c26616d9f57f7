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


def _fact(sentence: str, rng: random.Random, terse: bool) -> str:
    s = _LEAD.sub("", sentence.strip())
    s = re.sub(r"\s+at a steady speed\b", "", s)
    if rng.random() < 0.5:  # "She packs them in boxes of 5" -> "packs them in boxes of 5", "It is on sale" -> "on sale"
        s = re.sub(r"^(?:She|He|It|They)\s+(?:is\s+|are\s+)?(?=\w)", "", s)
    out = " ".join(w for w in s.rstrip(".").split() if w.lower().strip(",") not in _DROP)
    return re.sub(r",?\s+and\s+", rng.choice([", ", " and ", " + "] if terse else [", ", " and "]), out)


def _question(q: str, rng: random.Random) -> str:
    q = _UNIT_TAIL.sub("", q.strip())
    m = re.search(r"\b(how (?:many|much|far|long)\b.*)", q, re.I)
    if m:
        words = m.group(1).rstrip("?").split()
        cut = next((i for i, w in enumerate(words) if i >= 2 and w.lower() in _AUX), len(words))
        rest = {w.lower().strip(",?") for w in words[cut:]}
        if cut < len(words) and not rest & _MEANS and not re.search(r"\d", " ".join(words[cut:])) and rng.random() < 0.6:
            return " ".join(words[:cut]) + "?"
    w = re.match(r"What is (?:the )?(.+)\?$", q, re.I)
    if w and rng.random() < 0.5:  # "What is the sale price?" -> "sale price?"
        return w.group(1) + "?"
    return q


def _folded(text: str) -> str:
    return re.sub(r"[^a-z0-9%$/]+", " ", text.lower()).strip()


def shorthand(statement: str, rng: random.Random, terse: bool) -> str:
    """``statement`` as this student types it (lower case and run together when ``terse``); never the
    statement copied out whole (a statement with no article to drop is drawn again, then typed terse)."""
    for _ in range(6):
        text = _draw(statement, rng, terse)
        if _folded(statement) not in _folded(text):
            return text
    text = re.sub(r"\b(?:the|a|an)\s+", "", _draw(statement, rng, True))
    return re.sub(r"([.,] )(?:she|he|it|they) ", r"\1", text)


def _draw(statement: str, rng: random.Random, terse: bool) -> str:
    sents = re.split(r"(?<=[.?!])\s+", statement.strip())
    parts = [_fact(s, rng, terse) for s in sents if not s.endswith("?")]
    qs = [s for s in sents if s.endswith("?")]
    if qs:
        q = qs[-1]
        cond = re.match(r"If (.*?), (how .*)$", q, re.I)
        if cond:
            parts.append(_fact(cond.group(1), rng, terse))
            q = cond.group(2)
        if re.search(r"\d", q) or rng.random() < 0.7:
            parts.append(_question(q, rng))
    joiner = rng.choice([". ", ", "]) if terse else ". "
    text = joiner.join(p.rstrip("?") if i < len(parts) - 1 else p for i, p in enumerate(parts))
    text = re.sub(r"([.!?] )([a-z])", lambda g: g.group(1) + g.group(2).upper(), text)
    if terse:
        return text.lower()
    return text[:1].upper() + text[1:] + ("" if text.endswith("?") else ".")
