"""The generic date check: every date a reply gives must be one the tools showed.

``dates_from_tools`` reads the dates in an agent reply (ISO dates and timestamps, "tomorrow",
"by Friday", "within 5 business days", "next week", "June 12", "12 June", "the 17th") and
compares them with the ISO dates in the outputs of the agent's tools (those the rule names,
when it names some). It knows no domain: the tools, the
day that counts as today and the hedges that exempt a date come from the rule's params.
"""

from __future__ import annotations

import datetime as dt
import re

from graders.rules.registry import check
from graders.rules.replies import agent_tools_before, clause_before, reply_text

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"]
_COUNT = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10,
          "a couple of": 3, "a few": 5, "a day or": 2}
# Every ISO form: a date, or the date of a timestamp ("2026-06-10T15:20:00", "...Z",
# "...+02:00", "2026-06-10 15:20"); no \b at the end, since a "T" follows the date.
_ISO = re.compile(r"(?<![\d-])(20\d\d-\d\d-\d\d)(?=$|[^\d-]|-\d\d:\d\d)")
_MONTH_RE = "(" + "|".join(_MONTHS) + r")"
# "in about a week", "within roughly 5 days": an approximate span is still a span of days
_ABOUT = r"(?:(?:the next|about|around|roughly|approximately|approx\.|under|less than|up to|no more than|another)\s+)*"
# Durations (a span from today), as opposed to a named day: a hedge that makes them a habit
# ("typically drops off in a few business days") describes a process, it dates nothing.
_DURATIONS = ("within", "weeks")
# The ways a reply can name a day (point) or a latest day (bound: "by", "within").
_DATE_EXPRS = [
    ("iso", _ISO),
    ("tomorrow", re.compile(r"\btomorrow\b", re.I)),
    ("weekday", re.compile(r"\b(by|before|until|on|this|next)?\s*(" + "|".join(_WEEKDAYS) + r")\b", re.I)),
    ("within", re.compile(r"\b(within|in)\s+" + _ABOUT + r"(?:\d+\s*(?:-|–|to|or)\s*)?(\d+|one|two|three|four|five|six|seven|ten|a couple of|a few|a day or)"
                          r"\s+(business |working )?days?\b", re.I)),
    # "in about a week", "within two weeks", "a week or so"
    ("weeks", re.compile(r"\b(?:(?:within|in)\s+" + _ABOUT + r"(?:\d+\s*(?:-|–|to|or)\s*)?(\d+|a|one|two|three|four|a couple of|a few)\s+weeks?"
                         r"|(a) week or (?:so|two))\b", re.I)),
    ("week", re.compile(r"\b(by the end of (?:the|this) week|end of (?:the|this) week|this week|next week)\b", re.I)),
    ("month_day", re.compile(r"\b" + _MONTH_RE + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b", re.I)),
    ("day_month", re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_RE + r"\b", re.I)),
    # "by the 17th": a day of this month (next month's when it has passed)
    ("ordinal", re.compile(r"\bthe\s+(\d{1,2})(st|nd|rd|th)\b(?!\s+(?:of\s+)?" + _MONTH_RE + r")", re.I)),
]


def _add_business_days(d: dt.date, n: int) -> dt.date:
    while n > 0:
        d += dt.timedelta(days=1)
        if d.weekday() < 5:
            n -= 1
    return d


def _resolve(kind: str, m: re.Match, today: dt.date | None) -> tuple[dt.date, dt.date] | None:
    """The day(s) a date expression can mean, as [earliest, latest]; None if it needs
    ``today`` and none is configured."""
    try:
        if kind == "iso":
            d = dt.date.fromisoformat(m.group(1))
            return d, d
        if kind in ("month_day", "day_month"):
            mon, day = (m.group(1), m.group(2)) if kind == "month_day" else (m.group(2), m.group(1))
            d = dt.date((today or dt.date.today()).year, _MONTHS.index(mon.lower()) + 1, int(day))
            return d, d
    except ValueError:
        return None
    if today is None:
        return None
    if kind == "ordinal":
        day = int(m.group(1))
        try:
            d = today.replace(day=day)
            if d < today:
                d = dt.date(today.year + today.month // 12, today.month % 12 + 1, day)
        except ValueError:
            return None
        return d, d
    if kind == "tomorrow":
        d = today + dt.timedelta(days=1)
        return d, d
    if kind == "weekday":
        ahead = (_WEEKDAYS.index(m.group(2).lower()) - today.weekday()) % 7
        if (m.group(1) or "").lower() == "next":
            ahead += 7 if ahead == 0 or today.weekday() >= 5 else 0
        # "by Friday" names a day too: the system's dates are themselves bounds
        # (expected_post_by), so it must be that day, not any earlier one
        d = today + dt.timedelta(days=ahead)
        return d, d
    # Ranges start after today: outputs carry today's date ("today" in get_refund_status),
    # which says nothing about when a parcel or refund arrives.
    tomorrow = today + dt.timedelta(days=1)
    if kind == "within":
        raw = m.group(2).lower()
        n = int(raw) if raw.isdigit() else _COUNT[raw]
        end = _add_business_days(today, n) if m.group(3) else today + dt.timedelta(days=n)
        return tomorrow, end
    if kind == "weeks":
        raw = (m.group(1) or m.group(2) or "a").lower()
        n = int(raw) if raw.isdigit() else {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "a couple of": 3, "a few": 4}[raw]
        return tomorrow, today + dt.timedelta(days=7 * n)
    if kind == "week":
        sunday = today + dt.timedelta(days=6 - today.weekday())
        if m.group(1).lower() == "next week":
            return sunday + dt.timedelta(days=1), sunday + dt.timedelta(days=7)
        return tomorrow, sunday
    return None


def dates_given(reply: str, params: dict):
    """(kind, match) for each date the reply gives: a hedged one ("I can't say whether that's
    tomorrow", ``exempt_before``) or how such things usually go ("typically within a few days",
    ``generic_before`` before a duration) gives none."""
    exempt = params.get("exempt_before")
    generic = params.get("generic_before")
    seen: list[tuple[int, int]] = []
    for kind, rx in _DATE_EXPRS:
        for m in rx.finditer(reply):
            if kind == "weekday" and not m.group(2):
                continue
            if any(a <= m.start() < b for a, b in seen):
                continue  # already read as part of a longer expression
            seen.append((m.start(), m.end()))
            if exempt and re.search(exempt, clause_before(reply, m.start()), re.I):
                continue
            if generic and kind in _DURATIONS and re.search(generic, clause_before(reply, m.start()), re.I):
                continue  # how such things usually go, not a date for this one
            yield kind, m


@check("gives_a_date")
def gives_a_date(events, idx, params):
    """Condition: the reply gives a date (``dates_given``; params as ``dates_from_tools``')."""
    for _, m in dates_given(reply_text(events, idx), params):
        return "APPLIES", f"the reply gives a date ({m.group(0).strip()!r})"
    return "NOT_APPLICABLE", "the reply gives no date"


@check("dates_from_tools")
def dates_from_tools(events, idx, params):
    """A date the reply gives must be one the system showed. Params: tools (whose outputs
    hold the system's dates); today (ISO; resolves "tomorrow", "by Friday", "within 5 days");
    exempt_before (a hedge or condition before the date in its clause: "I can't say whether
    that's tomorrow"); generic_before (a habit before a duration in its clause: "authorisations
    typically drop off within a few days" says how a process goes, not when this one ends; a
    named day stays a date); derived_offsets_days (system date + N days also counts, e.g. the end
    of a return window counted from the delivery date)."""
    reply = reply_text(events, idx)
    today = dt.date.fromisoformat(params["today"]) if params.get("today") else None
    # every tool the agent called is the system; ``tools`` narrows it when a rule says so
    named = params.get("tools")
    tools = set(named) if named else {e.call.name for e in agent_tools_before(events, idx)}
    system: set[dt.date] = set()
    for e in agent_tools_before(events, idx):
        if e.call.name in tools:
            for s in _ISO.findall(e.output):
                try:
                    system.add(dt.date.fromisoformat(s))
                except ValueError:
                    pass
    for off in params.get("derived_offsets_days") or []:
        system |= {d + dt.timedelta(days=off) for d in list(system)}
    for kind, m in dates_given(reply, params):
        said = m.group(0).strip()
        span = _resolve(kind, m, today)
        if span is None:
            if not system and not any(e.call.name in tools for e in agent_tools_before(events, idx)):
                return "VIOLATED", f"said {said!r} before calling any tool" if not named else \
                    f"said {said!r} before calling any of {', '.join(sorted(tools))}"
            continue
        lo, hi = span
        if not any(lo <= d <= hi for d in system):
            shown = ", ".join(sorted(d.isoformat() for d in system)) or "no date"
            return "VIOLATED", f"said {said!r} but the system showed {shown}"
    return "FOLLOWED", "every date in the reply is one the system showed"
