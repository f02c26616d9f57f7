"""The runner's flags checked up front, before any domain is built or any episode played.

``check_flags(args)`` raises ``SpecError`` with one line, ``--FLAG: reason``, for: a count
below its minimum (``--concurrency``, ``--workers``, ``--repeats``, ``--model-concurrency``,
``--ROLE-max-tokens`` at least 1; ``--max-retries`` at least 0; ``--request-timeout`` and
``--request-backoff`` above 0; temperatures at least 0), a ``--resume`` folder that does not
exist or holds no run, an ``--out`` that is a file, and a ``--calibration`` file that is
missing or malformed (its rule ids are checked against the domain once it is known, by
``check_domain_flags``, which runs once the domain is configured and before any episode).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from envs.errors import SpecError

AT_LEAST_ONE = ("concurrency", "workers", "repeats", "model_concurrency", "agent_max_tokens", "user_max_tokens",
                "judge_max_tokens")


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_flags(args: argparse.Namespace) -> None:
    """Raise SpecError (one line) for the first bad flag value (module docstring)."""
    for dest in AT_LEAST_ONE:
        v = getattr(args, dest, None)
        if v is not None and v < 1:
            raise SpecError(f"{_flag(dest)}: must be at least 1 (got {v})")
    v = getattr(args, "max_retries", None)
    if v is not None and v < 0:
        raise SpecError(f"--max-retries: must be at least 0 (got {v})")
    for dest in ("request_timeout", "request_backoff"):
        v = getattr(args, dest, None)
        if v is not None and not v > 0:
            raise SpecError(f"{_flag(dest)}: must be above 0 seconds (got {v:g})")
    for role in ("agent", "user", "judge"):
        v = getattr(args, f"{role}_temperature", None)
        if v is not None and not v >= 0:
            raise SpecError(f"--{role}-temperature: must be at least 0 (got {v:g})")
    if getattr(args, "backend", None) == "ray":
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise SpecError("--backend ray: Ray is not installed (install the ray extra: pip install -e '.[ray]')")
        for role in ("agent", "user"):  # a flag a backend cannot honour is refused before the run
            if getattr(args, role, None) == "human":
                raise SpecError(f"--backend ray: --{role} human plays at this terminal, not on a Ray worker; use the local backend")
    if getattr(args, "resume", None):
        d = Path(args.resume)
        if not d.exists():
            raise SpecError(f"--resume: {d}: no such run folder")
        if not d.is_dir():
            raise SpecError(f"--resume: {d}: is a file, not a run folder")
        if not (d / "config.json").is_file():
            raise SpecError(f"--resume: {d}: holds no run (no config.json)")
    if getattr(args, "out", None):
        d = Path(args.out)
        if args.resume:
            raise SpecError("--out: not with --resume (the run stays in its folder)")
        if d.exists() and not d.is_dir():
            raise SpecError(f"--out: {d}: is a file; give a folder for the run")
        if (d / "episodes.jsonl").exists():
            raise SpecError(f"--out: {d} already holds a run; use --resume {d} or another folder")
    if getattr(args, "calibration", None):
        from envs.spec.check import check_calibration

        problems = check_calibration(args.calibration)
        if problems:
            raise SpecError(problems[0] + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""))


def check_domain_flags(domain, calibration: str | None) -> None:
    """Raise SpecError when the calibration file names rules the domain does not have, or lacks
    the numbers a run corrects with (a flag a domain does not take, such as ``--problems`` with
    support, is refused by ``envs.run.config.configure_domain`` as an unknown domain option)."""
    if calibration:
        from envs.spec.check import check_calibration

        problems = check_calibration(calibration, domain)
        if problems:
            raise SpecError(problems[0] + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""))
