"""Which of a misconception's ideas a tutor's words address, whatever the wording.

Each misconception in ``misconceptions.yaml`` lists ``ideas`` (what a hint must
get at) as case-insensitive regexes written from how teachers phrase such hints,
and ``realises`` (the student's line when it lets go). ``addressed(code, text)``
is the id of the first idea ``text`` addresses, or None. A file with a bad
pattern fails with one line naming the misconception and the pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import yaml

from envs.errors import SpecError

from .problems import HERE


@dataclass(frozen=True)
class Idea:
    id: str
    patterns: tuple[re.Pattern, ...]


@dataclass(frozen=True)
class MisconceptionIdeas:
    code: str
    ideas: tuple[Idea, ...]
    realises: str


@lru_cache(maxsize=1)
def ideas() -> dict[str, MisconceptionIdeas]:
    """``{code: MisconceptionIdeas}`` from misconceptions.yaml."""
    path = HERE / "misconceptions.yaml"
    out: dict[str, MisconceptionIdeas] = {}
    for m in yaml.safe_load(path.read_text(encoding="utf-8"))["misconceptions"]:
        code = m["code"]
        if not m.get("ideas"):
            raise SpecError(f"{path}: misconceptions.{code}.ideas: each misconception needs at least one idea")
        got = []
        for i in m["ideas"]:
            pats = []
            for p in i.get("patterns") or []:
                try:
                    pats.append(re.compile(r"\b" + p, re.I))
                except re.error as e:
                    raise SpecError(f"{path}: misconceptions.{code}.ideas.{i.get('id')}: bad pattern {p!r} ({e})") from None
            if not pats:
                raise SpecError(f"{path}: misconceptions.{code}.ideas.{i.get('id')}: no patterns")
            got.append(Idea(str(i["id"]), tuple(pats)))
        out[code] = MisconceptionIdeas(code, tuple(got), str(m.get("realises") or "Oh, I think I see what I did wrong."))
    return out


def addressed(code: str | None, text: str) -> str | None:
    """The id of the first idea of misconception ``code`` that ``text`` addresses, else None."""
    m = ideas().get(code or "")
    if m is None or not text:
        return None
    for idea in m.ideas:
        if any(p.search(text) for p in idea.patterns):
            return idea.id
    return None


def addressed_ideas(code: str | None, text: str) -> list[str]:
    """The ids of every idea of misconception ``code`` that ``text`` addresses (ideas may overlap)."""
    m = ideas().get(code or "")
    if m is None or not text:
        return []
    return [i.id for i in m.ideas if any(p.search(text) for p in i.patterns)]
