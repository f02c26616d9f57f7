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


def task_hashes(domain: Any, task_ids: list[str]) -> dict[str, str]:
    """Each task's content hash (its validated spec, as the run plays it), by id."""
    import hashlib

    return {t: hashlib.sha256(domain.tasks[t].model_dump_json().encode()).hexdigest()[:16] for t in task_ids}


def refuse_changed_tasks(cfg: RunConfig, domain: Any, task_ids: list[str]) -> None:
    """SpecError (one line) when the tasks of the run being resumed changed since it started: a task
    edited, gone, or new ones the selection would now match (repeats of one task graded against
    two goals, or a run that grows, would no longer be one run). A run recorded without hashes
    (an older version) is not checked."""
    from envs.errors import SpecError

    pinned = cfg.task_hashes
    if not pinned:
        return
    now = task_hashes(domain, [t for t in task_ids if t in pinned])
    changed = sorted(t for t, h in now.items() if h != pinned[t])
    gone = sorted(set(pinned) - set(task_ids))
    new = sorted(set(task_ids) - set(pinned))
    if changed:
        raise SpecError(f"--resume: task {changed[0]} changed since the run started"
                        f"{f' (and {len(changed) - 1} more)' if len(changed) > 1 else ''}; its repeats would be graded against "
                        "two goals: restore the task file or start a new run")
    if new:
        raise SpecError(f"--resume: the run's task selection now matches {len(new)} more task(s) ({', '.join(new[:3])}"
                        f"{', ...' if len(new) > 3 else ''}) than when it started; start a new run for them")
    if gone:
        raise SpecError(f"--resume: task {gone[0]} of the run is no longer in the domain"
                        f"{f' (and {len(gone) - 1} more)' if len(gone) > 1 else ''}; restore it or start a new run")
