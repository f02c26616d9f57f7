"""The LLM judge that ``python -m graders.calibrate`` measures, built from its flags."""

from __future__ import annotations

import argparse
from typing import Any

from envs.llm.context import make_llm_context


def make_calibration_judge(domain: Any, args: argparse.Namespace) -> Any:
    """An ``LLMJudge`` for ``python -m graders.calibrate`` (checked before any item is judged)."""
    from envs.actors.roles import make_llm_judge
    from envs.actors.roles import RoleConfig

    role = RoleConfig(
        spec=args.judge,
        api_base=args.judge_api_base or args.api_base,
        temperature=args.judge_temperature,
        max_tokens=args.judge_max_tokens,
        tool_mode=getattr(args, "judge_tool_mode", None),
    )
    cfg = {"llm": {"cache": args.cache, "client": getattr(args, "client", None)}}
    ctx = make_llm_context(cfg, {"judge": role})
    ctx.preflight()
    return make_llm_judge(domain, role, ctx)()
