"""The gold sets a calibration measures on, and how their numbers sit side by side.

A domain has a development set (``gold.yaml``: written together with its checks) and may have
a held-out set (``gold_heldout.yaml``: written blind to them, by people who never saw them).
Both are measured by default; a check much better on the first than on the second learned its
examples rather than its rule. Other gold sources are declared by the domain
(``Domain.gold_sources``, e.g. ``mrbench``) and named ``--gold NAME:PATH``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envs.errors import SpecError

# A held-out accuracy this far below the development one: the check learned its examples.
LEARNED_MARGIN = 0.1


def heldout_path(domain) -> Path:
    return domain.package_dir / "gold_heldout.yaml"


def load_source(domain, spec: str) -> tuple[list, dict[str, Any]]:
    """The gold items of ``spec`` and what the source says about them (e.g. items left out).

    ``spec`` is a YAML gold file in the domain's format (``PATH`` or ``yaml:PATH``), or
    ``NAME:PATH`` for an importer the domain declares in ``gold_sources``. Raises SpecError (one line) for an unknown source or a bad file."""
    from graders.calibrate.calibration import load_gold

    name, sep, rest = spec.partition(":")
    sources = getattr(domain, "gold_sources", None) or {}
    if sep and name == "yaml":  # a gold file in the domain's own format, named as a source
        return load_gold(domain, Path(rest)), {"source": "yaml", "file": rest}
    if sep and name in sources:
        items, info = sources[name](Path(rest))
        _validate(domain, items, spec)
        return items, {"source": name, **info}
    if sep and len(name) > 1 and not Path(spec).exists():
        known = ", ".join(sorted(sources)) or "none"
        raise SpecError(f"--gold {spec}: domain {domain.name} has no gold source {name!r} (known: {known})")
    return load_gold(domain, Path(spec)), {"source": "yaml"}


def _validate(domain, items: list, spec: str) -> None:
    for it in items:
        if it.rule not in domain.rules:
            raise SpecError(f"--gold {spec}: item {it.id}: unknown rule {it.rule!r}")
        sit = domain.situations.get(it.situation)
        if sit is None or it.rule not in sit.rules:
            raise SpecError(f"--gold {spec}: item {it.id}: rule {it.rule} does not apply in situation {it.situation}")


def side_by_side(dev: dict, heldout: dict, margin: float = LEARNED_MARGIN) -> dict[str, dict]:
    """Per rule (and "overall"): development and held-out accuracy, the held-out errors, and
    ``learned_its_examples`` when held-out accuracy is more than ``margin`` below development."""
    out: dict[str, dict] = {}
    rules = sorted(set(dev["rules"]) | set(heldout["rules"]))
    for rid in [*rules, "overall"]:
        d = dev["overall"] if rid == "overall" else dev["rules"].get(rid)
        h = heldout["overall"] if rid == "overall" else heldout["rules"].get(rid)
        da = d["accuracy"] if d else None
        ha = h["accuracy"] if h else None
        out[rid] = {
            "dev_accuracy": da,
            "dev_items": d["items"] if d else 0,
            "heldout_accuracy": ha,
            "heldout_items": h["items"] if h else 0,
            "heldout_false_violated": h["false_violated"] if h else None,
            "heldout_false_followed": h["false_followed"] if h else None,
            "heldout_strict_lenient_ratio": h["strict_lenient_ratio"] if h else None,
            "heldout_needs_review_rate": h["needs_review_rate"] if h else None,
            "learned_its_examples": da is not None and ha is not None and ha < da - margin,
        }
    return out


def _f(x: float | None, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:.0%}" if pct else f"{x:.2f}"


def print_side_by_side(sides: dict[str, dict], console, judge: str) -> None:
    from envs.table_style import line_table

    t = line_table(f"{judge}: development set vs held-out set")
    for col in ("rule", "dev acc.", "held-out acc.", "false VIOLATED", "false FOLLOWED", "strict:lenient", "needs review", ""):
        t.add_column(col)
    for rid, s in sides.items():
        ratio = s["heldout_strict_lenient_ratio"]
        fv, ff = s["heldout_false_violated"], s["heldout_false_followed"]
        t.add_row(
            rid,
            f"{_f(s['dev_accuracy'])} ({s['dev_items']})",
            f"{_f(s['heldout_accuracy'])} ({s['heldout_items']})",
            "-" if fv is None else str(fv),
            "-" if ff is None else str(ff),
            "-" if ratio is None else f"{ratio:.2f}",
            _f(s["heldout_needs_review_rate"], pct=True),
            "[red]learned its examples[/red]" if s["learned_its_examples"] else "",
        )
    console.print(t)


def agreement_report(rows: list[dict]) -> dict[str, Any]:
    """Per rule and overall: agreement with the gold labels (people's), Cohen's kappa, and the
    confusion table {gold: {verdict: n}}; also kappa over the decided verdicts only."""
    from collections import defaultdict

    from graders.calibrate.agreement import cohen_kappa, confusion

    by_rule: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in rows:
        by_rule[r["rule"]].append((r["label"], r["verdict"]))
    out: dict[str, Any] = {}
    for rid, pairs in [*sorted(by_rule.items()), ("overall", [p for ps in by_rule.values() for p in ps])]:
        decided = [(g, v) for g, v in pairs if v in ("FOLLOWED", "VIOLATED")]
        out[rid] = {
            "items": len(pairs),
            "agreement": sum(g == v for g, v in pairs) / len(pairs) if pairs else None,
            "kappa": cohen_kappa(pairs),
            "decided": len(decided),
            "kappa_decided": cohen_kappa(decided),
            "confusion": confusion(pairs),
        }
    return out


def print_agreement(agr: dict[str, Any], info: dict[str, Any], console, judge: str) -> None:
    from envs.table_style import line_table

    t = line_table(f"{judge}: agreement with people ({info.get('source', 'gold')})")
    for col in ("rule", "items", "agreement", "kappa", "kappa (decided)", "gold F: F/V/N/other", "gold V: F/V/N/other",
                "gold N: F/V/N/other"):
        t.add_column(col)
    for rid, a in agr.items():
        cells = []
        for g in ("FOLLOWED", "VIOLATED", "NOT_APPLICABLE"):
            row = a["confusion"].get(g, {})
            other = sum(n for v, n in row.items() if v not in ("FOLLOWED", "VIOLATED", "NOT_APPLICABLE"))
            cells.append(f"{row.get('FOLLOWED', 0)}/{row.get('VIOLATED', 0)}/{row.get('NOT_APPLICABLE', 0)}/{other}")
        t.add_row(rid, str(a["items"]), _f(a["agreement"]), _f(a["kappa"]), _f(a["kappa_decided"]), *cells)
    console.print(t)
    for rid, why in (info.get("excluded") or {}).items():
        if why:
            console.print(f"left out for {rid}: " + "; ".join(f"{n} {k}" for k, n in sorted(why.items())), soft_wrap=True)
