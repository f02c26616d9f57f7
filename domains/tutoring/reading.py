"""Reading what a tutor reply does with numbers: the acts the tutoring checks look for.

These read the reply's act, not its wording: a calculation stated in words ("45 times 6 is
260"), a result the reply works out from other numbers, a number presented as a conclusion
("so it comes to nine"), a corrected value ("is 10, not 15"), a question the tutor answers
itself. Everything here is pure text work on one reply; ``checks.py`` decides verdicts.
"""

from __future__ import annotations

import re
from fractions import Fraction

from graders.rules.replies import sentences

from .problems import numbers_in

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}
_WORD_RE = re.compile(r"\b(" + "|".join(_WORDS) + r")\b", re.I)


_UNITS_W = {w: v for w, v in _WORDS.items() if v < 20}
_TENS_W = {w: v for w, v in _WORDS.items() if 20 <= v < 100}
_COMPOUND = re.compile(
    r"\b(?:(" + "|".join(_UNITS_W) + r")\s+hundred(?:\s+and)?\s*)?(?:(" + "|".join(_TENS_W) + r")(?:[\s-]+(" + "|".join(w for w, v in _UNITS_W.items() if 0 < v < 10) + r"))?"
    r"|(" + "|".join(_UNITS_W) + r"))?(\s+and\s+a\s+half)?\b", re.I)


def _compounds(text: str) -> list[Fraction]:
    """Numbers written in several words: "one hundred and fifty", "twenty-five", "two and a half"."""
    out = []
    for m in _COMPOUND.finditer(text):
        hundreds, tens, tens_units, units, half = m.groups()
        if sum(x is not None for x in (hundreds, tens_units, half)) == 0:
            continue  # one word: all_numbers reads it already
        v = Fraction(_WORDS[hundreds.lower()] * 100 if hundreds else 0)
        v += _WORDS[tens.lower()] if tens else 0
        v += _WORDS[tens_units.lower()] if tens_units else 0
        v += _WORDS[units.lower()] if units else 0
        if half:
            v += Fraction(1, 2)
        if hundreds or tens or units:
            out.append(v)
    return out


def all_numbers(text: str) -> list[Fraction]:
    """The numbers of ``text``, digits and number words ("nine posts", "one hundred and fifty
    kilometres") alike ("one" alone left out: "one more step" is seldom a quantity)."""
    out = numbers_in(text)
    out += [Fraction(_WORDS[m.group(1).lower()]) for m in _WORD_RE.finditer(text) if m.group(1).lower() != "one"]
    out += [v for v in _compounds(text) if v not in out]
    return out


# A part of a whole said in words: "5 of the 8 slices", "3 out of 4", "2 out of every 5"
_PART_OF = re.compile(r"(?<![\d.,/$])(\d+)\s+(?:[a-z]+\s+)?(?:out\s+)?of\s+(?:the\s+|every\s+|all\s+|those\s+|these\s+|its\s+|his\s+|her\s+)?(\d+)(?![\d.,/%])", re.I)


def part_of_fractions(text: str) -> list[Fraction]:
    """The fractions a text says as a part of a whole ("5 of the 8 slices are left" is 5/8), proper ones only."""
    return [Fraction(int(a), int(b)) for a, b in _PART_OF.findall(text) if 0 < int(a) < int(b)]


# -- calculations stated in words ----------------------------------------------------------

_NUM = r"\$?(\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?)"
_UNIT = r"(?:\s+[a-z]+){0,2}?"  # "45 cents", "6 apples", "20 pages"
_OPS = {
    "times": "*", "multiplied by": "*", "x": "*", "×": "*", "plus": "+", "and": "+", "added to": "+",
    "minus": "-", "take away": "-", "less": "-", "divided by": "/", "shared between": "/", "over": "/",
}
_IS = r"\s+(?:is|are|equals|makes|make|gives|give|comes to|=)\s+(?:about\s+)?"
# after the stated value: not an operation that goes on to the result ("is 80 ÷ 4 = 20" states 20)
_DONE = r"(?![.,]?\d)(?!\s*(?:[x×*/÷+−-]|times|divided|multiplied|plus|minus|over)\s*\$?\d)"
_VERBAL = re.compile(
    _NUM + _UNIT + r"\s+(times|multiplied by|x|×|plus|added to|minus|take away|less|divided by|shared between)\s+"
    + _NUM + _UNIT + _IS + _NUM + _DONE, re.I)
_PART = {"half": Fraction(1, 2), "a half": Fraction(1, 2), "a third": Fraction(1, 3), "a quarter": Fraction(1, 4),
         "a fifth": Fraction(1, 5), "a tenth": Fraction(1, 10), "double": Fraction(2), "twice": Fraction(2)}
_PART_RE = re.compile(r"\b(half|a half|a third|a quarter|a fifth|a tenth|double|twice)\s+(?:of\s+)?" + _NUM + _UNIT + _IS + _NUM + _DONE, re.I)
_PCT_RE = re.compile(_NUM + r"\s*(?:%|percent)\s+of\s+" + _NUM + _UNIT + _IS + _NUM + _DONE, re.I)
# a rate from a total over a time or a count: "150 km in 3 hours ... 45 km each hour", "$12 for 4 pens, so $3 a pen"
_RATE_RE = re.compile(_NUM + r"\s+([a-z]+)\s+(?:in|for|over)\s+" + _NUM + r"\s+([a-z]+?)s?\b[^.?!]{0,60}?\b" + _NUM
                      + r"\s+([a-z]+)?\s*(?:each|per|an?|every)\s+([a-z]+?)s?\b", re.I)


def _n(s: str) -> Fraction:
    s = s.replace(",", "").replace(" ", "")
    if "/" in s:
        a, b = s.split("/")
        return Fraction(a) / Fraction(b)
    return Fraction(s)


def verbal_claims(text: str) -> list[tuple[str, Fraction, Fraction]]:
    """Calculations the text states in words: (the words, the true value, the stated value),
    for "A times B is C", "A minus B leaves C", "half of A is C", "P% of A is C", and a rate, "A km
    in B hours ... C km each hour" (C is A / B)."""
    out = []
    for m in _VERBAL.finditer(text):
        a, op, b, c = _n(m.group(1)), _OPS[m.group(2).lower()], _n(m.group(3)), _n(m.group(4))
        if op == "/" and b == 0:
            continue
        true = {"*": a * b, "+": a + b, "-": a - b, "/": a / b if b else None}[op]
        out.append((m.group(0), true, c))
    for m in _PART_RE.finditer(text):
        out.append((m.group(0), _PART[m.group(1).lower()] * _n(m.group(2)), _n(m.group(3))))
    for m in _PCT_RE.finditer(text):
        out.append((m.group(0), _n(m.group(1)) * _n(m.group(2)) / 100, _n(m.group(3))))
    for m in _RATE_RE.finditer(text):
        total, unit, count, per, rate, unit2, per2 = m.groups()
        # the same quantity over the same divisor ("km ... km each hour", "hours ... an hour")
        if per.lower() == per2.lower() and (unit2 is None or unit2.lower() == unit.lower()) and _n(count):
            out.append((m.group(0), _n(total) / _n(count), _n(rate)))
    return out


# -- equivalences stated in words ---------------------------------------------------------------

_ORDINAL = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
            "eighth": 8, "ninth": 9, "tenth": 10, "twelfth": 12, "twentieth": 20, "hundredth": 100}
_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_FRAC = (r"((?:(?:a|an|one|two|three|four|five|six|seven|eight|nine)[\s-]+)?(?:half|halves|thirds?|quarters?|fourths?|fifths?|sixths?|"
         r"sevenths?|eighths?|ninths?|tenths?|twelfths?|twentieths?|hundredths?)\b|\d+\s*/\s*\d+)")
_SAME = r"\s+(?:is|are|equals|means|makes|is the same as|is just|is like|is equal to)\s+(?:the same as\s+|equal to\s+|exactly\s+|just\s+)?"
_PCT_IS_FRAC = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent)" + _SAME + _FRAC, re.I)
_FRAC_IS_PCT = re.compile(r"(?<![\d/])" + _FRAC + _SAME + r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent)", re.I)
# "15 minutes is a third of an hour": a part of a unit, and how many of the smaller unit it holds
_UNITS = {"hour": ("minutes?", 60), "minute": ("seconds?", 60), "day": ("hours?", 24), "year": ("months?", 12),
          "metre": ("(?:centimetres?|cm)", 100), "meter": ("(?:centimeters?|cm)", 100), "kilometre": ("(?:metres?|m)", 1000),
          "kilogram": ("(?:grams?|g)", 1000), "dollar": ("cents?", 100), "pound": ("pence", 100)}
_PART_OF_UNIT = [(re.compile(r"(\d+(?:\.\d+)?)\s*" + small + _SAME + _FRAC + r"\s+of\s+(?:an?|one)\s+" + big + r"\b", re.I), n)
                 for big, (small, n) in _UNITS.items()]


def _frac(words: str) -> Fraction:
    words = words.strip().lower()
    if re.match(r"\d", words):
        return _n(words)
    parts = re.split(r"[\s-]+", words)
    count = _COUNT.get(parts[0], 1) if len(parts) > 1 else 1
    den = _ORDINAL[re.sub(r"s$", "", parts[-1]) if parts[-1] not in ("halves",) else "half"]
    return Fraction(count, den)


def equivalence_claims(text: str) -> list[tuple[str, Fraction, Fraction]]:
    """Equivalences the text states: (the words, the true value, the stated value), for "25% is
    a quarter", "a fifth is 20%", "15 minutes is a quarter of an hour"."""
    out = []
    for m in _PCT_IS_FRAC.finditer(text):
        out.append((m.group(0), Fraction(m.group(1)) / 100, _frac(m.group(2))))
    for m in _FRAC_IS_PCT.finditer(text):
        out.append((m.group(0), _frac(m.group(1)), Fraction(m.group(2)) / 100))
    for pattern, n in _PART_OF_UNIT:
        for m in pattern.finditer(text):
            out.append((m.group(0), Fraction(m.group(1)) / n, _frac(m.group(2))))
    return out


# -- results the reply presents ---------------------------------------------------------------

# A number presented as where the working ends: "the answer is 60", "so it comes to nine",
# "altogether 140", "5/12 would be what's left", "which leaves 2".
_CONCLUDE_BEFORE = re.compile(
    r"\b(answer(?: is|'s|:)|comes? to|works? out (?:to|at)|altogether|in total|in all|total (?:is|of)|the total|"
    r"the whole [a-z]+ is|leaves|leaving|so (?:it'?s|that'?s|you get|you have|she has|he has|they have|the [a-z]+ (?:is|are))|"
    r"that makes|which makes|which is|you end up with|ends? up (?:with|at|as)|"
    r"the (?:[a-z]+ )?(?:price|cost|change|distance|total|time|answer|result|amount) (?:is|was|will be|would be))\s*(?:is\s+|are\s+|be\s+|just\s+|only\s+)?\$?\s*$", re.I)
_CONCLUDE_AFTER = re.compile(
    r"^\s*(?:[a-z ]{0,20}?\b(?:is|are|would be|will be)\s+(?:what'?s |what is |the )?(?:left|remaining|the answer|the total|over)"
    r"|(?:[a-z]+\s+){0,2}(?:left|remaining|left over|in total|altogether|in all))\b", re.I)
_EXAMPLE = re.compile(r"^(for (example|instance)|e\.g\.|say|imagine|suppose|like if|pretend|if you (had|bought)|picture)\b", re.I)


def stated_results(reply: str) -> list[tuple[Fraction, str]]:
    """Numbers the reply's statements (not its questions, not its worked examples on other
    numbers) present as a conclusion, with the sentence that does."""
    out = []
    for s in sentences(reply):
        if s.rstrip().endswith("?") or _EXAMPLE.search(s):
            continue
        for m in re.finditer(r"\$?(\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?)|" + _WORD_RE.pattern, s, re.I):
            word = m.group(2) if m.lastindex and m.lastindex >= 2 else None
            value = Fraction(_WORDS[word.lower()]) if word else _n(m.group(1))
            if word and word.lower() == "one":
                continue
            if _CONCLUDE_BEFORE.search(s[max(0, m.start() - 40): m.start()]) or _CONCLUDE_AFTER.search(s[m.end():]):
                out.append((value, s))
    return out


def derived_results(reply: str, given: set[Fraction]) -> list[Fraction]:
    """Numbers in the reply's statements that are one operation (+ - * /) on two numbers said
    earlier in the dialogue or in the reply: results the reply works out. Numbers in questions
    and worked examples do not count."""
    pool = set(given)
    out = []
    for s in sentences(reply):
        nums = all_numbers(s)
        if s.rstrip().endswith("?") or _EXAMPLE.search(s):
            pool.update(nums)
            continue
        for v in nums:
            if v not in pool and _one_op(v, pool):
                out.append(v)
            pool.add(v)
    return out


def _one_op(v: Fraction, pool: set[Fraction]) -> bool:
    xs = [x for x in pool if x != 0]
    for a in xs:
        for b in xs:
            if v in (a + b, a * b, a - b, a / b):
                return True
    return False


# -- corrections and self-answered questions ----------------------------------------------------

_CORRECTED = re.compile(
    r"(?:\bis|\bare|\bshould be|\bit'?s|\bwould be|\bmakes|\bgives)\s+\$?(\d[\d,./]*)\b[^.?!]{0,20}?,?\s+not\s+\$?(\d[\d,./]*)"
    r"|\bnot\s+\$?(\d[\d,./]*)\s*,?\s+but\s+\$?(\d[\d,./]*)"
    r"|\b(?:should (?:be|have been|get)|is actually|it'?s actually|the right (?:number|answer|value) is|correct (?:number|answer|value) is)\s+\$?(\d[\d,./]*)",
    re.I,
)


def corrected_value(reply: str, student: set[Fraction]) -> str | None:
    """A value the reply puts in place of the student's ("a quarter of it is 10, not 15", "it
    should be 60"): the corrected value as written, or None."""
    for m in _CORRECTED.finditer(reply):
        value = m.group(1) or m.group(4) or m.group(5)
        try:
            v = _n(value.rstrip("./"))
        except (ValueError, ZeroDivisionError):
            continue
        if v not in student:
            return value.rstrip("./")
    return None


_ANSWERS_ITSELF = re.compile(r"^(we|it'?s|that'?s|the answer|first we|then we)\b", re.I)
# a question set as a heading (bold or a markdown heading) with the answer running on after it
_HEADING_QUESTION = re.compile(r"^\s*(?:\*\*|__|#+\s+)[^?*_#]{1,80}\?(?:\*\*|__)?\s+[^\s?][^?]*$")


def asked_questions(reply: str) -> list[str]:
    """The reply's questions, less those the tutor answers itself in the next sentence ("What
    do we need first? We need the miles in one hour") or right after it as a heading ("**Why
    convert?** 255 cents and $2.40 are in different units."): a rhetorical question asks nothing."""
    ss = sentences(reply)
    out = []
    for i, s in enumerate(ss):
        if "?" not in s:
            continue
        nxt = ss[i + 1] if i + 1 < len(ss) else ""
        if nxt and "?" not in nxt and _ANSWERS_ITSELF.search(nxt):
            continue
        if _HEADING_QUESTION.match(s):
            continue  # "**Why convert?** 255 cents and $2.40 are in different units.": a heading it answers
        out.append(s)
    return out
