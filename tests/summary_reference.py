"""The run summary as ``envs.report.summary`` built it before its accumulators were made plain
counters (frozen here, unchanged but for names): ``tests/test_summary_reference.py`` holds the
current summary to it, field by field, on real runs. Not used by the engine."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Iterable

from envs.records import (
    SUMMARY_SCHEMA_VERSION,
    CrossTaskRepetition,
    EpisodeCause,
    EpisodeRecord,
    FirstFailure,
    RunSummary,
    SimulatorFlagSummary,
    SimulatorReport,
    TaskSummary,
    ToolCallTotals,
    ToolEvent,
    UsageTotals,
    UserEvent,
)
from envs.report.summary import _profile_from_cells, _why_failed
from envs.run.config import RunConfig
from graders.causes import episode_cause, failed
from graders.evaluate import AGENT_FAILED
from graders.pass_k import aggregate
from graders.repetition import MIN_TASKS, TOP, long_enough, sentence_key, sentences
from graders.simulator import FLAG_NAMES, measurable, simulator_flags
from graders.statistics import bootstrap_pass_hat_k, pass_k_means


class _RefRepetitionAccumulator:
    """``cross_task_repetition`` built one record at a time: per distinct sentence key, its
    occurrences and the set of tasks it was said in (bounded by the distinct sentences)."""

    def __init__(self) -> None:
        self.tasks: set[str] = set()
        self.occurrences: Counter[str] = Counter()
        self.in_tasks: dict[str, set[str]] = defaultdict(set)
        self.example: dict[str, str] = {}
        self.within = 0
        self.within_examples: list[str] = []

    def add(self, r: EpisodeRecord) -> None:
        self.tasks.add(r.task_id)
        seen: set[str] = set()
        for e in r.transcript:
            if not isinstance(e, UserEvent):
                continue
            for s in sentences(e.content):
                k = sentence_key(s)
                if not long_enough(k):
                    continue
                self.occurrences[k] += 1
                self.in_tasks[k].add(r.task_id)
                self.example.setdefault(k, s)
                if k in seen:
                    self.within += 1
                    if len(self.within_examples) < TOP:
                        self.within_examples.append(f"{r.episode_id}: {s}")
                seen.add(k)

    def finish(self) -> CrossTaskRepetition:
        total = sum(self.occurrences.values())
        wide = {k for k, t in self.in_tasks.items() if len(t) >= MIN_TASKS}
        n_tasks = len(self.tasks)
        top = sorted(self.in_tasks, key=lambda k: (-len(self.in_tasks[k]), -self.occurrences[k], k))[:TOP]
        return CrossTaskRepetition(
            sentences=total,
            distinct=len(self.occurrences),
            repeated=sum(self.occurrences[k] for k in wide),
            repeated_distinct=len(wide),
            share=(sum(self.occurrences[k] for k in wide) / total) if total else None,
            tasks=n_tasks,
            max_tasks=len(self.in_tasks[top[0]]) if top else 0,
            max_task_share=(len(self.in_tasks[top[0]]) / n_tasks) if top and n_tasks else None,
            max_sentence=self.example[top[0]] if top else None,
            top=[f"{len(self.in_tasks[k])} tasks: {self.example[k]}" for k in top if len(self.in_tasks[k]) >= MIN_TASKS],
            within_episode=self.within,
            within_episode_examples=self.within_examples,
        )



class _RefSimulatorAccumulator:
    """The simulator block built one record at a time (so a streamed summary keeps memory bounded:
    per record only its flags' counts, its cause if it failed, and per task two counters)."""

    def __init__(self, domain: Any = None, reviews: dict[str, EpisodeCause] | None = None, reviewer: str | None = None):
        self.domain = domain
        self.tasks = getattr(domain, "tasks", {}) if domain is not None else {}
        self.reviews = reviews
        self.reviewer = reviewer
        self.flags_out = {n: SimulatorFlagSummary() for n in FLAG_NAMES}
        self.causes: list[EpisodeCause] = []
        self.per_task: dict[str, Counter] = defaultdict(Counter)
        self.trials: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.repetition = _RefRepetitionAccumulator()

    def add(self, r: EpisodeRecord) -> None:
        task = self.tasks.get(r.task_id)
        self.repetition.add(r)
        fl = simulator_flags(r, task, self.domain)
        for name, hits in fl.items():
            s = self.flags_out[name]
            if measurable(name, r, task):
                s.measured += 1
            if hits:
                s.count += len(hits)
                s.episodes.append(r.episode_id)
        c = episode_cause(r, task, self.domain, fl)
        if c is not None and self.reviews and r.episode_id in self.reviews:
            c = self.reviews[r.episode_id]
        t = self.trials[r.task_id]
        if c is not None:
            self.causes.append(c)
            self.per_task[r.task_id][c.cause] += 1
        if c is None or c.cause in ("agent", "unknown"):
            t[0] += 1
            t[1] += int(not failed(r))

    def finish(self) -> tuple[SimulatorReport, dict[str, dict[str, int]], dict[str, float]]:
        for s in self.flags_out.values():
            s.share = len(s.episodes) / s.measured if s.measured else None
        report = SimulatorReport(
            flags=self.flags_out,
            flagged_failures=[c.episode_id for c in self.causes if c.simulator_flags],
            causes=dict(Counter(c.cause for c in self.causes)),
            episodes=self.causes,
            reviewer=self.reviewer,
            cross_task_repetition=self.repetition.finish(),
        )
        agent_only = aggregate([(n, k) for n, k in self.trials.values() if n > 0])["pass_hat_k"]
        return report, {k: dict(v) for k, v in self.per_task.items()}, agent_only



class _TaskAcc:
    """What the summary keeps of one task's episodes: counts, and its first failed one."""

    __slots__ = ("trials", "successes", "errors", "terminations", "first_failed")

    def __init__(self) -> None:
        self.trials = self.successes = self.errors = 0
        self.terminations: Counter = Counter()
        self.first_failed: tuple[int, str] | None = None  # (repeat, why)


def reference_summarize(
    records: Iterable[EpisodeRecord], config: RunConfig | dict[str, Any], wall_s: float | None = None, domain: Any = None,
    unreadable: int = 0, reviews: dict | None = None, reviewer: str | None = None,
) -> RunSummary:
    """The summary of ``records`` (one per (task, repeat)); ``domain`` adds every rule x situation pair to coverage,
    lets the simulator block (``envs.report.fidelity``) read the tasks and the checks' measured error correct the
    rules they decide; ``reviews`` are a --reviewer's causes.

    ``records`` is read once, one record at a time (a generator such as
    ``RunStore.iter_latest`` keeps memory bounded): only counts are kept, and per task the
    reason of its first failed repeat."""
    cfg = config if isinstance(config, RunConfig) else RunConfig.model_validate(config)
    tasks: dict[str, _TaskAcc] = defaultdict(_TaskAcc)
    err_by: Counter = Counter()
    usage: dict[str, UsageTotals] = {}
    cells: dict[tuple[str, str], Counter] = defaultdict(Counter)
    tools: dict[str, ToolCallTotals] = {}
    n = n_err = agent_errors = agent_failed = 0
    reward_sum = 0.0
    
    sim = _RefSimulatorAccumulator(domain, reviews, reviewer)
    sources: dict[str, Counter] = defaultdict(Counter)  # per rule, decided verdicts by source
    for r in records:
        n += 1
        sim.add(r)
        acc = tasks[r.task_id]
        acc.trials += 1
        ok = r.status == "ok"
        success = ok and r.reward >= 1.0
        acc.successes += success
        acc.terminations[r.termination or "?"] += 1
        agent_errors += r.agent_errors
        if not ok:
            acc.errors += 1
            n_err += 1
            err_by[f"{r.error_role}:{r.error_kind}"] += 1
        else:
            reward_sum += r.reward
            agent_failed += r.termination in AGENT_FAILED
        if not success and (acc.first_failed is None or r.repeat < acc.first_failed[0]):
            acc.first_failed = (r.repeat, _why_failed(r, domain))
        for role, u in r.usage.items():
            tot = usage.setdefault(role, UsageTotals())
            tot.calls += u.calls
            tot.prompt_tokens += u.prompt_tokens
            tot.completion_tokens += u.completion_tokens
            tot.cached_calls += u.cached_calls
            if u.cost is None:
                tot.cost_unknown_calls += u.calls
            else:
                tot.cost += u.cost
        for v in r.verdicts:
            cells[(v.rule, v.situation or "-")][v.verdict] += 1
            if v.verdict in ("FOLLOWED", "VIOLATED"):
                sources[v.rule][v.source] += 1
        for e in r.transcript:
            if isinstance(e, ToolEvent):
                _count_tool(tools.setdefault(e.side, ToolCallTotals()), e)

    per_task, all_trials, clean_trials = [], [], []
    for tid, acc in sorted(tasks.items()):
        per_task.append(
            TaskSummary(
                id=tid,
                trials=acc.trials,
                successes=acc.successes,
                errors=acc.errors,
                clean_trials=acc.trials - acc.errors,
                terminations=dict(acc.terminations),
                first_failure=None if acc.first_failed is None else FirstFailure(repeat=acc.first_failed[0], why=acc.first_failed[1]),
            )
        )
        all_trials.append((acc.trials, acc.successes))
        if acc.trials - acc.errors > 0:
            clean_trials.append((acc.trials - acc.errors, acc.successes))
    agg = pass_k_means(all_trials)
    kmax = len(agg["pass_hat_k"])
    clean = pass_k_means(clean_trials)
    n_clean = n - n_err
    simulator, task_causes, agent_only = sim.finish()
    for p in per_task:
        p.causes = task_causes.get(p.id, {})
    summary = RunSummary(
        schema_version=SUMMARY_SCHEMA_VERSION,
        run_id=cfg.run_id,
        domain=cfg.domain,
        actors={"agent": cfg.agent, "user": cfg.user, "judge": cfg.judge},
        seed=cfg.seed,
        repeats=cfg.repeats,
        tasks=len(tasks),
        episodes=n,
        errors=n_err,
        errors_by_role_kind=dict(err_by),
        agent_errors=agent_errors,
        pass_hat_k=agg["pass_hat_k"],
        pass_at_k=agg["pass_at_k"],
        pass_hat_k_ci95=bootstrap_pass_hat_k(all_trials, kmax),
        pass_hat_k_clean=clean["pass_hat_k"],
        clean_episodes=n_clean,
        mean_reward=(reward_sum / n_clean) if n_clean else None,
        mean_reward_over=n_clean,
        agent_failed=agent_failed,
        tool_calls=tools,
        unreadable_records=unreadable,
        per_task=per_task,
        usage=usage,
        wall_s=wall_s,
        simulator=simulator,
        pass_hat_k_agent_only=agent_only,
        **_profile_from_cells(cells, domain),
    )
    if domain is not None:
        # checked rules carry their check's measured error (domains/<d>/check_calibration.json)
        from graders.calibrate.check_calibration import apply_check_calibration

        apply_check_calibration(summary, None, domain, sources=sources)
    return summary


def _count_tool(tot: ToolCallTotals, e: ToolEvent) -> None:
    tot.calls += 1
    per = tot.by_tool.setdefault(e.call.name, {"calls": 0, "failures": 0})
    per["calls"] += 1
    if not e.ok:
        tot.failures += 1
        per["failures"] += 1
        kind = e.error_kind or "error"
        tot.failures_by_kind[kind] = tot.failures_by_kind.get(kind, 0) + 1


