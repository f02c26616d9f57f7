"""Every interval and test a report uses, in one pure module (math and random only).

* ``wilson``: 95% Wilson score interval for a proportion (rule compliance);
* ``bootstrap_pass_hat_k``: percentile bootstrap of pass^k over tasks;
* ``fisher_exact``: two-sided Fisher exact test on a 2x2 table (rule compliance, A vs B);
* ``paired_permutation``: two-sided sign-flip permutation test on paired differences
  (per-task success, A vs B);
* ``rogan_gladen`` and ``rogan_gladen_ci``: compliance corrected for a judge's
  sensitivity and specificity, and its interval (Wilson bounds mapped through the
  correction, widened by the judge's measured error; never a point on few turns).

It lives under ``graders/`` (beside ``pass_k``) so that both the run report
(``envs.report``) and judge calibration (``graders.calibrate``) import it while
graders import nothing from ``envs.run``, ``envs.report`` or ``envs.gym``.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from math import comb

from graders.pass_k import aggregate


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """95% Wilson score interval for a proportion (None when n == 0)."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap_pass_hat_k(
    trials: list[tuple[int, int]], kmax: int, reps: int = 1000, seed: int = 0
) -> dict[str, list[float]]:
    """Percentile bootstrap (2.5%, 97.5%) of pass^k per k; tasks are the sampling unit.

    ``trials``: (n, c) per task. Deterministic for a given ``seed``; {} without trials.
    """
    if not trials:
        return {}
    rng = random.Random(seed)
    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(reps):
        draw = [trials[rng.randrange(len(trials))] for _ in trials]
        for k, v in aggregate(draw, kmax)["pass_hat_k"].items():
            samples[k].append(v)
    out = {}
    for k, vals in samples.items():
        vals.sort()
        out[k] = [vals[int(0.025 * (len(vals) - 1))], vals[int(0.975 * (len(vals) - 1))]]
    return out


def fisher_exact(a: int, b: int, c: int, d: int) -> float:
    """Two-sided Fisher exact p-value for the 2x2 table [[a, b], [c, d]]."""
    n1, n2, m1 = a + b, c + d, a + c
    n = n1 + n2

    def p(x: int) -> float:
        return comb(n1, x) * comb(n2, m1 - x) / comb(n, m1)

    lo, hi = max(0, m1 - n2), min(n1, m1)
    p_obs = p(a)
    return min(1.0, sum(p(x) for x in range(lo, hi + 1) if p(x) <= p_obs * (1 + 1e-9)))


def paired_permutation(diffs: list[float], reps: int = 20000, seed: int = 0) -> float:
    """Two-sided p-value of the mean paired difference under random sign flips.

    Exact (all 2^n sign patterns) for up to 16 non-zero differences, else a
    seeded Monte Carlo estimate with the usual +1 correction; 1.0 when all are 0.
    """
    diffs = [d for d in diffs if d != 0]
    if not diffs:
        return 1.0
    obs = abs(sum(diffs))
    n = len(diffs)
    if n <= 16:
        hits = 0
        for mask in range(1 << n):
            s = sum(d if mask >> i & 1 else -d for i, d in enumerate(diffs))
            hits += abs(s) >= obs - 1e-12
        return hits / (1 << n)
    rng = random.Random(seed)
    hits = sum(abs(sum(d if rng.random() < 0.5 else -d for d in diffs)) >= obs - 1e-12 for _ in range(reps))
    return (hits + 1) / (reps + 1)


def rogan_gladen(observed: float, se: float, sp: float) -> float | None:
    """Prevalence corrected for a judge's error: (q + Sp - 1) / (Se + Sp - 1), clamped to [0, 1].

    None when Se + Sp <= 1 (the judge is no better than chance: no correction exists).
    """
    denom = se + sp - 1
    if denom <= 0:
        return None
    return min(1.0, max(0.0, (observed + sp - 1) / denom))


def rogan_gladen_ci(
    followed: int, n: int, se: float, sp: float, n_se: int, n_sp: int, z: float = 1.96
) -> tuple[float, float] | None:
    """95% interval of the Rogan-Gladen corrected compliance; None when ``n`` is 0 or the judge
    is no better than chance.

    Contract: the interval contains ``rogan_gladen(followed / n, se, sp)``, lies in [0, 1], holds
    the observed rate's own Wilson interval mapped through the correction, and has a width > 0
    (so it never collapses to a point on few turns: 0 of 2 is not [0, 0]). How: the Wilson bounds
    of the observed rate are mapped through the (monotone) correction, then widened in quadrature
    by the judge's own uncertainty, with sensitivity and specificity estimated Agresti-Coull style
    so that a judge perfect on a few gold items still carries doubt. ``n_se`` and ``n_sp``: the
    gold items behind the sensitivity and specificity (0: unmeasured, the judge term is maximal).
    """
    d = se + sp - 1
    if n == 0 or d <= 0:
        return None
    q = followed / n
    q_lo, q_hi = wilson(followed, n, z)
    p = (q + sp - 1) / d
    p_lo, p_hi = (q_lo + sp - 1) / d, (q_hi + sp - 1) / d
    se_a = (se * n_se + 2) / (n_se + 4)  # Agresti-Coull: never a zero variance at 0 or 1
    sp_a = (sp * n_sp + 2) / (n_sp + 4)
    pc = min(1.0, max(0.0, p))
    var_judge = pc * pc * se_a * (1 - se_a) / (n_se + 4) + (1 - pc) ** 2 * sp_a * (1 - sp_a) / (n_sp + 4)
    half_judge = z * math.sqrt(var_judge) / d
    lo = p - math.sqrt((p - p_lo) ** 2 + half_judge**2)
    hi = p + math.sqrt((p_hi - p) ** 2 + half_judge**2)
    width = hi - lo
    # The whole interval may fall outside [0, 1] (an observed rate below the judge's false
    # FOLLOWED rate): keep its width at the boundary rather than clamping it to a point.
    if hi <= 0.0:
        return (0.0, min(1.0, width))
    if lo >= 1.0:
        return (max(0.0, 1.0 - width), 1.0)
    return (max(0.0, lo), min(1.0, hi))


__all__ = ["wilson", "bootstrap_pass_hat_k", "fisher_exact", "paired_permutation", "rogan_gladen", "rogan_gladen_ci"]
