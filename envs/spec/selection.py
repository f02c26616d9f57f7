"""Which tasks a run plays: ``--tasks`` globs and ``--tags`` tiers, combined.

Shared by ``envs.run``, ``envs.check``, ``envs.rollout`` and the gymnasium envs so one selection
means the same everywhere. A task is chosen when its id matches any ``--tasks`` glob (every task
when none is given) AND it carries any of the ``--tags`` (every task when none is given). A glob or a
tag that selects nothing is a spec error (one line), raised before any episode is played.
"""

from __future__ import annotations

import fnmatch
from typing import Any, Iterable, Mapping

from envs.errors import SpecError


def split_items(items: Iterable[str] | str | None) -> list[str]:
    """Flag values given space or comma separated, as one flat list (empty pieces dropped)."""
    if items is None:
        return []
    if isinstance(items, str):
        items = [items]
    return [p.strip() for item in items for p in str(item).split(",") if p.strip()]


def select_task_ids(
    tasks: Mapping[str, Any] | Iterable[str],
    patterns: Iterable[str] | str | None = None,
    tags: Iterable[str] | str | None = None,
) -> list[str]:
    """The sorted ids of ``tasks`` (a mapping id -> Task, or ids alone when no tags are asked)
    that match ``patterns`` (globs) and carry any of ``tags``."""
    pats, want = split_items(patterns), split_items(tags)
    ids = sorted(tasks)
    if pats:
        unmatched = [p for p in pats if not any(fnmatch.fnmatchcase(t, p) for t in ids)]
        if unmatched:
            raise SpecError(f"--tasks: no task matches {unmatched[0]!r}")
        ids = [t for t in ids if any(fnmatch.fnmatchcase(t, p) for p in pats)]
    if not want:
        return ids
    if not isinstance(tasks, Mapping):
        raise TypeError("select_task_ids: tags need the tasks themselves, not their ids")
    carried = {tag for t in tasks.values() for tag in (getattr(t, "tags", None) or [])}
    unknown = [t for t in want if t not in carried]
    if unknown:
        known = ", ".join(sorted(carried)) or "none"
        raise SpecError(f"--tags: no task carries tag {unknown[0]!r} (tags: {known})")
    chosen = [t for t in ids if set(getattr(tasks[t], "tags", None) or []) & set(want)]
    if not chosen:
        raise SpecError(f"--tags: no task selected by --tasks carries {', '.join(want)}")
    return chosen
