"""Personas, per domain: enumerated from ``personas/<domain>/dimensions.yaml`` with all-pairs coverage.

Each domain has its own dimensions (a customer's temperament and tech savvy, a
student's grade and attitude to maths) and its own enumerated personas, in
``personas/<domain>/personas.yaml``; a task names one by id (``persona: p03``)
and ``get_persona(id, domain)`` finds it there. A domain without a folder has
no enumerated personas (its tasks give none, or write one inline).

A greedy all-pairs (pairwise) construction: repeatedly add the persona that
covers the most not-yet-covered value pairs, until every pair of values of
every two dimensions appears in some persona. Values that cannot go together
in one person ("impatient, short with the agent" and "chatty, talks at length")
are declared in the same file, ``incompatible: [{temperament: impatient,
verbosity: chatty}, ...]`` (each entry a set of values no persona may hold all
of); the enumeration never combines them (their pair is not a pair to cover)
and ``incompatibilities`` names what a hand-written persona combines. The result is deterministic and
written by ``python -m envs.spec.personas --write [--domain D]``; a test checks
every shipped file is current and that coverage is complete.
"""

from __future__ import annotations

import argparse
import itertools
from functools import lru_cache
from pathlib import Path

import yaml

from envs.errors import SpecError
from envs.spec.loading import load_list, read_yaml
from envs.spec.schema import Persona


def personas_dir(domain: str | None = None) -> Path:
    """``personas/`` (the root), or one domain's folder in it."""
    from envs.domain.definition import data_root

    root = data_root() / "personas"
    return root / domain if domain else root


def persona_domains() -> list[str]:
    """The domains that ship persona dimensions, in name order."""
    root = personas_dir()
    return sorted(d.name for d in root.iterdir() if (d / "dimensions.yaml").is_file()) if root.is_dir() else []


def load_dimensions(domain: str | None = None, path: Path | None = None) -> dict[str, dict[str, str]]:
    """A domain's dimensions (``{dimension: {value: description}}``), or those in ``path``."""
    if path is None:
        if not domain:
            raise SpecError("personas: load_dimensions needs a domain or a path")
        path = personas_dir(domain) / "dimensions.yaml"
    data = read_yaml(path)
    dims = data.get("dimensions") if isinstance(data, dict) else None
    if not isinstance(dims, dict) or not dims:
        raise SpecError(f"{path}: dimensions: expected a mapping of dimension -> {{value: description}}")
    for name, values in dims.items():
        if not isinstance(values, dict) or len(values) < 2:
            raise SpecError(f"{path}: dimensions.{name}: expected at least two values with descriptions")
    return dims


def load_incompatible(domain: str | None = None, path: Path | None = None) -> list[dict[str, str]]:
    """The domain's ``incompatible`` value sets (``[{dimension: value, ...}]``), checked against its dimensions."""
    if path is None:
        if not domain:
            raise SpecError("personas: load_incompatible needs a domain or a path")
        path = personas_dir(domain) / "dimensions.yaml"
    data = read_yaml(path)
    rules = (data or {}).get("incompatible", []) if isinstance(data, dict) else []
    dims = load_dimensions(path=path)
    if not isinstance(rules, list):
        raise SpecError(f"{path}: incompatible: expected a list of {{dimension: value}} mappings")
    for i, r in enumerate(rules):
        if not isinstance(r, dict) or len(r) < 2:
            raise SpecError(f"{path}: incompatible.{i}: expected at least two dimension: value entries")
        for k, v in r.items():
            if k not in dims or v not in dims[k]:
                raise SpecError(f"{path}: incompatible.{i}.{k}: unknown dimension or value {v!r}")
    return rules


def incompatibilities(values: dict[str, str], incompatible: list[dict[str, str]]) -> list[dict[str, str]]:
    """The declared incompatible value sets that ``values`` (one persona) holds all of."""
    return [r for r in incompatible if all(values.get(k) == v for k, v in r.items())]


def all_pairs(dims: dict[str, list[str]], incompatible: list[dict[str, str]] | None = None) -> list[dict[str, str]]:
    """Greedy pairwise covering array over the dimension values (deterministic), never holding
    an ``incompatible`` value set (such pairs are not covered: no persona could have them).

    With incompatibilities, the unconstrained array is built first and each persona that holds
    an incompatible set is repaired (the set's last dimension takes the compatible value that
    covers most pairs no other persona covers); personas left alone keep their values, so a
    declared incompatibility changes only the personas that broke it (and adds any needed to
    cover the pairs the repair uncovered)."""
    names = list(dims)
    bad = incompatible or []
    pairs = {
        (a, va, b, vb)
        for a, b in itertools.combinations(names, 2)
        for va in dims[a]
        for vb in dims[b]
        if not incompatibilities({a: va, b: vb}, [r for r in bad if len(r) == 2])
    }
    every = {(a, va, b, vb) for a, b in itertools.combinations(names, 2) for va in dims[a] for vb in dims[b]}
    rows = _greedy(names, dims, every, [], [])
    if not bad:
        return rows
    for i, row in enumerate(rows):
        for _ in range(len(names) * len(bad) + 1):
            hit = incompatibilities(row, bad)
            if not hit:
                break
            others = [r for j, r in enumerate(rows) if j != i]
            # the set's last dimension first; another of its dimensions when that one has no way out;
            # a value that breaks no set it did not already break
            before = len(hit)
            for n in sorted(hit[0], key=names.index, reverse=True):
                allowed = [v for v in dims[n] if v != row[n] and len(incompatibilities({**row, n: v}, bad)) < before]
                if allowed:
                    break
            else:
                raise SpecError(f"personas: no persona can hold {hit[0]} or any repair of it (incompatible: {bad})")
            row[n] = max(allowed, key=lambda v: (
                sum(1 for m in names if m != n and not any(r[m] == row[m] and r[n] == v for r in others)),
                -dims[n].index(v),
            ))
        else:
            raise SpecError(f"personas: could not repair {row} (incompatible: {bad})")
    uncovered = {p for p in pairs if not any(r[p[0]] == p[1] and r[p[2]] == p[3] for r in rows)}
    return _greedy(names, dims, uncovered, rows, bad)


def _greedy(names: list[str], dims: dict[str, list[str]], uncovered: set, rows: list[dict[str, str]],
            bad: list[dict[str, str]]) -> list[dict[str, str]]:
    """Add personas to ``rows`` until ``uncovered`` is empty: seed each with the first uncovered
    pair, fill the other dimensions greedily with values compatible with the row."""
    while uncovered:
        a, va, b, vb = min(uncovered, key=lambda p: (names.index(p[0]), names.index(p[2]), p[1], p[3]))
        row = {a: va, b: vb}
        for n in names:
            if n in row:
                continue
            allowed = [v for v in dims[n] if not incompatibilities({**row, n: v}, bad)]
            if not allowed:
                raise SpecError(f"personas: no value of {n} goes with {row} (incompatible: {bad})")
            best = max(
                allowed,
                key=lambda v: (
                    sum(1 for m, mv in row.items() if _pair(names, m, mv, n, v) in uncovered),
                    -dims[n].index(v),
                ),
            )
            row[n] = best
        row = {n: row[n] for n in names}
        for x, y in itertools.combinations(names, 2):
            uncovered.discard((x, row[x], y, row[y]))
        rows.append(row)
    return rows


def _pair(names, m, mv, n, v):
    return (m, mv, n, v) if names.index(m) < names.index(n) else (n, v, m, mv)


def style_of(dims_desc: dict[str, dict[str, str]], values: dict[str, str]) -> str:
    return " ".join(dims_desc[d][v] for d, v in values.items())


def enumerate_personas(dims_desc: dict[str, dict[str, str]], incompatible: list[dict[str, str]] | None = None) -> list[Persona]:
    rows = all_pairs({k: list(v) for k, v in dims_desc.items()}, incompatible)
    return [
        Persona(id=f"p{i + 1:02d}", dimensions=row, style=style_of(dims_desc, row))
        for i, row in enumerate(rows)
    ]


@lru_cache(maxsize=None)
def _personas(domain: str) -> dict[str, Persona]:
    path = personas_dir(domain) / "personas.yaml"
    if not path.is_file():
        return {}
    return {p.id: p for p in load_list(Persona, path, "personas")}


def get_persona(pid: str, domain: str) -> Persona:
    """The persona ``pid`` of ``domain`` (a ``SpecError`` naming the known ids when there is none)."""
    ps = _personas(domain)
    if pid not in ps:
        known = ", ".join(sorted(ps)) or f"none: no personas/{domain}/personas.yaml"
        raise SpecError(f"persona: domain {domain} has no persona {pid!r} (known: {known})")
    return ps[pid]


def all_personas(domain: str) -> list[Persona]:
    return list(_personas(domain).values())


def render_personas(domain: str) -> str:
    """The text of ``personas/<domain>/personas.yaml`` as enumerated from its dimensions."""
    ps = enumerate_personas(load_dimensions(domain), load_incompatible(domain))
    return (
        f"# Generated by `python -m envs.spec.personas --write --domain {domain}` from dimensions.yaml (all-pairs). Do not edit.\n"
        + yaml.safe_dump({"personas": [p.model_dump(exclude_none=True) for p in ps]}, sort_keys=False, width=100)
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Enumerate personas from personas/<domain>/dimensions.yaml (all-pairs).")
    ap.add_argument("--write", action="store_true", help="write personas/<domain>/personas.yaml")
    ap.add_argument("--domain", help="one domain (default: every domain with a personas/<domain>/dimensions.yaml)")
    args = ap.parse_args(argv)
    domains = [args.domain] if args.domain else persona_domains()
    for d in domains:
        try:
            text = render_personas(d)
        except SpecError as e:
            print(f"error: {e}")
            return 2
        if args.write:
            (personas_dir(d) / "personas.yaml").write_text(text, encoding="utf-8")
            _personas.cache_clear()
            print(f"{d}: wrote {text.count(chr(10) + '- id: ')} personas")
        else:
            print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
