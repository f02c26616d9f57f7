"""``python -m envs.check [--domain D]``: every task, persona, situation, rule and gold file
checked and cross-referenced before any episode, plus the task lint (envs/spec/check.py).

Prints every problem as a ``FILE: field: reason`` line and exits 2, or prints one summary
line per domain and exits 0. Lint warnings on imported tasks are counted by kind
(``envs/spec/warning_kinds.py``), each one printed with ``--verbose``. Without ``--domain`` it checks every registered domain; a domain
whose data is not on this machine (tau-bench's) is reported as skipped, with the reason.
"""

from __future__ import annotations

import argparse
import builtins
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m envs.check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--domain", action="append", default=None, help="domain to check (repeatable; default: all)")
    ap.add_argument(
        "--domain-option", action="append", default=None, metavar="KEY=VALUE",
        help="a domain option, as for envs.run (e.g. problems=FILE.jsonl)",
    )
    ap.add_argument("--calibration", default=None, help="also validate this calibration.json against the domain")
    ap.add_argument("--tasks", nargs="+", default=None, help="check only these task ids or globs (needs --domain)")
    ap.add_argument("--tags", nargs="+", default=None, metavar="TAG", help="check only tasks carrying any of these tags (needs --domain)")
    ap.add_argument("--no-lint", action="store_true", help="cross-references only, without the task lint")
    ap.add_argument("--verbose", action="store_true",
                    help="print every lint warning on imported tasks (default: their counts by kind)")
    ap.add_argument("--no-cache", action="store_true",
                    help="check again even if these exact files were checked before (envs/spec/check_cache.py)")
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    key = None
    if args.domain and not (args.no_cache or args.calibration):
        from envs.spec.check_output_cache import output_key, saved_output

        key = output_key(argv)
        saved = saved_output(key) if key else None
        if saved is not None:
            lines, status = saved
            for line in lines:
                print(line)
            return status
    lines: list[str] = []
    cacheable: list[bool] = []
    status = _check(args, lines, cacheable)
    if key and cacheable and all(cacheable):
        from envs.spec.check_output_cache import save_output

        save_output(key, lines, status)
    return status


def _check(args: argparse.Namespace, lines: list[str], cacheable: list[bool]) -> int:
    """The check itself; each printed line also goes to ``lines``, and each domain checked adds
    to ``cacheable`` whether its report is one the content-keyed cache keeps."""

    def print(line: str) -> None:  # noqa: A001 (this command's output, also kept for the output cache)
        lines.append(str(line))
        builtins.print(line)

    from envs.domain import get_domain
    from envs.domain.registry import domain_names
    from envs.errors import SpecError
    from envs.run.config import parse_domain_options
    from envs.spec.check import check_calibration, check_domain
    from envs.spec.check_cache import cached_check, check_key

    explicit = bool(args.domain)
    problems = 0
    try:
        if (args.tasks or args.tags) and not explicit:
            raise SpecError("--tasks/--tags: need --domain (task ids and tags belong to one domain)")
        options = parse_domain_options(args.domain_option or [])
        names = args.domain or domain_names()
        for name in names:
            try:
                domain = get_domain(name, options if explicit else None)
                only = None
                if args.tasks or args.tags:
                    from envs.spec.selection import select_task_ids

                    try:
                        only = set(select_task_ids(domain.tasks, args.tasks, args.tags))
                    except SpecError as e:
                        if str(e).startswith(("--tasks", "--tags")):
                            raise
                        only = None  # the tasks do not load: check_domain reports each bad file
                # the lint plays the do-nothing agents on each task
                check = check_domain if args.no_cache else cached_check
                report = check(domain, lint=not args.no_lint, only=only, play=not args.no_lint)
                cacheable.append(check_key(domain, not args.no_lint, True, only, not args.no_lint) is not None)
            except SpecError as e:
                if not explicit and "data" in str(e).lower():
                    print(f"{name}: skipped ({e})")
                    continue
                print(e)
                cacheable.append(False)
                problems += 1
                continue
            if args.calibration:
                report.problems += check_calibration(args.calibration, domain)
            for line in report.problems:
                print(line)
            if args.verbose:
                for line in report.warnings:
                    print(f"warning: {line}")
            else:
                from envs.spec.warning_kinds import summary_lines

                for line in summary_lines(report.warnings, [*domain.agent_tools.names(), *domain.user_tools.names()]):
                    print(line)
            print(report.summary())
            problems += len(report.problems)
    except SpecError as e:
        print(f"error: {e}")
        return 2
    return 2 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
