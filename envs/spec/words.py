"""A domain's words: who the user and the agent are, and the lines the generic actors speak.

The engine holds none of a domain's words. Each domain ships ``words.yaml`` in
its package (``load_words(package_dir)``); a domain without one gets the
neutral defaults below ("a user", "an AI agent", no context). The prompt
templates (``envs/actors/prompts``) are filled from these words, and the
generic scripted user (``envs.actors.scripted_user``) takes its
persona-dependent lines from ``scripted``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from envs.spec.loading import load_one
from envs.spec.schema import Spec

WORDS_FILE = "words.yaml"

# Words that say a change is done, in any domain; a domain adds its own (``done_words``).
GENERIC_DONE_WORDS = (
    "done", "complete", "completed", "processed", "has been", "have been", "successfully",
    "updated", "submitted", "changed", "all set",
)


class PersonaLine(Spec):
    """A line said when the persona has every dimension value in ``when`` (the first match wins)."""

    when: dict[str, str] = Field(default_factory=dict)
    say: str | list[str]
    """One line, or several realisations of it (``pick`` takes one by ``key``)."""


class PersonaOmit(Spec):
    """Words the persona leaves out of every message (e.g. a terse user drops "please")."""

    when: dict[str, str] = Field(default_factory=dict)
    words: list[str] = Field(min_length=1)


def _matches(when: dict[str, str], dims: dict[str, str]) -> bool:
    return all(dims.get(k) == v for k, v in when.items())


class ScriptedWords(Spec):
    """What the generic scripted user says; persona-dependent lines are picked by dimension values."""

    greeting: list[PersonaLine] = Field(default_factory=list)
    """Opens the first message (none when no line matches)."""
    opening_aside: list[PersonaLine] = Field(default_factory=list)
    """Appended to the first message's request (e.g. a chatty user's background)."""
    closing: list[PersonaLine] = Field(default_factory=list)
    """Said when the goal is met; ``closing_default`` when no line matches."""
    closing_default: str = "Thanks, that's everything."
    omit: list[PersonaOmit] = Field(default_factory=list)
    accept: str = "Yes, please go ahead."
    decline: str = "No, please don't do that."
    doubt: str = "Are you sure? Please check again."
    give_up: str = "Then there's nothing more to say."
    unsure: str = "I'm not sure what else you need from me."
    what_now: str = "Okay. What happens now?"
    stuck: str = "This is going nowhere."

    @staticmethod
    def pick(lines: list[PersonaLine], dims: dict[str, str], default: str = "", key: int = 0) -> str:
        """The first matching line's text; of several realisations, the one ``key`` selects."""
        say = next((ln.say for ln in lines if _matches(ln.when, dims)), default)
        if isinstance(say, list):
            return say[key % len(say)] if say else default
        return say

    def omitted(self, dims: dict[str, str]) -> list[str]:
        return [w for o in self.omit if _matches(o.when, dims) for w in o.words]


class DomainWords(Spec):
    """The role words of a domain, after SIT-Eval's "You are playing {user_role} in a dialogue
    with {agent_role}. Context: {context}"."""

    user_role: str = "a user"
    """The simulated user's role, with its article ("a customer", "a student")."""
    agent_role: str = "an AI agent"
    """The agent's role, with its article ("a customer-support agent", "a maths tutor")."""
    user_name: str = "the user"
    """How prompts refer to the user ("the customer")."""
    agent_name: str = "the agent"
    """How prompts refer to the agent ("the support agent")."""
    context: str = ""
    """One or two sentences on the setting; empty: none is given."""
    done_words: list[str] = Field(default_factory=list)
    """Words (besides the generic ones) by which the agent reports a change done ("refunded")."""
    scripted: ScriptedWords = Field(default_factory=ScriptedWords)
    user_choices: dict[str, dict[str, list[str]]] = Field(default_factory=dict)
    """Agent-tool parameters whose value is the user's to choose (a refund's destination), and per
    value the words a user names it with: the lint (``envs.spec.lint.choices_open``) finds goals
    that depend on a choice the scenario leaves open, where the LLM user is told it may choose freely."""

    def all_done_words(self) -> list[str]:
        return list(dict.fromkeys([*GENERIC_DONE_WORDS, *self.done_words]))

    def template_vars(self) -> dict[str, str]:
        """The words as template variables (``{user_role}``, ``{agent_name}``...)."""
        return {
            "user_role": self.user_role,
            "agent_role": self.agent_role,
            "user_name": self.user_name,
            "agent_name": self.agent_name,
            "context": self.context.strip(),
        }


def load_words(package_dir: Path | None) -> DomainWords:
    """The domain's ``words.yaml`` (a ``SpecError`` naming the field when it is malformed), else the defaults."""
    path = Path(package_dir) / WORDS_FILE if package_dir is not None else None
    if path is None or not path.exists():
        return DomainWords()
    return load_one(DomainWords, path)
