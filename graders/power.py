"""How small a pass^1 difference two runs can see: the paired power calculation ``envs.compare``
and ``envs.run`` print.

Tasks are the unit (as in the paired permutation test of ``envs.compare``): each task gives one
difference ``d_t = p_B,t - p_A,t`` of its success rates over its repeats. With ``T`` shared tasks
and ``sigma_d`` the standard deviation of those differences, a two-sided test at level ``alpha``
has power ``1 - beta`` against a mean difference of

    MDE = (t_{1-alpha/2, T-1} + t_{1-beta, T-1}) * sigma_d / sqrt(T)

(the paired t-test's minimum detectable effect; t quantiles from the Cornish-Fisher expansion of
the normal ones, so few tasks widen it as they should). At 80% power and 0.05 two-sided the factor
is 2.80 for many tasks and 3.06 for 10.

``sigma_d`` comes from the runs: the observed spread of the per-task differences, but never less
than the spread their repeats alone would give (``within``: the mean over tasks of
``p_A(1-p_A)/n_A + p_B(1-p_B)/n_B``), so two runs that happen to agree on every task are not
credited with infinite precision. ``sigma_d^2 = between + within`` splits it: ``between`` (the
observed variance less ``within``, at least 0) is the spread of the change from task to task,
which only more tasks can average out; ``within`` shrinks as ``1/repeats``. ``needed`` solves the
same formula for the tasks (at these repeats) or the repeats (at these tasks) that bring the
MDE down to a target difference.

For one run (``plan_for_difference``, what ``envs.run`` prints), the second run is hypothetical:
its per-task noise is taken to be this run's, ``sigma_d^2 = 2 * v / R`` with ``v`` the mean of
``p_t(1-p_t)`` over tasks, and the change is taken to be spread evenly over tasks (between = 0),
which makes the counts a lower bound. A run whose every task gave one result on every repeat has
``v = 0``: repeats cannot help, and a difference of ``delta`` shows only as tasks that change
outright, ``sigma_d^2 = delta(1 - delta)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (Cornish-Fisher expansion
    of the normal quantile; within 0.01 of the exact value for df >= 3; the normal one for df = inf)."""
    z = NormalDist().inv_cdf(p)
    if math.isinf(df):
        return z
    df = max(df, 1.0)
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def mde_factor(tasks: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """``t_{1-alpha/2, T-1} + t_{power, T-1}``: the MDE in units of ``sigma_d / sqrt(T)``."""
    df = max(1, tasks - 1)
    return t_quantile(1 - alpha / 2, df) + t_quantile(power, df)


@dataclass
class Power:
    """The smallest pass^1 difference a paired comparison over ``tasks`` could detect."""

    tasks: int
    """Tasks paired."""
    repeats: float
    """Repeats per task (the mean of both runs' repeats)."""
    sigma_d: float
    """SD of the per-task differences used (see the module docstring)."""
    between: float
    """Variance of the change from task to task (only more tasks average it out)."""
    within: float
    """Variance of a task's difference from its repeats alone (shrinks as 1/repeats)."""
    mde: float
    """The minimum detectable difference at ``power`` and two-sided ``alpha``."""
    alpha: float = 0.05
    power: float = 0.8

    def inside(self, observed: float) -> bool:
        """Whether ``observed`` is smaller in size than what these runs could detect."""
        return abs(observed) < self.mde

    def needed(self, target: float) -> dict[str, int | None]:
        """Tasks (at these repeats) and repeats (at these tasks) that bring the MDE to ``target``.
        None for repeats when the task-to-task spread alone already exceeds it (add tasks)."""
        target = abs(target)
        if target <= 0:
            return {"tasks": None, "repeats": None}
        var = self.between + self.within
        tasks = self.tasks
        for _ in range(50):  # the t factor depends on T: iterate to a fixed point
            t_new = max(2, math.ceil((mde_factor(tasks, self.alpha, self.power) ** 2) * var / target**2))
            if t_new == tasks:
                break
            tasks = t_new
        # repeats at these tasks: sigma^2 needed = (target sqrt(T) / factor)^2 = between + within * R / R'
        need_var = (target * math.sqrt(self.tasks) / mde_factor(self.tasks, self.alpha, self.power)) ** 2
        if self.within <= 0:
            repeats = None if self.between >= need_var else math.ceil(self.repeats)
        elif need_var <= self.between:
            repeats = None
        else:
            repeats = max(1, math.ceil(self.within * self.repeats / (need_var - self.between)))
        return {"tasks": tasks, "repeats": repeats}


def paired_power(
    rates_a: dict[str, float], n_a: dict[str, int], rates_b: dict[str, float], n_b: dict[str, int],
    alpha: float = 0.05, power: float = 0.8, within_override: float | None = None,
) -> Power | None:
    """The MDE of comparing two runs paired by their shared tasks (None with fewer than 2).
    ``within_override`` replaces the binomial within-task variance (``envs.compare`` passes the
    agent's own share when both runs measured it, ``envs.variance``)."""
    common = sorted(rates_a.keys() & rates_b.keys())
    T = len(common)
    if T < 2:
        return None
    d = [rates_b[t] - rates_a[t] for t in common]
    mean = sum(d) / T
    s2 = sum((x - mean) ** 2 for x in d) / (T - 1)
    within = sum(
        rates_a[t] * (1 - rates_a[t]) / max(1, n_a[t]) + rates_b[t] * (1 - rates_b[t]) / max(1, n_b[t]) for t in common
    ) / T
    between = max(0.0, s2 - within)
    if within_override is not None:
        within = within_override
    var = between + within
    reps = sum(n_a[t] + n_b[t] for t in common) / (2 * T)
    sigma = math.sqrt(var)
    return Power(T, reps, sigma, between, within, mde_factor(T, alpha, power) * sigma / math.sqrt(T), alpha, power)


def plan_for_difference(
    rates: dict[str, float], n: dict[str, int], delta: float = 0.05, alpha: float = 0.05, power: float = 0.8
) -> dict:
    """For one run: tasks and repeats a paired comparison with a run like it needs to detect ``delta``
    (see the module docstring: the change spread evenly, the other run's noise equal to this one's)."""
    T = len(rates)
    if T == 0:
        return {"tasks": None, "repeats": None, "within": None, "mde": None}
    R = sum(n.values()) / T
    v = sum(p * (1 - p) for p in rates.values()) / T
    if v > 0:
        p = Power(T, R, math.sqrt(2 * v / R), 0.0, 2 * v / R, mde_factor(T, alpha, power) * math.sqrt(2 * v / R / T), alpha, power)
    else:
        between = delta * (1 - delta)
        p = Power(T, R, math.sqrt(between), between, 0.0, mde_factor(T, alpha, power) * math.sqrt(between / T), alpha, power)
    need = p.needed(delta)
    return {"tasks": need["tasks"], "repeats": need["repeats"], "within": v, "mde": p.mde, "run_tasks": T, "run_repeats": R}
