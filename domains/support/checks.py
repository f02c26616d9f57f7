"""The support domain's deterministic rule checks (registered when the domain is built).

Each check gets the whole transcript and the index of the agent reply judged, and returns
(verdict, rationale). They hold what only a support desk knows: a customer proves who they
are (name + zip, or a lookup whose zip they confirm), order ids, an account change proposed
by name and confirmed with a plain yes, a change of mind, a demand for a human, a refund
outside the return window. The generic ones (phrases in a reply, a tool before a statement,
dates from tools) are in ``graders.rules``; rules.yaml names both kinds the same way.
"""

from __future__ import annotations

import re

from envs.records import AgentEvent, Event, ToolEvent, UserEvent
from graders.rules.registry import check
from graders.rules.replies import (
    json_field,
    json_leaves,
    json_value,
    last_user_index,
    pattern_list,
    question_sentences,
    reply_text,
    search,
    sentences,
    step_tools,
    user_text_before,
)


@check("clarify_before_action")
def clarify_before_action(events, idx, params):
    """Only the first reply after an ambiguous request is held to it: once the agent has
    asked and been answered, later replies (e.g. reporting the agreed action) are not."""
    u = last_user_index(events, idx)
    first_user = next((i for i, e in enumerate(events) if isinstance(e, UserEvent)), u)
    earlier_question = any(
        isinstance(e, AgentEvent) and "?" in e.content for e in events[first_user + 1 : u]
    )
    if earlier_question:
        return "NOT_APPLICABLE", "the agent already asked a clarifying question earlier"
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
                z = json_field(json_value(e.output), src.get("field", "zip"))
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
    said = user_text_before(events, idx)
    ignore = {str(v).lower() for v in params.get("ignore_values") or []}
    reply = reply_text(events, idx)
    for e in events[:idx]:
        if not (isinstance(e, ToolEvent) and e.side == "agent" and e.ok):
            continue
        for v in json_leaves(json_value(e.output)):
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
    u = last_user_index(events, idx)
    reply = reply_text(events, idx)
    changes = [e.call.name for e in step_tools(events, idx) if e.ok and e.call.name in actions]
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
    no = search(said, list(params.get("not_yes_patterns") or []))
    if no:
        return "VIOLATED", f"{changes[0]} was made although the customer's answer was not a plain yes ({no.group(0)!r})"
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
    turn = search(events[u].content, list(params["change_patterns"]))
    if not turn:
        return "NOT_APPLICABLE", "the customer did not change their mind"
    asked = next((e for e in reversed(events[:u]) if isinstance(e, AgentEvent)), None)
    abandoned = {t for t, pat in actions.items() if asked is not None and re.search(pat, asked.content, re.I)}
    for e in step_tools(events, idx):
        if e.ok and e.call.name in actions:
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
    said = user_text_before(events, idx)
    parts = sentences(reply_text(events, idx))
    stated = " ".join(x for x in parts if "?" not in x)
    questions = " ".join(x for x in parts if "?" in x)
    order_re = params.get("order_pattern", r"\bO-\d+\b")
    listed: dict[str, list[str]] = {}
    for e in events[:idx]:
        if isinstance(e, ToolEvent) and e.side == "agent" and e.ok:
            out = json_value(e.output)
            if isinstance(out, list):
                for o in out:
                    if isinstance(o, dict) and o.get("order_id"):
                        listed[str(o["order_id"]).upper()] = [str(i) for i in o.get("items") or []]
    named_items = {oid for oid, items in listed.items() if any(_named_by(i, said) for i in items)}
    fitting = named_items or set(listed)
    said_ids = {m.upper() for m in re.findall(order_re, said, re.I)}
    picked = {m.upper() for m in re.findall(order_re, stated, re.I)}
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
    g = search(stated, list(params.get("guess_patterns") or []))
    if g and g.group(0).lower() not in said:
        return "VIOLATED", f"assumed {g.group(0)!r} instead of asking"
    ask = search(questions, list(params.get("ask_patterns") or [r"\?"]), params.get("ignore_patterns"))
    if ask:
        return "FOLLOWED", f"asks ({ask.group(0)!r}) rather than guessing"
    return "NOT_APPLICABLE", "asks for no detail, and guesses none"


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


@check("no_policy_exception")
def no_policy_exception(events, idx, params):
    """Declining an out-of-policy request. Params: patterns (wording that grants an exception),
    ignore_patterns (refusals such as "I can't make an exception"); grant_tools, window_days
    and age_field: a grant tool called since the customer's last message on an order whose
    tracking showed it older than the window is an exception granted in deeds."""
    text = reply_text(events, idx)
    m = search(text, pattern_list(params), params.get("ignore_patterns"))
    if m:
        return "VIOLATED", f"the reply grants an exception: {m.group(0)!r}"
    window = params.get("window_days")
    grant = set(params.get("grant_tools") or [])
    if window is None or not grant:
        return "FOLLOWED", "no exception granted"
    age_field = params.get("age_field", "days_since_delivery")
    age: dict[str, int] = {}
    u = last_user_index(events, idx)
    for i, e in enumerate(events[:idx]):
        if not (isinstance(e, ToolEvent) and e.side == "agent" and e.ok):
            continue
        out = json_value(e.output)
        if isinstance(out, dict) and isinstance(out.get(age_field), (int, float)) and out.get("order_id"):
            age[out["order_id"]] = out[age_field]
        args = e.call.arguments_dict() or {}
        oid = args.get("order_id")
        if i > u and e.call.name in grant and oid in age and age[oid] > window:
            return "VIOLATED", f"{e.call.name} on {oid}, delivered {age[oid]} days ago (window {window})"
    return "FOLLOWED", "no exception granted"
