"""The support domain's deterministic rule checks (registered when the domain is built).

Each check gets the whole transcript and the index of the agent reply judged, and returns
(verdict, rationale). They hold what only a support desk knows: a customer proves who they
are (name + zip, or a lookup whose zip they confirm), order ids, an account change proposed
by name and confirmed with a plain yes, a change of mind, a demand for a human, a refund
outside the return window. The generic ones (phrases in a reply, a tool before a statement,
dates from tools) are in ``graders.rules``; rules.yaml names both kinds the same way.

This module holds the conversation checks (clarify, confirm, a change of mind, ask rather than
guess, escalate); the identity and policy checks are ``account_checks``. Importing this module
registers both families.
"""

from __future__ import annotations

import re

from domains.support import account_checks  # noqa: F401  (registers its checks)
from domains.support.choices import item_chosen_for_them, named_by, remedy_chosen_for_them, units_chosen_for_them
from envs.records import AgentEvent, ToolEvent, UserEvent
from graders.rules.registry import check
from graders.rules.replies import (
    json_value,
    last_user_index,
    reply_text,
    request_sentences,
    search,
    statement_sentences,
    step_tools,
    user_text_before,
)


@check("clarify_before_action")
def clarify_before_action(events, idx, params):
    """Held to the replies after an ambiguous request until the agent has asked what was meant:
    once it has asked (a question or a request, since the first user turn played as this
    situation) and been answered, later replies (e.g. reporting the agreed action) are not.
    Questions that only ask for identity details (identity_request_pattern, e.g. email and
    zip) are not clarifications. A request without a question mark ("please tell me which one
    you mean") asks too."""
    u = last_user_index(events, idx)
    sit = events[u].situation if u >= 0 else None
    start = next((i for i, e in enumerate(events[:u]) if isinstance(e, UserEvent) and sit and e.situation == sit), u)
    ident = params.get("identity_request_pattern")

    def clarifies(text: str) -> bool:
        return any(not (ident and re.search(ident, q, re.I)) for q in request_sentences(text))

    if any(isinstance(e, AgentEvent) and clarifies(e.content) for e in events[start + 1 : u]):
        return "NOT_APPLICABLE", "the agent already asked what the customer meant in this exchange"
    # the customer answers the agent's question of what was meant, one offering readings ("the
    # whole order, or one item?") or one reading to say yes or no to (reading_pattern: "was it
    # the parcel itself that never came?"), not an open "How can I help?": the ambiguity is
    # settled, whatever turn the situation was first played in
    reading = params.get("reading_pattern") or r"\bor\b"
    before = next((e for e in reversed(events[:u]) if isinstance(e, AgentEvent)), None) if u >= 0 else None
    if before is not None and any(re.search(reading, q, re.I) and not (ident and re.search(ident, q, re.I))
                                  for q in request_sentences(before.content)):
        return "NOT_APPLICABLE", "the customer answers the agent's question of which reading was meant"
    mutating = set(params.get("mutating_tools", []))
    acted = [e.call.name for e in step_tools(events, idx) if e.call.name in mutating]
    if acted:
        return "VIOLATED", f"called {acted[0]} before asking what the customer meant"
    reply = reply_text(events, idx)
    commit = params.get("commit_pattern")
    m = re.search(commit, reply, re.I) if commit else None
    if m:
        return "VIOLATED", f"committed to one reading ({m.group(0)!r}) instead of asking which was meant"
    cont = params.get("continuation_pattern")
    # what the reply asks about what was meant: a request for identity details or the order's
    # number ("if you have the order number, that's helpful too") asks nothing about it
    every = request_sentences(reply)
    asks = [q for q in every if not (ident and re.search(ident, q, re.I))]
    if cont:
        # "Is it the whole order? Or one item?": a question that starts like this offers
        # another reading of the same question, so it is not counted as a second one.
        n = sum(1 for q in asks if not re.match(cont, q, re.I)) or min(len(asks), 1)
    else:
        n = len(asks)
    if n == 1:
        return "FOLLOWED", "asked exactly one clarifying question before acting"
    if n == 0 and every:
        return "FOLLOWED", "asks for identity details first, acting on no reading yet"
    if n == 0:
        return "VIOLATED", "answered without asking a clarifying question"
    return "VIOLATED", f"asked {n} questions at once instead of one"



_YES = [r"\b(yes|yeah|yep|sure|go ahead|please do)\b"]


def _pauses(said: str, params: dict) -> list[str] | None:
    """The hesitations (hesitation_patterns) to leave out of an answer that holds a yes: "Hold
    on... yes, go ahead" says yes, whatever pause came first; with no yes they stay."""
    hes = list(params.get("hesitation_patterns") or [])
    return hes if hes and search(said, list(params.get("yes_patterns") or _YES)) else None


@check("confirm_before_change")
def confirm_before_change(events, idx, params):
    """An account change (a tool in ``actions``, each with the pattern of words that name it)
    made since the customer's last message needs, before it: an agent question naming that
    action (the last agent message before the customer's), and a customer answer that is an
    explicit yes (yes_patterns) with no change of mind in it (not_yes_patterns). A reply that
    makes no change but asks before one (a question naming an action) follows the rule; any
    other turn: NOT_APPLICABLE."""
    actions: dict[str, str] = params["actions"]
    u = last_user_index(events, idx)
    reply = reply_text(events, idx)
    changes = [e.call.name for e in step_tools(events, idx) if e.ok and e.call.name in actions]
    if not changes:
        # a proposal: the action named in what the reply asks, or anywhere in a reply that
        # asks for consent ("...; give me a yes and I'll cancel it", "Is that alright with you?")
        asks = request_sentences(reply)
        consent = search(" ".join(asks), list(params.get("consent_patterns") or []))
        where = reply if consent else " ".join(asks)
        named = next((t for t, pat in actions.items() if re.search(pat, where, re.I)), None)
        if named:
            return "FOLLOWED", f"asks before changing anything ({named})"
        return "NOT_APPLICABLE", "no account change in this turn, and none proposed"
    asked = next((e for e in reversed(events[: max(u, 0)]) if isinstance(e, AgentEvent)), None)
    if asked is None or not request_sentences(asked.content):
        return "VIOLATED", f"{changes[0]} was made without first asking the customer"
    unnamed = [t for t in changes if not re.search(actions[t], asked.content, re.I)]
    if unnamed:
        return "VIOLATED", f"{unnamed[0]} was not the action the agent asked about ({asked.content[:80]!r})"
    # the yes was to the amount the agent stated: a change of another amount was not proposed
    stated = set(re.findall(r"\$\s?(\d[\d,]*\.\d{2})", asked.content))
    for e in step_tools(events, idx):
        if e.ok and e.call.name in actions and stated:
            out = json_value(e.output)
            amount = out.get("amount") if isinstance(out, dict) else None
            m = re.fullmatch(r"\$?\s?(\d[\d,]*\.\d{2})", str(amount or "").strip())
            if m and m.group(1) not in stated:
                return "VIOLATED", f"{e.call.name} was for ${m.group(1)}, not the amount the customer said yes to (${', $'.join(sorted(stated))})"
    said = events[u].content
    no = search(said, list(params.get("not_yes_patterns") or []), _pauses(said, params))
    if no:
        return "VIOLATED", f"{changes[0]} was made although the customer's answer was not a plain yes ({no.group(0)!r})"
    # the yes was to a refund to one place (named in the answer, else in the question): a
    # refund made to another was not the one proposed
    places: dict[str, str] = params.get("destinations") or {}
    arg = params.get("destination_argument")
    if places and arg:
        def named_places(text: str) -> set[str]:
            return {p for p, pat in places.items() if re.search(pat, text, re.I)}
        agreed = named_places(said) or named_places(asked.content)
        for e in step_tools(events, idx):
            went = (e.call.arguments_dict() or {}).get(arg) if e.ok and e.call.name in actions else None
            if went and len(agreed) == 1 and went not in agreed:
                return "VIOLATED", f"{e.call.name} went to {went}, not to the {next(iter(agreed))} the customer said yes to"
    if not search(said, list(params["yes_patterns"])):
        return "VIOLATED", f"{changes[0]} was made without an explicit yes from the customer"
    return "FOLLOWED", f"{changes[0]} was proposed by name and the customer said yes"


@check("follow_the_change_of_mind")
def follow_the_change_of_mind(events, idx, params):
    """The customer's last message takes back what the agent had proposed (change_patterns):
    no account change (a tool in ``actions``) may follow in this turn. The one the agent had
    asked about is the abandoned request; any other is the new one, made without confirming
    it. Replies that change nothing follow the rule. Any other turn: NOT_APPLICABLE."""
    actions: dict[str, str] = params["actions"]
    u = last_user_index(events, idx)
    if u < 0:
        return "NOT_APPLICABLE", "no customer message yet"
    turn = search(events[u].content, list(params["change_patterns"]), _pauses(events[u].content, params))
    if not turn:
        # the customer changed their mind one exchange earlier, the agent asked to confirm the
        # new request, and the customer answers now: the reply carries out (or not) the latest one
        prev_u = last_user_index(events, u)
        confirm = next((e for e in reversed(events[prev_u + 1 : u]) if isinstance(e, AgentEvent)), None)
        earlier = search(events[prev_u].content, list(params["change_patterns"]), _pauses(events[prev_u].content, params)) if prev_u >= 0 else None
        if earlier is None or confirm is None or not request_sentences(confirm.content):
            return "NOT_APPLICABLE", "the customer did not change their mind"
        confirmed = {t for t, pat in actions.items() if re.search(pat, " ".join(request_sentences(confirm.content)), re.I)}
        before = next((e for e in reversed(events[:prev_u]) if isinstance(e, AgentEvent)), None)
        dropped = {t for t, pat in actions.items() if before is not None and re.search(pat, before.content, re.I)} - confirmed
        yes = search(events[u].content, list(params.get("yes_patterns") or _YES))
        for e in step_tools(events, idx):
            if e.ok and e.call.name in actions:
                if e.call.name in dropped:
                    return "VIOLATED", f"the customer had taken it back ({earlier.group(0)!r}), yet {e.call.name} was carried out"
                if e.call.name not in confirmed or not yes:
                    return "VIOLATED", f"{e.call.name} was made without the customer confirming it"
                return "FOLLOWED", f"{e.call.name}, the latest request, was confirmed before it was made"
        return "FOLLOWED", f"after the change of mind ({earlier.group(0)!r}) nothing abandoned was carried out"
    asked = next((e for e in reversed(events[:u]) if isinstance(e, AgentEvent)), None)
    abandoned = {t for t, pat in actions.items() if asked is not None and re.search(pat, asked.content, re.I)}
    for e in step_tools(events, idx):
        if e.ok and e.call.name in actions:
            if e.call.name in abandoned:
                return "VIOLATED", f"the customer took it back ({turn.group(0)!r}), yet {e.call.name} was carried out"
            return "VIOLATED", f"{e.call.name} was made on the new request without confirming it first"
    return "FOLLOWED", f"the customer changed their mind ({turn.group(0)!r}) and no change was made before confirming"


def _guessed_argument(events, idx: int, names: set[str], said: str) -> str | None:
    """A detail (a tool argument in ``names``, e.g. an email or a zip) the agent passed to a
    tool in this reply's step although the customer never said it and no earlier tool
    output showed it: a guess, whatever the reply says."""
    if not names:
        return None
    for e in step_tools(events, idx):
        args = e.call.arguments_dict() or {}
        shown = " ".join(x.output for x in events[:idx] if isinstance(x, ToolEvent) and x is not e).lower()
        for k, v in args.items():
            if k in names and isinstance(v, (str, int)) and len(str(v)) >= 3:
                val = str(v).lower()
                if val not in said and val not in shown:
                    return f"{e.call.name} was given {k}={v!r}, which the customer never gave"
    return None


# what may follow a street line in an address: a city, a state's code, a zip
_ADDRESS_REST = re.compile(r"(?:\s*,?\s*(?:[A-Z]{2}\b|\d{5}(?:-\d{4})?\b|[A-Z][a-z]+(?: [A-Z][a-z]+)*))+")


def _address_filled_in(reply: str, events, idx: int, line_pattern: str | None) -> str | None:
    """An address the customer gave (a street line, ``line_pattern``) that the reply completes
    with a city, state or zip the customer did not give with it ("300 Lamar Blvd, Austin" ->
    "300 Lamar Blvd, Austin, TX 78704"): the missing part guessed, not asked for."""
    if not line_pattern:
        return None
    for e in events[:idx]:
        if not isinstance(e, UserEvent):
            continue
        for m in re.finditer(line_pattern, e.content):
            line = m.group(0).rstrip(".")
            at = reply.lower().find(line.lower())
            if at < 0:
                continue
            theirs = _ADDRESS_REST.match(e.content, m.start() + len(line))
            ours = _ADDRESS_REST.match(reply, at + len(line))
            given = {t.lower() for t in re.findall(r"[\w-]+", theirs.group(0))} if theirs else set()
            added = [t for t in (re.findall(r"[\w-]+", ours.group(0)) if ours else []) if t.lower() not in given]
            if added:
                return f"completed the address the customer gave ({line!r}) with {' '.join(added)!r}, which they did not give"
    return None


# the params of what the customer chooses (``domains.support.choices``), handed on as they are
_CHOICE_PARAMS = ("commit_patterns", "item_tools", "generic_item_patterns", "all_items_patterns", "which_item_patterns",
                  "item_problem_patterns", "remedies", "remedy_by_tool", "delegated_patterns", "other_refund_patterns",
                  "only_one_patterns", "some_units_patterns", "count_patterns")


@check("ask_do_not_guess")
def ask_do_not_guess(events, idx, params):
    """A detail the customer did not give must be asked for, not guessed. Guesses caught: an
    order the agent settles on (named in a statement of the reply, or acted on since the
    customer's last message) while the tools listed several orders that fit what the customer
    said and the customer named none; and guess_patterns in a statement (e.g. "the default
    address") that the customer did not say; and what the customer chooses, settled for them
    (``domains.support.choices``: which of an order's items, refund or replacement; its params are
    R10's). Params: order_pattern, guess_patterns, mutating_tools; ask_patterns (a question
    asking for a detail) and ignore_patterns (e.g. "anything else?"). A reply that asks for a
    detail and guesses none follows the rule; any other turn: NOT_APPLICABLE."""
    said = user_text_before(events, idx)
    reply = reply_text(events, idx)
    # a request is not a guess: "please give me the zip of your default address" asks
    stated = " ".join(statement_sentences(reply))
    questions = " ".join(request_sentences(reply))
    guessed = _guessed_argument(events, idx, set(params.get("detail_arguments") or []), said)
    if guessed:
        return "VIOLATED", guessed
    order_re = params.get("order_pattern", r"\bO-\d+\b")
    listed: dict[str, list[str]] = {}
    placed: dict[str, str] = {}
    for e in events[:idx]:
        if isinstance(e, ToolEvent) and e.side == "agent" and e.ok:
            out = json_value(e.output)
            if isinstance(out, list):
                for o in out:
                    if isinstance(o, dict) and o.get("order_id"):
                        listed[str(o["order_id"]).upper()] = [str(i) for i in o.get("items") or []]
                        placed[str(o["order_id"]).upper()] = str(o.get("placed_at") or "")[:10]
    named_items = {oid for oid, items in listed.items() if any(named_by(i, said) for i in items)}
    fitting = named_items or set(listed)
    # "the one I ordered on June 2": the day the customer names settles which of them it is
    on_day = {oid for oid in fitting if placed.get(oid) and placed[oid] in _days_said(said, placed[oid][:4])}
    fitting = on_day or fitting
    said_ids = {m.upper() for m in re.findall(order_re, said, re.I)}
    picked = {m.upper() for m in re.findall(order_re, stated, re.I)}
    # the fitting orders laid out side by side ("two haven't shipped: O-60114 and O-60102. Which
    # one?") are options put to the customer: only one of them named in words settles on it
    if len(picked & fitting) >= 2:
        picked -= fitting
    for e in step_tools(events, idx):
        if e.call.name in set(params.get("mutating_tools") or []):
            oid = (e.call.arguments_dict() or {}).get("order_id")
            if oid:
                picked.add(str(oid).upper())
    # "my latest order": the customer chose by a rule of their own, so the pick is no guess
    chose = any(re.search(g, said, re.I) for g in params.get("guess_patterns") or [])
    if len(fitting) >= 2 and not said_ids & fitting and not chose:
        guessed = sorted(p for p in picked if p in fitting)
        if guessed:
            return "VIOLATED", f"settled on {guessed[0]} of {len(fitting)} orders that fit, without asking which"
    # a guess put up for a yes ("Shall I switch your latest order to your default address?") is
    # a guess all the same: only a question that asks for the detail asks
    proposals = " ".join(q for q in request_sentences(reply) if search(q, list(params.get("proposal_patterns") or [])))
    g = search(stated + " " + proposals, list(params.get("guess_patterns") or []))
    if g and g.group(0).lower() not in said:
        return "VIOLATED", f"assumed {g.group(0)!r} instead of asking"
    filled = _address_filled_in(reply, events, idx, params.get("address_line_pattern"))
    if filled:
        return "VIOLATED", filled
    # what the customer chooses: which of an order's items, refund or replacement
    mine = {k: params.get(k) for k in _CHOICE_PARAMS}
    settled = (item_chosen_for_them(events, idx, mine) or remedy_chosen_for_them(events, idx, mine)
               or units_chosen_for_them(events, idx, mine))
    if settled:
        return "VIOLATED", settled
    ask = search(questions, list(params.get("ask_patterns") or [r"\?"]), params.get("ignore_patterns"))
    if ask:
        return "FOLLOWED", f"asks ({ask.group(0)!r}) rather than guessing"
    # a request is an ask by itself ("drop me the order number"); ask_patterns sort questions
    plain = next((x for x in request_sentences(reply) if "?" not in x), None)
    if plain:
        return "FOLLOWED", f"asks ({plain[:60]!r}) rather than guessing"
    return "NOT_APPLICABLE", "asks for no detail, and guesses none"


def _days_said(text: str, year: str) -> set[str]:
    """The ISO dates the text names ("June 2", "2 June", "2026-06-02"), a yearless one in ``year``."""
    from graders.outcome.outputs import extract

    y = int(year) if year.isdigit() else None
    return {s.value.isoformat() for s in extract("date", 0, text, y)}


@check("escalate_when_demanded")
def escalate_when_demanded(events, idx, params):
    """The customer threatens legal action (threat_patterns), or asks for a human
    (demand_patterns) after the agent refused something (refusal_patterns in an earlier
    agent message): one of ``tools`` must have succeeded since that message. Any other
    turn: NOT_APPLICABLE."""
    u = last_user_index(events, idx)
    if u < 0:
        return "NOT_APPLICABLE", "no customer message yet"
    said = events[u].content
    threat = search(said, list(params["threat_patterns"]))
    demand = search(said, list(params["demand_patterns"]))
    refused = any(
        isinstance(e, AgentEvent) and search(e.content, list(params["refusal_patterns"]), params.get("ignore_patterns"))
        for e in events[:u]
    )
    if threat:
        trigger = f"the customer threatened legal action ({threat.group(0)!r})"
    elif demand and refused:
        trigger = f"the customer asked for a human ({demand.group(0)!r}) after a refusal"
    else:
        return "NOT_APPLICABLE", "no legal threat, and no request for a human after a refusal"
    done = [e.call.name for e in step_tools(events, idx) if e.ok and e.call.name in params["tools"]]
    if done:
        return "FOLLOWED", f"{trigger}; the agent called {done[0]}"
    return "VIOLATED", f"{trigger}, and the agent did not escalate"
