"""Short rule names for tables: a rule's ``name:`` when its rules.yaml gives one, else one
derived from its text ("If X, the agent MUST ask for it and MUST NOT guess it" -> "ask for it")."""

from __future__ import annotations

import re
from typing import Any, Iterable

_CONDITION = re.compile(r"^\s*(if|when|whenever|once|after|before)\b[^,]*,\s*", re.I)
_DANGLING = {"and", "or", "the", "a", "an", "before", "after", "from", "to", "of", "with", "never", "their", "its"}
_SUBJECT = re.compile(r"^(the|an?)\s+\w+\s+(MUST NOT|MUST|SHOULD NOT|SHOULD|NEVER)\s+", re.I)


def derive_name(text: str, words: int = 4) -> str:
    """A few words of the rule's obligation, without its condition and its subject."""
    t = " ".join(text.split())
    t = _CONDITION.sub("", t)
    m = _SUBJECT.match(t)
    neg = bool(m and re.search(r"NOT|NEVER", m.group(2), re.I))
    if m:
        t = t[m.end():]
    else:
        t = re.sub(r"^.*?\b(MUST NOT|MUST|NEVER)\s+", lambda mm: "not " if mm.group(1).upper() != "MUST" else "", t, count=1)
    t = re.split(r"[,;:.(]| and MUST| MUST", t)[0].strip()
    kept = t.split()[:words]
    while len(kept) > 1 and kept[-1].lower() in _DANGLING:
        kept.pop()
    out = " ".join(kept)
    return ("not " + out if neg else out).strip() or text[:24]


def is_descriptive(rule_id: str) -> bool:
    """An id that already reads as a name (``withhold_answer``), unlike ``R10``."""
    return bool(re.search(r"[A-Za-z]{3,}", rule_id)) and ("_" in rule_id or "-" in rule_id)


def short_rule_names(rules: Iterable[Any]) -> dict[str, str]:
    """{rule id: short name} for rules whose id is not already a name."""
    out = {}
    for r in rules:
        if is_descriptive(r.id) and not getattr(r, "name", None):
            continue
        out[r.id] = getattr(r, "name", None) or derive_name(r.text)
    return out


def rule_label(rule_id: str, names: dict[str, str] | None) -> str:
    """``R10 ask for missing detail`` (or the id alone when it has no name)."""
    n = (names or {}).get(rule_id)
    return f"{rule_id} {n}" if n else rule_id
