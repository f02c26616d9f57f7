"""The run's limits: per-episode budgets, a cost cap for the run, and replays of errored episodes.

    --max-tokens-per-episode N   --max-cost-per-episode USD   --max-seconds-per-episode S
    --max-cost USD               (the run stops starting episodes once this much is spent)
    --retry-errors N             (default 1: an infrastructure-errored episode is played again
                                  up to N times within the run, with backoff)

Per-episode budgets decide how an episode ends, so they are stored in ``config.json`` (under
``llm["limits"]``) and a resume that names different ones is refused; ``--max-cost`` and
``--retry-errors`` only decide what gets played, so a resume may change them (raising the cap
is how a capped run is finished). Every attempt of an episode stays in the store; the last is
the one scored, and the summary says how many episodes were replayed.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Iterable

from envs.episode.budgets import BUDGET_TERMINATIONS, Budgets
from envs.errors import SpecError
from envs.records import EpisodeRecord

_BUDGET_FLAGS = {"tokens": "max_tokens_per_episode", "cost": "max_cost_per_episode", "seconds": "max_seconds_per_episode"}


@dataclass
class RunLimits:
    """The run's limits; every backend (one loop, worker processes, Ray) plays by these methods."""

    budgets: Budgets
    max_cost: float | None = None
    retry_errors: int = 1
    retry_backoff: float = 1.0

    def replay_delay(self, rec: EpisodeRecord, replays: int) -> float | None:
        """Seconds to wait before playing ``rec``'s episode again (same seed, next attempt), having
        replayed it ``replays`` times already; None when the record stands (not replayable, or the
        replays are spent). Backoff doubles with each replay."""
        if not replayable(rec) or replays >= self.retry_errors:
            return None
        return self.retry_backoff * (2**replays)


def add_limit_arguments(ap: argparse.ArgumentParser) -> None:
    g = ap.add_argument_group("budgets and retries")
    g.add_argument("--max-tokens-per-episode", type=int, default=None, help="end an episode past this many agent+user tokens (termination budget_tokens)")
    g.add_argument("--max-cost-per-episode", type=float, default=None, help="end an episode past this many USD (termination budget_cost)")
    g.add_argument("--max-seconds-per-episode", type=float, default=None, help="end an episode past this wall time (termination budget_seconds)")
    g.add_argument("--max-cost", type=float, default=None, help="stop starting episodes once the run has spent this many USD (--resume plays the rest)")
    g.add_argument("--retry-errors", type=int, default=None, help="replays of an infrastructure-errored episode within the run (default 1)")
    g.add_argument("--retry-backoff", type=float, default=None, help="seconds before the first replay, doubled for each next one (default 1)")


def limits_from_args(args: argparse.Namespace, llm: dict, resuming: bool) -> RunLimits:
    """The run's limits from the flags and, on resume, the stored budgets; records budgets in ``llm``.

    SpecError (one line naming the flag) on a non-positive value or, on resume, a per-episode
    budget that differs from the resumed run's.
    """
    stored = dict(llm.get("limits") or {})
    given = {k: getattr(args, flag, None) for k, flag in _BUDGET_FLAGS.items()}
    if resuming:
        for k, v in given.items():
            if v is not None and stored.get(k) != v:
                raise SpecError(
                    f"--{_BUDGET_FLAGS[k].replace('_', '-')}: differs from the run being resumed "
                    f"({stored.get(k)!r}); drop it"
                )
        values = {k: stored.get(k) for k in _BUDGET_FLAGS}
    else:
        values = given
    budgets = Budgets(**values)
    llm["limits"] = {k: v for k, v in values.items() if v is not None}
    retry = 1 if args.retry_errors is None else args.retry_errors
    if retry < 0:
        raise SpecError(f"--retry-errors: must be 0 or more, got {retry}")
    if args.max_cost is not None and args.max_cost <= 0:
        raise SpecError(f"--max-cost: must be positive, got {args.max_cost}")
    backoff = 1.0 if args.retry_backoff is None else args.retry_backoff
    if backoff < 0:
        raise SpecError(f"--retry-backoff: must be 0 or more, got {backoff}")
    return RunLimits(budgets=budgets, max_cost=args.max_cost, retry_errors=retry, retry_backoff=backoff)


def replayable(rec: EpisodeRecord) -> bool:
    """An errored episode worth playing again within the run: an infrastructure failure of an
    actor (retries exhausted, a server gone), not an engine bug (``engine:crash``, which would
    fail the same way) nor a person who quit."""
    return rec.status == "error" and rec.error_role != "engine" and rec.error_kind != "person_quit"


def warn_unpriced(limits: RunLimits, console) -> None:
    """Say once, before any episode, that a cost limit cannot see calls to models with no price."""
    if limits.budgets.cost is None and limits.max_cost is None:
        return
    import sys

    pricing = sys.modules.get("envs.llm.pricing")
    unpriced = pricing.unpriced_models() if pricing is not None else []
    if unpriced:
        console.print(
            f"[yellow]warning:[/yellow] no known price for {', '.join(sorted(unpriced))}: "
            "cost limits count nothing for their calls (token and time budgets still apply)",
            soft_wrap=True, highlight=False,
        )


def record_cost(rec: EpisodeRecord) -> float:
    """USD this episode spent over all roles (priced calls only)."""
    return sum(u.cost or 0.0 for u in rec.usage.values())


class CostGate:
    """The run's cost cap: says whether another episode may start, counting every record it is shown."""

    def __init__(self, cap: float | None, already: float = 0.0):
        self.cap, self.spent = cap, already
        self.refused = 0

    def add(self, rec: EpisodeRecord) -> None:
        self.spent += record_cost(rec)

    def may_start(self) -> bool:
        if self.cap is None or self.spent < self.cap:
            return True
        self.refused += 1
        return False


def annotate_summary(
    summary, records: Iterable[EpisodeRecord], not_played: int = 0, cost_cap: float | None = None, domain=None
) -> None:
    """Add the run's budget stops, replays, unplayed episodes and (with ``domain``) its short rule
    names to ``summary`` (a ``RunSummary``)."""
    stops: dict[str, int] = {}
    retried = retried_ok = 0
    for r in records:  # one pass: ``records`` may be a stream
        if r.termination in BUDGET_TERMINATIONS:
            stops[r.termination] = stops.get(r.termination, 0) + 1
        if r.attempt > 1:
            retried += 1
            retried_ok += r.status == "ok"
    summary.budget_stops = stops
    summary.retried = retried
    summary.retried_ok = retried_ok
    summary.not_played = not_played
    summary.max_cost = cost_cap
    if domain is not None:
        from envs.report.rule_names import short_rule_names

        summary.rule_names = short_rule_names(domain.rules.values())
