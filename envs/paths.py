"""Where the project's files live: the checkout, or the installed share folder. Imports nothing of
the engine, so a command can find its files before it pays for SQLAlchemy or a domain."""

from __future__ import annotations

import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def data_root() -> Path:
    """Where ``tasks/`` and ``personas/`` live: the checkout, or the installed share dir."""
    for cand in (PROJECT_ROOT, Path(sys.prefix) / "share" / "sitgym"):
        if (cand / "tasks").is_dir():
            return cand
    return PROJECT_ROOT
