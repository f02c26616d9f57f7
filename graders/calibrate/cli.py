"""``python -m graders.calibrate``: the command line of the calibration, and its printed report.

``main`` measures ``--judge`` (a model, or ``checks``) on a domain's gold set and its held-out set,
writes ``calibration.json`` (``--out``) and prints the per-rule table (``print_report``); the
statistics themselves are ``graders.calibrate.calibration``. Bad input: one line, exit 2.
"""

from __future__ import annotations

from rich.markup import escape  # a message may hold brackets (paths, gold[3], .[ray]): never markup

import argparse
import asyncio
import json
import sys
from pathlib import Path

from envs.errors import SpecError
from graders.calibrate.calibration import CheckJudge, coverage_gaps, gold_path, load_gold, report, run_calibration


def _na_cell(s: dict) -> str:
    """NOT_APPLICABLE agreement of one rule: gold n/a items the judge called n/a, and the two
    applicability errors."""
    n = s.get("n_not_applicable", 0)
    agreed = round((s.get("not_applicable_agreement") or 0) * n)
    return f"{agreed}/{n} ({s.get('false_not_applicable', 0)}, {s.get('false_applicable', 0)})"


def print_report(cal: dict, console=None) -> None:
    from rich.console import Console
    from envs.table_style import line_table

    console = console or Console()
    t = line_table(f"judge calibration: {cal.get('judge')} on {cal['overall']['items']} gold replies")
    for col in ("rule", "accuracy", "w/o rule examples", "correct/items", "false VIOLATED", "false FOLLOWED", "strict:lenient",
                "n/a: agreed/gold (false n/a, false applicable)", "needs review", "trust"):
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
            _na_cell(s),
            f"{s['needs_review_rate']:.0%}",
            "yes" if s["trustworthy"] else "[red]NO[/red]",
        )
    console.print(t)
    o = cal["overall"]
    na = f"NOT_APPLICABLE: {_na_cell(o)} agreed/gold (false n/a, false applicable); "
    console.print(
        f"overall accuracy {o['accuracy']:.3f} ({o['correct']}/{o['items']}); {na}"
        f"untrustworthy below {cal['threshold']}: {', '.join(cal['untrustworthy']) or 'none'}",
        soft_wrap=True,
    )


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    import envs  # noqa: F401
    from envs.domain import get_domain
    from graders.calibrate import sets

    ap = argparse.ArgumentParser(prog="python -m graders.calibrate", description="Measure a judge on a domain's gold set.")
    ap.add_argument("--domain", required=True, help="domain name (support, tutoring, taubench-retail, ...)")
    ap.add_argument("--judge", required=True, help="a litellm model string, or 'checks' for the deterministic checks")
    ap.add_argument("--gold", default=None, help="gold set file in the domain's format (PATH or yaml:PATH), or NAME:PATH "
                    "for a source the domain declares (e.g. mrbench:FILE); default: domains/<d>/gold.yaml")
    ap.add_argument("--heldout", default=None, help="held-out gold set measured beside --gold ('none': skip); "
                    "default: domains/<d>/gold_heldout.yaml when it exists and --gold is not given")
    ap.add_argument("--write-check-calibration", action="store_true",
                    help="with --judge checks: store the checks' held-out error in domains/<d>/check_calibration.json")
    ap.add_argument("--out", default="calibration.json", help="where to write the measurement as JSON (default calibration.json)")
    ap.add_argument("--threshold", type=float, default=0.8, help="a rule whose agreement with the gold set is below this is untrustworthy (default 0.8)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the order the gold items are judged in (default 0)")
    ap.add_argument("--extend", action="store_true", help="have --judge's model write gold items for missing pairs first")
    ap.add_argument("--api-base", default=None, help="OpenAI-compatible server for the judge (vLLM, llama.cpp, Ollama)")
    ap.add_argument("--judge-api-base", default=None, help="server for the judge only (overrides --api-base)")
    ap.add_argument("--client", choices=("auto", "litellm", "direct"), default=None, help="as in envs.run.cli (default auto)")
    ap.add_argument("--judge-tool-mode", choices=("native", "json"), default=None, help="json: verdicts through response_format")
    ap.add_argument("--judge-temperature", type=float, default=None, help="judge temperature (default 0)")
    ap.add_argument("--judge-max-tokens", type=int, default=None, help="judge max tokens per reply (local: 256)")
    ap.add_argument("--cache", default=None, metavar="DIR", help="on-disk response cache: a rerun replays answers with no request")
    ap.add_argument("--concurrency", type=int, default=8, help="judge requests in flight at once (default 8)")
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
            from graders.calibrate.judge import make_calibration_judge

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
        console.print(f"[red]error:[/red] {escape(str(e))}", soft_wrap=True, highlight=False)
        return 2
    cal = report(rows, args.threshold)
    cal["judge"] = args.judge
    cal["domain"] = domain.name
    cal["gold"] = gold_spec
    gaps = coverage_gaps(domain, items) if info["source"] == "yaml" else []
    cal["gold_gaps"] = [{"rule": r, "situation": s, "label": l} for r, s, l in gaps]
    if info["source"] != "yaml" or args.gold:
        # a set named on the command line (an imported one, or a fresh YAML one) gets the agreement
        # table too: kappa and the confusion of gold FOLLOWED / VIOLATED / NOT_APPLICABLE
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
