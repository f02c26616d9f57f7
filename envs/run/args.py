"""The runner's command line: the parser and what the flags make of a run's config.

``build_parser()`` is every flag of ``python -m envs.run`` (the limits and LLM flags come from
``envs.run.limits`` and ``envs.run.llm_flags``); ``config_from_args`` turns parsed flags into the
run's ``RunConfig`` (a resumed run's own config, refusing flags that would change it);
``select_tasks`` applies ``--tasks`` globs and ``--tags``; ``role_llm_settings`` is one role's LLM settings.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from envs.run.config import RunConfig, parse_domain_options
from envs.run.resume import refuse_changed_llm, refuse_changed_run

# The first paragraph of envs/run/cli.py's docstring, shown by --help.
DESCRIPTION = "``python -m envs.run``: play every selected task N times, grade, report pass^k."


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m envs.run", description=DESCRIPTION)
    ap.add_argument("--domain", help="domain name (support, tutoring, taubench-retail, ...)")
    ap.add_argument("--repeats", type=int, default=None, help="trials per task (pass^1..pass^N); default 1")
    ap.add_argument("--tasks", nargs="*", default=None, help="task ids or globs (space or comma separated)")
    ap.add_argument("--tags", nargs="+", default=None, metavar="TAG",
                    help="only tasks carrying any of these tags (a tier: hard); combines with --tasks")
    ap.add_argument("--agent", default=None, help="scripted[:variant] (optionally @slip=RATE: a seeded slip, an instrument for envs.variance), human (you play the agent), or a litellm model string")
    ap.add_argument("--user", default=None, help="scripted[:variant] (optionally @slip=RATE, as for --agent), human (you play the user), or a litellm model string")
    ap.add_argument("--judge", default=None, help="a litellm model string for rules without a check (default: none)")
    ap.add_argument("--seed", type=int, default=None, help="run seed; each episode's seed derives from it (default 0)")
    ap.add_argument("--out", default=None, help="run folder (default runs/<run-id>)")
    ap.add_argument("--concurrency", type=int, default=None, help="episodes in flight at once (default 1 scripted, 8 LLM)")
    ap.add_argument("--resume", default=None, metavar="RUN_DIR", help="continue an interrupted run in RUN_DIR")
    ap.add_argument(
        "--domain-option", action="append", default=None, metavar="KEY=VALUE",
        help="a domain option, validated by the domain (repeatable), e.g. problems=FILE.jsonl",
    )
    # Aliases of domain options, kept so existing commands work (see OPTION_ALIASES).
    ap.add_argument("--taubench-data", default=None, help="= --domain-option data=PATH (taubench-retail)")
    ap.add_argument(
        "--problems", default=None,
        help="= --domain-option problems=FILE.jsonl (tutoring): tasks for the first 20 problems of the file; "
        "--domain-option problem_tasks=N for more",
    )
    ap.add_argument("--calibration", default=None, help="calibration.json from graders.calibrate.calibration")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument(
        "--reviewer", default=None, metavar="MODEL",
        help="an LLM that reviews the failures the deterministic cause rules leave weak or unknown (graders.causes)",
    )
    ap.add_argument("--reviewer-api-base", default=None, help="server for the reviewer (default: --api-base)")
    ap.add_argument(
        "--workers", type=int, default=None,
        help="processes playing episodes in parallel (default 1); for LLM runs whose client CPU saturates one core",
    )
    ap.add_argument(
        "--backend", choices=("local", "ray"), default="local",
        help="local (default): this process (and --workers processes); ray: long-lived Ray workers (--workers of them, default 2)",
    )
    ap.add_argument("--ray-address", default=None, metavar="auto|ray://HOST:PORT",
                    help="the Ray cluster to join (default: start a local Ray instance on 127.0.0.1 only, dashboard off)")

    from envs.run.limits import add_limit_arguments

    add_limit_arguments(ap)
    # Internal: a worker process reads its episodes from stdin and writes records to stdout.
    ap.add_argument("--worker-stdin", action="store_true", help=argparse.SUPPRESS)
    try:
        from envs.run.llm_flags import add_llm_arguments

        add_llm_arguments(ap)
    except ImportError:
        pass
    return ap


def select_tasks(tasks, patterns: list[str] | None, tags: list[str] | None = None) -> list[str]:
    """The ids of ``tasks`` (id -> Task, or a list of ids) chosen by ``--tasks`` and ``--tags``
    (envs.spec.selection)."""
    from envs.spec.selection import select_task_ids

    return select_task_ids(tasks, patterns, tags)


RUN_KEYS = ("domain", "repeats", "tasks", "tags", "agent", "user", "judge", "seed", "calibration")
# Flags kept as aliases of a domain option: flag dest -> option name.
OPTION_ALIASES = {"taubench_data": "data", "problems": "problems"}


def domain_options_from_args(args: argparse.Namespace) -> dict[str, str]:
    """The domain options given on the command line (aliases included), raw strings by name."""
    given = {opt: getattr(args, dest) for dest, opt in OPTION_ALIASES.items() if getattr(args, dest, None) is not None}
    return {**given, **parse_domain_options(args.domain_option or [])}

def llm_settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    return {k: v for k, v in vars(args).items() if k.startswith(("agent_", "user_", "judge_", "api_", "tool_mode", "cache", "client", "request_", "max_retries", "model_concurrency")) and v is not None}


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """The run's config: the resumed run's, else the flags' (defaults filled in).

    Domain options are merged in by ``configure_domain``, which validates them.
    """
    from envs.errors import SpecError

    if args.resume:
        from envs.run.store import RunStore

        cfg = RunStore(Path(args.resume)).read_config()
        refuse_changed_run(cfg, args)
        given = {k: getattr(args, k) for k in RUN_KEYS if getattr(args, k, None) is not None}
        cfg = cfg.model_copy(update=given)
    else:
        given = {k: getattr(args, k) for k in RUN_KEYS if getattr(args, k, None) is not None}
        if not given.get("domain"):
            raise SpecError("--domain: required (or --resume RUN_DIR)")
        cfg = RunConfig.model_validate(given)
    llm = llm_settings_from_args(args)
    if args.resume:
        refuse_changed_llm(cfg, llm)
    cfg.llm.update(llm)
    return cfg



ROLES = ("agent", "user", "judge")


def role_configs(cfg: RunConfig) -> dict[str, Any]:
    """Each role's ``RoleConfig`` from a run config (None for a role it leaves out)."""
    from envs.actors.roles import RoleConfig

    return {r: RoleConfig(spec=getattr(cfg, r), **role_llm_settings(cfg, r)) if getattr(cfg, r) else None for r in ROLES}


def needs_llm(roles: dict[str, Any]) -> bool:
    """Whether any role is played by a model (not scripted, not a person, not left out)."""
    return any(rc is not None and not rc.is_scripted and rc.spec not in ("human", "none") for rc in roles.values())


def role_llm_settings(cfg: RunConfig, role: str) -> dict:
    llm = cfg.llm
    return {
        "api_base": llm.get(f"{role}_api_base") or llm.get("api_base"),
        "temperature": llm.get(f"{role}_temperature"),
        "max_tokens": llm.get(f"{role}_max_tokens"),
        "tool_mode": llm.get(f"{role}_tool_mode") or llm.get("tool_mode"),
    }
