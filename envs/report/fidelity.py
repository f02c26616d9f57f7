"""The summary's ``simulator`` block: fidelity flags over the run, causes, agent-only pass^k.

Recomputed from the episode records each time a summary is built (records stay
append-only, and old runs gain the block when re-summarised). Reviewer verdicts, which no
record holds, are passed in (``reviews``: episode id -> ``EpisodeCause``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from envs.records import CAUSE_EPISODES_KEPT, EpisodeCause, EpisodeRecord, SimulatorFlagSummary, SimulatorReport
from graders.causes import episode_cause, failed
from graders.pass_k import aggregate
from graders.repetition import RepetitionAccumulator
from graders.simulator import FLAG_NAMES, measurable, simulator_flags


class SimulatorAccumulator:
    """The simulator block built one record at a time (so a streamed summary keeps memory bounded:
    per record only its flags' counts, its cause if it failed, and per task two counters)."""

    def __init__(self, domain: Any = None, reviews: dict[str, EpisodeCause] | None = None, reviewer: str | None = None):
        self.domain = domain
        self.tasks = getattr(domain, "tasks", {}) if domain is not None else {}
        self.reviews = reviews
        self.reviewer = reviewer
        # per flag [count, measured] and its episodes, as plain values until ``finish``
        self.flag_counts = {n: [0, 0] for n in FLAG_NAMES}
        self.flag_episodes: dict[str, list[str]] = {n: [] for n in FLAG_NAMES}
        self.causes: list[EpisodeCause] = []  # the first CAUSE_EPISODES_KEPT, with their evidence
        self.cause_counts: Counter = Counter()
        self.flagged: list[str] = []  # failed episodes in which a simulator flag fired
        self.omitted = 0
        self.per_task: dict[str, Counter] = defaultdict(Counter)
        self.trials: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.repetition = RepetitionAccumulator()

    def add(self, r: EpisodeRecord) -> None:
        task = self.tasks.get(r.task_id)
        self.repetition.add(r)
        fl = simulator_flags(r, task, self.domain)
        for name, hits in fl.items():
            s = self.flag_counts[name]
            if measurable(name, r, task):
                s[1] += 1
            if hits:
                s[0] += len(hits)
                self.flag_episodes[name].append(r.episode_id)
        c = episode_cause(r, task, self.domain, fl)
        if c is not None and self.reviews and r.episode_id in self.reviews:
            c = self.reviews[r.episode_id]
        t = self.trials[r.task_id]
        if c is not None:
            if len(self.causes) < CAUSE_EPISODES_KEPT:
                self.causes.append(c)
            else:
                self.omitted += 1
            self.cause_counts[c.cause] += 1
            if c.simulator_flags:
                self.flagged.append(c.episode_id)
            self.per_task[r.task_id][c.cause] += 1
        if c is None or c.cause in ("agent", "unknown"):
            t[0] += 1
            t[1] += int(not failed(r))

    def finish(self) -> tuple[SimulatorReport, dict[str, dict[str, int]], dict[str, float]]:
        flags = {}
        for name, (count, measured) in self.flag_counts.items():
            eps = self.flag_episodes[name]
            flags[name] = SimulatorFlagSummary(count=count, episodes=eps, measured=measured, share=len(eps) / measured if measured else None)
        report = SimulatorReport(
            flags=flags,
            flagged_failures=self.flagged,
            causes=dict(self.cause_counts),
            episodes=self.causes,
            episodes_omitted=self.omitted,
            reviewer=self.reviewer,
            cross_task_repetition=self.repetition.finish(),
        )
        agent_only = aggregate([(n, k) for n, k in self.trials.values() if n > 0])["pass_hat_k"]
        return report, {k: dict(v) for k, v in self.per_task.items()}, agent_only


def simulator_report(
    recs: list[EpisodeRecord],
    domain: Any = None,
    reviews: dict[str, EpisodeCause] | None = None,
    reviewer: str | None = None,
) -> tuple[SimulatorReport, dict[str, dict[str, int]], dict[str, float]]:
    """(the block, per task its failures' causes, pass^k counting only agent-caused failures).

    Without ``domain`` the task-dependent flags and causes are not measured (their
    ``measured`` is 0). ``pass_hat_k_agent_only`` leaves out the trials whose failure was
    caused by the simulator, the task, the environment or the infrastructure; ``agent`` and
    ``unknown`` failures stay failures."""
    acc = SimulatorAccumulator(domain, reviews, reviewer)
    for r in recs:
        acc.add(r)
    return acc.finish()
