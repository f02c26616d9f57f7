"""The Rogan-Gladen corrected interval at its edges: few turns, all or none followed, a judge near perfect or near chance."""

from __future__ import annotations

import pytest

from graders.statistics import rogan_gladen, rogan_gladen_ci, wilson


def _contains_point(f, n, se, sp, n_se, n_sp):
    lo, hi = rogan_gladen_ci(f, n, se, sp, n_se, n_sp)
    p = rogan_gladen(f / n, se, sp)
    assert 0.0 <= lo <= p <= hi <= 1.0, (lo, p, hi)
    return lo, hi


def test_zero_of_two_does_not_collapse():
    lo, hi = _contains_point(0, 2, 0.9, 0.9, 20, 20)
    raw_lo, raw_hi = wilson(0, 2)
    assert lo == 0.0 and hi > raw_hi  # at least as wide as the raw [0.00, 0.66], never [0, 0]


def test_two_of_two_does_not_collapse():
    lo, hi = _contains_point(2, 2, 0.9, 0.9, 20, 20)
    assert hi == 1.0 and lo < wilson(2, 2)[0]


def test_no_turns_and_chance_judge_have_no_interval():
    assert rogan_gladen_ci(0, 0, 0.9, 0.9, 20, 20) is None
    assert rogan_gladen_ci(3, 5, 0.5, 0.5, 20, 20) is None


def test_near_perfect_judge_is_about_the_raw_interval_but_never_narrower():
    lo, hi = _contains_point(30, 40, 0.999, 0.999, 200, 200)
    raw_lo, raw_hi = wilson(30, 40)
    assert lo <= raw_lo + 1e-3 and hi >= raw_hi - 1e-3
    assert hi - lo == pytest.approx(raw_hi - raw_lo, abs=0.03)


def test_judge_perfect_on_few_items_still_widens():
    lo, hi = _contains_point(30, 40, 1.0, 1.0, 4, 4)
    raw_lo, raw_hi = wilson(30, 40)
    assert hi - lo > (raw_hi - raw_lo) + 0.02


def test_judge_barely_better_than_chance_is_very_wide():
    lo, hi = _contains_point(6, 10, 0.52, 0.52, 50, 50)
    assert lo == 0.0 and hi == 1.0


def test_rate_below_the_false_followed_rate_keeps_width_at_zero():
    # Observed 0 of 2 while the judge says FOLLOWED on 80% of violations: every bound maps below 0;
    # corrected 0, and the interval keeps its width instead of becoming [0, 0].
    lo, hi = _contains_point(0, 2, 0.95, 0.2, 20, 20)
    assert lo == 0.0 and hi > wilson(0, 2)[1]


@pytest.mark.parametrize("f,n", [(0, 1), (1, 1), (0, 2), (1, 2), (2, 2), (5, 9), (0, 50), (50, 50)])
@pytest.mark.parametrize("se,sp", [(0.9, 0.8), (0.99, 0.99), (0.7, 0.95), (1.0, 1.0)])
def test_always_contains_the_point_and_the_mapped_raw_interval(f, n, se, sp):
    lo, hi = _contains_point(f, n, se, sp, 30, 30)
    raw_lo, raw_hi = wilson(f, n)
    mapped = sorted(min(1.0, max(0.0, (x + sp - 1) / (se + sp - 1))) for x in (raw_lo, raw_hi))
    assert hi > lo
    if mapped[1] > mapped[0]:  # the raw interval, corrected, lies inside
        assert lo <= mapped[0] + 1e-9 and hi >= mapped[1] - 1e-9


def test_pass_k_aggregate_gives_the_binomials_floats_exactly():
    import random
    from math import comb

    from graders.pass_k import aggregate

    rng = random.Random(7)
    for _ in range(200):
        n0 = rng.randint(1, 60)
        trials = [(n, rng.randint(0, n)) for n in (n0 + rng.randint(0, 6) for _ in range(rng.randint(1, 6)))]
        kmax = min(n for n, _ in trials)
        want_hat = {str(k): sum(comb(c, k) / comb(n, k) for n, c in trials) / len(trials) for k in range(1, kmax + 1)}
        want_at = {str(k): sum(1.0 - comb(n - c, k) / comb(n, k) for n, c in trials) / len(trials) for k in range(1, kmax + 1)}
        assert aggregate(trials) == {"pass_hat_k": want_hat, "pass_at_k": want_at}
    big = [(1500, 700), (1500, 1499), (1500, 0), (1500, 1500)]  # ratios that reach the smallest floats
    got = aggregate(big)["pass_hat_k"]
    assert all(got[str(k)] == sum(comb(c, k) / comb(n, k) for n, c in big) / 4 for k in (1, 2, 700, 701, 1100, 1499, 1500))
