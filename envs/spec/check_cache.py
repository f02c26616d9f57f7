"""The domain check's result kept on disk, keyed by the content of everything it read.

``check_domain`` replays every task's gold path and lints it: seconds of work that give the same
answer until a file changes. ``cached_check(domain, ...)`` serves the saved ``Report`` when the
key matches and runs the check (and saves it) otherwise. The key (``envs.content_key``) hashes the
bytes of every file the answer can depend on: the engine's and graders' code (where the lint rules
live), the domains, the domain's tasks and the personas, with the library versions and the flags,
so an edited, added or removed file makes a new key and a stale report is never served. Only
domains whose tasks are their folder's YAML files, with default options, are cached: an imported
or generated task set reads data from elsewhere, and is checked every time.
"""

from __future__ import annotations

import json

from envs.content_key import cache_dir, content_key, write_atomic
from envs.spec.check import Report, check_domain

_VERSION = "check-cache-1"  # bump when the Report's shape or the key's recipe changes


def check_key(domain, lint: bool, gold: bool, only: set[str] | None = None, play: bool = False) -> str | None:
    """The content key of ``check_domain(domain, lint, gold, only, play)``; None when not cacheable."""
    from envs.domain.definition import PROJECT_ROOT, Domain, data_root

    if type(domain).load_tasks is not Domain.load_tasks:
        return None  # tasks built or imported from data outside the files hashed here
    if domain.options.model_dump(exclude_unset=True):
        return None  # an option may name data anywhere
    parts = [_VERSION, domain.name, type(domain).__module__, type(domain).__qualname__, f"lint={lint}",
             f"gold={gold}", f"play={play}", "only=" + ("*" if only is None else ",".join(sorted(only)))]
    return content_key(parts, [PROJECT_ROOT / "envs", PROJECT_ROOT / "graders", PROJECT_ROOT / "domains",
                               domain.package_dir, domain.tasks_dir(), data_root() / "personas"])


def cached_check(domain, lint: bool = True, gold: bool = True, only: set[str] | None = None,
                 play: bool = False) -> Report:
    """``check_domain(domain, lint, gold, only, play)``, served from the content-keyed cache when it can be."""
    try:
        key = check_key(domain, lint, gold, only, play)
    except OSError:  # a file vanished while being read: check without the cache
        key = None
    if key is None:
        return check_domain(domain, lint=lint, gold=gold, only=only, play=play)
    path = cache_dir() / "check" / f"{domain.name}-{key}.json"
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        return Report(domain=saved["domain"], problems=saved["problems"], warnings=saved["warnings"],
                      counts=saved["counts"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    report = check_domain(domain, lint=lint, gold=gold, only=only, play=play)
    write_atomic(path, json.dumps({"domain": report.domain, "problems": report.problems,
                                   "warnings": report.warnings, "counts": report.counts}).encode())
    return report
