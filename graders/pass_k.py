"""pass^k and pass@k over repeated trials.

For a task with n trials and c successes, pass^k = C(c, k) / C(n, k): the
chance that k trials drawn without replacement all succeed (tau-bench's
estimator). pass@k = 1 - C(n - c, k) / C(n, k): the chance at least one does.
Both are averaged over tasks, for k = 1..n where n is the smallest trial
count among tasks. Errored trials are failures here; callers that want the
clean-trials view pass only clean trials and say so.
"""

from __future__ import annotations

from math import comb
from typing import Iterable


def pass_hat_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    return comb(c, k) / comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    return 1.0 - comb(n - c, k) / comb(n, k)


def _ratios(n: int, m: int, kmax: int) -> list[float]:
    """``[comb(m, k) / comb(n, k) for k in 1..kmax]``, the very same floats, in time linear in kmax.

    comb(m, k) / comb(n, k) is the exact rational m(m-1)...(m-k+1) / n(n-1)...(n-k+1) (the k!
    cancels), and an int divided by an int is that rational correctly rounded, however it is
    written; so the falling products, kept as integers and grown one factor per k, give the
    binomials' floats without computing 2 x kmax big binomials per task (at 2,000 repeats, 13 s
    of a 100,000-episode summary). The ratio never grows with k: once it is 0 (m < k, or
    below the smallest float) every later one is 0 too."""
    out: list[float] = []
    num = den = 1
    for i in range(kmax):
        num *= m - i
        if num == 0:
            break
        den *= n - i
        v = num / den
        if v == 0.0:
            break
        out.append(v)
    out += [0.0] * (kmax - len(out))
    return out


def aggregate(trials: Iterable[tuple[int, int]], kmax: int | None = None) -> dict[str, dict[str, float]]:
    """``trials``: (n, c) per task. Returns {"pass_hat_k": {"1": ..}, "pass_at_k": {...}}.

    The same values as averaging ``pass_hat_k(n, c, k)`` and ``pass_at_k(n, c, k)`` over the tasks
    in order (``_ratios`` gives each term's float exactly)."""
    trials = [(n, c) for n, c in trials if n > 0]
    if not trials:
        return {"pass_hat_k": {}, "pass_at_k": {}}
    kmax = min(n for n, _ in trials) if kmax is None else kmax
    for n, c in trials:
        if kmax >= 1:
            pass_hat_k(n, c, kmax)  # the same ValueError as term by term, for a k past a task's trials
    hats = [_ratios(n, c, kmax) for n, c in trials]
    misses = [_ratios(n, n - c, kmax) for n, c in trials]
    hat = {str(k): sum(h[k - 1] for h in hats) / len(trials) for k in range(1, kmax + 1)}
    at = {str(k): sum(1.0 - m[k - 1] for m in misses) / len(trials) for k in range(1, kmax + 1)}
    return {"pass_hat_k": hat, "pass_at_k": at}
