"""Agreement with people: Cohen's kappa and the confusion table of two labellings."""

from __future__ import annotations

from collections import Counter

LABELS = ("FOLLOWED", "VIOLATED", "NEEDS_REVIEW", "NOT_APPLICABLE")


def confusion(pairs: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """{gold label: {verdict: count}} over (gold, verdict) pairs."""
    out: dict[str, dict[str, int]] = {}
    for g, v in pairs:
        out.setdefault(g, {}).setdefault(v, 0)
        out[g][v] += 1
    return out


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa of (gold, verdict) pairs; a verdict other than the gold classes counts as its own class.

    None when there are no pairs or chance agreement is certain (every label and verdict the same)."""
    n = len(pairs)
    if not n:
        return None
    po = sum(g == v for g, v in pairs) / n
    cg, cv = Counter(g for g, _ in pairs), Counter(v for _, v in pairs)
    pe = sum(cg[k] * cv.get(k, 0) for k in cg) / (n * n)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)
