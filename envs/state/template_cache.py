"""A domain's template database kept on disk, keyed by the content of the code that builds it.

Building the template (schema + deterministic seed) took most of a run's start-up; the result is
byte-for-byte the same for the same code and seed (``build_template``), so it is saved once and
read back while the key matches. The key (``envs.content_key``) hashes the engine, the domains,
the domain's package and the seed function's folder, with the seed, SQLite's and the libraries'
versions: any edit gives a new key, so a stale template is never served. Only domains that take no
options, build their template the standard way and seed it with a module-level function are
cached (an option may name data elsewhere; a closure may hold data no file shows).
"""

from __future__ import annotations

import hashlib
import inspect
import sqlite3
import sys
from pathlib import Path

from envs.content_key import cache_dir, content_key, write_atomic

_VERSION = "template-cache-1"
_INITIAL_VERSION = "initial-cache-1"
_SQLITE_HEADER = b"SQLite format 3\x00"


def template_key(domain) -> str | None:
    """The content key of ``domain.build_template()``; None when it is not cacheable."""
    from envs.domain.definition import PROJECT_ROOT, Domain

    if type(domain).build_template is not Domain.build_template or domain.options_model.model_fields:
        return None
    fn = domain.seed_fn
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    # Only a module-level function is named by its file: a closure or lambda may carry data the
    # files do not show, so it is built every time.
    if module is None or getattr(module, getattr(fn, "__qualname__", ""), None) is not fn:
        return None
    try:
        seed_dir = Path(inspect.getfile(fn)).parent
        models_dir = Path(inspect.getfile(domain.base)).parent
    except TypeError:  # not defined in a file
        return None
    parts = [_VERSION, domain.name, str(domain.seed), type(domain).__module__, type(domain).__qualname__,
             f"{fn.__module__}.{fn.__qualname__}", f"{domain.base.__module__}.{domain.base.__qualname__}",
             f"sqlite={sqlite3.sqlite_version}"]
    return content_key(parts, [PROJECT_ROOT / "envs", PROJECT_ROOT / "domains", domain.package_dir, seed_dir,
                               models_dir])


def cached_template(domain) -> bytes:
    """``domain.build_template()``, read from the content-keyed cache when it can be."""
    try:
        key = template_key(domain)
    except OSError:
        key = None
    domain.cache.template_key = key
    if key is None:
        return domain.build_template()
    return _read_or_build(cache_dir() / "templates" / f"{domain.name}-{key}.sqlite", domain.build_template)


def _read_or_build(path, build) -> bytes:
    """The SQLite image kept at ``path`` (a content-keyed name), else ``build()``'s, kept there."""
    try:
        data = path.read_bytes()
        if data.startswith(_SQLITE_HEADER):
            return data
    except OSError:
        pass
    data = build()
    write_atomic(path, data)
    return data


def cached_initial(domain, task) -> bytes:
    """A task's initial state (the template with its ``initial_state`` patch applied), read from
    the content-keyed cache when the template is cacheable: the key is the template's key (the
    engine's and the domain's code, the seed) with the patch itself, so the first episodes of a run
    do not each spend tens of milliseconds applying a patch before the first model request."""
    from envs.state.database import apply_patch

    template = domain.template()
    patch = task.initial_state
    key = domain.cache.template_key
    if key is None or patch is None or patch.is_empty():
        return apply_patch(domain.base, template, patch)
    h = hashlib.blake2b(digest_size=20)
    h.update(f"{_INITIAL_VERSION}\0{key}\0".encode())
    h.update(patch.model_dump_json().encode())
    path = cache_dir() / "initial" / f"{domain.name}-{h.hexdigest()}.sqlite"
    return _read_or_build(path, lambda: apply_patch(domain.base, template, patch))
