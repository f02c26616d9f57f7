"""A person plays the user in the terminal (``--user human``).

At the start the person is shown the goal, the facts to volunteer and those to reveal only
when asked, and how to end. Each turn shows the agent's message and the situation to play.
A line is the person's reply, or a command:

    /tool NAME {json}   call one of the user's own tools (the doorstep, the app, ...)
    /tools              list those tools
    /help               list these commands
    /stop               end the conversation

An ordinary goodbye ends it too: a reply made only of closing words ("that's all, thanks",
"bye", "nothing else, thank you") is sent and ends the episode, as a simulated user's stop
would. A bare "thanks" does not (people thank agents mid-conversation). Ctrl-D is /stop.
The runner plays a person's episodes one at a time with no progress bar, so nothing is
redrawn over what they type.
"""

from __future__ import annotations

import json
import re

from envs.actors.protocols import STOP_TOKEN, UserReply, UserTurn

HELP = """commands:
  /tool NAME {json}   call one of your own tools, e.g. /tool check_balance_app {"account_id": "A001"}
  /tools              list your tools
  /help               this list
  /stop               end the conversation (so does a goodbye such as "that's all, thanks")
anything else is your reply to the agent."""

# Words a closing message may be made of; at least one from _ENDERS must be present.
_CLOSING = re.compile(
    r"(that'?s all|that is all|that'?s it|that is it|nothing else|no more questions|i'?m done|i am done|"
    r"all good|all set|good ?bye|bye|bye now|see you|cheers|thanks|thank you|thx|ty|ok|okay|great|"
    r"perfect|so much|very much|a lot|for now|for your help|for the help|have a (?:good|nice|great) day|"
    r"for everything|then|yes|no|that was all)"
)
_ENDERS = re.compile(
    r"\b(that'?s all|that is all|that'?s it|that is it|nothing else|no more questions|i'?m done|i am done|"
    r"all set|good ?bye|bye|see you|have a (?:good|nice|great) day|that was all)\b"
)


def is_goodbye(text: str) -> bool:
    """True when ``text`` only closes the conversation ("that's all, thanks"; not "thanks" alone,
    not "that's all I have, but where is my refund?")."""
    t = text.lower().replace("\u2019", "'").strip()
    if not _ENDERS.search(t) or "?" in t:
        return False
    rest = _CLOSING.sub(" ", t)
    return not re.sub(r"[\s.,!;:\-)(]+", "", rest)


class HumanUser:
    """A person plays the user (see the module docstring for the commands)."""

    name = "human"

    def __init__(self, console=None, read=None):
        from rich.console import Console

        self.console = console or Console(highlight=False)
        self._read = read or (lambda prompt: self.console.input(prompt))

    def _say(self, text: str, style: str | None = None) -> None:
        self.console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    def _intro(self, turn: UserTurn) -> None:
        sc = turn.task.scenario
        self.console.rule("you are the user")
        self._say(f"Your goal: {sc.goal}", "bold")
        for f in sc.known_facts:
            self._say(f"  known: {getattr(f, 'fact', f)}")
        for h in sc.hidden_facts:
            self._say(f"  reveal only if asked: {h.fact}")
        if getattr(sc, "request", None):
            self._say(f"  you might open with: {sc.request}")
        for i, more in enumerate(getattr(sc, "more_requests", None) or [], 2):
            self._say(f"  then, once that is dealt with, request {i}: {more}")
        self._say("End the conversation with /stop or a plain goodbye (\"that's all, thanks\"); /help lists the commands.", "bold")

    async def reply(self, turn: UserTurn) -> UserReply:
        if turn.agent_message is None:
            self._intro(turn)
        else:
            self._say(f"agent: {turn.agent_message}", "cyan")
        if turn.situation:
            self._say(f"situation to play: {turn.situation.id}: {turn.situation.how_to_play}", "dim")
        while True:
            try:
                text = self._read("you: ").strip()
            except EOFError:  # input closed (Ctrl-D): the person is done
                return UserReply(STOP_TOKEN, stop=True)
            if not text:
                continue
            if text == "/help":
                self._say(HELP)
            elif text == "/tools":
                for s in turn.user_tool_schemas:
                    fn = s.get("function", s)
                    self._say(f"  {fn.get('name')}: {(fn.get('description') or '').strip()}")
            elif text == "/stop":
                return UserReply(STOP_TOKEN, stop=True)
            elif text == "/tool" or text.startswith("/tool "):
                name, _, args = text[len("/tool"):].strip().partition(" ")
                if not name:
                    self._say("usage: /tool NAME {json arguments}", "yellow")
                    continue
                try:
                    payload = json.loads(args or "{}")
                except json.JSONDecodeError as e:
                    self._say(f"bad JSON: {e}", "yellow")
                    continue
                if not isinstance(payload, dict):
                    self._say("the arguments must be a JSON object", "yellow")
                    continue
                self._say(turn.call_tool(name, payload))
            elif text.startswith("/"):
                self._say(f"unknown command {text.split()[0]}; /help lists them", "yellow")
            elif is_goodbye(text):
                self._say("(conversation ended)", "dim")
                return UserReply(text, stop=True)
            else:
                return UserReply(text)
