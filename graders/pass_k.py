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


def aggregate(trials: Iterable[tuple[int, int]], kmax: int | None = None) -> dict[str, dict[str, float]]:
    """``trials``: (n, c) per task. Returns {"pass_hat_k": {"1": ..}, "pass_at_k": {...}}."""
    trials = [(n, c) for n, c in trials if n > 0]
    if not trials:
        return {"pass_hat_k": {}, "pass_at_k": {}}
    kmax = min(n for n, _ in trials) if kmax is None else kmax
    hat = {str(k): sum(pass_hat_k(n, c, k) for n, c in trials) / len(trials) for k in range(1, kmax + 1)}
    at = {str(k): sum(pass_at_k(n, c, k) for n, c in trials) / len(trials) for k in range(1, kmax + 1)}
    return {"pass_hat_k": hat, "pass_at_k": at}
