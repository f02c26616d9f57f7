"""Which of a misconception's ideas a tutor's words address, whatever the wording.

Each misconception in ``misconceptions.yaml`` lists ``ideas`` (what a hint must
get at) as case-insensitive regexes written from how teachers phrase such hints,
and ``realises`` (the student's line when it lets go). ``addressed(code, text)``
is the id of the first idea ``text`` addresses, or None. A file with a bad
pattern fails with one line naming the misconception and the pattern.

``addressed_in(mind, text)`` is what the scripted student uses: the ideas, and cues
from its own problem (the quantity it left out, the operation it got wrong, a number
only its mistake uses), with a problem merely read back pointing at nothing. How well
both carry over to tutors' wordings is measured by ``benchmarks/understanding.py`` on
probe sets written blind to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import yaml

from envs.errors import SpecError

from .problems import HERE, numbers_in, parse_number


@dataclass(frozen=True)
class Idea:
    id: str
    patterns: tuple[re.Pattern, ...]


@dataclass(frozen=True)
class MisconceptionIdeas:
    code: str
    ideas: tuple[Idea, ...]
    realises: str
    #: more ways of saying it, in the student lines' ``[a|b]`` notation (the student picks one per episode)
    realises_also: tuple[str, ...] = ()
    #: what the student says as it lets go, in a child's words: short, unsure and concrete, with slots its
    #: own working fills (``takeups``); a line whose slot its working cannot fill is not said
    takes_up: tuple[str, ...] = ()
    #: what it says to keep its answer when told it is wrong by a hint that misses its mistake: the reason it
    #: did it so, in a child's words (``defences``), filled from its wrong working
    defends: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def ideas() -> dict[str, MisconceptionIdeas]:
    """``{code: MisconceptionIdeas}`` from misconceptions.yaml."""
    path = HERE / "misconceptions.yaml"
    out: dict[str, MisconceptionIdeas] = {}
    for m in yaml.safe_load(path.read_text(encoding="utf-8"))["misconceptions"]:
        code = m["code"]
        if not m.get("ideas"):
            raise SpecError(f"{path}: misconceptions.{code}.ideas: each misconception needs at least one idea")
        got = []
        for i in m["ideas"]:
            pats = []
            for p in i.get("patterns") or []:
                try:
                    pats.append(re.compile(r"\b" + p, re.I))
                except re.error as e:
                    raise SpecError(f"{path}: misconceptions.{code}.ideas.{i.get('id')}: bad pattern {p!r} ({e})") from None
            if not pats:
                raise SpecError(f"{path}: misconceptions.{code}.ideas.{i.get('id')}: no patterns")
            got.append(Idea(str(i["id"]), tuple(pats)))
        out[code] = MisconceptionIdeas(code, tuple(got), str(m.get("realises") or "Oh, I think I see what I did wrong."),
                                       tuple(m.get("realises_also") or ()), tuple(m.get("takes_up") or ()),
                                       tuple(m.get("defends") or ()))
    return out


@lru_cache(maxsize=256)
def realisations(code: str, statement: str) -> tuple[str, ...]:
    """Every way the student may say it lets go of ``code`` (``realisation`` first), in its problem's words."""
    from .student_lines import expand

    m = ideas()[code]
    return (realisation(code, statement), *(_in_words(x, statement) for x in expand(*m.realises_also)))


_SLOT = re.compile(r"\{(\w+)\}")


def takeups(code: str, statement: str, slots: dict[str, str]) -> list[str]:
    """The child's ways of letting go of ``code`` (``takes_up``), filled from ``slots`` (what its working
    changed: ``new``/``old`` numbers, ``op``/``was`` operations, ``line``/``line_was``, ``p`` a percent of
    the problem, ``was_answer``) and the problem (``counted``, ``one``); lines with a slot left unfilled
    are dropped. Empty when the misconception has none: the caller says a ``realisations`` line then."""
    from .student_lines import expand

    m = ideas().get(code)
    if m is None:
        return []
    fill = {k: v for k, v in slots.items() if v}
    q = re.search(r"\bhow many ([a-z]+)", statement, re.I)
    if q:
        fill.setdefault("counted", q.group(1).lower())
        fill.setdefault("one", _in_words("{one}", statement))
    out = []
    for line in expand(*m.takes_up):
        if all(k in fill for k in _SLOT.findall(line)):
            done = _SLOT.sub(lambda g: fill[g.group(1)], line)
            out.append(re.sub(r"([.!?] )([a-z])", lambda g: g.group(1) + g.group(2).upper(), done))
    return out


def defences(code: str, statement: str, slots: dict[str, str]) -> list[str]:
    """The child's ways of keeping its answer for ``code`` with a reason (``defends``), filled from ``slots``
    as ``takeups`` fills its lines (``w`` its wrong working, ``was`` the operation it used, ``p`` a percent);
    lines with a slot left unfilled are dropped."""
    from .student_lines import expand

    m = ideas().get(code)
    if m is None:
        return []
    fill = {k: v for k, v in slots.items() if v}
    out = []
    for line in expand(*m.defends):
        if all(k in fill for k in _SLOT.findall(line)):
            done = _SLOT.sub(lambda g: fill[g.group(1)], line)
            out.append(re.sub(r"([.!?] )([a-z])", lambda g: g.group(1) + g.group(2).upper(), done))
    return out


def took_up(code: str, text: str) -> bool:
    """Whether ``text`` says one of ``code``'s ``takes_up`` lines (any filling of its slots): how a
    transcript shows the student let go (tests count revisions with it)."""
    from .student_lines import expand

    m = ideas().get(code)
    if m is None:
        return False
    low = text.lower()
    for line in expand(*m.takes_up):
        pat = _SLOT.sub("\x00", line.lower())
        rx = re.escape(pat).replace("\x00", r"\S+(?: \S+)?")
        if re.search(rx, low):
            return True
    return False


def realisation(code: str, statement: str) -> str:
    """The student's line when it lets go of ``code``, in its problem's own words: ``{counted}``
    and ``{one}`` are what the question counts ("How many trees are planted?": trees, tree)."""
    return _in_words(ideas()[code].realises, statement)


def _in_words(line: str, statement: str) -> str:
    m = re.search(r"\bhow many ([a-z]+)", statement, re.I)
    counted = m.group(1).lower() if m else "posts"
    one = counted[:-1] if counted.endswith("s") and not counted.endswith("ss") else counted
    return line.replace("{counted}", counted).replace("{one}", one)


def addressed(code: str | None, text: str) -> str | None:
    """The id of the first idea of misconception ``code`` that ``text`` addresses, else None."""
    m = ideas().get(code or "")
    if m is None or not text:
        return None
    for idea in m.ideas:
        if any(p.search(text) for p in idea.patterns):
            return idea.id
    return None


def addressed_ideas(code: str | None, text: str) -> list[str]:
    """The ids of every idea of misconception ``code`` that ``text`` addresses (ideas may overlap)."""
    m = ideas().get(code or "")
    if m is None or not text:
        return []
    return [i.id for i in m.ideas if any(p.search(text) for p in i.patterns)]


# -- with the problem in mind --------------------------------------------------------------
#
# A hint can also address a misconception through the problem itself: "What about the $9
# delivery fee?" names the quantity the student left out; "Why +275? They gave those away."
# questions the operation it got wrong; "Where did the 100 come from?" questions a number only
# its mistake uses. These cues come from the problem's worked steps and the misconception's
# wrong expression (``mind``), so they hold for any problem and any wording.

_TOKEN = re.compile(r"\(\d+/\d+\)|\d+(?:\.\d+)?|//|[-+*/()]")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "eleven": 11, "twelve": 12, "twice": 2, "both": 2, "double": 2, "half": Fraction(1, 2)}
_OPERATION_WORDS = re.compile(
    r"\b(?:add|adds|added|adding|plus|subtract\w*|take (?:it |them |those )?away|taken away|taking away|minus|sign|"
    r"more or (?:fewer|less)|fewer|multipl\w*|divid\w*|times|join\w*|leav\w*|los\w*|gain\w*|gives? away|given (?:out|away)|"
    r"increase|decrease|go up|go down|operation|\+|-(?=\s*\d))\b|[+\u2212\u00d7\u00f7]", re.I)
_QUESTIONING = re.compile(r"\?|\b(?:not|isn'?t|wasn'?t|aren'?t|can'?t|why|where did|check|really|sure)\b", re.I)
_MARKDOWN = re.compile(r"\*\*|__|`")
# words that point at what the student did (a pointer at the mistake refers to the student's work)
_ABOUT_THEIR_WORK = re.compile(
    r"\byou(?:'ve| have| did| got| used| took| added| subtracted| multiplied| divided| wrote| found| shared| counted| forgot|"
    r" left| missed| only| worked| said| put| gave| took| started)\b|\byour (?:answer|work|working|number|total|sum|result|"
    r"calculation|steps?|equation|method)\b", re.I)
_STOP = set("""a an the and or of to in on at for by with from each every is are was were be it its this that these those
he she they we you i his her their our your as than then so but if how what which who when many much more less any
some all per one two three four five six seven eight nine ten there here do does did has have had will would can""".split())


def _expr_numbers(expr: str) -> list[tuple[Fraction, str]]:
    """(number, the operator that applies it: the one before it, "" for the first) of an
    expression; a bracketed fraction "(1/2)" is one number."""
    toks = _TOKEN.findall(expr.replace("x", "*").replace(" ", ""))
    out, op = [], ""
    for t in toks:
        if t[0].isdigit() or t.startswith("(") and len(t) > 1:
            out.append((parse_number(t.strip("()")), op))
            op = ""
        elif t not in "()":
            op = t
    return out


def _mentioned(text: str) -> set[Fraction]:
    found = set(numbers_in(text))
    for w in re.findall(r"[a-z]+", text.lower()):
        if w in _NUMBER_WORDS:
            found.add(Fraction(_NUMBER_WORDS[w]))
    return found


@lru_cache(maxsize=256)
def _cues(statement: str, wrong_expr: str, steps: tuple[tuple[str, str], ...], answer: str, wrong_answer: str):
    # an earlier step's fractional result used later ("3/2*10") is one number, not a 3 and a 2
    right, results = [], []
    for e, r in steps:
        for earlier in results:
            if "/" in earlier:
                e = e.replace(earlier, f"({earlier})")
        right += _expr_numbers(e)
        results.append(r)
    right_values = {n for n, _ in right} | {parse_number(r) for _, r in steps}
    wrong = _expr_numbers(wrong_expr)
    wrong_values = {n for n, _ in wrong}
    shown = {parse_number(answer), parse_number(wrong_answer), Fraction(0), Fraction(1)}
    # a quantity the statement gives that the wrong working never uses ("1/8 chose basketball";
    # a fraction counts as used when its bottom number is)
    unused = {v for v in numbers_in(statement) if v not in wrong_values and v.denominator not in wrong_values - {1}
              and not (v.denominator != 1 and Fraction(v.denominator) in wrong_values)}
    overlooked = frozenset((right_values | unused) - wrong_values - shown)
    wrong_only = frozenset(wrong_values - right_values - shown)
    ops_right: dict[Fraction, set[str]] = {}
    for n, op in right:
        ops_right.setdefault(n, set()).add(op)
    # a quantity the student applied with an operation the worked steps never apply it with
    misop = frozenset(n for n, op in wrong if op and n not in shown and n in ops_right and op not in ops_right[n])
    # the words the statement puts after a quantity the student left out ("a $9 delivery fee")
    words = re.findall(r"\$?\d+(?:[.,/]\d+)?%?|[A-Za-z]+", statement)

    def after(values: set[Fraction]) -> set[str]:
        got: set[str] = set()
        for i, w in enumerate(words):
            if _mentioned(w.replace("$", "").replace("%", "")) & values:
                got |= {x.lower() for x in words[i + 1: i + 4] if x.isalpha() and not x.lower().endswith("ly")}
        return got - _STOP

    left_out_words = frozenset(after(set(overlooked)) - after(wrong_values))
    return overlooked, wrong_only, misop, left_out_words, frozenset(wrong_values)


def _grams(text: str) -> list[str]:
    w = re.findall(r"[a-z0-9$%/.]+", text.lower())
    return [" ".join(w[i:i + 3]) for i in range(len(w) - 2)]


def _copied_share(text: str, statement: str) -> float:
    """The share of the statement's three-word runs that ``text`` repeats (1.0: read back whole)."""
    st = _grams(statement)
    return len(set(st) & set(_grams(text))) / len(set(st)) if st else 0.0


def _without_statement(text: str, statement: str) -> str:
    """``text`` without the runs of three or more words it copies from the problem statement."""
    st = re.findall(r"[a-z0-9$%/.]+", statement.lower())
    grams = {" ".join(st[i:i + 3]) for i in range(len(st) - 2)}
    toks = re.findall(r"[A-Za-z0-9$%/.]+|[^A-Za-z0-9$%/.]+", text)
    words = [(i, t.lower()) for i, t in enumerate(toks) if re.match(r"[A-Za-z0-9$%/.]", t)]
    drop = set()
    for j in range(len(words) - 2):
        if " ".join(w for _, w in words[j:j + 3]) in grams:
            drop |= {words[j][0], words[j + 1][0], words[j + 2][0]}
    return "".join(" " if i in drop else t for i, t in enumerate(toks))


def addressed_in(mind: dict, text: str) -> str | None:
    """What in ``text`` addresses the student's misconception, with its problem in mind
    (``mind``: the task's ``extra["student_mind"]``): an idea of the misconception, else a cue
    from the problem (``names_what_was_left_out``, ``questions_the_operation``,
    ``questions_a_wrong_number``), else None. A message that restates the whole problem
    points at nothing in particular: it gives no problem cue."""
    code = mind.get("misconception")
    if not code or not text:
        return None
    text = _MARKDOWN.sub("", text)  # "the **empty** seats" reads as "the empty seats"
    statement = mind.get("statement", "")
    given = frozenset(numbers_in(statement))
    digits = set(numbers_in(text))  # written numbers only: "both ends" or "three times" are the problem's words
    if _copied_share(text, statement) >= 0.7 or (
            len(given) >= 2 and given <= digits <= given | {Fraction(1)} and not _ABOUT_THEIR_WORK.search(text)):
        # the problem read back: only what the tutor adds to it can point at the mistake
        return addressed(code, _without_statement(text, statement))
    hit = addressed(code, text)
    if hit is not None or mind.get("wrong_expr") is None:
        return hit
    try:
        overlooked, wrong_only, misop, left_out_words, wrong_values = _cues(
            mind["statement"], mind["wrong_expr"], tuple((s["expr"], s["result"]) for s in mind["steps"]),
            mind["answer"], mind["wrong_answer"])
    except (ValueError, ZeroDivisionError, KeyError):
        return None
    said = _mentioned(text)
    if code == "wrong_operation":
        return "questions_the_operation" if said & misop and _OPERATION_WORDS.search(text) else None
    if said & overlooked:
        return "names_what_was_left_out"
    if code == "missed_quantity" and set(re.findall(r"[a-z]+", text.lower())) & left_out_words:
        return "names_what_was_left_out"
    quotes_all = bool(wrong_values) and wrong_values <= said  # the whole working read back: no number singled out
    if said & wrong_only and _QUESTIONING.search(text) and not quotes_all:
        return "questions_a_wrong_number"
    return None
