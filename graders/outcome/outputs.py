"""Required outputs: each fact the agent must state appears, as a value, in some agent message.

A required output has a kind (``RequiredOutput.kind``, or inferred from the plain string by
``infer_kind``) and is matched as a value of that kind, not as a string:

* ``date``: "2026-06-18", "June 18, 2026", "Jun 18", "June 18th", "18 June 2026",
  "the 18th of June", "6/18/2026", "6/18"; a date written without a year is read in
  the expected date's year (an agent saying "June 18" about this year's date means it);
* ``money``: "$49.50", "$49.5", "49.50", "49.50 USD", "USD 49.50", "49 dollars 50",
  "49 dollars and 50 cents", "$1,234.50"; an integer counts as money only with a
  currency marker ("$49", "49 dollars"), so "3 items" is never $3.00;
* ``id``: case-, space- and hyphen-insensitive, never inside a longer code
  ("o 92601" matches O-92601, "O-926011" does not);
* ``quantity``: digits or words ("3", "three", "twenty-one", "one hundred and five");
* ``text``: a normalised phrase (case, punctuation and number formatting ignored).

Dates are read before amounts and amounts before quantities, and a span read as one kind
is not read again as another ("June 18" holds no quantity 18, "$3" no quantity 3).
Each check carries the closest value of its kind the agent did say, for the failure line.
``mode="substring"`` is tau-bench's own rule (lower-cased substring, commas removed).
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass
from typing import Any, Iterable

from envs.records import AgentEvent, Event, OutputCheck

KINDS = ("date", "money", "id", "quantity", "text")

# -- text --------------------------------------------------------------------------------

_NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _num(m: re.Match) -> str:
    s = m.group(0).replace(",", "")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return f" {s} "


def normalise(text: str) -> str:
    text = text.lower()
    text = _NUM.sub(_num, text)
    # keep decimal points inside numbers, drop other punctuation
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text)
    text = re.sub(r"[^\w.\s]", " ", text)
    return " " + " ".join(text.split()) + " "


# -- dates -------------------------------------------------------------------------------

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]
_MON = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4}))?"
_DATE_RX = [
    ("iso", re.compile(r"(?<![\d-])(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)")),
    ("md", re.compile(r"\b" + _MON + r"\s+(?:the\s+)?" + _ORD + r"\b" + _YEAR + r"(?!\d)", re.I)),
    ("dm", re.compile(r"\b(?:the\s+)?" + _ORD + r"\s+(?:of\s+)?" + _MON + r"(?![a-z])" + _YEAR + r"(?!\d)", re.I)),
    ("num", re.compile(r"(?<![\d/.,-])(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?![\d/])")),
]


def _month(name: str) -> int:
    name = name.lower().rstrip(".")
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(name[:3]))


def _date_of(kind: str, m: re.Match, year: int) -> dt.date | None:
    try:
        if kind == "iso":
            return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if kind == "md":
            return dt.date(int(m.group(3) or year), _month(m.group(1)), int(m.group(2)))
        if kind == "dm":
            return dt.date(int(m.group(3) or year), _month(m.group(2)), int(m.group(1)))
        a, b, y = int(m.group(1)), int(m.group(2)), m.group(3)
        yy = year if y is None else int(y) + (2000 if len(y) == 2 else 0)
        # US order (month/day) unless the first number cannot be a month
        return dt.date(yy, b, a) if a > 12 else dt.date(yy, a, b)
    except ValueError:
        return None


# -- money -------------------------------------------------------------------------------

_AMT = r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?"
_MONEY_RX = [
    # "49 dollars 50", "49 dollars and 50 cents", "49.50 dollars"
    ("words", re.compile(r"(?<![\w.,$])" + _AMT + r"\s+(?:us\s+)?dollars?(?:\s+(?:and\s+)?(\d{1,2})(?:\s+cents?)?(?!\w|\.\d))?", re.I)),
    ("sign", re.compile(r"(?:us)?\$\s?" + _AMT + r"(?:\s?usd)?(?![\w]|[.,]\d)", re.I)),
    ("usd", re.compile(r"(?<![\w.,])" + _AMT + r"\s?usd\b", re.I)),
    ("usd_first", re.compile(r"\busd\s?" + _AMT + r"(?![\w]|[.,]\d)", re.I)),
    # a bare amount needs its cents: "49.50", "49.5" (never a bare integer)
    ("bare", re.compile(r"(?<![\w.,/:#-])(\d{1,3}(?:,\d{3})+|\d+)\.(\d{1,2})(?![\w%/:]|[.,]\d)")),
]


def _cents(whole: str, frac: str | None, extra: str | None = None) -> int:
    c = int(whole.replace(",", "")) * 100
    if frac:
        c += int(frac.ljust(2, "0"))
    if extra:
        c += int(extra)
    return c


def _money_of(kind: str, m: re.Match) -> int | None:
    if kind == "words":
        if m.group(3) and m.group(2):
            return None  # "49.50 dollars 20" is nonsense
        return _cents(m.group(1), m.group(2), m.group(3))
    return _cents(m.group(1), m.group(2))


def money_text(cents: int) -> str:
    return f"{'-' if cents < 0 else ''}${abs(cents) / 100:,.2f}"


# -- quantities --------------------------------------------------------------------------

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
          "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORD_VAL = {w: i for i, w in enumerate(_UNITS)} | {w: 10 * i for i, w in enumerate(_TENS) if w}
_NUMWORD = "|".join(sorted(_WORD_VAL, key=len, reverse=True))
_QTY_WORDS = re.compile(r"\b(?:a\s+hundred|(?:" + _NUMWORD + r"))(?:(?:\s+|-)(?:hundred|(?:and\s+)?(?:" + _NUMWORD + r")))*\b", re.I)
_QTY_DIGITS = re.compile(r"(?<![\w$.,/:-])(\d{1,3}(?:,\d{3})+|\d+)(?![\w%/:]|[.,]\d)")


def words_to_int(words: str) -> int | None:
    """"twenty-one" -> 21, "one hundred and five" -> 105; None if not a number below 1000."""
    toks = [t for t in re.split(r"[\s-]+", words.lower()) if t]
    if toks[:1] == ["a"]:
        toks[0] = "one"
    total, cur, seen_hundred = 0, None, False
    for i, t in enumerate(toks):
        if t == "and":
            if not seen_hundred or i == len(toks) - 1:
                return None
            continue
        if t == "hundred":
            if cur is None or seen_hundred or cur >= 10:
                return None
            total, cur, seen_hundred = cur * 100, None, True
            continue
        v = _WORD_VAL.get(t)
        if v is None:
            return None
        if cur is None:
            cur = v
        elif cur >= 20 and cur % 10 == 0 and 0 < v < 10:
            cur += v
        else:
            return None
    if cur is None and not seen_hundred:
        return None
    return total + (cur or 0)


def int_to_words(n: int) -> str:
    """0..999 in words, hyphenated tens ("one hundred and twenty-one")."""
    if n < 20:
        return _UNITS[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _UNITS[n % 10])
    rest = n % 100
    return _UNITS[n // 100] + " hundred" + ("" if rest == 0 else " and " + int_to_words(rest))


# -- extraction --------------------------------------------------------------------------


@dataclass
class Said:
    """A value found in an agent message: where, what it says, and the words used."""

    turn: int
    start: int
    value: Any
    text: str


def _spans(rxs: Iterable[tuple[str, re.Pattern]], text: str, taken: list[tuple[int, int]]):
    for kind, rx in rxs:
        for m in rx.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            yield kind, m


def extract(kind: str, turn: int, text: str, year: int | None = None) -> list[Said]:
    """Every value of ``kind`` (date, money, quantity) in one message, in reading order."""
    taken: list[tuple[int, int]] = []
    dates = [Said(turn, m.start(), _date_of(k, m, year or dt.date.today().year), m.group(0))
             for k, m in _spans(_DATE_RX, text, taken)]
    if kind == "date":
        return sorted((s for s in dates if s.value is not None), key=lambda s: s.start)
    money = [Said(turn, m.start(), _money_of(k, m), m.group(0).strip()) for k, m in _spans(_MONEY_RX, text, taken)]
    if kind == "money":
        return sorted((s for s in money if s.value is not None), key=lambda s: s.start)
    qty = []
    for _, m in _spans([("w", _QTY_WORDS)], text, taken):
        n = words_to_int(m.group(0))
        if n is not None:
            qty.append(Said(turn, m.start(), n, m.group(0)))
        else:  # "one two": not one number, but each word still is one
            qty += [Said(turn, m.start() + w.start(), _WORD_VAL[w.group(0).lower()], w.group(0))
                    for w in re.finditer(_NUMWORD, m.group(0), re.I) if w.group(0).lower() in _WORD_VAL]
    qty += [Said(turn, m.start(), int(m.group(1).replace(",", "")), m.group(0)) for _, m in _spans([("d", _QTY_DIGITS)], text, taken)]
    return sorted((s for s in qty if s.value is not None), key=lambda s: s.start)


# -- expected values ---------------------------------------------------------------------

_ISO_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MONEY_ONLY = re.compile(r"^(?:-?(?:us)?\$\s?" + _AMT + r"(?:\s?usd)?|" + _AMT + r"\s?usd|usd\s?" + _AMT
                         + r"|(\d{1,3}(?:,\d{3})+|\d+)\.(\d{2}))$", re.I)
_ID_ONLY = re.compile(r"^#?(?=[\w-]*\d)(?=[\w-]*[a-z])[a-z0-9]+(?:[-_][a-z0-9]+)*$|^#\d+$", re.I)


def infer_kind(value: str) -> str:
    """The kind a plain string stands for: a bare ISO date is a date, "$49.50" (or
    "49.50", "49.50 USD") money, a code mixing letters and digits ("O-00042") an id, an
    integer in digits or words a quantity; anything else text."""
    v = value.strip()
    if _ISO_ONLY.match(v):
        return "date"
    if _MONEY_ONLY.match(v):
        return "money"
    if _ID_ONLY.match(v):
        return "id"
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+", v) or (re.search(r"[a-z]", v, re.I) and words_to_int(v) is not None):
        return "quantity"
    return "text"


def parse_expected(value: str, kind: str) -> Any:
    """The value a required output stands for; ValueError when it is not one of its kind."""
    v = value.strip()
    if kind == "date":
        return dt.date.fromisoformat(v)
    if kind == "money":
        found = extract("money", 0, v)
        if len(found) != 1 or found[0].text != v.lstrip("-").strip():
            raise ValueError(f"{value!r} is not an amount (write it like $49.50)")
        return -found[0].value if v.startswith("-") else found[0].value
    if kind == "quantity":
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+", v):
            return int(v.replace(",", ""))
        n = words_to_int(v)
        if n is None:
            raise ValueError(f"{value!r} is not a whole number")
        return n
    if kind == "id":
        if not re.fullmatch(r"#?[A-Za-z0-9]+(?:[-_ ][A-Za-z0-9]+)*", v):
            raise ValueError(f"{value!r} is not an id (letters, digits, hyphens)")
        return v
    if kind == "text":
        if not normalise(v).strip():
            raise ValueError("empty text")
        return v
    raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")


def _show(kind: str, value: Any) -> str:
    if kind == "date":
        return value.isoformat()
    if kind == "money":
        return money_text(value)
    return str(value)


# -- matching ----------------------------------------------------------------------------

_NOUN = {"date": "a date", "money": "an amount", "quantity": "a number", "id": "an id", "text": "it"}


def _id_pattern(value: str) -> re.Pattern:
    chars = [c for c in value.lstrip("#") if c.isalnum()]
    sep = r"[\s#_-]*"
    return re.compile(r"(?<![A-Za-z0-9])" + sep.join(re.escape(c) for c in chars) + r"(?![A-Za-z0-9])", re.I)


_ID_TOKEN = re.compile(r"(?<![A-Za-z0-9])#?(?=[\w-]*\d)[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*")


def _check_one(out: str, kind: str, agent: list[tuple[int, str]]) -> OutputCheck:
    value = parse_expected(out, kind)
    expected = _show(kind, value)
    base = dict(output=out, kind=kind, expected=expected)
    if kind in ("date", "money", "quantity"):
        year = value.year if kind == "date" else None
        said = [s for t, txt in agent for s in extract(kind, t, txt, year)]
        hit = next((s for s in said if s.value == value), None)
        if hit:
            return OutputCheck(found=True, turn=hit.turn, closest=hit.text, **base)
        if not said:
            return OutputCheck(found=False, **base)
        dist = (lambda s: abs((s.value - value).days)) if kind == "date" else (lambda s: abs(s.value - value))
        near = min(said, key=dist)
        return OutputCheck(found=False, closest=near.text, **base)
    if kind == "id":
        rx = _id_pattern(value)
        for t, txt in agent:
            m = rx.search(txt)
            if m:
                return OutputCheck(found=True, turn=t, closest=m.group(0), **base)
        tokens = [m.group(0) for _, txt in agent for m in _ID_TOKEN.finditer(txt)]
        squash = lambda s: re.sub(r"[^a-z0-9]", "", s.lower())  # noqa: E731
        near = max(tokens, key=lambda s: difflib.SequenceMatcher(None, squash(s), squash(value)).ratio(), default=None)
        return OutputCheck(found=False, closest=near, **base)
    needle = normalise(value)
    for t, txt in agent:
        if needle in normalise(txt):
            return OutputCheck(found=True, turn=t, closest=value, **base)
    sentences = [s.strip() for _, txt in agent for s in re.split(r"(?<=[.!?])\s+", txt) if s.strip()]
    near = max(sentences, key=lambda s: difflib.SequenceMatcher(None, normalise(s), needle).ratio(), default=None)
    return OutputCheck(found=False, closest=near[:80] if near else None, **base)


def describe(check: OutputCheck) -> str:
    """One phrase for a failure line: "said 'June 19, 2026'; expected 2026-06-18"."""
    kind = check.kind or "text"
    expected = check.expected or check.output
    if check.found:
        return f"said {check.closest or expected!r}"
    if check.closest is None:
        return f"said nothing about {_NOUN.get(kind, 'it')}; expected {expected}"
    return f"said {check.closest!r}; expected {expected}"


def check_outputs(outputs: list, events: list[Event], mode: str = "normalised") -> list[OutputCheck]:
    """One check per required output (``RequiredOutput`` or a plain string), in order.

    ``mode="normalised"`` (default) matches each output as a value of its kind;
    ``mode="substring"`` is tau-bench's rule (lower-cased substring, commas removed),
    kept for exact parity on imported tau-bench tasks."""
    agent_events = [e for e in events if isinstance(e, AgentEvent)]
    results = []
    for out in outputs:
        value = getattr(out, "value", out)
        if mode == "substring":
            needle = value.lower()
            turn = next((e.turn for e in agent_events if needle in e.content.lower().replace(",", "")), None)
            results.append(OutputCheck(output=value, found=turn is not None, turn=turn, kind="text", expected=value))
            continue
        kind = getattr(out, "kind", None) or infer_kind(value)
        results.append(_check_one(value, kind, [(e.turn, e.content) for e in agent_events]))
    return results


def validate_output(value: str, kind: str | None) -> None:
    """Raise ValueError unless ``value`` is a value of ``kind`` (or of its inferred kind)."""
    try:
        parse_expected(value, kind or infer_kind(value))
    except (ValueError, StopIteration) as e:
        raise ValueError(str(e)) from None


__all__ = ["KINDS", "check_outputs", "describe", "extract", "infer_kind", "normalise", "parse_expected",
           "validate_output"]
