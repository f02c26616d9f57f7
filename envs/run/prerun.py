"""The checks a run makes once its domain is configured, before any episode is played."""

from __future__ import annotations

from envs.run.config import RunConfig


def check_domain_before_run(cfg: RunConfig, domain, console) -> None:
    """The calibration file against the domain's rules, and every spec of the domain
    with the task lint (envs/spec/check.py), before any episode; SpecError lists every problem."""
    from envs.errors import SpecError
    from envs.run.flag_check import check_domain_flags
    from envs.spec.check_cache import cached_check

    check_domain_flags(domain, cfg.calibration)
    # the gold sets are calibration's, not the run's; the same files checked before: the saved report
    report = cached_check(domain, gold=False)
    if not report.ok:
        lines = "\n".join(report.problems)
        raise SpecError(f"{len(report.problems)} problems in domain {domain.name} (python -m envs.check --domain {domain.name}):\n{lines}")
    if report.warnings:
        console.print(f"{len(report.warnings)} lint warnings on imported tasks (python -m envs.check --domain {domain.name})", highlight=False)

