"""The tutoring domain's rules of the task lint (found by ``envs.spec.lint.domain_lint``).

``lint_task(domain, task, gold)`` returns ``(field, reason)`` pairs:

* a goal that logs a misconception while the scenario does not make the student show it for
  certain: the wrong answer the misconception gives must be in what the student says first,
  for every simulator: in the request or the known facts (an LLM student volunteers them) and,
  for the scripted student, which reads the task's ``extra`` rather than its words,
  ``extra.student.opens_with_attempt: true``. A hidden fact or a drawn situation is not
  certain: the tutor may never ask, and the student may answer right without showing it;
* a goal the policy forbids given the task's budget: the policy says to stay within the hint
  budget (a gold path that ends over budget contradicts it) and to reveal only after the last
  hint the budget allows, level 3 or the budget when it is smaller (a gold path that reveals
  earlier contradicts it).
"""

from __future__ import annotations

import re

from sqlalchemy import text


def _mentions(value: str, texts: list[str]) -> bool:
    rx = re.compile(r"(?<![\d.])" + re.escape(str(value)) + r"(?![\d])")
    return any(rx.search(t) for t in texts)


def lint_task(domain, task, gold) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pid = task.extra.get("problem_id")
    problem = domain.problems.get(pid)
    logged = [c for c in gold.actions if c.name == "log_misconception" and c.ok]
    if logged and problem is not None:
        code = logged[0].arguments.get("code")
        err = next((e for e in problem.common_errors if e.code == code), None)
        sc = task.scenario
        if err is not None:
            missing = []
            if not _mentions(err.answer, [sc.request, *sc.known_facts]):
                missing.append(f"the wrong answer {err.answer} is in neither the request nor the known facts")
            if not (task.extra.get("student") or {}).get("opens_with_attempt"):
                missing.append("the scripted student is not made to open with its attempt (extra.student.opens_with_attempt)")
            if missing:
                out.append((
                    "scenario.known_facts" if "request" in missing[0] else "extra.student.opens_with_attempt",
                    f"the goal logs misconception {code!r}, but nothing makes the student show it: " + "; ".join(missing),
                ))
    if gold.final is not None:
        out += _budget_findings(task, gold)
    return out


def _budget_findings(task, gold) -> list[tuple[str, str]]:
    session_ids = [r.row.get("id") for r in task.initial_state.insert if r.table == "tutoring_sessions"]
    out = []
    for sid in session_ids:
        row = gold.final.session.execute(
            text("SELECT hint_budget, hints_given, hints_over_budget FROM tutoring_sessions WHERE id = :id"), {"id": sid}
        ).first()
        if row is None:
            continue
        budget, given, over = row
        if over:
            out.append(("expected_actions", f"the gold path gives {given} hints on a budget of {budget}; the policy says to stay within it"))
        level = 0
        for c in gold.actions:
            if c.name == "give_hint" and c.ok:
                level = max(level, int(c.arguments.get("level", 0)))
            if c.name == "reveal_solution" and c.ok:
                need = min(3, budget)
                if level < need:
                    out.append((
                        c.origin,
                        f"reveals after hints up to level {level}; with a hint budget of {budget} the policy allows a "
                        f"reveal only after a level-{need} hint",
                    ))
    return out
