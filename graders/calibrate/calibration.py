"""How far to trust the judge: calibration on gold dialogues.

    python -m graders.calibrate --domain support --judge MODEL [--out calibration.json]
    python -m graders.calibrate --domain support --judge checks      # the deterministic checks

A domain's gold set (``domains/<d>/gold.yaml``) holds labelled agent replies:
for a rule and a situation the rule applies to, a short dialogue, one reply,
and whether that reply FOLLOWED or VIOLATED the rule. Gold sets are files in
the repo, reviewed and versioned; ``--extend`` asks a model to write the
missing (rule, situation) pairs and appends them marked ``reviewed: false``.

The judge runs blind over the set (shuffled; it never sees the label) and
the report gives, per rule: accuracy, false VIOLATED (too strict), false
FOLLOWED (too lenient), their ratio, the NEEDS_REVIEW rate, and whether the
rule's accuracy clears the threshold (default 0.8). ``calibration.json``
also holds each rule's sensitivity and specificity, which a run given
``--calibration FILE`` uses to correct raw compliance (Rogan-Gladen).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from envs.errors import SpecError
from envs.records import AgentEvent, CalibrationInfo, Event, RunSummary, ToolCall, ToolEvent, UserEvent, Verdict
from envs.spec.schema import Spec, load_list
from graders.statistics import rogan_gladen, rogan_gladen_ci

# -- the gold set -------------------------------------------------------------


class GoldTurn(Spec):
    role: Literal["user", "student", "agent", "tutor", "tool"]
    content: str = ""
    # role "tool": an agent tool call and its output
    name: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    output: str = ""
    ok: bool = True  # a tool call the system refused (an "Error: ..." output) is ok: false


class GoldItem(Spec):
    id: str
    rule: str
    situation: str
    dialogue: list[GoldTurn] = Field(default_factory=list)
    reply: str
    label: Literal["FOLLOWED", "VIOLATED"]
    source: str = "written"
    reviewed: bool = True
    note: str = ""

    def events(self) -> tuple[list[Event], int]:
        """The dialogue as transcript events, the reply last; returns (events, reply index)."""
        evs: list[Event] = []
        turn = 0
        n = len(self.dialogue)
        for i, t in enumerate(self.dialogue):
            if t.role in ("user", "student"):
                # the last user turn plays the item's situation
                last = all(d.role not in ("user", "student") for d in self.dialogue[i + 1 : n])
                sit = self.situation if last else None
                evs.append(UserEvent(turn=turn, content=t.content, situation=sit))
            elif t.role in ("agent", "tutor"):
                turn += 1
                evs.append(AgentEvent(turn=turn, content=t.content))
            else:
                evs.append(
                    ToolEvent(
                        turn=turn,
                        call=ToolCall(id=f"gold_{i}", name=t.name or "?", arguments=t.arguments),
                        output=t.output,
                        ok=t.ok and not t.output.startswith("Error"),
                    )
                )
        evs.append(AgentEvent(turn=turn + 1, content=self.reply))
        return evs, len(evs) - 1


def gold_path(domain) -> Path:
    return domain.package_dir / "gold.yaml"


def load_gold(domain, path: Path | None = None) -> list[GoldItem]:
    path = path or gold_path(domain)
    if not path.exists():
        raise SpecError(f"{path}: no gold set for domain {domain.name} (write one, or use --extend with a model)")
    items = load_list(GoldItem, path, "gold")
    for i, it in enumerate(items):
        if it.rule not in domain.rules:
            raise SpecError(f"{path}: gold[{i} {it.id}].rule: unknown rule {it.rule!r}")
        sit = domain.situations.get(it.situation)
        if sit is None:
            raise SpecError(f"{path}: gold[{i} {it.id}].situation: unknown situation {it.situation!r}")
        if it.rule not in sit.rules:
            raise SpecError(f"{path}: gold[{i} {it.id}]: rule {it.rule} does not apply in situation {it.situation}")
    return items


def coverage_gaps(domain, items: list[GoldItem]) -> list[tuple[str, str, str]]:
    """(rule, situation, label) triples the gold set lacks."""
    have = {(i.rule, i.situation, i.label) for i in items}
    gaps = []
    for sit in domain.situations.values():
        for r in sit.rules:
            if r in domain.rules:
                for label in ("FOLLOWED", "VIOLATED"):
                    if (r, sit.id, label) not in have:
                        gaps.append((r, sit.id, label))
    return gaps


# -- judges -------------------------------------------------------------------------


class CheckJudge:
    """The deterministic checks, measured like a judge (rules without one: NEEDS_REVIEW)."""

    name = "checks"

    async def judge_turn(self, situation, rules, events, reply_index) -> list[Verdict]:
        from graders.rules.checks import run_check

        out = []
        for r in rules:
            if r.check is None:
                out.append(Verdict(turn=events[reply_index].turn, situation=situation.id, rule=r.id,
                                   verdict="NEEDS_REVIEW", rationale="no deterministic check", source="check"))
                continue
            v, why = run_check(r.check.type, r.check.params, events, reply_index)
            out.append(Verdict(turn=events[reply_index].turn, situation=situation.id, rule=r.id, verdict=v, rationale=why))
        return out


# -- arithmetic ---------------------------------------------------------------------


def rule_stats(pairs: list[tuple[str, str]], threshold: float = 0.8) -> dict[str, Any]:
    """Per-rule numbers from (gold label, judge verdict) pairs.

    accuracy counts NEEDS_REVIEW as wrong (the judge did not deliver a verdict);
    sensitivity = P(FOLLOWED | gold FOLLOWED) and specificity = P(VIOLATED | gold
    VIOLATED) are computed over decided verdicts only, for Rogan-Gladen.
    """
    n = len(pairs)
    correct = sum(1 for g, v in pairs if g == v)
    false_violated = sum(1 for g, v in pairs if g == "FOLLOWED" and v == "VIOLATED")
    false_followed = sum(1 for g, v in pairs if g == "VIOLATED" and v == "FOLLOWED")
    review = sum(1 for _, v in pairs if v not in ("FOLLOWED", "VIOLATED"))
    pos = [(g, v) for g, v in pairs if g == "FOLLOWED" and v in ("FOLLOWED", "VIOLATED")]
    neg = [(g, v) for g, v in pairs if g == "VIOLATED" and v in ("FOLLOWED", "VIOLATED")]
    se = sum(1 for _, v in pos if v == "FOLLOWED") / len(pos) if pos else None
    sp = sum(1 for _, v in neg if v == "VIOLATED") / len(neg) if neg else None
    acc = correct / n if n else None
    return {
        "items": n,
        "correct": correct,
        "accuracy": acc,
        "false_violated": false_violated,
        "false_followed": false_followed,
        # > 1: the judge errs on the strict side; < 1: on the lenient side; None: no errors of one kind.
        "strict_lenient_ratio": (false_violated / false_followed) if false_followed else None,
        "needs_review": review,
        "needs_review_rate": review / n if n else None,
        "sensitivity": se,
        "specificity": sp,
        "n_followed": len(pos),
        "n_violated": len(neg),
        "trustworthy": acc is not None and acc >= threshold,
    }


def apply_calibration(summary: RunSummary, path: Path) -> RunSummary:
    """Add corrected compliance (and untrusted flags) to a run summary, in place; returns it.

    A rule the calibration has no numbers for stays ``calibrated: false``.
    Raises SpecError (one line) for a missing or malformed file.
    """
    try:
        cal = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(f"{path}: --calibration: file not found") from None
    except json.JSONDecodeError as e:
        raise SpecError(f"{path}: --calibration: not JSON ({e.msg}, line {e.lineno})") from None
    # the held-out numbers, when the calibration has them, are the honest ones
    src = cal.get("heldout") if isinstance(cal, dict) and isinstance(cal.get("heldout"), dict) else cal
    rules = src.get("rules") if isinstance(src, dict) else None
    if not isinstance(rules, dict):
        raise SpecError(f"{path}: rules: missing (is this a calibration.json?)")
    summary.calibration = CalibrationInfo(file=str(path), judge=cal.get("judge"), threshold=cal.get("threshold"))
    for rid, entry in summary.rules.items():
        c = rules.get(rid)
        if c is None:
            continue  # calibrated: false, or as the domain's check calibration left it
        entry.calibrated = True
        entry.judge_accuracy = c["accuracy"]
        entry.untrusted = not c["trustworthy"]
        se, sp = c["sensitivity"], c["specificity"]
        for cell in [entry, *entry.by_situation.values()]:
            n, f = cell.judged, cell.followed
            if n and se is not None and sp is not None:
                cell.corrected = rogan_gladen(f / n, se, sp)
                cell.corrected_ci95 = rogan_gladen_ci(f, n, se, sp, c["n_followed"], c["n_violated"])
            else:
                cell.corrected = None
                cell.corrected_ci95 = None
    return summary


# -- running ------------------------------------------------------------------------


async def run_calibration(domain, items: list[GoldItem], judge, seed: int = 0, concurrency: int = 8) -> list[dict]:
    """Judge every gold item blind, in shuffled order; returns one row per item."""
    order = list(items)
    random.Random(seed).shuffle(order)
    sem = asyncio.Semaphore(concurrency)

    async def one(it: GoldItem) -> dict:
        async with sem:
            events, idx = it.events()
            sit = domain.situations[it.situation]
            verdicts = await judge.judge_turn(sit, [domain.rules[it.rule]], events, idx)
            v = next((x for x in verdicts if x.rule == it.rule), None)
            return {
                "id": it.id,
                "rule": it.rule,
                "situation": it.situation,
                "label": it.label,
                "source": it.source,
                "verdict": v.verdict if v else "NEEDS_REVIEW",
                "rationale": v.rationale if v else "the judge returned no verdict for this rule",
            }

    return list(await asyncio.gather(*(one(it) for it in order)))


def report(rows: list[dict], threshold: float) -> dict:
    """Per-rule statistics. The judge's prompt shows each rule's good and bad example, so
    gold items copied from those examples are easy for it: trust is decided on the other
    items when a rule has at least two, and both accuracies are reported."""
    by_rule: dict[str, list[tuple[str, str]]] = defaultdict(list)
    written: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in rows:
        by_rule[r["rule"]].append((r["label"], r["verdict"]))
        if r.get("source") != "rule example":
            written[r["rule"]].append((r["label"], r["verdict"]))
    rules = {}
    for rid, pairs in sorted(by_rule.items()):
        st = rule_stats(pairs, threshold)
        w = written.get(rid, [])
        st["accuracy_without_rule_examples"] = rule_stats(w)["accuracy"] if w else None
        st["items_without_rule_examples"] = len(w)
        if len(w) >= 2:
            st["trustworthy"] = st["accuracy_without_rule_examples"] >= threshold
        rules[rid] = st
    overall = rule_stats([p for pairs in by_rule.values() for p in pairs], threshold)
    return {
        "threshold": threshold,
        "overall": overall,
        "rules": rules,
        "untrustworthy": [rid for rid, s in rules.items() if not s["trustworthy"]],
        "items": rows,
    }


def print_report(cal: dict, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    t = Table(title=f"judge calibration: {cal.get('judge')} on {cal['overall']['items']} gold replies")
    for col in ("rule", "accuracy", "w/o rule examples", "correct/items", "false VIOLATED", "false FOLLOWED", "strict:lenient", "needs review", "trust"):
        t.add_column(col)
    for rid, s in cal["rules"].items():
        ratio = "-" if s["strict_lenient_ratio"] is None else f"{s['strict_lenient_ratio']:.2f}"
        aw = s.get("accuracy_without_rule_examples")
        t.add_row(
            rid,
            f"{s['accuracy']:.2f}",
            "-" if aw is None else f"{aw:.2f} ({s['items_without_rule_examples']})",
            f"{s['correct']}/{s['items']}",
            str(s["false_violated"]),
            str(s["false_followed"]),
            ratio,
            f"{s['needs_review_rate']:.0%}",
            "yes" if s["trustworthy"] else "[red]NO[/red]",
        )
    console.print(t)
    o = cal["overall"]
    console.print(
        f"overall accuracy {o['accuracy']:.3f} ({o['correct']}/{o['items']}); "
        f"untrustworthy below {cal['threshold']}: {', '.join(cal['untrustworthy']) or 'none'}",
        soft_wrap=True,
    )


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    import envs  # noqa: F401
    from envs.domain import get_domain
    from graders.calibrate import sets

    ap = argparse.ArgumentParser(prog="python -m graders.calibrate", description="Measure a judge on a domain's gold set.")
    ap.add_argument("--domain", required=True)
    ap.add_argument("--judge", required=True, help="a litellm model string, or 'checks' for the deterministic checks")
    ap.add_argument("--gold", default=None, help="gold set file, or NAME:PATH for a source the domain declares "
                    "(e.g. mrbench:FILE); default: domains/<d>/gold.yaml")
    ap.add_argument("--heldout", default=None, help="held-out gold set measured beside --gold ('none': skip); "
                    "default: domains/<d>/gold_heldout.yaml when it exists and --gold is not given")
    ap.add_argument("--write-check-calibration", action="store_true",
                    help="with --judge checks: store the checks' held-out error in domains/<d>/check_calibration.json")
    ap.add_argument("--out", default="calibration.json")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--extend", action="store_true", help="have --judge's model write gold items for missing pairs first")
    ap.add_argument("--api-base", default=None)
    ap.add_argument("--judge-api-base", default=None)
    ap.add_argument("--client", choices=("auto", "litellm", "direct"), default=None, help="as in envs.run.cli (default auto)")
    ap.add_argument("--judge-tool-mode", choices=("native", "json"), default=None, help="json: verdicts through response_format")
    ap.add_argument("--judge-temperature", type=float, default=None)
    ap.add_argument("--judge-max-tokens", type=int, default=None)
    ap.add_argument("--cache", default=None)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args(argv)
    console = Console()
    try:
        domain = get_domain(args.domain)
        gold_spec = args.gold or str(gold_path(domain))
        if args.heldout == "none":
            heldout = None
        elif args.heldout:
            heldout = Path(args.heldout)
        else:
            hp = sets.heldout_path(domain)
            heldout = hp if args.gold is None and hp.exists() else None
        if args.write_check_calibration and (args.judge != "checks" or heldout is None):
            raise SpecError("--write-check-calibration: needs --judge checks and a held-out set (domains/<d>/gold_heldout.yaml)")
        if args.judge == "checks":
            judge = CheckJudge()
            if args.extend:
                raise SpecError("--extend: needs a model as --judge, not 'checks'")
        else:
            from envs.run.llm_flags import make_calibration_judge

            judge = make_calibration_judge(domain, args)
            if args.extend:
                from graders.calibrate.gold_writer import extend_gold

                gold = Path(gold_spec)
                added = extend_gold(domain, gold, judge, coverage_gaps(domain, load_gold(domain, gold) if gold.exists() else []))
                console.print(f"added {added} unreviewed gold items to {gold}")
        items, info = sets.load_source(domain, gold_spec)
        rows = asyncio.run(run_calibration(domain, items, judge, seed=args.seed, concurrency=args.concurrency))
        held_items = load_gold(domain, heldout) if heldout else None
        held_rows = asyncio.run(run_calibration(domain, held_items, judge, seed=args.seed, concurrency=args.concurrency)) if heldout else None
    except SpecError as e:
        console.print(f"[red]error:[/red] {e}", soft_wrap=True, highlight=False)
        return 2
    cal = report(rows, args.threshold)
    cal["judge"] = args.judge
    cal["domain"] = domain.name
    cal["gold"] = gold_spec
    gaps = coverage_gaps(domain, items) if info["source"] == "yaml" else []
    cal["gold_gaps"] = [{"rule": r, "situation": s, "label": l} for r, s, l in gaps]
    if info["source"] != "yaml":
        cal["gold_source"] = info
        cal["agreement"] = sets.agreement_report(rows)
    if held_rows is not None:
        cal["heldout"] = {"gold": str(heldout), **report(held_rows, args.threshold)}
        cal["sides"] = sets.side_by_side(cal, cal["heldout"])
    Path(args.out).write_text(json.dumps(cal, indent=2), encoding="utf-8")
    print_report(cal, console)
    if "agreement" in cal:
        sets.print_agreement(cal["agreement"], info, console, args.judge)
    if "sides" in cal:
        sets.print_side_by_side(cal["sides"], console, args.judge)
        learned = [r for r, s in cal["sides"].items() if s["learned_its_examples"]]
        if learned:
            console.print(f"[red]learned its examples[/red] (held-out accuracy more than {sets.LEARNED_MARGIN} "
                          f"below development): {', '.join(learned)}", soft_wrap=True)
    if gaps:
        console.print(f"[yellow]{len(gaps)} (rule, situation, label) combinations have no gold item[/yellow]")
    if args.write_check_calibration:
        from graders.calibrate.check_calibration import write_check_calibration

        path = write_check_calibration(domain, cal["heldout"], str(heldout))
        console.print(f"wrote {path}", soft_wrap=True)
    console.print(f"wrote {args.out}", soft_wrap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
