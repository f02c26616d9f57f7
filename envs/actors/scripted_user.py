"""The generic scripted user: an offline, deterministic simulated user for any domain.

``ScriptedUser`` is deterministic given (persona, scenario, seed). Its lines
come from the domain's words (``UserTurn.words.scripted``, see
``envs.spec.words``): the greeting, the chatty aside, the closing and the
words a terse persona drops are picked by the persona's dimension values. Each
turn it

1. speaks in the drawn situation (its scripted prefix/suffix lines) and the
   persona's register;
2. changes its mind the first time the agent proposes what ``mind_change``
   listens for;
3. reveals a hidden fact only once the agent's message asks for it (any of
   the fact's ``asked_by`` words);
4. calls a user tool when the agent asks it to, and reports what it saw;
5. answers a confirmation question ("shall I...?") with yes (or no, if the
   scenario says so), which leaves a change *pending*;
6. stops once an agent message contains one of the scenario's ``done_when``
   phrases (the goal is met, or clearly refused) and no agreed change is
   pending; gives up after repeated refusals or turns without progress.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from envs.actors.protocols import STOP_TOKEN, UserReply, UserTurn
from envs.spec.words import ScriptedWords

CONFIRM = re.compile(
    r"\b(shall i|should i|would you like me to|do you want me to|can you confirm|please confirm|"
    r"confirm (?:that|you)|is that (?:right|correct)|ok(?:ay)? to proceed|may i proceed|want me to go ahead)\b",
    re.I,
)
REFUSAL = re.compile(r"\b(can(?:no|')t|unable to|not able to|won't be able|not eligible|isn't eligible)\b", re.I)


def _has_any(text: str, words: list[str]) -> bool:
    low = text.lower()
    return any(w.lower() in low for w in words)


@dataclass
class ScriptedUser:
    """A deterministic, templated simulated user (see the module docstring)."""

    name: str = "scripted"
    revealed: set[str] = field(default_factory=set)
    tools_used: set[int] = field(default_factory=set)
    mind_changed: bool = False
    pending: bool = False
    withheld: bool = False
    refusals: int = 0
    idle_turns: int = 0

    async def reply(self, turn: UserTurn) -> UserReply:
        dims = (turn.persona.dimensions if turn.persona else {}) or {}
        say = turn.words.scripted
        sc = turn.task.scenario
        lines = turn.situation.scripted if turn.situation else None
        prefix = turn.rng.choice(lines.prefix) if lines and lines.prefix else ""
        suffix = turn.rng.choice(lines.suffix) if lines and lines.suffix else ""

        if turn.agent_message is None:
            self.withheld = bool(lines and lines.withhold)
            facts = [] if self.withheld else sc.known_facts
            body = " ".join([sc.request, *facts])
            aside = say.pick(say.opening_aside, dims)
            if aside:
                body += " " + aside
            return UserReply(self._compose(say, dims, prefix, body, suffix, opening=True))

        msg = turn.agent_message
        parts: list[str] = []

        if sc.mind_change and not self.mind_changed and _has_any(msg, sc.mind_change.when_asked):
            self.mind_changed = True
            self.pending = False
            return UserReply(self._compose(say, dims, prefix, sc.mind_change.say, suffix))

        for hf in sc.hidden_facts:
            if hf.id not in self.revealed and _has_any(msg, hf.asked_by):
                self.revealed.add(hf.id)
                parts.append(hf.fact)
        if self.withheld and sc.known_facts:
            self.withheld = False
            parts.extend(sc.known_facts)

        for i, use in enumerate(sc.user_tools):
            if i not in self.tools_used and (not use.when_asked or _has_any(msg, use.when_asked)):
                self.tools_used.add(i)
                result = turn.call_tool(use.tool, dict(use.arguments))
                parts.append(use.say.replace("{result}", result))

        is_confirm = bool(CONFIRM.search(msg))
        if is_confirm:
            if sc.accepts:
                parts.append(say.accept)
                self.pending = True
            else:
                parts.append(say.decline)
        elif sc.done_when and _has_any(msg, sc.done_when):
            self.pending = False
            text = " ".join(parts + [say.pick(say.closing, dims, say.closing_default)])
            return UserReply(f"{text} {STOP_TOKEN}", stop=True)
        elif REFUSAL.search(msg) and not parts:
            self.refusals += 1
            if self.refusals >= 2 and not self.pending:
                return UserReply(f"{say.give_up} {STOP_TOKEN}", stop=True)
            parts.append(say.doubt)

        progressed = bool(parts)
        if not parts:
            if "?" in msg:
                parts.append(f"{say.unsure} {sc.request}")
            else:
                parts.append(say.what_now)
        self.idle_turns = 0 if progressed else self.idle_turns + 1
        if self.idle_turns >= 4 and not self.pending:
            return UserReply(f"{say.stuck} {STOP_TOKEN}", stop=True)
        return UserReply(self._compose(say, dims, prefix, " ".join(parts), suffix))

    @staticmethod
    def _compose(say: ScriptedWords, dims: dict[str, str], prefix: str, body: str, suffix: str, opening: bool = False) -> str:
        greet = say.pick(say.greeting, dims) if opening else ""
        text = " ".join(x for x in (greet, prefix, body, suffix) if x)
        for word in say.omitted(dims):
            text = text.replace(word, "")
        return text
