"""Keys made of the bytes of files, for caches that must never serve a stale entry.

A cached result (a domain's check report, its template database) is valid exactly while the
files it was computed from are unchanged. ``content_key(parts, roots)`` hashes the given strings
and the path and bytes of every file under ``roots`` (caches and VCS folders left out), so an
edited, added or removed file gives a new key; no timestamp is trusted. Hashing the engine and
the domains (about 3 MB) takes a few milliseconds. ``cache_dir()`` is where such results live:
``$SITGYM_CACHE_DIR``, else ``$XDG_CACHE_HOME/sitgym``, else ``~/.cache/sitgym``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Iterable

_SKIP_DIRS = {"__pycache__", ".git", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
# The libraries whose behaviour a cached result may reflect (validation, SQL, YAML parsing).
LIBRARIES = ("pydantic", "SQLAlchemy", "PyYAML")


def cache_dir() -> Path:
    """Where sitgym keeps what it can rebuild (module docstring)."""
    if os.environ.get("SITGYM_CACHE_DIR"):
        return Path(os.environ["SITGYM_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sitgym"


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        out += [Path(dirpath) / f for f in sorted(filenames) if not f.endswith((".pyc", ".pyo"))]
    return out


@functools.lru_cache(maxsize=None)  # installed versions do not change while a process runs
def _library_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def content_key(parts: Iterable[str], roots: Iterable[Path]) -> str:
    """A hash of ``parts``, the Python and library versions, and every file under ``roots``.

    Raises OSError if a file cannot be read (the caller then computes without its cache)."""
    h = hashlib.blake2b(digest_size=20)
    head = [sys.version, *(f"{n}={_library_version(n)}" for n in LIBRARIES), *parts]
    h.update("\0".join(head).encode())
    seen: set[str] = set()
    for root in roots:
        # The root resolved once (not each file: a resolve stats every component of the path, and
        # thousands of stats were most of the key's cost); overlapping roots still meet in ``seen``.
        for f in _files(Path(root).resolve()):
            r = str(f)
            if r in seen:
                continue
            seen.add(r)
            h.update(b"\0F" + r.encode() + b"\0")
            h.update(f.read_bytes())
    return h.hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (a reader never sees half a file); an
    unwritable folder is silently skipped: the cache is an optimisation."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        pass
