"""``python -m envs.rollout``: grouped rollouts (N per task from the identical initial state) as JSONL.

    python -m envs.rollout --domain support --tasks 'sup_ambig*' --group-size 8 --out rollouts.jsonl
    python -m envs.rollout --domain support --agent openai/my-model --api-base http://127.0.0.1:8000/v1 \\
        --group-size 8 --weights outcome=1,violations=-0.1 --scale-by-std --out rollouts.jsonl

Each line is one rollout in the OpenAI chat format with its reward parts, dense turn rewards and
advantage (see ``envs.rl``); a summary per group is printed. Roles and LLM flags as in
``python -m envs.run``. Bad input: one line, exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    from envs.run.llm_flags import add_llm_arguments

    ap = argparse.ArgumentParser(prog="python -m envs.rollout", description=__doc__.split("\n\n")[0])
    ap.add_argument("--domain", required=True, help="domain name (support, tutoring, taubench-retail, ...)")
    ap.add_argument("--domain-option", action="append", default=[], metavar="KEY=VALUE", help="a domain option, validated by the domain (repeatable), e.g. problems=FILE.jsonl")
    ap.add_argument("--tasks", nargs="+", default=None, help="task ids or globs (default: every task)")
    ap.add_argument("--tags", nargs="+", default=None, metavar="TAG", help="only tasks carrying any of these tags (e.g. hard)")
    ap.add_argument("--group-size", type=int, default=8, help="rollouts per task (default 8)")
    ap.add_argument("--agent", default="scripted", help="the policy: scripted[:variant] or a litellm model string (default scripted)")
    ap.add_argument("--user", default="scripted", help="the simulated user: scripted or a litellm model string (default scripted)")
    ap.add_argument("--judge", default=None, help="a litellm model string for rules without a check (default: none)")
    ap.add_argument("--seed", type=int, default=0, help="batch seed; each rollout's user and agent seeds derive from it (default 0)")
    ap.add_argument("--user-seed", choices=("same", "distinct"), default="same",
                    help="same: one user seed for the whole group (default); distinct: one per rollout")
    ap.add_argument("--weights", default=None, help="reward part weights, e.g. outcome=1,violations=-0.1,minefields=-0.5")
    ap.add_argument("--scale-by-std", action="store_true", help="divide advantages by the group's std (GRPO)")
    ap.add_argument("--concurrency", type=int, default=8, help="rollouts in flight at once (default 8)")
    ap.add_argument("--out", required=True, help="the JSONL file to write (one rollout a line)")
    add_llm_arguments(ap)
    return ap


def main(argv: list[str] | None = None) -> int:
    import envs  # noqa: F401
    from envs.actors.roles import agent_factory, judge_factory, user_factory
    from envs.domain import get_domain
    from envs.errors import SpecError
    from envs.rl.export import write_jsonl
    from envs.rl.rewards import RewardWeights
    from envs.rl.rollout import rollout_groups
    from envs.run.args import needs_llm, role_configs, select_tasks
    from envs.run.config import RunConfig
    from envs.run.config import parse_domain_options

    args = build_parser().parse_args(argv)
    try:
        if args.group_size < 1:
            raise SpecError("--group-size: must be at least 1")
        if args.concurrency < 1:
            raise SpecError("--concurrency: must be at least 1")
        weights = RewardWeights.parse(args.weights)
        domain = get_domain(args.domain, parse_domain_options(args.domain_option) or None)
        task_ids = select_tasks(domain.tasks, args.tasks, args.tags)
        llm = {k: v for k, v in vars(args).items() if v is not None}
        cfg = RunConfig(domain=args.domain, agent=args.agent, user=args.user, judge=args.judge, llm=llm)
        roles = role_configs(cfg)
        ctx = None
        if needs_llm(roles):
            from envs.run.llm_flags import make_llm_context

            ctx = make_llm_context({"llm": llm}, roles)
            ctx.preflight()
        agent_f = agent_factory(domain, roles["agent"], ctx)
        user_f = user_factory(domain, roles["user"], ctx)
        judge_f = judge_factory(domain, roles["judge"], ctx)
        groups = asyncio.run(
            rollout_groups(domain, task_ids, agent_f, user_f, group_size=args.group_size, seed=args.seed,
                           user_seed=args.user_seed, weights=weights, judge_factory=judge_f,
                           concurrency=args.concurrency, scale_by_std=args.scale_by_std)
        )
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    n = write_jsonl((t for g in groups for t in g.trajectories), Path(args.out))
    for g in groups:
        errs = sum(t.status != "ok" for t in g.trajectories)
        print(json.dumps({"task": g.task_id, "rollouts": len(g.trajectories), "mean": round(g.mean, 4),
                          "std": round(g.std, 4), "errors": errs}))
    print(json.dumps({"trajectories": n, "out": args.out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
