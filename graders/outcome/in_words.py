"""A failed episode's cause in words, for the one-line first failure of a task.

The row-level diff is complete but reads as ids (``refund_id: 263 (expected 144)``); a reader
wants the cause first: which rows differ and how, the action that was wrong, extra or missing,
and what was said instead of a required output. Nothing here knows a domain: it reads the
diff's tables and columns, and the agent's writing tool calls against the task's expected ones.

* ``actions_in_words``: a writing call with other arguments than the goal's (``refund_items
  item_ids [91110, 91111] (goal [91110])``), an extra one, a missing one;
* ``diff_in_words``: a row made where the goal makes another is paired with it and said by the
  columns that differ (``refunds: a row made with amount_cents 16200 (goal 12250)``); an extra
  or a missing row by a few of its columns; a changed row by its columns. A reference that
  differs only because a paired row got another id (``refund_id 263 (goal 144)``) is the same
  fact again and is left out;
* ``why_failed``: the error, the budget, or the phrases above joined, cut by whole phrases.
"""

from __future__ import annotations

import json
import re
from typing import Any

from envs.records import EpisodeRecord, TableDiff, ToolEvent

# Columns that name a row rather than describe it, and values that only stamp a time.
_ID_COLUMNS = ("id",)
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}")
MAX_COLUMNS = 4  # of an extra or missing row


def value(v: Any) -> str:
    """A value as the failure line shows it: strings quoted, lists and numbers as written."""
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, (list, dict)):
        return json.dumps(v, default=str)
    return str(v)


def _key(key: dict[str, Any]) -> str:
    return ", ".join(str(v) for v in key.values()) if len(key) == 1 else ", ".join(f"{k}={v}" for k, v in key.items())


def _describing(row: dict[str, Any]) -> list[str]:
    """The columns that say what a row is: not its id, not a null, not a time stamp."""
    return [c for c, v in row.items() if c not in _ID_COLUMNS and v is not None and not (isinstance(v, str) and _STAMP.match(v))]


def _pairs(d: TableDiff) -> list[tuple[dict, dict]]:
    """(made, goal's) pairs of an unexpected and a missing row of one table: most equal columns
    first, and only rows that share at least half of what describes them."""
    scored = []
    for i, u in enumerate(d.unexpected):
        for j, m in enumerate(d.missing):
            cols = sorted(set(_describing(u)) | set(_describing(m)))
            same = sum(u.get(c) == m.get(c) for c in cols)
            if cols and 2 * same >= len(cols):
                scored.append((-same, i, j))
    used_u, used_m, out = set(), set(), []
    for _, i, j in sorted(scored):
        if i not in used_u and j not in used_m:
            used_u.add(i)
            used_m.add(j)
            out.append((d.unexpected[i], d.missing[j]))
    return out


def diff_in_words(diffs: list[TableDiff]) -> list[str]:
    """The diff as phrases, the rows that say the most first (see the module docstring)."""
    made, extra, missing, changed = [], [], [], []
    paired = [(d, _pairs(d)) for d in diffs]
    # (made id, goal's id) of paired rows, of every table first: a row of another table that points
    # at a paired row (``refund_lines.refund_id``) differs only by that reference, the same fact again
    renamed: set[tuple[Any, Any]] = {(u["id"], m["id"]) for _, pairs in paired for u, m in pairs if "id" in u and "id" in m}
    for d, pairs in paired:
        for u, m in pairs:
            cols = [c for c in sorted(set(u) | set(m), key=list({**m, **u}).index) if c not in _ID_COLUMNS and u.get(c) != m.get(c)]
            cols = [c for c in cols if not (_STAMP.match(str(u.get(c))) and _STAMP.match(str(m.get(c))))] or cols
            own = [c for c in cols if (u.get(c), m.get(c)) not in renamed]
            if cols and not own:
                continue  # only its reference to a renamed row differs
            said = ", ".join(f"{c} {value(u.get(c))} (goal {value(m.get(c))})" for c in own)
            made.append(f"{d.table}: a row made with {said}" if said else f"{d.table}: a row made under another id")
        paired_u = [id(u) for u, _ in pairs]
        paired_m = [id(m) for _, m in pairs]
        for u in d.unexpected:
            if id(u) not in paired_u:
                cols = _describing(u)[:MAX_COLUMNS]
                extra.append(f"{d.table}: an extra row ({', '.join(f'{c} {value(u[c])}' for c in cols)})")
        for m in d.missing:
            if id(m) not in paired_m:
                cols = _describing(m)[:MAX_COLUMNS]
                missing.append(f"{d.table}: the goal's row is missing ({', '.join(f'{c} {value(m[c])}' for c in cols)})")
    for d in diffs:
        for ch in d.changed:
            cols = {c: v for c, v in ch.columns.items() if (v.get("actual"), v.get("expected")) not in renamed}
            if cols:
                said = ", ".join(f"{c} {value(v.get('actual'))} (goal {value(v.get('expected'))})" for c, v in cols.items())
                changed.append(f"{d.table} {_key(ch.key)}: {said}")
    return made + extra + missing + changed


def call_args(arguments: Any) -> str:
    """A call's arguments as the failure line shows them: ``order_id 'O-1', item_ids [3]``."""
    if not isinstance(arguments, dict):
        return value(arguments)
    return ", ".join(f"{k} {value(v)}" for k, v in arguments.items())


def _same(got: Any, want: dict[str, Any]) -> bool:
    return isinstance(got, dict) and all(str(got.get(k)) == str(v) for k, v in want.items())


def actions_in_words(rec: EpisodeRecord, task: Any, domain: Any) -> list[str]:
    """The agent's writing calls against the task's expected ones: a call of the right tool with
    other arguments (only those said), an extra call, a missing one."""
    writes = lambda name: getattr(domain.agent_tools.tools.get(name), "mutates", False)  # noqa: E731
    calls = [e.call for e in rec.transcript if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and writes(e.call.name)]
    expected = [a for a in task.expected_actions if writes(a.name)]
    wrong = [c for c in calls if not any(a.name == c.name and _same(c.arguments_dict(), a.arguments) for a in expected)]
    absent = [a for a in expected if not any(c.name == a.name and _same(c.arguments_dict(), a.arguments) for c in calls)]
    out = []
    for c in wrong:
        twin = next((a for a in absent if a.name == c.name), None)
        got = c.arguments_dict() or {}
        if twin is not None:
            absent.remove(twin)
            keys = [k for k in dict.fromkeys([*twin.arguments, *got]) if str(got.get(k)) != str(twin.arguments.get(k))]
            out.append(f"{c.name} with " + ", ".join(f"{k} {value(got.get(k))} (goal {value(twin.arguments.get(k))})" for k in keys))
        else:
            out.append(f"extra action {c.name}({call_args(got)})")
    out += [f"missing action {a.name}({call_args(a.arguments)})" for a in absent]
    return out


def join_phrases(phrases: list[str], limit: int = 300) -> str:
    """``phrases`` joined with "; ", whole ones while they fit ``limit``, then ``(+N more)``."""
    out = ""
    for i, p in enumerate(phrases):
        nxt = p if not out else f"{out}; {p}"
        tail = f" (+{len(phrases) - i - 1} more)" if i < len(phrases) - 1 else ""
        if len(nxt) + len(tail) > limit and out:
            return f"{out} (+{len(phrases) - i} more)"
        out = nxt
    return out


def why_failed(rec: EpisodeRecord, task: Any = None, domain: Any = None, agent_failed: tuple[str, ...] = ()) -> str:
    """One line on a failed episode, its cause first: the error; the budget that ended it; the
    agent's failure to act; the actions and rows that differ from the goal; the required outputs
    not stated and what was said instead."""
    from graders.outcome.outputs import describe

    if rec.status == "error":
        return f"error ({rec.error_role}:{rec.error_kind}): {rec.error}"[:300]
    if rec.budget:  # ended by a per-episode budget: it did not finish, whatever the state
        return f"{rec.termination}: {rec.budget}"[:300]
    if rec.termination in agent_failed:
        return f"the agent failed ({rec.termination}: {rec.agent_errors} bad replies or calls); graded 0"
    g = rec.grade
    if g is None:
        return "no grade"
    if g.unfinished:  # the episode did not finish its task (graders.evaluate.unfinished)
        return f"{g.unfinished}; graded 0 whatever the state"[:300]
    phrases = []
    if g.diff:
        if task is not None and domain is not None:
            phrases += actions_in_words(rec, task, domain)
        phrases += diff_in_words(g.diff)
    missing = [describe(o) for o in g.outputs if not o.found]
    if missing:
        phrases.append(f"required outputs not stated: {'; '.join(missing)}")
    if not g.required_assertions_ok:
        failed = [a.description or a.type for a in g.assertions if a.required and a.result != "pass"]
        phrases.append(f"required assertion failed: {'; '.join(failed)}")
    return join_phrases(phrases) or f"graded 0 though no row differs and every output was stated (ended by {rec.termination})"
