"""Deterministic rule checks: a rule's verdict on one agent reply, without a model.

Each check gets the whole transcript and the index of the agent reply being
judged, and returns (verdict, rationale). Register new check types with
``@check("name")``; a rule names one in its ``check: {type, params}``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any, Callable

from envs.records import AgentEvent, Event, ToolEvent, UserEvent

CheckFn = Callable[[list[Event], int, dict], tuple[str, str]]
CHECKS: dict[str, CheckFn] = {}


def check(name: str):
    def wrap(fn: CheckFn) -> CheckFn:
        CHECKS[name] = fn
        return fn

    return wrap


def _reply(events: list[Event], idx: int) -> str:
    e = events[idx]
    assert isinstance(e, AgentEvent)
    return e.content


def _agent_tools_before(events: list[Event], idx: int) -> list[ToolEvent]:
    return [e for e in events[:idx] if isinstance(e, ToolEvent) and e.side == "agent" and e.ok]


def _last_user_index(events: list[Event], idx: int) -> int:
    for i in range(idx - 1, -1, -1):
        if isinstance(events[i], UserEvent):
            return i
    return -1


# A sentence ends at . ! or ? followed by space (so "$24.99" and "e.g.x" stay whole), or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    return [x.strip() for x in _SENTENCE_END.split(text or "") if x.strip()]


def question_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that ask something (checks of several domains share this)."""
    return [x for x in sentences(text) if "?" in x]


def _pattern_list(params: dict, one: str = "pattern", many: str = "patterns") -> list[str]:
    """A check's regexes: ``pattern`` (one string) and/or ``patterns`` (a list, any may match)."""
    out = list(params.get(many) or [])
    if params.get(one):
        out.insert(0, params[one])
    return out


def _mask(text: str, ignore: list[str] | None) -> str:
    """Blank out (same length, so offsets stay valid) spans that must not count, e.g. a
    negated phrase ("not your fault", "I can't make an exception")."""
    for p in ignore or []:
        text = re.sub(p, lambda m: " " * len(m.group(0)), text, flags=re.I)
    return text


# A clause ends at a sentence mark or at a "but"/"however" that turns it around, so a
# hedge or condition ("if ...", "I can't say ...") governs only what follows it up to there.
_CLAUSE_END = re.compile(r"[.!?;:](?=\s|$)|\b(but|however)\b", re.I)


def _clause_before(text: str, pos: int) -> str:
    start = 0
    for m in _CLAUSE_END.finditer(text, 0, pos):
        start = m.end()
    return text[start:pos]


def _search(text: str, patterns: list[str], ignore: list[str] | None = None,
            exempt_before: str | None = None) -> re.Match | None:
    """First match of any pattern in text, skipping masked spans and matches whose clause,
    before the match, contains ``exempt_before`` (a condition or a hedge)."""
    masked = _mask(text, ignore)
    for p in patterns:
        for m in re.finditer(p, masked, re.I):
            if exempt_before and re.search(exempt_before, _clause_before(masked, m.start()), re.I):
                continue
            return m
    return None


@check("reply_not_matches")
def reply_not_matches(events, idx, params):
    """Params: pattern and/or patterns (forbidden); ignore_patterns (spans that never count)."""
    m = _search(_reply(events, idx), _pattern_list(params), params.get("ignore_patterns"))
    if m:
        return "VIOLATED", f"the reply says {m.group(0)!r}"
    return "FOLLOWED", "no forbidden phrase in the reply"


@check("reply_matches_any")
def reply_matches_any(events, idx, params):
    """Params: patterns (one required); forbid_patterns (any -> VIOLATED, even with a required
    phrase); ignore_patterns (spans that count for neither)."""
    text = _reply(events, idx)
    ignore = params.get("ignore_patterns")
    bad = _search(text, list(params.get("forbid_patterns") or []), ignore)
    if bad:
        return "VIOLATED", f"the reply says {bad.group(0).strip()!r}"
    m = _search(text, list(params["patterns"]), ignore)
    if m:
        return "FOLLOWED", f"the reply says {m.group(0)!r}"
    return "VIOLATED", "the reply has none of the required phrases"


@check("tool_before_reply_matching")
def tool_before_reply_matching(events, idx, params):
    """Params: pattern and/or patterns (the statement); tools (one must come before it);
    exempt_before (a match whose clause has this before it is conditional or hedged, not a
    statement); ignore_patterns."""
    m = _search(_reply(events, idx), _pattern_list(params), params.get("ignore_patterns"), params.get("exempt_before"))
    if not m:
        return "FOLLOWED", "the reply makes no such statement"
    called = {e.call.name for e in _agent_tools_before(events, idx)}
    hit = called & set(params["tools"])
    if hit:
        return "FOLLOWED", f"{sorted(hit)[0]} was called before saying {m.group(0)!r}"
    return "VIOLATED", f"said {m.group(0)!r} before calling any of {', '.join(params['tools'])}"


@check("clarify_before_action")
def clarify_before_action(events, idx, params):
    """Only the first reply after an ambiguous request is held to it: once the agent has
    asked and been answered, later replies (e.g. reporting the agreed action) are not."""
    u = _last_user_index(events, idx)
    first_user = next((i for i, e in enumerate(events) if isinstance(e, UserEvent)), u)
    earlier_question = any(
        isinstance(e, AgentEvent) and "?" in e.content for e in events[first_user + 1 : u]
    )
    if earlier_question:
        return "NOT_APPLICABLE", "the agent already asked a clarifying question earlier"
    mutating = set(params.get("mutating_tools", []))
    acted = [e.call.name for e in events[u + 1 : idx] if isinstance(e, ToolEvent) and e.side == "agent" and e.call.name in mutating]
    if acted:
        return "VIOLATED", f"called {acted[0]} before asking what the customer meant"
    reply = _reply(events, idx)
    commit = params.get("commit_pattern")
    m = re.search(commit, reply, re.I) if commit else None
    if m:
        return "VIOLATED", f"committed to one reading ({m.group(0)!r}) instead of asking which was meant"
    cont = params.get("continuation_pattern")
    if cont:
        # "Is it the whole order? Or one item?": a question that starts like this offers
        # another reading of the same question, so it is not counted as a second one.
        qs = question_sentences(reply)
        n = sum(1 for q in qs if not re.match(cont, q, re.I)) or min(len(qs), 1)
    else:
        n = reply.count("?")
    if n == 1:
        return "FOLLOWED", "asked exactly one clarifying question before acting"
    if n == 0:
        return "VIOLATED", "answered without asking a clarifying question"
    return "VIOLATED", f"asked {n} questions at once instead of one"


def _json_obj(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None


def _field(obj: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


# A zip code the customer states: five digits standing alone (not the tail of "O-00042").
_ZIP_IN_TEXT = re.compile(r"(?<![\w-])\d{5}(?![\w-])")


def _identity(events: list[Event], upto: int, params: dict) -> tuple[str, str]:
    """Where the identity check stands after ``events[:upto]``: ("verified" | "failed" |
    "unchecked", why). Params: identity_tools (a successful call verifies, e.g. name + zip;
    a failed one fails); lookup_tools + zip_source {tool, field}: a lookup (e.g. by email)
    only finds the account; it verifies once a zip the customer stated in a user message
    equals the zip the zip_source tool returns (e.g. get_customer's default_address.zip),
    and fails while the stated zips all differ from it."""
    ident = set(params["identity_tools"])
    lookup = set(params.get("lookup_tools") or [])
    src = params.get("zip_source") or {}
    state, why = "unchecked", "before the customer's identity was checked"
    said: set[str] = set()
    system: set[str] = set()
    looked_up = False
    for e in events[:upto]:
        if isinstance(e, UserEvent):
            said |= set(_ZIP_IN_TEXT.findall(e.content))
        elif isinstance(e, ToolEvent) and e.side == "agent":
            if e.call.name in ident:
                state, why = ("verified", f"{e.call.name} verified the customer") if e.ok else ("failed", f"{e.call.name} found no such customer")
            elif e.ok and e.call.name in lookup:
                looked_up = True
            elif e.ok and src and e.call.name == src.get("tool"):
                z = _field(_json_obj(e.output), src.get("field", "zip"))
                if z:
                    system.add(str(z))
        if state != "verified" and looked_up:
            if said & system:
                state, why = "verified", "the zip the customer gave matches the account"
            elif said and system:
                state, why = "failed", "the zip the customer gave does not match the account"
            elif state == "unchecked":
                why = "after an account lookup but before the customer confirmed its zip"
    return state, why


@check("no_mutation_before_identity")
def no_mutation_before_identity(events, idx, params):
    """Params: those of ``_identity``, and mutating_tools: none may succeed before the
    customer's identity is verified."""
    mutating = set(params["mutating_tools"])
    for i, e in enumerate(events[:idx]):
        if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and e.call.name in mutating:
            state, why = _identity(events, i, params)
            if state != "verified":
                return "VIOLATED", f"{e.call.name} was called {why if why.startswith(('before', 'after')) else 'although ' + why}"
    return "FOLLOWED", "no account action before the identity check"


def _leaves(obj: Any):
    """The scalar values of a JSON value, at any depth."""
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _leaves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _leaves(v)
    elif obj is not None and not isinstance(obj, bool):
        yield obj


@check("no_details_unverified")
def no_details_unverified(events, idx, params):
    """After an identity check failed (see ``_identity``; it applies to nothing else), the reply
    must not repeat what the tools returned about the account or its orders: any value of
    3 or more characters from a successful agent tool's JSON output (a status, an address,
    a total; "in_transit" also as "in transit") that the customer did not say themselves.
    Params: those of ``_identity``; ignore_values (tool values that tell nothing)."""
    state, why = _identity(events, idx, params)
    if state != "failed":
        return "NOT_APPLICABLE", f"identity not failed ({why})"
    said = " ".join(e.content for e in events[:idx] if isinstance(e, UserEvent)).lower()
    ignore = {str(v).lower() for v in params.get("ignore_values") or []}
    reply = _reply(events, idx)
    for e in events[:idx]:
        if not (isinstance(e, ToolEvent) and e.side == "agent" and e.ok):
            continue
        for v in _leaves(_json_obj(e.output)):
            text = str(v).strip()
            if isinstance(v, (int, float)) and abs(v) < 1000:
                continue  # small counts and amounts say too little to be a detail
            if len(text) < 3 or text.lower() in said or text.lower() in ignore:
                continue
            for form in {text, text.replace("_", " ")}:
                if re.search(rf"(?<!\w){re.escape(form)}(?!\w)", reply, re.I):
                    return "VIOLATED", f"{why}, yet the reply repeats {form!r} from {e.call.name}"
    return "FOLLOWED", f"{why}; the reply repeats nothing the tools returned"


@check("confirm_before_change")
def confirm_before_change(events, idx, params):
    """An account change (a tool in ``actions``, each with the pattern of words that name it)
    made since the customer's last message needs, before it: an agent question naming that
    action (the last agent message before the customer's), and a customer answer that is an
    explicit yes (yes_patterns) with no change of mind in it (not_yes_patterns). A reply that
    makes no change but asks before one (a question naming an action) follows the rule; any
    other turn: NOT_APPLICABLE."""
    actions: dict[str, str] = params["actions"]
    u = _last_user_index(events, idx)
    reply = _reply(events, idx)
    changes = [e.call.name for e in events[u + 1 : idx]
               if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and e.call.name in actions]
    if not changes:
        questions = " ".join(question_sentences(reply))
        named = next((t for t, pat in actions.items() if re.search(pat, questions, re.I)), None)
        if named:
            return "FOLLOWED", f"asks before changing anything ({named})"
        return "NOT_APPLICABLE", "no account change in this turn, and none proposed"
    asked = next((e for e in reversed(events[: max(u, 0)]) if isinstance(e, AgentEvent)), None)
    if asked is None or "?" not in asked.content:
        return "VIOLATED", f"{changes[0]} was made without first asking the customer"
    unnamed = [t for t in changes if not re.search(actions[t], asked.content, re.I)]
    if unnamed:
        return "VIOLATED", f"{unnamed[0]} was not the action the agent asked about ({asked.content[:80]!r})"
    said = events[u].content
    no = _search(said, list(params.get("not_yes_patterns") or []))
    if no:
        return "VIOLATED", f"{changes[0]} was made although the customer's answer was not a plain yes ({no.group(0)!r})"
    if not _search(said, list(params["yes_patterns"])):
        return "VIOLATED", f"{changes[0]} was made without an explicit yes from the customer"
    return "FOLLOWED", f"{changes[0]} was proposed by name and the customer said yes"


@check("follow_the_change_of_mind")
def follow_the_change_of_mind(events, idx, params):
    """The customer's last message takes back what the agent had proposed (change_patterns):
    no account change (a tool in ``actions``) may follow in this turn. The one the agent had
    asked about is the abandoned request; any other is the new one, made without confirming
    it. Replies that change nothing follow the rule. Any other turn: NOT_APPLICABLE."""
    actions: dict[str, str] = params["actions"]
    u = _last_user_index(events, idx)
    if u < 0:
        return "NOT_APPLICABLE", "no customer message yet"
    turn = _search(events[u].content, list(params["change_patterns"]))
    if not turn:
        return "NOT_APPLICABLE", "the customer did not change their mind"
    asked = next((e for e in reversed(events[:u]) if isinstance(e, AgentEvent)), None)
    abandoned = {t for t, pat in actions.items() if asked is not None and re.search(pat, asked.content, re.I)}
    for e in events[u + 1 : idx]:
        if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and e.call.name in actions:
            if e.call.name in abandoned:
                return "VIOLATED", f"the customer took it back ({turn.group(0)!r}), yet {e.call.name} was carried out"
            return "VIOLATED", f"{e.call.name} was made on the new request without confirming it first"
    return "FOLLOWED", f"the customer changed their mind ({turn.group(0)!r}) and no change was made before confirming"


def _named_by(item: str, said: str) -> bool:
    """Does the customer's text name this item (most of its words, e.g. "the mug set")?"""
    words = [w for w in re.findall(r"[a-z]+", item.lower()) if len(w) >= 3]
    return bool(words) and sum(re.search(rf"\b{w}", said) is not None for w in words) * 2 >= len(words)


@check("ask_do_not_guess")
def ask_do_not_guess(events, idx, params):
    """A detail the customer did not give must be asked for, not guessed. Guesses caught: an
    order the agent settles on (named in a statement of the reply, or acted on since the
    customer's last message) while the tools listed several orders that fit what the customer
    said and the customer named none; and guess_patterns in a statement (e.g. "the default
    address") that the customer did not say. Params: order_pattern, guess_patterns,
    mutating_tools; ask_patterns (a question asking for a detail) and ignore_patterns (e.g.
    "anything else?"). A reply that asks for a detail and guesses none follows the rule; any
    other turn: NOT_APPLICABLE."""
    u = _last_user_index(events, idx)
    said = " ".join(e.content for e in events[:idx] if isinstance(e, UserEvent)).lower()
    parts = sentences(_reply(events, idx))
    stated = " ".join(x for x in parts if "?" not in x)
    questions = " ".join(x for x in parts if "?" in x)
    order_re = params.get("order_pattern", r"\bO-\d+\b")
    listed: dict[str, list[str]] = {}
    for e in events[:idx]:
        if isinstance(e, ToolEvent) and e.side == "agent" and e.ok:
            out = _json_obj(e.output)
            if isinstance(out, list):
                for o in out:
                    if isinstance(o, dict) and o.get("order_id"):
                        listed[str(o["order_id"]).upper()] = [str(i) for i in o.get("items") or []]
    named_items = {oid for oid, items in listed.items() if any(_named_by(i, said) for i in items)}
    fitting = named_items or set(listed)
    said_ids = {m.upper() for m in re.findall(order_re, said, re.I)}
    picked = {m.upper() for m in re.findall(order_re, stated, re.I)}
    for e in events[u + 1 : idx]:
        if isinstance(e, ToolEvent) and e.side == "agent" and e.call.name in set(params.get("mutating_tools") or []):
            oid = (e.call.arguments_dict() or {}).get("order_id")
            if oid:
                picked.add(str(oid).upper())
    # "my latest order": the customer chose by a rule of their own, so the pick is no guess
    chose = any(re.search(g, said, re.I) for g in params.get("guess_patterns") or [])
    if len(fitting) >= 2 and not said_ids & fitting and not chose:
        guessed = sorted(p for p in picked if p in fitting)
        if guessed:
            return "VIOLATED", f"settled on {guessed[0]} of {len(fitting)} orders that fit, without asking which"
    g = _search(stated, list(params.get("guess_patterns") or []))
    if g and g.group(0).lower() not in said:
        return "VIOLATED", f"assumed {g.group(0)!r} instead of asking"
    ask = _search(questions, list(params.get("ask_patterns") or [r"\?"]), params.get("ignore_patterns"))
    if ask:
        return "FOLLOWED", f"asks ({ask.group(0)!r}) rather than guessing"
    return "NOT_APPLICABLE", "asks for no detail, and guesses none"


@check("escalate_when_demanded")
def escalate_when_demanded(events, idx, params):
    """The customer threatens legal action (threat_patterns), or asks for a human
    (demand_patterns) after the agent refused something (refusal_patterns in an earlier
    agent message): one of ``tools`` must have succeeded since that message. Any other
    turn: NOT_APPLICABLE."""
    u = _last_user_index(events, idx)
    if u < 0:
        return "NOT_APPLICABLE", "no customer message yet"
    said = events[u].content
    threat = _search(said, list(params["threat_patterns"]))
    demand = _search(said, list(params["demand_patterns"]))
    refused = any(
        isinstance(e, AgentEvent) and _search(e.content, list(params["refusal_patterns"]), params.get("ignore_patterns"))
        for e in events[:u]
    )
    if threat:
        trigger = f"the customer threatened legal action ({threat.group(0)!r})"
    elif demand and refused:
        trigger = f"the customer asked for a human ({demand.group(0)!r}) after a refusal"
    else:
        return "NOT_APPLICABLE", "no legal threat, and no request for a human after a refusal"
    done = [e.call.name for e in events[u + 1 : idx] if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and e.call.name in params["tools"]]
    if done:
        return "FOLLOWED", f"{trigger}; the agent called {done[0]}"
    return "VIOLATED", f"{trigger}, and the agent did not escalate"


@check("no_policy_exception")
def no_policy_exception(events, idx, params):
    """Declining an out-of-policy request. Params: patterns (wording that grants an exception),
    ignore_patterns (refusals such as "I can't make an exception"); grant_tools, window_days
    and age_field: a grant tool called since the customer's last message on an order whose
    tracking showed it older than the window is an exception granted in deeds."""
    text = _reply(events, idx)
    m = _search(text, _pattern_list(params), params.get("ignore_patterns"))
    if m:
        return "VIOLATED", f"the reply grants an exception: {m.group(0)!r}"
    window = params.get("window_days")
    grant = set(params.get("grant_tools") or [])
    if window is None or not grant:
        return "FOLLOWED", "no exception granted"
    age_field = params.get("age_field", "days_since_delivery")
    age: dict[str, int] = {}
    u = _last_user_index(events, idx)
    for i, e in enumerate(events[:idx]):
        if not (isinstance(e, ToolEvent) and e.side == "agent" and e.ok):
            continue
        out = _json_obj(e.output)
        if isinstance(out, dict) and isinstance(out.get(age_field), (int, float)) and out.get("order_id"):
            age[out["order_id"]] = out[age_field]
        args = e.call.arguments_dict() or {}
        oid = args.get("order_id")
        if i > u and e.call.name in grant and oid in age and age[oid] > window:
            return "VIOLATED", f"{e.call.name} on {oid}, delivered {age[oid]} days ago (window {window})"
    return "FOLLOWED", "no exception granted"


# -- dates -----------------------------------------------------------------------------------

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"]
_COUNT = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10,
          "a couple of": 3, "a few": 5, "a day or": 2}
# no \b at the end: tool outputs hold timestamps such as "2026-06-10T15:20:00"
_ISO = re.compile(r"(?<![\d-])(20\d\d-\d\d-\d\d)(?![\d-])")
_MONTH_RE = "(" + "|".join(_MONTHS) + r")"
# The ways a reply can name a day (point) or a latest day (bound: "by", "within").
_DATE_EXPRS = [
    ("iso", _ISO),
    ("tomorrow", re.compile(r"\btomorrow\b", re.I)),
    ("weekday", re.compile(r"\b(by|before|until|on|this|next)?\s*(" + "|".join(_WEEKDAYS) + r")\b", re.I)),
    ("within", re.compile(r"\b(within|in)\s+(?:the next\s+)?(\d+|one|two|three|four|five|six|seven|ten|a couple of|a few|a day or)"
                          r"\s+(business |working )?days?\b", re.I)),
    ("week", re.compile(r"\b(by the end of (?:the|this) week|end of (?:the|this) week|this week|next week)\b", re.I)),
    ("month_day", re.compile(r"\b" + _MONTH_RE + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b", re.I)),
    ("day_month", re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_RE + r"\b", re.I)),
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
    if kind == "week":
        sunday = today + dt.timedelta(days=6 - today.weekday())
        if m.group(1).lower() == "next week":
            return sunday + dt.timedelta(days=1), sunday + dt.timedelta(days=7)
        return tomorrow, sunday
    return None


@check("dates_from_tools")
def dates_from_tools(events, idx, params):
    """A date the reply gives must be one the system showed. Params: tools (whose outputs
    hold the system's dates); today (ISO; resolves "tomorrow", "by Friday", "within 5 days");
    exempt_before (a hedge or condition before the date in its clause: "I can't say whether
    that's tomorrow"); derived_offsets_days (system date + N days also counts, e.g. the end
    of a return window counted from the delivery date)."""
    reply = _reply(events, idx)
    today = dt.date.fromisoformat(params["today"]) if params.get("today") else None
    tools = set(params["tools"])
    system: set[dt.date] = set()
    for e in _agent_tools_before(events, idx):
        if e.call.name in tools:
            for s in _ISO.findall(e.output):
                try:
                    system.add(dt.date.fromisoformat(s))
                except ValueError:
                    pass
    for off in params.get("derived_offsets_days") or []:
        system |= {d + dt.timedelta(days=off) for d in list(system)}
    exempt = params.get("exempt_before")
    seen: list[tuple[int, int]] = []
    for kind, rx in _DATE_EXPRS:
        for m in rx.finditer(reply):
            if kind == "weekday" and not m.group(2):
                continue
            if any(a <= m.start() < b for a, b in seen):
                continue  # already read as part of a longer expression
            seen.append((m.start(), m.end()))
            if exempt and re.search(exempt, _clause_before(reply, m.start()), re.I):
                continue
            said = m.group(0).strip()
            span = _resolve(kind, m, today)
            if span is None:
                if not system and not any(e.call.name in tools for e in _agent_tools_before(events, idx)):
                    return "VIOLATED", f"said {said!r} before calling any of {', '.join(sorted(tools))}"
                continue
            lo, hi = span
            if not any(lo <= d <= hi for d in system):
                shown = ", ".join(sorted(d.isoformat() for d in system)) or "no date"
                return "VIOLATED", f"said {said!r} but the system showed {shown}"
    return "FOLLOWED", "every date in the reply is one the system showed"


def run_check(check_type: str, params: dict, events: list[Event], idx: int) -> tuple[str, str]:
    if check_type not in CHECKS:
        raise KeyError(f"unknown rule check type {check_type!r} (known: {', '.join(sorted(CHECKS))})")
    return CHECKS[check_type](events, idx, params)
