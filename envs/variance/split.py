"""The arithmetic of ``envs.variance``: per-task variances, their means over tasks with bootstrap
intervals, pass^k over the agent arm, and the judge's flips per rule.

Success is 0/1 per episode; a variance is the sample variance (n - 1) of it. ``user_var`` of a task is
the mean, over its bases, of the variance of the user arm's replays at that base (the agent and the
situations held, only the user's sampling varied); ``agent_var`` likewise over the agent arm. Errored
episodes are infrastructure, not an outcome: they are left out and counted. Tasks are the unit of
every interval (percentile bootstrap, 2,000 resamples, seed 0); a judge's flip share resamples the
judged replies, since the re-judgements of one reply are not independent.
"""

from __future__ import annotations

from collections import defaultdict

from envs.records import EpisodeRecord, RuleFlips, VarianceFigure, VarianceReport, VarianceTask
from graders.pass_k import pass_hat_k

REPS = 2000


def success(rec: EpisodeRecord) -> int:
    return int(rec.status == "ok" and rec.reward >= 1.0)


def sample_var(xs: list[int]) -> float | None:
    n = len(xs)
    if n < 2:
        return None
    m = sum(xs) / n
    return sum((x - m) ** 2 for x in xs) / (n - 1)


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _boot(values: list[float], reps: int = REPS, seed: int = 0) -> tuple[float, float] | None:
    """Percentile bootstrap of the mean of ``values`` (None with fewer than 2)."""
    import numpy as np

    if len(values) < 2:
        return None
    v = np.asarray(values, dtype=float)
    idx = np.random.default_rng(seed).integers(0, len(v), size=(reps, len(v)))
    means = v[idx].mean(axis=1)
    return (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)))


def _boot_ratio(num: list[float], den: list[float], reps: int = REPS, seed: int = 0) -> tuple[float, float] | None:
    """Percentile bootstrap of sum(num) / sum(den), pairs resampled (resamples with den 0 left out)."""
    import numpy as np

    if len(num) < 2:
        return None
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    idx = np.random.default_rng(seed).integers(0, len(a), size=(reps, len(a)))
    s_a, s_b = a[idx].sum(axis=1), b[idx].sum(axis=1)
    ok = s_b > 0
    if not ok.any():
        return None
    r = s_a[ok] / s_b[ok]
    return (float(np.percentile(r, 2.5)), float(np.percentile(r, 97.5)))


def _figure(values: list[float], by_construction: str | None = None) -> VarianceFigure:
    if by_construction:
        return VarianceFigure(value=0.0, ci95=(0.0, 0.0), by_construction=by_construction)
    return VarianceFigure(value=_mean(values), ci95=_boot(values))


def split(
    design, originals: dict[str, list[EpisodeRecord]], arm_rows: list[dict], rejudged: list[dict],
    plain_pass_hat_k: dict[str, float], zero: dict[str, str],
) -> VarianceReport:
    """The ``variance`` block. ``originals``: the run's records per task (all its repeats);
    ``arm_rows``: ``design.play_arms`` results; ``rejudged``: ``design.rejudge`` results; ``zero``:
    the arms (user, agent, judge) that are zero by construction, with why."""
    by = defaultdict(lambda: defaultdict(list))  # (arm, task) -> base -> [success]
    for row in arm_rows:
        rec = row["record"]
        if rec.status != "ok":
            continue
        by[(row["arm"], row["task_id"])][row["base"]].append(success(rec))
    per_task: list[VarianceTask] = []
    kmax = design.replays
    for t in sorted(originals):
        # an errored repeat is infrastructure, not an outcome: left out here as in the arms
        vt = VarianceTask(task=t, total_var=sample_var([success(r) for r in originals[t] if r.status == "ok"]))
        for arm in ("user", "agent"):
            if arm in zero:
                setattr(vt, f"{arm}_var", 0.0)
                continue
            bases = by.get((arm, t), {})
            vs = [v for xs in bases.values() if (v := sample_var(xs)) is not None]
            setattr(vt, f"{arm}_var", _mean(vs))
            setattr(vt, f"{arm}_replays", sum(len(xs) for xs in bases.values()))
            setattr(vt, f"{arm}_successes", sum(sum(xs) for xs in bases.values()))
        ag = by.get(("agent", t), {})
        if ag and "agent" not in zero:
            k_top = min(kmax, *(len(xs) for xs in ag.values()))
            vt.pass_hat_k_agent = {
                str(k): sum(pass_hat_k(len(xs), sum(xs), k) for xs in ag.values()) / len(ag) for k in range(1, k_top + 1)
            }
        per_task.append(vt)

    rep = VarianceReport(design=design, per_task=per_task)
    rep.total_var = _figure([x.total_var for x in per_task if x.total_var is not None])
    rep.user_var = _figure([x.user_var for x in per_task if x.user_var is not None], zero.get("user"))
    rep.agent_var = _figure([x.agent_var for x in per_task if x.agent_var is not None], zero.get("agent"))
    both = [(x.user_var, x.agent_var) for x in per_task if x.user_var is not None and x.agent_var is not None]
    if both and sum(u + a for u, a in both) > 0:
        u, a = [p[0] for p in both], [p[1] for p in both]
        rep.user_share = VarianceFigure(
            value=sum(u) / (sum(u) + sum(a)),
            ci95=(0.0, 0.0) if "user" in zero else _boot_ratio(u, [x + y for x, y in zip(u, a)]),
            by_construction=zero.get("user"),
        )
    rep.pass_hat_k = {k: v for k, v in plain_pass_hat_k.items() if int(k) <= kmax}
    with_k = [x.pass_hat_k_agent for x in per_task if x.pass_hat_k_agent]
    if with_k:
        ks = sorted(set.intersection(*(set(d) for d in with_k)), key=int)
        rep.pass_hat_k_agent = {k: sum(d[k] for d in with_k) / len(with_k) for k in ks}
        rep.pass_hat_k_agent_ci95 = {k: ci for k in ks if (ci := _boot([d[k] for d in with_k])) is not None}

    rep.judge = judge_flips(rejudged)
    judged = [f for f in rep.judge.values() if f.source == "judge"]
    if "judge" in zero:
        rep.judge_flip_share = VarianceFigure(value=0.0, ci95=(0.0, 0.0), by_construction=zero["judge"])
    elif judged:
        n, f = sum(x.rejudged for x in judged), sum(x.flips for x in judged)
        items = _judge_items(rejudged, "judge")
        rep.judge_flip_share = VarianceFigure(
            value=f / n if n else None, ci95=_boot_ratio([i[1] for i in items], [i[0] for i in items])
        )
    return rep


def _key(v) -> tuple:
    return (v.turn, v.situation, v.rule)


def _judge_items(rejudged: list[dict], source: str, rule: str | None = None) -> list[tuple[int, int]]:
    """Per judged reply (episode, turn, situation, rule): (re-judgements, flips)."""
    acc: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    for row in rejudged:
        old = {_key(v): v for v in row["old"]}
        for v in row["new"]:
            if v.source != source or (rule is not None and v.rule != rule):
                continue
            o = old.get(_key(v))
            if o is None:
                continue
            a = acc[(row["episode_id"], *_key(v))]
            a[0] += 1
            a[1] += int(o.verdict != v.verdict)
    return [tuple(x) for x in acc.values()]


def judge_flips(rejudged: list[dict]) -> dict[str, RuleFlips]:
    """Per rule and source (judge or check): replies re-judged, re-judgements, flips, share and interval.
    A verdict with no recorded counterpart (the rules changed since the run) is not counted."""
    pairs = sorted({(v.rule, v.source) for row in rejudged for v in row["new"] if v.source in ("judge", "check")})
    out: dict[str, RuleFlips] = {}
    for rule, source in pairs:
        items = _judge_items(rejudged, source, rule)
        if not items:
            continue
        n, f = sum(i[0] for i in items), sum(i[1] for i in items)
        key = rule if rule not in out else f"{rule} ({source})"
        out[key] = RuleFlips(
            source=source, items=len(items), rejudged=n, flips=f, share=f / n if n else None,
            ci95=_boot_ratio([i[1] for i in items], [i[0] for i in items]),
        )
    return out
