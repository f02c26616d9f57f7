"""Per-episode budgets: tokens, cost and wall time, enforced by the episode loop.

An episode that spends its budget ends with its own termination (``budget_tokens``,
``budget_cost``, ``budget_seconds``): it is not an infrastructure error and not the
agent's error, and since it did not finish it is graded as a failed trial (reward 0),
with a note saying which budget ended it and at what figure.

Tokens and cost are what the episode's actors (agent and simulated user) report in their
``usage``; the judge runs after the episode and is outside its budget. A model with no known
price adds no cost, so a cost budget cannot stop it (``unpriced`` says when that happened).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterable

from envs.actors.protocols import usage_of

BUDGET_TERMINATIONS = ("budget_tokens", "budget_cost", "budget_seconds")


@dataclass(frozen=True)
class Budgets:
    """Limits for one episode; None: no limit."""

    tokens: int | None = None
    cost: float | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        for name in ("tokens", "cost", "seconds"):
            v = getattr(self, name)
            if v is not None and v <= 0:
                from envs.errors import SpecError

                raise SpecError(f"--max-{name}-per-episode: must be positive, got {v}")

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.tokens, self.cost, self.seconds))


@dataclass
class Spent:
    tokens: int = 0
    cost: float = 0.0
    unpriced: bool = False


def spent_by(actors: Iterable[Any]) -> Spent:
    """Tokens and priced cost the actors have reported so far."""
    s = Spent()
    for a in actors:
        u = usage_of(a) if a is not None else None
        if u is None:
            continue
        s.tokens += u.prompt_tokens + u.completion_tokens
        if u.cost is None:
            s.unpriced = s.unpriced or u.calls > 0
        else:
            s.cost += u.cost
    return s


class BudgetClock:
    """Checks one episode's spending against its budgets."""

    def __init__(self, budgets: Budgets | None, t0: float | None = None):
        self.budgets = budgets or Budgets()
        self.t0 = time.perf_counter() if t0 is None else t0

    def remaining_seconds(self) -> float | None:
        b = self.budgets.seconds
        return None if b is None else b - (time.perf_counter() - self.t0)

    def over(self, actors: Iterable[Any]) -> tuple[str, str] | None:
        """(termination, note) for the first budget exceeded (spending past the limit), else None."""
        b = self.budgets
        if not b.any:
            return None
        s = spent_by(actors)
        if b.tokens is not None and s.tokens > b.tokens:
            return "budget_tokens", f"token budget spent: {s.tokens:,} tokens (limit {b.tokens:,}); not finished, graded as a failed trial"
        if b.cost is not None and s.cost > b.cost:
            return "budget_cost", f"cost budget spent: ${s.cost:.4f} (limit ${b.cost:.4f}); not finished, graded as a failed trial"
        left = self.remaining_seconds()
        if left is not None and left <= 0:
            return "budget_seconds", self.seconds_note()
        return None

    def seconds_note(self) -> str:
        took = time.perf_counter() - self.t0
        return f"time budget spent: {took:.1f} s (limit {self.budgets.seconds:g} s); not finished, graded as a failed trial"
