"""The checks' measured error, stored with the domain and carried into every run.

``python -m graders.calibrate --domain D --judge checks --write-check-calibration`` measures
the deterministic checks on the domain's held-out gold set (written blind to them) and
writes ``domains/<d>/check_calibration.json``: per checked rule, accuracy, sensitivity and
specificity with the counts behind them. A run's summary then corrects the compliance of
every rule decided by its check for that error (Rogan-Gladen, with an interval), and marks
a rule whose check is below the threshold as approximate. A test regenerates the numbers
and fails when the file is stale (a check or the held-out set changed since).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

from envs.errors import SpecError
from graders.statistics import rogan_gladen, rogan_gladen_ci

FILE = "check_calibration.json"
_KEYS = ("items", "accuracy", "sensitivity", "specificity", "n_followed", "n_violated",
         "false_violated", "false_followed", "false_not_applicable", "false_applicable", "n_not_applicable",
         "needs_review", "trustworthy")


def check_calibration_path(domain) -> Path:
    return domain.package_dir / FILE


def check_calibration_data(domain, heldout: dict, gold: str) -> dict[str, Any]:
    """The file's content from a held-out calibration report of the checks (rules with a check only)."""
    rules = {rid: {k: s[k] for k in _KEYS} for rid, s in sorted(heldout["rules"].items())
             if rid in domain.rules and domain.rules[rid].check is not None}
    return {
        "domain": domain.name,
        "judge": "checks",
        "gold": Path(gold).name,
        "threshold": heldout["threshold"],
        "note": "regenerate: python -m graders.calibrate --domain " + domain.name + " --judge checks --write-check-calibration",
        "rules": rules,
    }


def write_check_calibration(domain, heldout: dict, gold: str) -> Path:
    path = check_calibration_path(domain)
    path.write_text(json.dumps(check_calibration_data(domain, heldout, gold), indent=2) + "\n", encoding="utf-8")
    return path


def load_check_calibration(domain) -> dict[str, Any] | None:
    """The domain's stored check calibration, or None when it has none. Raises SpecError for a broken file."""
    path = check_calibration_path(domain)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise SpecError(f"{path}: not JSON ({e.msg}, line {e.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("rules"), dict):
        raise SpecError(f"{path}: rules: missing")
    return data


def verdict_sources(records: Iterable) -> dict[str, Counter]:
    """Per rule, how many decided verdicts came from each source (check, judge)."""
    sources: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        for v in r.verdicts:
            if v.verdict in ("FOLLOWED", "VIOLATED"):
                sources[v.rule][v.source] += 1
    return sources


def apply_check_calibration(summary, records: Iterable | None, domain, sources: dict[str, Counter] | None = None) -> None:
    """Correct, in place, the compliance of each rule whose every decided verdict in
    ``records`` (or the counts ``sources`` of ``verdict_sources``) came from its deterministic
    check, for the check's held-out error. A rule also judged by a model on some turns is left
    as it is (its error is the judge's)."""
    cal = load_check_calibration(domain)
    if cal is None:
        return
    if sources is None:
        sources = verdict_sources(records or [])
    from envs.records import CalibrationInfo

    threshold = cal.get("threshold", 0.8)
    done = False
    for rid, entry in summary.rules.items():
        c = cal["rules"].get(rid)
        if c is None or set(sources.get(rid, {})) - {"check"}:
            continue
        se, sp = c.get("sensitivity"), c.get("specificity")
        entry.calibrated = True
        entry.judge_accuracy = c.get("accuracy")
        entry.untrusted = entry.approximate = not c.get("trustworthy", False)
        for cell in [entry, *entry.by_situation.values()]:
            n, f = cell.judged, cell.followed
            if n and se is not None and sp is not None:
                cell.corrected = rogan_gladen(f / n, se, sp)
                cell.corrected_ci95 = rogan_gladen_ci(f, n, se, sp, c["n_followed"], c["n_violated"])
        done = True
    if done and summary.calibration is None:
        summary.calibration = CalibrationInfo(file=str(check_calibration_path(domain)), judge="checks", threshold=threshold)
