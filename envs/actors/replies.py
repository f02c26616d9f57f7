"""The generic scripted user's own replies, in the persona's register (domain-neutral).

A domain may ship ``replies.yaml`` beside its package: per kind of reply, a list of
``{when: {dimension: value}, say: [variants]}`` (the first entry whose ``when`` the
persona matches wins; one without ``when`` matches everyone), and ``cold_when``:
the persona values that make a user cold (no warm lines, see enactment). Kinds
missing from the file get the neutral defaults below. Several variants per kind
let the user answer twice without repeating itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from envs.spec.loading import load_one
from envs.spec.schema import Spec

REPLIES_FILE = "replies.yaml"

DEFAULTS: dict[str, list[str]] = {
    "dont_know": ["I'm not sure, sorry.", "I don't know, I'm afraid.", "I couldn't tell you, sorry."],
    "acknowledge": ["Okay.", "Alright.", "I see."],
    "push_back": ["Is there really nothing you can do?", "Are you certain there's no other way?"],
    "accept_refusal": ["Alright, I understand. Goodbye.", "Okay, if that's how it is. Bye."],
    "cannot_check": ["I can't check that right now, sorry.", "I'm not able to look at the moment."],
    "not_done": ["That isn't sorted yet, though.", "It isn't resolved yet, is it?"],
    "stuck": ["This is going nowhere. I'll leave it there.", "I don't think we're getting anywhere. Goodbye."],
    "already_said": ["As I said,", "Like I mentioned,", "Again,"],
    "no_preference": ["Whichever you think is best.", "Either is fine."],
    # yes to a proposed change; later variants for a conversation that agrees to several changes
    "accept": ["Yes, please go ahead.", "Yes, please do that.", "Yes, go ahead with that one too."],
}


# A domain's own ScriptedWords line that stands for a kind of reply (used when replies.yaml has none).
WORDS_FIELD = {"acknowledge": "what_now", "dont_know": "unsure", "push_back": "doubt", "accept_refusal": "give_up",
               "stuck": "stuck", "accept": "accept"}


class ReplyLines(Spec):
    when: dict[str, str] = Field(default_factory=dict)
    say: list[str] = Field(min_length=1)


class RepliesFile(Spec):
    replies: dict[str, list[ReplyLines]] = Field(default_factory=dict)
    cold_when: list[dict[str, str]] = Field(default_factory=list)


class Replies:
    """Reply variants per kind for one persona (see the module docstring)."""

    def __init__(self, spec: RepliesFile | None = None):
        self.spec = spec or RepliesFile()

    def variants(self, kind: str, dims: dict[str, str], words: Any = None) -> list[str]:
        """The variants for ``kind``; a domain without replies.yaml entry for it but with its own
        line in words.yaml (``ScriptedWords``, e.g. ``what_now``) gets that line first."""
        for entry in self.spec.replies.get(kind, []):
            if all(dims.get(k) == v for k, v in entry.when.items()):
                return entry.say
        field_name = WORDS_FIELD.get(kind)
        if words is not None and field_name:
            own = getattr(words, field_name)
            if own != type(words).model_fields[field_name].default:
                return [own, *DEFAULTS[kind]]
        return DEFAULTS[kind]

    def is_cold(self, dims: dict[str, str]) -> bool:
        return any(all(dims.get(k) == v for k, v in w.items()) for w in self.spec.cold_when)


def load_replies(package_dir: Path | None) -> Replies:
    """The domain's ``replies.yaml`` (SpecError naming the field when malformed), else the defaults."""
    path = Path(package_dir) / REPLIES_FILE if package_dir is not None else None
    if path is None or not path.exists():
        return Replies()
    spec = load_one(RepliesFile, path)
    for kind in spec.replies:
        if kind not in DEFAULTS:
            raise_unknown(path, kind)
    return Replies(spec)


def raise_unknown(path: Path, kind: str) -> None:
    from envs.errors import SpecError

    raise SpecError(f"{path}: replies.{kind}: unknown kind of reply (known: {', '.join(DEFAULTS)})")
