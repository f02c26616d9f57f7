"""The domain registry: ``register_domain`` once per domain, ``get_domain`` by name.

Domains are discovered from the ``domains`` package, from the ``sitgym.domains``
entry-point group, and from ``SITGYM_DOMAINS=module,...``; the engine never
imports a domain by name.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable

from envs.domain.definition import Domain
from envs.errors import SpecError

_REGISTRY: dict[str, Callable[[], Domain]] = {}
_GYM_IDS: dict[str, str] = {}  # canonical domain name -> gymnasium id (without namespace)
# One definition per (factory, options): the same options give the same definition (its caches
# reused), different options a different one.
_INSTANCES: dict[tuple[int, str], Domain] = {}
_DISCOVERED = False
_DISCOVERY_ERRORS: list[str] = []


def register_domain(
    name: str, factory: Callable[[], Domain], *, gym_id: str, aliases: tuple[str, ...] = ()
) -> None:
    """Register a domain factory (called once, lazily, on first use).

    ``gym_id`` is the gymnasium id without namespace, e.g. ``"Support-v0"``.
    The factory must be cheap to register: build nothing until it is called.
    """
    _GYM_IDS[name] = gym_id
    for n in (name, *aliases):
        _REGISTRY[n] = factory


def discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    import domains

    for mod in pkgutil.iter_modules(domains.__path__):
        importlib.import_module(f"domains.{mod.name}")
    from importlib.metadata import entry_points

    for ep in entry_points(group="sitgym.domains"):
        ep.load()
    # Extra domain modules without packaging: SITGYM_DOMAINS=pkg.mod,other.mod
    import os

    for name in filter(None, (os.environ.get("SITGYM_DOMAINS") or "").split(",")):
        try:
            importlib.import_module(name.strip())
        except ImportError as e:
            # Kept, not raised: discovery runs at `import envs`; the CLI reports it in one line.
            _DISCOVERY_ERRORS.append(f"SITGYM_DOMAINS: cannot import domain module {name.strip()!r} ({e})")


def domain_names() -> list[str]:
    discover()
    seen, out = set(), []
    for n, f in _REGISTRY.items():
        if f not in seen:
            seen.add(f)
            out.append(n)
    return out


def get_domain(name: str, options: dict[str, Any] | None = None) -> Domain:
    """The domain registered as ``name``, configured with ``options`` (see ``Domain.with_options``).

    Raises SpecError for an unknown name, an unknown option or a bad option value.
    """
    discover()
    if name not in _REGISTRY:
        why = f"; {_DISCOVERY_ERRORS[0]}" if _DISCOVERY_ERRORS else ""
        raise SpecError(f"--domain: unknown domain {name!r} (known: {', '.join(domain_names())}){why}")
    factory = _REGISTRY[name]
    base_key = (id(factory), "")
    if base_key not in _INSTANCES:
        _INSTANCES[base_key] = factory()
    base = _INSTANCES[base_key]
    if not options:
        return base
    configured = base.with_options(**options)
    key = (id(factory), configured.options.model_dump_json())
    if key not in _INSTANCES:
        _INSTANCES[key] = configured
    return _INSTANCES[key]
