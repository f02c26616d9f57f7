"""How well the scripted users understand wordings their authors did not write.

    python benchmarks/understanding.py [--set dev|heldout|all] [--misses]

The probe sets in ``tests/probes/`` were written by helpers who never saw the recognisers:
agent messages labelled with what they ask the customer for (support), and tutor messages
labelled with whether they address the student's misconception (tutoring: in general, and for
the shipped tasks, with the real problem and the student's wrong working), each set by its own
author. ``dev`` sets are development material (the recognisers were extended against their
misses; ``dev2`` and ``dev3`` after each had been measured once as a fresh set); ``heldout``
sets were only ever measured. Prints, per set, recall (what was asked and understood) and false
positives (understood as asking what it did not), with Wilson 95% intervals; per label with
``--by-label``; every miss with ``--misses``. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PROBES = ROOT / "tests" / "probes"


def support_asked(message: str) -> set[str]:
    """The labels the support customer would hear ``message`` ask for."""
    from envs.domain import get_domain

    rec = get_domain("support").topics
    return rec.read(message).topics


def score_support(path: Path) -> dict:
    items = yaml.safe_load(path.read_text(encoding="utf-8"))["items"]
    labels = {label for it in items for label in it["asks"]}
    hit = asked = fp = 0
    by: dict[str, list[int]] = {}
    misses, false = [], []
    for it in items:
        want = set(it["asks"])
        got = support_asked(it["message"]) & labels
        for label in want:
            asked += 1
            ok = label in got
            hit += ok
            by.setdefault(label, [0, 0])[0] += ok
            by[label][1] += 1
            if not ok:
                misses.append((label, it["message"]))
        for label in got - want:
            fp += 1
            false.append((label, it["message"]))
    return {"items": len(items), "recall": (hit, asked), "false": (fp, len(items)), "by": by,
            "misses": misses, "false_items": false}


def score_tutoring(path: Path) -> dict:
    from domains.tutoring.hint_ideas import addressed

    items = yaml.safe_load(path.read_text(encoding="utf-8"))["items"]
    hit = pos = fp = neg = 0
    by: dict[str, list[int]] = {}
    misses, false = [], []
    for it in items:
        got = addressed(it["misconception"], it["message"]) is not None
        if it["addresses"]:
            pos += 1
            hit += got
            by.setdefault(it["misconception"], [0, 0])[0] += got
            by[it["misconception"]][1] += 1
            if not got:
                misses.append((it["misconception"], it["message"]))
        else:
            neg += 1
            fp += got
            if got:
                false.append((it["misconception"], it["message"]))
    return {"items": len(items), "recall": (hit, pos), "false": (fp, neg), "by": by, "misses": misses,
            "false_items": false}


def score_tutoring_tasks(path: Path) -> dict:
    """Tutor messages written for the shipped tasks (the real problem and the student's wrong
    working), judged as the scripted student hears them: with its problem in mind."""
    from domains.tutoring.hint_ideas import addressed_in
    from envs.domain import get_domain

    tasks = get_domain("tutoring").tasks
    items = yaml.safe_load(path.read_text(encoding="utf-8"))["items"]
    hit = pos = fp = neg = 0
    by: dict[str, list[int]] = {}
    misses, false = [], []
    for it in items:
        mind = tasks[it["task"]].extra["student_mind"]
        got = addressed_in(mind, it["message"]) is not None
        if it["addresses"]:
            pos += 1
            hit += got
            by.setdefault(it["misconception"], [0, 0])[0] += got
            by[it["misconception"]][1] += 1
            if not got:
                misses.append((it["task"], it["message"]))
        else:
            neg += 1
            fp += got
            if got:
                false.append((it["task"], it["message"]))
    return {"items": len(items), "recall": (hit, pos), "false": (fp, neg), "by": by, "misses": misses,
            "false_items": false}


def _ci(k: int, n: int) -> str:
    from graders.statistics import wilson

    iv = wilson(k, n)
    return f"{k}/{n} = {k / n:.2f} [{iv[0]:.2f}, {iv[1]:.2f}]" if n and iv else f"{k}/{n}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=["dev", "dev2", "dev3", "heldout", "heldout2", "all"], default="all")
    ap.add_argument("--misses", action="store_true", help="print every miss and false positive")
    ap.add_argument("--by-label", action="store_true")
    a = ap.parse_args(argv)
    sets = ["dev", "dev2", "dev3", "heldout", "heldout2"] if a.set == "all" else [a.set]
    for domain, score, what in [("support", score_support, "asked for"), ("tutoring", score_tutoring, "addresses"),
                                ("tutoring_tasks", score_tutoring_tasks, "addresses")]:
        for s in sets:
            path = PROBES / f"{domain}_{s}.yaml"
            if not path.exists():
                continue
            r = score(path)
            false_what = "asked for what it did not" if domain == "support" else "non-addressing read as addressing"
            shown = domain.replace("tutoring_tasks", "tutoring (its tasks)")
            print(f"{shown:8} {s:8} {what}: understood {_ci(*r['recall'])}; {false_what}: {_ci(*r['false'])}"
                  + (" (per message)" if domain == "support" else ""))
            if a.by_label:
                for label, (k, n) in sorted(r["by"].items()):
                    print(f"    {label:22} {k}/{n}")
            if a.misses:
                for label, m in r["misses"]:
                    print(f"    MISS  {label}: {m}".replace("\n", " / "))
                for label, m in r["false_items"]:
                    print(f"    FALSE {label}: {m}".replace("\n", " / "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
