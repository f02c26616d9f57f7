"""``python -m envs.check --domain D``'s printed answer kept on disk, served before anything is imported.

The check's own cache (``envs.spec.check_cache``) saves the report, but serving it still imports
the engine, SQLAlchemy and the domain and loads its tasks: most of a second. This cache sits in
front of it: the lines the command printed and its exit status, keyed (``envs.content_key``) by
the command's arguments, the working folder, the terminal's width, every ``SITGYM_*`` variable and the bytes of every
file under the engine, the graders, the domains, the tasks and the personas. An edited, added or
removed file makes a new key, so a stale answer is never printed. It is used only when each
domain checked was one the report cache keys too (its tasks are its folder's files, default
options), no domain comes from outside the checkout (``SITGYM_DOMAINS`` or an installed plugin),
and ``--calibration`` (a file anywhere) is not given.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from envs.content_key import cache_dir, content_key, write_atomic
from envs.paths import PROJECT_ROOT as _ROOT, data_root

_VERSION = "check-output-1"


def output_key(argv: list[str]) -> str | None:
    """The key of this command's answer; None when it may depend on files the key does not read."""
    if os.environ.get("SITGYM_DOMAINS"):
        return None
    from importlib.metadata import entry_points

    if list(entry_points(group="sitgym.domains")):
        return None
    import shutil

    env = sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith(("SITGYM_", "NO_COLOR", "FORCE_COLOR")))
    # lines are wrapped to the terminal, so its width is part of the question
    env.append(f"columns={shutil.get_terminal_size().columns}")
    data = data_root()
    try:
        return content_key([_VERSION, *argv, "\0env", *env, f"cwd={os.getcwd()}"],
                           [_ROOT / "envs", _ROOT / "graders", _ROOT / "domains", data / "tasks", data / "personas"])
    except OSError:
        return None


def _path(key: str) -> Path:
    return cache_dir() / "check-output" / f"{key}.json"


def saved_output(key: str) -> tuple[list[str], int] | None:
    """The lines and exit status saved under ``key``, or None."""
    try:
        saved = json.loads(_path(key).read_text(encoding="utf-8"))
        lines, status = saved["lines"], saved["status"]
        if isinstance(lines, list) and all(isinstance(x, str) for x in lines) and isinstance(status, int):
            return lines, status
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def save_output(key: str, lines: list[str], status: int) -> None:
    write_atomic(_path(key), json.dumps({"lines": lines, "status": status}).encode())
