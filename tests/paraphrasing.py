"""A paraphrasing agent (test fixture): a scripted agent whose every message is reworded.

``ParaphrasingAgent(inner, domain)`` acts as ``inner`` does, but each sentence of its
messages that matches a phrasing rule is replaced by one of the rule's other wordings,
picked by the episode's seed and the turn, so repeats of a task hear different words.
Facts (order numbers, amounts, dates) are kept: the rules reword how the agent asks,
offers, confirms and closes, not what it reports.

Rules are registered per domain (``register(domain, rules)``): another file can add a
domain's phrasings (e.g. tutoring) without touching this one. A rule is
``(pattern, [wordings])``; a wording may use the pattern's groups (``\\1``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from envs.actors.protocols import AgentView
from envs.records import AgentAction

RULES: dict[str, list[tuple[re.Pattern, list[str]]]] = {}


def register(domain: str, rules: list[tuple[str, list[str]]]) -> None:
    """Add phrasing rules for ``domain`` (patterns are case-insensitive)."""
    RULES.setdefault(domain, []).extend((re.compile(p, re.I), w) for p, w in rules)


# The support agents' acts, in other words (written here by hand; none copies the task words).
register("support", [
    (r"To verify your identity first, could you give me the email address on your account and the zip code of your "
     r"default address\?", [
        "Before I open the account I need to make sure it's you: what e-mail do you log in with, and what's the postcode "
        "of your home address?",
        "First a quick security check, please. Which e-mail is the account under, and what is your postal code?",
        "So I can confirm you're the account holder, tell me your login e-mail and your postcode.",
    ]),
    (r"Thanks\. For security, could you also tell me the zip code of your default address\?", [
        "Got it. And the postcode on the account?",
        "Thank you. What's the postal code of your main address?",
        "Great, and which post code is your home address under?",
    ]),
    (r"I couldn't verify your identity with those details\. Could you give me your full name and the zip code of "
     r"your default address instead\?", [
        "Those details don't bring anything up on my side. Could we confirm who you are another way, with your first "
        "and last name and your postcode?",
        "I can't match those details. Who is the account holder, and what's the postal code there?",
        "That doesn't check out on my side. What name is the account under, and what postcode?",
    ]),
    (r"Just so I get this right: is it the whole order that didn't arrive, one item from it, or a refund you were "
     r"expecting that hasn't reached you\?", [
        "Can you tell me a bit more about what exactly didn't turn up?",
        "To be sure I follow: did nothing arrive at all, or was just some of it missing, or is it money you're still "
        "waiting for?",
        "What is it that's missing, exactly?",
    ]),
    (r"Which would you prefer: a replacement or a refund\?", [
        "Would you rather have your money back, or have us send it again?",
        "Do you want a new one sent out, or the money returned?",
        "How would you like this put right: money back, or another one shipped to you?",
    ]),
    (r"Before anything else, could you please check your doorstep and mailbox, and ask your neighbours whether they "
     r"took it in\?", [
        "First, would you have a look around your porch and in the letterbox, and see whether someone next door took it in?",
        "Could you look outside your door and in your mail box, and check with the people next door?",
        "Please check by your front door and in your mailbox, then see if a neighbor accepted it for you.",
    ]),
    (r"Could you tell me the order number of the order this is about\?", [
        "Which order is this about?", "What's the order ID, please?", "Which order do you mean? The reference starts with O-.",
    ]),
    (r"Could you double-check the order number\?", [
        "Could you look at your confirmation again and tell me the correct order number?",
        "Are you sure about that number? It may have a typo.",
        "Would you re-check which order it was?",
    ]),
    (r"What is the new address you'd like it shipped to\?", [
        "Where should it go now?", "What address should we send it to instead?", "Where would you like it delivered?",
    ]),
    (r"^Shall I (.+)\?$", [
        r"Would you like me to \1?", r"Do you want me to go ahead and \1?", r"Is it okay if I \1?",
    ]),
    (r"Is there anything else I can help you with\?", [
        "Can I help with anything else today?", "Anything else?", "Is there something else I can do for you?",
    ]),
])

_SENTENCE = re.compile(r"(?<=[.?!])\s+")


@dataclass
class ParaphrasingAgent:
    """``inner`` with its messages reworded (see the module docstring)."""

    inner: object
    domain: str
    name: str = field(default="")

    def __post_init__(self) -> None:
        self.name = self.name or f"paraphrased:{getattr(self.inner, 'name', '?')}"

    async def act(self, view: AgentView) -> AgentAction:
        action = await self.inner.act(view)
        if not action.content:
            return action
        turn = sum(1 for e in view.events if getattr(e, "kind", "") == "agent")
        rng = random.Random(f"{view.seed}:{view.task_id}:{turn}")
        return action.model_copy(update={"content": self.reword(action.content, rng)})

    def reword(self, text: str, rng: random.Random) -> str:
        # whole-message rules first (a long question spans sentences), then sentence by sentence
        for pat, wordings in RULES.get(self.domain, []):
            if pat.search(text) and not pat.pattern.startswith("^"):
                text = pat.sub(lambda m: m.expand(rng.choice(wordings)), text, count=1)
        out = []
        for s in _SENTENCE.split(text):
            for pat, wordings in RULES.get(self.domain, []):
                if pat.pattern.startswith("^") and pat.search(s):
                    s = pat.sub(lambda m: m.expand(rng.choice(wordings)), s, count=1)
            out.append(s)
        return " ".join(out)
