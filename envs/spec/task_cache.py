"""A domain's loaded tasks kept on disk, keyed by the content of everything loading read.

Loading a domain's tasks parses every task file's YAML, validates it into ``Task`` models and
cross-checks it against the domain (tools, situations, topics, policy headings): about a second
of a run's start-up for a hundred tasks, with the same answer until a file changes.
``cached_tasks(domain)`` serves the pickled tasks when the key matches and loads (and saves) them
otherwise. The key (``envs.content_key``) hashes the engine (the spec models and the loading code),
the domains, the domain's own folder, its tasks folder and the personas, with the library
versions, so an edited, added or removed file makes a new key and stale tasks are never served.
Only a domain that reads its tasks as ``Domain.load_tasks`` does, with default options, is cached
(as for the check cache); a failure to load is never cached: it is raised, every time.
"""

from __future__ import annotations

import pickle

from envs.content_key import cache_dir, content_key, write_atomic

_VERSION = "tasks-cache-1"  # bump when the key's recipe changes


def tasks_key(domain) -> str | None:
    """The content key of ``domain.load_tasks()``; None when not cacheable."""
    from envs.domain.definition import PROJECT_ROOT, Domain, data_root

    if type(domain).load_tasks is not Domain.load_tasks or type(domain).validate_task is not Domain.validate_task:
        return None
    if domain.options.model_dump(exclude_unset=True):
        return None
    parts = [_VERSION, domain.name, type(domain).__module__, type(domain).__qualname__]
    return content_key(parts, [PROJECT_ROOT / "envs", PROJECT_ROOT / "domains", domain.package_dir,
                               domain.tasks_dir(), data_root() / "personas"])


def cached_tasks(domain) -> dict:
    """``domain.load_tasks()``, served from the content-keyed cache when it can be."""
    try:
        key = tasks_key(domain)
    except OSError:  # a file vanished while being read: load without the cache
        key = None
    if key is None:
        return domain.load_tasks()
    path = cache_dir() / "tasks" / f"{domain.name}-{key}.pickle"
    try:
        tasks = pickle.loads(path.read_bytes())  # noqa: S301 (written by this code, in the user's cache)
        if isinstance(tasks, dict):
            return tasks
    except Exception:  # noqa: BLE001 (missing, partial or from another version: load afresh)
        pass
    tasks = domain.load_tasks()
    write_atomic(path, pickle.dumps(tasks, protocol=pickle.HIGHEST_PROTOCOL))
    return tasks
