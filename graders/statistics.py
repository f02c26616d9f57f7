"""Every interval and test a report uses, in one pure module (math, random, and numpy for the bootstrap).

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


def pass_hat_k_matrix(trials: list[tuple[int, int]], kmax: int):
    """Per task (rows) and k = 1..kmax (columns): pass^k = C(c, k) / C(n, k), as floats.

    Built as the running product of (c - i) / (n - i), so 2,000 repeats cost 2,000
    multiplications per task rather than 2,000 big-integer binomials."""
    import numpy as np

    n = np.array([t[0] for t in trials], dtype=float)[:, None]
    c = np.array([t[1] for t in trials], dtype=float)[:, None]
    i = np.arange(kmax, dtype=float)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(c - i > 0, (c - i) / (n - i), 0.0)
    return np.cumprod(ratio, axis=1)


def pass_k_means(trials: list[tuple[int, int]], kmax: int | None = None) -> dict[str, dict[str, float]]:
    """``graders.pass_k.aggregate`` computed in floats over k at once (same keys and meaning).

    pass^k = prod_{i<k} (c - i) / (n - i) and pass@k = 1 - prod_{i<k} (n - c - i) / (n - i),
    averaged over tasks; 50 tasks x 2,000 repeats take milliseconds instead of the 40 s of
    big-integer binomials. Agrees with ``aggregate`` to about 1e-15."""
    import numpy as np

    trials = [(n, c) for n, c in trials if n > 0]
    if not trials:
        return {"pass_hat_k": {}, "pass_at_k": {}}
    kmax = min(n for n, _ in trials) if kmax is None else kmax
    hat = pass_hat_k_matrix(trials, kmax).mean(axis=0)
    miss = pass_hat_k_matrix([(n, n - c) for n, c in trials], kmax).mean(axis=0)
    return {
        "pass_hat_k": {str(k + 1): float(hat[k]) for k in range(kmax)},
        "pass_at_k": {str(k + 1): float(1.0 - miss[k]) for k in range(kmax)},
    }


def bootstrap_pass_hat_k(
    trials: list[tuple[int, int]], kmax: int, reps: int = 1000, seed: int = 0
) -> dict[str, list[float]]:
    """Percentile bootstrap (2.5%, 97.5%) of pass^k per k; tasks are the sampling unit.

    ``trials``: (n, c) per task. Deterministic for a given ``seed``; {} without trials.
    Vectorised: each resample is a vector of task counts, and pass^k of a resample is those
    counts times the per-task pass^k matrix, so the cost is reps x tasks x kmax flops, in
    memory bounded by reps x max(tasks, kmax) floats (resamples are taken in blocks)."""
    trials = [(n, c) for n, c in trials if n > 0]
    if not trials or kmax < 1:
        return {}
    import numpy as np

    m = pass_hat_k_matrix(trials, kmax)  # tasks x kmax
    t = len(trials)
    rng = np.random.default_rng(seed)
    block = max(1, min(reps, 2_000_000 // max(t, kmax)))
    values = []
    for lo in range(0, reps, block):
        b = min(block, reps - lo)
        draws = rng.integers(0, t, size=(b, t))
        flat = (np.arange(b)[:, None] * t + draws).ravel()
        counts = np.bincount(flat, minlength=b * t).reshape(b, t).astype(float)
        values.append(counts @ m / t)
    vals = np.sort(np.concatenate(values), axis=0)  # reps x kmax
    lo_i, hi_i = int(0.025 * (reps - 1)), int(0.975 * (reps - 1))
    return {str(k + 1): [float(vals[lo_i, k]), float(vals[hi_i, k])] for k in range(kmax)}


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


__all__ = ["wilson", "pass_k_means", "pass_hat_k_matrix", "bootstrap_pass_hat_k", "fisher_exact", "paired_permutation", "rogan_gladen", "rogan_gladen_ci"]
