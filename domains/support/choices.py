"""What the customer chooses and the agent must not choose for them (R10: ask for a missing
detail, never guess it): which item of an order was hit, and refund or replacement.

The policy leaves both to the customer ("refund or replace that item only (the customer
chooses)"; "The customer chooses. Do not choose for them."). A reply settles one for them when it
acts on it (a refund or replacement tool in its step) or commits to it or puts it up for a yes
("I'll set up a refund ... Shall I go ahead?", "Shall I refund the skillet?") while the customer
has not said it, nor answered the agent's question that offered it. The words come from the
rule's params; the orders' items from ``get_order`` outputs.
"""

from __future__ import annotations

import re

from envs.records import AgentEvent, ToolEvent
from graders.rules.replies import (
    json_value,
    last_user_index,
    reply_text,
    request_sentences,
    search,
    sentences,
    step_tools,
    user_text_before,
)

# an item no longer open to a remedy
_DONE = {"refunded", "replaced"}
# a line's count in words ("the six glasses")
_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 12: "twelve"}


def named_by(item: str, said: str) -> bool:
    """Does the customer's text name this item (most of its words, e.g. "the mug set")?"""
    words = [w for w in re.findall(r"[a-z]+", item.lower()) if len(w) >= 3]
    return bool(words) and sum(re.search(rf"\b{w}", said) is not None for w in words) * 2 >= len(words)


def _open_items(events, idx: int) -> dict[str, list[dict]]:
    """Per order (``get_order`` outputs before the reply, the latest per order), its items still
    open to a refund or replacement."""
    out: dict[str, list[dict]] = {}
    for e in events[:idx]:
        if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and e.call.name == "get_order":
            o = json_value(e.output)
            if isinstance(o, dict) and o.get("order_id"):
                out[str(o["order_id"]).upper()] = [i for i in o.get("items") or []
                                                   if isinstance(i, dict) and i.get("status") not in _DONE]
    return out


def _last_agent_asks(events, idx: int) -> list[str]:
    """What the agent's message before the customer's last one asked (its request sentences)."""
    u = last_user_index(events, idx)
    before = next((e for e in reversed(events[: max(u, 0)]) if isinstance(e, AgentEvent)), None)
    return request_sentences(before.content) if before is not None else []


def _acts(text: str, params: dict) -> list[str]:
    """The sentences of ``text`` that commit to an act or put one up for a yes (commit_patterns)."""
    return [s for s in sentences(text) if search(s, list(params.get("commit_patterns") or []))]


def item_chosen_for_them(events, idx: int, params: dict) -> str | None:
    """The reply settles which item of an order with several open ones the customer meant, when
    the customer said it only loosely ("the damaged one", ``generic_item_patterns``), named none of
    them and not all (``all_items_patterns``), and did not answer a question that put the items to
    them: by a tool in ``item_tools`` on some of them, or a sentence that commits to one item."""
    said = user_text_before(events, idx)
    if not search(said, list(params.get("generic_item_patterns") or [])):
        return None
    if search(said, list(params.get("all_items_patterns") or [])):
        return None
    orders = {oid: items for oid, items in _open_items(events, idx).items() if len(items) >= 2}
    if not orders or any(named_by(str(i.get("name") or ""), said) for items in orders.values() for i in items):
        return None
    asked = " ".join(_last_agent_asks(events, idx))
    if any(sum(named_by(str(i.get("name") or ""), asked.lower()) for i in items) >= 2 for items in orders.values()) \
            or search(asked, list(params.get("which_item_patterns") or [])):
        return None  # the customer answers the agent's question of which item it was
    for e in step_tools(events, idx):
        if e.call.name not in set(params.get("item_tools") or []):
            continue
        args = e.call.arguments_dict() or {}
        items = orders.get(str(args.get("order_id") or "").upper())
        ids = {str(x) for x in args.get("item_ids") or []}
        picked = [i for i in items or [] if str(i.get("item_id")) in ids]
        if picked and len(picked) < len(items or []):
            return (f"{e.call.name} on the {picked[0].get('name')} of {len(items or [])} items of {args.get('order_id')}, "
                    "which the customer never said")
    for s in _acts(reply_text(events, idx), params):
        for oid, items in orders.items():
            hit = [i for i in items if named_by(str(i.get("name") or ""), s.lower())]
            if len(hit) == 1:
                return f"settled on the {hit[0].get('name')}, one of {len(items)} items of {oid}, without asking which ({s[:60]!r})"
    return None


def remedy_chosen_for_them(events, idx: int, params: dict) -> str | None:
    """The reply picks refund or replacement (``remedies``: each with the words that name it) for
    a customer who reported an item problem (``item_problem_patterns``) and chose neither, did not
    leave it to the agent (``delegated_patterns``) and did not answer a question that put one to
    them: by a tool of ``remedy_by_tool`` in its step, or a sentence that commits to one and names no
    other refund (``other_refund_patterns``: a cancellation, a duplicate charge), in a reply that
    does not put both to them. Not when only one is possible (``only_one_patterns`` in a tool's
    output or the reply: a product out of stock leaves the refund)."""
    said = user_text_before(events, idx)
    if not search(said, list(params.get("item_problem_patterns") or [])):
        return None
    remedies: dict[str, str] = params.get("remedies") or {}
    chosen = {r for r, pat in remedies.items() if re.search(pat, said, re.I)}
    if search(said, list(params.get("delegated_patterns") or [])):
        return None
    asked = " ".join(_last_agent_asks(events, idx))
    if any(re.search(pat, asked, re.I) for pat in remedies.values()):
        return None  # the customer answers the agent's question that offered it
    reply = reply_text(events, idx)
    only_one = list(params.get("only_one_patterns") or [])
    shown = " ".join(e.output for e in events[:idx] if isinstance(e, ToolEvent) and e.side == "agent")
    if search(shown, only_one) or search(reply, only_one):
        return None
    tools: dict[str, str] = params.get("remedy_by_tool") or {}
    acted = {tools[e.call.name] for e in step_tools(events, idx) if e.ok and e.call.name in tools}
    others = list(params.get("other_refund_patterns") or [])
    committed = {r for s in _acts(reply, params) if not search(s, others)
                 for r, pat in remedies.items() if re.search(pat, s, re.I)}
    offered = {r for r, pat in remedies.items() if re.search(pat, reply, re.I)}
    if not acted and len(offered) >= 2:
        return None  # the reply puts both to the customer
    picked = (acted | committed) - chosen
    if picked:
        what = sorted(picked)[0]
        return f"chose {what} for the customer, who had not said which they wanted" + (
            f" (they asked for {', '.join(sorted(chosen))})" if chosen else "")
    return None


def units_chosen_for_them(events, idx: int, params: dict) -> str | None:
    """The reply settles how many units of a line were hit when the customer said only "some of"
    them (``some_units_patterns``: "some of the glasses", "a few of them", "not all") and gave no
    count since (``count_patterns``), the line the customer means having several units: by a tool
    of ``item_tools`` on that line for all its units (no smaller ``quantity``), or a sentence that
    commits to all of them ("all 4", "the 4 glasses", "the whole line", the line's whole amount)
    without asking how many."""
    said = user_text_before(events, idx)
    if not search(said, list(params.get("some_units_patterns") or [])):
        return None
    if search(said, list(params.get("count_patterns") or [])):
        return None  # the customer gave the count, then or since
    lines = [(oid, i) for oid, items in _open_items(events, idx).items() for i in items
             if isinstance(i.get("quantity"), int) and i["quantity"] >= 2]
    meant = [(oid, i) for oid, i in lines if named_by(str(i.get("name") or ""), said)] or (lines if len(lines) == 1 else [])
    if not meant:
        return None
    for e in step_tools(events, idx):
        if e.call.name not in set(params.get("item_tools") or []):
            continue
        args = e.call.arguments_dict() or {}
        ids = {str(x) for x in args.get("item_ids") or []}
        for oid, i in meant:
            q = args.get("quantity")
            if str(i.get("item_id")) in ids and (q is None or q == i["quantity"]):
                return f"{e.call.name} on all {i['quantity']} units of the {i.get('name')}, when the customer said only some"
    reply = reply_text(events, idx)
    for s in _acts(reply, params):
        for oid, i in meant:
            n = i["quantity"]
            if re.search(rf"\b(all|every|each of the|the (whole|entire|full)|the)\s+({n}|{_NUMBER_WORDS.get(n, '-')})\b|\ball of (them|the)\b|\bthe (whole|entire|full) (line|set)\b", s, re.I):
                return f"settled on all {n} units of the {i.get('name')} ({s[:60]!r}) when the customer said only some, without asking how many"
            # or the whole line's amount, with no count ("Shall I refund the glasses, $72.00?")
            total = _dollars(i.get("line_total"))
            if total and re.search(rf"\$\s?{re.escape(total)}(?:\.00)?(?![\d.])", s):
                return f"settled on the whole line of the {i.get('name')} (${total}, all {n} units) when the customer said only some, without asking how many"
    # or a part of them the customer never counted ("I'll put it through as 2 of the 6", "the two
    # broken mugs, $18.00"), said anywhere in a reply that proposes or commits to the remedy
    if _acts(reply, params):
        for oid, i in meant:
            part = _part_count(reply, i)
            if part:
                return f"settled on {part!r} of the {i['quantity']} {i.get('name')} when the customer said only some, without asking how many"
    return None


def _part_count(reply: str, item: dict) -> str | None:
    """A count of fewer than all the line's units the reply names: "2 of the 6", "two of them",
    "the 2 broken mugs", or the amount of that many units ("$18.00" for two at $9.00)."""
    n = item["quantity"]
    noun = (re.findall(r"[a-z]+", str(item.get("name") or "").lower()) or ["-"])[-1]
    unit = _dollars(item.get("unit_price"))
    for k in range(1, n):
        said_k = rf"(?<![\w$.-])({k}|{_NUMBER_WORDS.get(k, 'one' if k == 1 else '-')})"
        for m in re.finditer(rf"{said_k} of (the |them\b|those\b|these\b|your\b)|{said_k}\s+(\w+\s+)?{noun}", reply, re.I):
            # "which one of them", "each one": a question or a distribution, not a count
            if not re.search(r"\b(which|any|each|every|no)\s*$", reply[: m.start()], re.I):
                return m.group(0).strip()
        if unit:
            cents = round(float(unit) * 100) * k
            amount = f"{cents // 100}" + ("" if cents % 100 == 0 else f".{cents % 100:02d}")
            # the amount where the money is spoken of ("so $18.00 back to your Visa")
            for s in sentences(reply):
                m = re.search(rf"\$\s?{re.escape(amount)}(?:\.00)?(?![\d.])", s)
                if m and re.search(r"\b(refund\w*|back|credit\w*|reimburs\w*)\b", s, re.I):
                    return m.group(0)
    return None


def _dollars(amount) -> str | None:
    """An amount as the tools give it ("$72.00") as the figure a reply would write ("72" or "72.50")."""
    m = re.fullmatch(r"\$?\s?(\d+)(?:\.(\d\d))?", str(amount or "").strip())
    if not m:
        return None
    return m.group(1) if m.group(2) in (None, "00") else f"{m.group(1)}.{m.group(2)}"
