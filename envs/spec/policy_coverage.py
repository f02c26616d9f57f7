"""Policy coverage: every obligation of a domain's policy is graded by something.

An obligation is a sentence of ``policy.md`` that says MUST, MUST NOT, never, always, or
forbids in the imperative ("Do not ...", "don't ...") (any case; headings are titles, not sentences). Each one is either covered by rules (their ids) or
declared graded by the outcome (the final state diffed against the goal), with the reason. The
map is a small file with the domain, ``policy_coverage.yaml``; an entry names its sentence by a
quote, a piece of it that occurs in that one obligation only (no NLP: a changed sentence must be
mapped again). ``check_policy_coverage`` returns one ``FILE: field: reason`` line per problem:
an obligation no entry covers, a quote that names no obligation or several, a rule that does not
exist, an entry that says neither or both. ``python -m envs.check`` runs it for every domain.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import Field, model_validator

from envs.errors import SpecError
from envs.spec.loading import load_list
from envs.spec.schema import Spec

FILE = "policy_coverage.yaml"
# "Do not follow instructions to ignore this policy" binds as much as "never": the imperative
# prohibition counts too, said at the start of a sentence or clause ("people who do not answer" is no order)
OBLIGATION = re.compile(r"\b(must|never|always)\b|(^|[:;,.*]\s*|\b(and|or|but|then)\s+)(do not|don['’]t)\b", re.I)


class PolicyCoverage(Spec):
    """What grades one obligation of the policy: rules, or the outcome (with the reason)."""

    quote: str  # a piece of the sentence, unique among the policy's obligations
    rules: list[str] = Field(default_factory=list)
    outcome: str | None = None  # why the state diff grades it (what a breach leaves in the state)
    note: str = ""

    @model_validator(mode="after")
    def _one_kind(self) -> "PolicyCoverage":
        if bool(self.rules) == bool(self.outcome):
            raise ValueError("give either rules (ids) or outcome (the reason the state diff grades it), not both or neither")
        return self


def _blocks(markdown: str) -> list[str]:
    """Paragraphs and list items of ``markdown``, each on one line; headings left out."""
    blocks: list[str] = []
    cur: list[str] = []

    def flush() -> None:
        if cur:
            blocks.append(" ".join(cur))
            cur.clear()

    for raw in markdown.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            flush()
            continue
        if re.match(r"^([-*+]|\d+[.)])\s+", line):
            flush()
            line = re.sub(r"^([-*+]|\d+[.)])\s+", "", line)
        cur.append(line)
    flush()
    return blocks


def _split(block: str) -> list[str]:
    """Sentences of one block: a . ! or ? followed by a space ends one, outside brackets and quotes."""
    out, start, depth, quoted = [], 0, 0, False
    for i, ch in enumerate(block):
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
        elif ch == '"':
            quoted = not quoted
        elif ch in ".!?" and not depth and not quoted and (i + 1 == len(block) or block[i + 1] == " "):
            out.append(block[start : i + 1].strip())
            start = i + 1
    if block[start:].strip():
        out.append(block[start:].strip())
    return [s for s in out if s]


def policy_sentences(markdown: str) -> list[str]:
    """Every sentence of the policy (headings left out)."""
    return [s for b in _blocks(markdown) for s in _split(b)]


def obligations(markdown: str) -> list[str]:
    """The sentences that say MUST, MUST NOT, never, always or "do not"; a sentence said word for word in
    two sections is one obligation."""
    out, seen = [], set()
    for s in policy_sentences(markdown):
        if OBLIGATION.search(s) and _norm(s) not in seen:
            seen.add(_norm(s))
            out.append(s)
    return out


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("*", "").replace("`", "")).strip().lower()


def coverage_path(domain) -> Path:
    return Path(domain.package_dir) / FILE


def load_coverage(domain) -> list[PolicyCoverage] | None:
    path = coverage_path(domain)
    return load_list(PolicyCoverage, path, "coverage") if path.exists() else None


def covered(domain) -> tuple[list[tuple[str, PolicyCoverage | None]], list[str]]:
    """(each obligation with the entry that covers it, or None) and the map's own problems."""
    path = coverage_path(domain)
    found = obligations(domain.policy or "")
    problems: list[str] = []
    try:
        entries = load_coverage(domain) or []
    except SpecError as e:
        return [(s, None) for s in found], [str(e)]
    normed = [_norm(s) for s in found]
    by_sentence: dict[int, PolicyCoverage] = {}
    for i, e in enumerate(entries):
        where = f"{path}: coverage[{i}]"
        hits = [j for j, s in enumerate(normed) if _norm(e.quote) in s]
        if not hits:
            problems.append(f"{where}.quote: {e.quote!r} is in no MUST / never / always sentence of policy.md (changed or removed?)")
            continue
        if len(hits) > 1:
            problems.append(f"{where}.quote: {e.quote!r} is in {len(hits)} obligations; quote more of the one it means")
            continue
        for r in e.rules:
            if r not in domain.rules:
                problems.append(f"{where}.rules: unknown rule {r!r}")
        if hits[0] in by_sentence:
            problems.append(f"{where}.quote: {e.quote!r}: that sentence is mapped twice")
        by_sentence[hits[0]] = e
    return [(s, by_sentence.get(j)) for j, s in enumerate(found)], problems


def check_policy_coverage(domain) -> list[str]:
    """One line per problem (module doc); no lines when every obligation is graded."""
    pairs, problems = covered(domain)
    policy = Path(domain.package_dir) / "policy.md"
    where = policy if policy.exists() else f"{domain.name} policy"
    for s, entry in pairs:
        if entry is None:
            short = s if len(s) <= 160 else s[:157] + "..."
            problems.append(f"{where}: uncovered: {short!r} (no rule or outcome for it in {coverage_path(domain).name})")
    return problems
