"""The generic scripted user's own replies, in the persona's register (domain-neutral).

A domain may ship ``replies.yaml`` beside its package: per kind of reply, a list of
``{when: {dimension: value}, say: [variants]}`` (the first entry whose ``when`` the
persona matches wins; one without ``when`` matches everyone), and ``cold_when``:
the persona values that make a user cold (no warm lines, see enactment). Kinds
missing from the file get the neutral defaults below. Several variants per kind
let the user answer twice without repeating itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from envs.actors.enactment import realise, stable_hash
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
    "thanks_result": ["Great, thank you.", "That's good to hear, thanks."],
    "goodbye": ["No, that's all. Bye.", "That's everything, thanks. Goodbye."],
    # the answer to "anything else?" when the agent has done nothing for the user (no praise for help)
    "closing_unhelped": ["No, that's all. Bye.", "No, that's everything. Goodbye."],
    "what_needed": ["What do you need from me?", "Sure, what do you need?"],
    # yes to a proposed change; later variants for a conversation that agrees to several changes
    "accept": ["Yes, please go ahead.", "Yes, please do that.", "Yes, go ahead with that one too."],
    # no to a proposed change, with a reason of the user's own
    "decline": ["No, please don't do that. I'd rather think it over first.", "No, leave it for now. I want to think about it."],
}


# A domain's own ScriptedWords line that stands for a kind of reply (used when replies.yaml has none).
WORDS_FIELD = {"acknowledge": "what_now", "dont_know": "unsure", "push_back": "doubt", "accept_refusal": "give_up",
               "stuck": "stuck", "accept": "accept", "decline": "decline"}


class ReplyLines(Spec):
    when: dict[str, str] = Field(default_factory=dict)
    say: list[str] = Field(min_length=1)


class Volunteer(Spec):
    """A general request for details ("could you verify your identity?") that names none: a
    persona matching ``when`` offers its facts about ``topics``; one that does not asks what is
    needed (the ``what_needed`` reply). How much a person volunteers is the persona's, not the task's."""

    asked: list[str] = Field(min_length=1)
    """Patterns (regular expressions, case-insensitive) of the general request."""
    when: dict[str, str] = Field(default_factory=dict)
    topics: list[str] = Field(default_factory=list)


class _Matched(Spec):
    """Lines said where ``match`` (a regular expression, checked when the file is read) matches,
    ``say`` their wordings, ``when`` the persona they fit (none: everyone)."""

    match: str
    say: list[str] = Field(min_length=1)
    when: dict[str, str] = Field(default_factory=dict)

    @field_validator("match")
    @classmethod
    def _compiles(cls, v: str) -> str:
        try:
            re.compile(v)
        except re.error as e:
            raise ValueError(f"pattern {v!r} does not compile ({e})") from None
        return v


class Report(_Matched):
    """One thing a user tool can find, as a person tells it: ``match`` (a regular expression with
    named groups) over the start of what is left of the tool's result, ``say`` its tellings
    (``{group}`` is the group's text), ``when`` the persona it fits (none: everyone); ``joined``
    its tellings when it goes on from another check's report in the same message (a find after
    "nothing at the door" is told as what happened next, "But I tried number 14 and ...", not as a
    second account beside the first: "No parcel. Rosa at number 14 had taken it in."); ``leading``
    its tellings when another check's report follows it in the same message: what it did, in order,
    with no verdict on the whole search ("I looked at the door and in the mailbox first, nothing
    there.", not "Nope, no parcel, I'm afraid." before "Rosa had it")."""

    joined: list[str] = Field(default_factory=list)
    leading: list[str] = Field(default_factory=list)


class Rephrase(_Matched):
    """Another way a person says a stretch of its own request or fact: ``match`` (a regular
    expression, case-insensitive, with named groups for what must stay: ids, items, amounts,
    addresses), ``say`` its other wordings (``{group}`` the group's text, ``{a|b}`` alternations),
    ``when`` the persona it fits (none: everyone); the words as written stay one of the choices
    unless ``keep`` is false. It changes how a request is put, never what is asked."""

    keep: bool = True


class Typing(Spec):
    """How a persona types, the same in every message of the conversation (the first entry whose
    ``when`` it matches): ``semicolons`` false runs its clauses on with a comma, as a casual or
    angry typist does ("..., the rest came"), wherever the words came from (the task's, a pool's, a situation's)."""

    when: dict[str, str] = Field(default_factory=dict)
    semicolons: bool = True
    drop: list[str] = Field(default_factory=list)
    """Patterns (case-insensitive) of courtesies this typist never writes, dropped from any message
    (an angry customer's ", sorry" after "I'm not good with apps"), whatever line it came from."""


class RepliesFile(Spec):
    replies: dict[str, list[ReplyLines]] = Field(default_factory=dict)
    cold_when: list[dict[str, str]] = Field(default_factory=list)
    volunteer: list[Volunteer] = Field(default_factory=list)
    facts: dict[str, list[ReplyLines]] = Field(default_factory=dict)
    """Per topic, ways of telling a fact of the form "My email is X." ({value} is X), so the
    user answers as people do ("It's X.", "X") rather than reading the task's sentence out."""
    reports: dict[str, list[Report]] = Field(default_factory=dict)
    rephrase: list[Rephrase] = Field(default_factory=list)
    typing: list[Typing] = Field(default_factory=list)
    mood_words: list[Rephrase] = Field(default_factory=list)
    """Rewordings of the user's own requests and facts in its mood, applied after ``rephrase`` (over
    its words): an angry customer's request without the courtesy a task wrote for a calm one."""
    """Other wordings of stretches of the user's own requests and facts, drawn per episode, so that
    the same task's repeats, and a family's tasks, do not put a request in the same words."""
    """Per user tool, what it finds told in a person's words ("Nothing at the door, and the
    mailbox is empty.") rather than read out as the tool's sentence after "I checked:"."""


# "My zip code is 40503." -> "40503": the value a domain's fact phrasings put in {value}.
_FACT_VALUE = re.compile(r"^(?:my|the|our)\s+[\w' -]{1,40}?\s+(?:is|are)\s+(?P<v>.+?)\.?$", re.I)


def fact_value(fact: str) -> str | None:
    m = _FACT_VALUE.match(fact.strip())
    return m.group("v") if m else None


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

    def fact_variants(self, topic: str | None, fact: str, dims: dict[str, str]) -> list[str]:
        """Ways of telling ``fact`` (about ``topic``) in this persona's register; the fact as
        written when the domain has none for the topic or the fact is not "My ... is X."."""
        value = fact_value(fact)
        if topic is None or value is None:
            return [fact]
        for entry in self.spec.facts.get(topic, []):
            if all(dims.get(k) == v for k, v in entry.when.items()):
                return [t.replace("{value}", value) for t in entry.say]
        return [fact]

    def report(self, tool: str, result: str, dims: dict[str, str], key: int, after: bool = False,
               before: bool = False) -> str:
        """``result`` of user tool ``tool`` in this persona's words: each stretch a ``reports``
        pattern matches (from the start of what is left) told in one of its tellings, the way
        ``key`` says; a stretch none matches is kept as the tool put it. ``after``: the report goes
        on from another check's in one message (its first stretch told ``joined``, where it has such);
        ``before``: another check's report follows it in the message (its first stretch told ``leading``)."""
        reports = [r for r in self.spec.reports.get(tool, []) if all(dims.get(k) == v for k, v in r.when.items())]
        if not reports:
            return result
        out, rest, n = [], result.strip(), 0
        while rest:
            for r in reports:
                m = re.match(r.match, rest)
                if m and m.end() > 0:
                    n += 1
                    tellings = (r.joined if after and n == 1 and r.joined
                                else r.leading if before and n == 1 and r.leading else r.say)
                    line = tellings[stable_hash(f"{key}:{n}:{r.match}") % len(tellings)]
                    line = realise(line, stable_hash(f"{key}:{n}"))
                    for name, value in m.groupdict().items():
                        line = line.replace("{" + name + "}", value or "")
                    out.append(line)
                    rest = rest[m.end():].lstrip()
                    break
            else:
                out.append(rest)
                break
        text = " ".join(x for x in out if x)
        return text[:1].upper() + text[1:]

    def volunteered(self, message: str, dims: dict[str, str]) -> list[str] | None:
        """The topics this persona offers in answer to a general request in ``message`` ([]: it
        asks what is needed); None when the message makes no such request."""
        asked = [v for v in self.spec.volunteer if any(re.search(p, message, re.I) for p in v.asked)]
        if not asked:
            return None
        return next((v.topics for v in asked if all(dims.get(k) == x for k, x in v.when.items())), [])

    def rephrase(self, text: str, dims: dict[str, str], key: int) -> str:
        """``text`` (a request or a fact as the task writes it) in this episode's words: each
        ``rephrase`` entry fitting the persona rewords its first match, the way ``key`` says (for
        the first entry of a persona's that matches a stretch; a later one sees the new words);
        then the persona's ``mood_words`` over the new words."""
        text = self._reword(self.spec.rephrase, text, dims, key)
        for n in range(3 if self.spec.mood_words else 0):  # every courtesy of the text, not only the first
            text = self._reword(self.spec.mood_words, text, dims, key + 1 + n)
        return text

    @staticmethod
    def _reword(entries: list[Rephrase], text: str, dims: dict[str, str], key: int) -> str:
        done: list[tuple[int, int]] = []  # stretches already reworded: not reworded again
        for i, rp in enumerate(entries):
            if not all(dims.get(k) == v for k, v in rp.when.items()):
                continue
            m = re.search(rp.match, text, re.I)
            if m is None or any(a < m.end() and m.start() < b for a, b in done):
                continue
            h = stable_hash(f"{key}:{i}:{rp.match}")
            n = len(rp.say) + int(rp.keep)
            if h % n == len(rp.say):
                done.append((m.start(), m.start() + len(m.group(0))))
                continue
            new, before = realise(rp.say[h % n], h), text
            for name, value in m.groupdict().items():
                new = new.replace("{" + name + "}", value or "")
            new = re.sub(r"  +", " ", new).strip()
            start_of_sentence = m.start() == 0 or bool(re.search(r"[.!?]\s*$", text[:m.start()]))
            if new and start_of_sentence:
                new = new[:1].upper() + new[1:]
            elif new and m.group(0)[:1].islower() and not re.match(r"I\b|I'", new):
                new = new[:1].lower() + new[1:]
            rest = text[m.end():]
            if not new and start_of_sentence:  # a stretch dropped from a sentence's start: the rest starts it
                rest = rest.lstrip()
                rest = rest[:1].upper() + rest[1:]
            text = text[:m.start()] + new + rest
            shift = len(text) - len(before)
            done = [(a + shift if a >= m.end() else a, b + shift if b >= m.end() else b) for a, b in done]
            done.append((m.start(), m.start() + len(new)))
        return text

    def typed(self, text: str, dims: dict[str, str]) -> str:
        """``text`` (a whole message) as this persona types (``typing``): one style throughout."""
        style = next((t for t in self.spec.typing if all(dims.get(k) == v for k, v in t.when.items())), None)
        if style is None:
            return text
        if not style.semicolons and ";" in text:
            text = re.sub(r"\s*;\s+", ", ", text)
        for pattern in style.drop:
            text = re.sub(pattern, "", text, flags=re.I)
        return text

    def volunteered_beside(self, dims: dict[str, str]) -> list[str]:
        """The topics this persona offers unasked (its ``volunteer`` entries' topics): asked for one
        of them, it may add another; [] for a persona that gives only what is asked."""
        return [t for v in self.spec.volunteer if v.when and all(dims.get(k) == x for k, x in v.when.items()) for t in v.topics]

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
