"""Prompt templates: text files filled from the domain's words, the persona, the scenario and the turn.

The templates are ``envs/actors/prompts/<name>.txt``; a domain overrides one by
shipping ``<package_dir>/prompts/<name>.txt``. Two constructs, nothing else:

* ``{name}`` is replaced by the variable ``name`` (an unknown name is a
  ``SpecError`` naming the file, so a typo in a domain's template fails at once);
  braces that do not enclose a bare identifier (JSON examples) are left alone;
* ``{?name}...{/name}`` keeps its text only when ``name`` is non-empty; blocks do
  not nest. When ``{?name}`` ends its line, both markers take their line breaks
  with them (a block of whole lines); otherwise the block is inline.

Runs of blank lines the template has once blocks are dropped collapse to one. Every template also
gets the domain's words (``{user_role}``, ``{agent_role}``, ``{user_name}``,
``{agent_name}``, ``{context}``; see ``envs.spec.words``) and ``{stop}``, the stop token.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from envs.actors.protocols import STOP_TOKEN
from envs.errors import SpecError
from envs.spec.words import DomainWords

TEMPLATES = Path(__file__).resolve().parent / "prompts"

_BLOCK = re.compile(r"\{\?([A-Za-z_]\w*)\}(\n)?(.*?)\{/\1\}(\n)?", re.S)
_VAR = re.compile(r"\{([A-Za-z_]\w*)\}")


@lru_cache(maxsize=None)
def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def render(template: str, values: dict[str, Any], where: str = "template") -> str:
    """``template`` filled from ``values`` (see the module docstring)."""

    def block(m: re.Match) -> str:
        if m.group(1) not in values:
            raise SpecError(f"{where}: unknown variable {m.group(1)!r} in {{?{m.group(1)}}}")
        own_lines = m.group(2) is not None  # "{?x}" ends its line: the markers take their line breaks
        tail = "" if own_lines else (m.group(4) or "")
        return (m.group(3) if values[m.group(1)] else "") + tail

    def var(m: re.Match) -> str:
        if m.group(1) not in values:
            raise SpecError(f"{where}: unknown variable {{{m.group(1)}}} (known: {', '.join(sorted(values))})")
        return str(values[m.group(1)])

    text = _BLOCK.sub(block, template)
    if "{?" in text or re.search(r"\{/[A-Za-z_]\w*\}", text):
        raise SpecError(f"{where}: an unbalanced or nested {{?name}}...{{/name}} block")
    # Collapse before filling in, so the values (a policy, a transcript) keep their own spacing.
    text = re.sub(r"\n{3,}", "\n\n", text)
    return _VAR.sub(var, text).strip()


class Prompts:
    """The templates one domain's actors use: the engine's, or the domain's own where it ships one."""

    def __init__(self, words: DomainWords | None = None, override_dir: Path | None = None):
        self.words = words or DomainWords()
        self.override_dir = Path(override_dir) if override_dir is not None else None

    @classmethod
    def for_domain(cls, domain: Any) -> "Prompts":
        package_dir = getattr(domain, "package_dir", None)
        return cls(getattr(domain, "words", None), Path(package_dir) / "prompts" if package_dir else None)

    def path(self, name: str) -> Path:
        if self.override_dir is not None and (self.override_dir / f"{name}.txt").is_file():
            return self.override_dir / f"{name}.txt"
        p = TEMPLATES / f"{name}.txt"
        if not p.is_file():
            raise SpecError(f"prompts: no template {name!r} in {TEMPLATES}")
        return p

    def render(self, name: str, **values: Any) -> str:
        """Template ``name`` filled from the domain's words, ``{stop}`` and ``values``."""
        p = self.path(name)
        return render(_read(p), {**self.words.template_vars(), "stop": STOP_TOKEN, **values}, where=str(p))
