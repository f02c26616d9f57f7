"""The registry of deterministic rule checks: ``@check(name)`` registers one, ``run_check`` runs it.

A check is ``fn(events, idx, params) -> (verdict, rationale)``: the whole transcript, the
index of the agent reply judged, and the rule's ``check.params``. A check that also declares a
``context`` parameter (``fn(events, idx, params, context)``) gets a ``CheckContext`` (the task
and the domain the episode was played in: what the grader knows beyond the transcript), or None
for a reply with no episode behind it (a gold item). A rule names its check
in ``check: {type, params}``. The generic checks register with ``graders.rules.checks``;
a domain's own checks register when the domain is built (e.g. ``domains.support.checks``).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from envs.errors import SpecError
from envs.records import Event
from envs.spec.schema import Rule

CheckFn = Callable[..., tuple[str, str]]
CHECKS: dict[str, CheckFn] = {}
_WANTS_CONTEXT: set[str] = set()


@dataclass(frozen=True)
class CheckContext:
    """What a check may know beyond the transcript: the episode's task and its domain."""

    task: Any = None
    domain: Any = None


def check(name: str):
    """Register the decorated function as the check type ``name``."""

    def wrap(fn: CheckFn) -> CheckFn:
        CHECKS[name] = fn
        if "context" in inspect.signature(fn).parameters:
            _WANTS_CONTEXT.add(name)
        else:
            _WANTS_CONTEXT.discard(name)
        return fn

    return wrap


def _unknown(check_type: str, rule: str | None) -> SpecError:
    who = f"rule {rule}: " if rule else ""
    return SpecError(f"{who}unknown rule check type {check_type!r} (known: {', '.join(sorted(CHECKS))})")


def run_check(check_type: str, params: dict, events: list[Event], idx: int, rule: str | None = None,
              context: CheckContext | None = None) -> tuple[str, str]:
    """The verdict of check ``check_type`` on the reply at ``events[idx]`` (``context`` goes to
    the checks that declare it). Raises SpecError (naming ``rule`` when given) for a type
    nobody registered."""
    if check_type not in CHECKS:
        raise _unknown(check_type, rule)
    if check_type in _WANTS_CONTEXT:
        return CHECKS[check_type](events, idx, params, context=context)
    return CHECKS[check_type](events, idx, params)


def validate_checks(rules: Iterable[Rule]) -> None:
    """Raise SpecError naming the first rule whose check type is not registered: called before
    an episode is played, so a typo in rules.yaml stops the run instead of failing each episode."""
    for r in rules:
        for c in (r.check, getattr(r, "condition", None)):
            if c is not None and c.type not in CHECKS:
                raise _unknown(c.type, r.id)
