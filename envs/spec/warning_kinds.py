"""Lint warnings grouped by kind, so a domain of imported tasks reads as a few counted lines.

A warning is ``WHERE: task ID: FIELD: REASON``. Its kind is the reason with what differs from task to
task taken out: quoted values, parenthesised details, numbers and identifiers (tool and argument names
are ``snake_case``, and the domain's tool names are passed in), up to the first clause break. tau-bench's 335 warnings are five kinds this way
(an argument the user never gets to say, a gold call its own engine refuses, ...).
"""

from __future__ import annotations

import re
from typing import Iterable

from pydantic import BaseModel, ConfigDict, Field

_TASK = re.compile(r"^(?:.*?: )?task (?P<task>[^:\s]+): (?:(?P<field>[\w.\[\]-]+): )?(?P<reason>.*)$")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_PARENS = re.compile(r"\s*\([^()]*\)")
_IDENT = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_NUMBER = re.compile(r"\b\d[\d.,]*\b")


class WarningKind(BaseModel):
    """One kind of lint warning: how many, on how many tasks, and one whole example."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    """The reason with its specifics replaced (``…`` for values, ``<name>`` for identifiers)."""
    count: int
    tasks: list[str] = Field(default_factory=list)
    """The tasks it was found on, in first-seen order."""
    example: str
    """The first warning of this kind, whole."""


def kind_of(warning: str, names: Iterable[str] = ()) -> tuple[str, str | None]:
    """(kind, task id or None) of one warning line; ``names`` (tool names) count as identifiers."""
    m = _TASK.match(warning)
    reason, task = (m["reason"], m["task"]) if m else (warning, None)
    text = _PARENS.sub("", _QUOTED.sub("…", reason))
    for n in sorted(set(names), key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(n)}\b", "<name>", text)
    text = _NUMBER.sub("N", _IDENT.sub("<name>", text))
    head = re.split(r";|: | and no |, (?:add|so|but) ", text, maxsplit=1)[0]
    return " ".join(head.split()).rstrip(" ,.") or "other", task


def group_warnings(warnings: list[str], names: Iterable[str] = ()) -> list[WarningKind]:
    """The warnings by kind, most frequent first."""
    names = list(names)
    kinds: dict[str, WarningKind] = {}
    for w in warnings:
        k, task = kind_of(w, names)
        g = kinds.setdefault(k, WarningKind(kind=k, count=0, example=w))
        g.count += 1
        if task and task not in g.tasks:
            g.tasks.append(task)
    return sorted(kinds.values(), key=lambda g: (-g.count, g.kind))


def summary_lines(warnings: list[str], names: Iterable[str] = ()) -> list[str]:
    """``N lint warnings ... by kind`` and one counted line per kind (what ``envs.check`` prints
    without ``--verbose``)."""
    if not warnings:
        return []
    groups = group_warnings(warnings, names)
    lines = [f"warning: {len(warnings)} lint warnings on imported tasks, {len(groups)} kinds (each one: --verbose)"]
    for g in groups:
        on = f" on {len(g.tasks)} tasks" if len(g.tasks) > 1 else (f" on {g.tasks[0]}" if g.tasks else "")
        lines.append(f"  {g.count:>4}{on}: {g.kind}")
    return lines
