"""What ``--resume`` refuses: a flag that would change which episodes belong to the run, or how they
are played and judged. Each refusal is a ``SpecError`` naming the flag (one line, exit 2)."""

from __future__ import annotations

import argparse
from typing import Any

from envs.run.config import RunConfig

# Resuming may not change which episodes belong to the run or how they are played and judged.
RUN_DEFINING = ("domain", "repeats", "tasks", "tags", "agent", "user", "judge", "seed")
# LLM settings that change the answers (and so the episodes); api bases, cache, timeouts,
# retries and concurrency may change on resume.
LLM_DEFINING = ("_temperature", "_max_tokens", "tool_mode")


def refuse_changed_run(cfg: RunConfig, args: argparse.Namespace) -> None:
    """SpecError naming the first flag whose value differs from the resumed run's config
    (a flag the run was started without counts as a change: ``--judge M`` on a judge-less run)."""
    from envs.errors import SpecError

    for k in RUN_DEFINING:
        v = getattr(args, k, None)
        if v is None:
            continue
        current = getattr(cfg, k)
        if k in ("tasks", "tags"):
            v = [p for item in v for p in item.split(",") if p] or None
            current = [p for item in current for p in item.split(",") if p] if current else None
        if v != current:
            raise SpecError(f"--{k}: differs from the run being resumed ({current!r}); a run folder is one run, drop it")


def refuse_changed_llm(cfg: RunConfig, llm: dict[str, Any]) -> None:
    """SpecError naming the first LLM flag that would change how the run's episodes are played or judged."""
    from envs.errors import SpecError

    for k, v in llm.items():
        if k.endswith(LLM_DEFINING) and cfg.llm.get(k) != v:
            raise SpecError(
                f"--{k.replace('_', '-')}: differs from the run being resumed ({cfg.llm.get(k)!r}); a run folder is one run, drop it"
            )
