"""A person plays the agent in the terminal (``--agent human``), as ``tau2 play`` does.

The person sees the policy and the agent tools once, then each user message and each tool
result as it comes. A line is a message to the user, or a command:

    /tool NAME {json}   call an agent tool (arguments as a JSON object; {} when none)
    /tools              list the tools and their arguments again
    /policy             show the policy again
    /help               list these commands
    /quit               give up: the episode is recorded as an error of the agent role
                        (kind ``person_quit``), so ``--resume`` plays it again

The episode ends as any other: the simulated user stops, a terminal tool (a transfer) is
called, or the turn budget runs out. A malformed command is explained and asked again; it is
never sent to the episode, so the person's typos are not counted as the agent's errors.
"""

from __future__ import annotations

import json

from envs.actors.protocols import AgentView
from envs.errors import InfraError
from envs.records import AgentAction, AgentEvent, ErrorEvent, ToolCall, ToolEvent, UserEvent

HELP = """commands:
  /tool NAME {json}   call an agent tool, e.g. /tool get_order {"order_id": "O-1"}
  /tools              list the tools and their arguments
  /policy             show the policy again
  /help               this list
  /quit               give up (recorded as an error; --resume plays the episode again)
anything else is your message to the user."""


def _type_words(spec: dict) -> str:
    """An argument's type as a person reads it: the allowed values when the schema enumerates them
    ("reason: damaged|missing_item|lost_package"), else the JSON type."""
    # an optional argument's schema is anyOf [its type, null]: the person wants its type
    options = [o for o in spec.get("anyOf") or spec.get("oneOf") or [] if o.get("type") != "null"]
    if len(options) == 1 and "type" not in spec:
        return _type_words({**options[0], **{k: v for k, v in spec.items() if k not in ("anyOf", "oneOf")}})
    values = spec.get("enum") or (spec.get("items") or {}).get("enum")
    if values:
        words = "|".join(str(v) for v in values)
        return f"[{words}]" if spec.get("type") == "array" else words
    return spec.get("type", "any")


def describe_tools(schemas: list[dict]) -> list[str]:
    """One line per tool: name(arg: type or allowed values, optional?: type) - description."""
    lines = []
    for s in schemas:
        fn = s.get("function", s)
        params = fn.get("parameters", {}) or {}
        required = set(params.get("required", []))
        args = ", ".join(
            f"{name}{'' if name in required else '?'}: {_type_words(spec)}"
            for name, spec in (params.get("properties") or {}).items()
        )
        desc = (fn.get("description") or "").strip().splitlines()
        lines.append(f"{fn.get('name')}({args})" + (f" - {desc[0]}" if desc else ""))
    return lines


def parse_tool_command(text: str, known: set[str]) -> tuple[ToolCall | None, str | None]:
    """``/tool NAME {json}`` -> (call, None), or (None, why it is not one)."""
    name, _, raw = text[len("/tool"):].strip().partition(" ")
    if not name:
        return None, "usage: /tool NAME {json arguments}"
    if name not in known:
        return None, f"no tool {name!r}; /tools lists them"
    try:
        args = json.loads(raw.strip() or "{}")
    except json.JSONDecodeError as e:
        return None, f"the arguments are not JSON ({e.msg} at column {e.colno}); write them as {{\"key\": \"value\"}}"
    if not isinstance(args, dict):
        return None, "the arguments must be a JSON object, e.g. {\"order_id\": \"O-1\"}"
    return ToolCall(name=name, arguments=args), None


class HumanAgent:
    """The agent under test is a person at the terminal (see the module docstring)."""

    name = "human"

    def __init__(self, console=None, read=None):
        from rich.console import Console

        self.console = console or Console(highlight=False)
        self._read = read or (lambda prompt: self.console.input(prompt))
        self._seen = 0
        self._started = False

    def _say(self, text: str, style: str | None = None) -> None:
        self.console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    def _intro(self, view: AgentView) -> None:
        self.console.rule("you are the agent")
        self._say(view.policy.strip())
        self.console.rule("your tools")
        for line in describe_tools(view.tools):
            self._say("  " + line)
        self.console.rule()
        self._say("Type a message to the user, or /tool NAME {json} to call a tool; /help lists the commands.", "bold")

    def _show_new(self, view: AgentView) -> None:
        for e in view.events[self._seen:]:
            if isinstance(e, UserEvent):
                self._say(f"user: {e.content}", "cyan")
            elif isinstance(e, ToolEvent) and e.side == "agent":
                mark = "ok" if e.ok else f"failed: {e.error_kind}"
                self._say(f"tool {e.call.name} ({mark}): {e.output}", "magenta")
            elif isinstance(e, ErrorEvent):
                self._say(f"error shown to the agent: {e.message}", "red")
            elif isinstance(e, AgentEvent):
                pass  # the person's own words
        self._seen = len(view.events)

    def episode_ended(self, view: AgentView, termination: str | None) -> None:
        """Show what came after the person's last step (the user's goodbye) and how it ended: the
        loop does not ask the agent to act again, so without this the last words go unseen."""
        self._show_new(view)
        self.console.rule(f"the conversation has ended ({termination or 'unknown'})")

    async def act(self, view: AgentView) -> AgentAction:
        if not self._started:
            self._intro(view)
            self._started = True
        self._show_new(view)
        known = {s.get("function", s).get("name") for s in view.tools}
        while True:
            try:
                text = self._read("agent> ").strip()
            except EOFError:
                text = "/quit"
            if not text:
                continue
            if text == "/help":
                self._say(HELP)
            elif text == "/tools":
                for line in describe_tools(view.tools):
                    self._say("  " + line)
            elif text == "/policy":
                self._say(view.policy.strip())
            elif text == "/quit":
                raise InfraError("the person playing the agent quit", role="agent", kind="person_quit")
            elif text == "/tool" or text.startswith("/tool "):
                call, why = parse_tool_command(text, known)
                if call is None:
                    self._say(why, "yellow")
                    continue
                return AgentAction(tool_calls=[call])
            elif text.startswith("/"):
                self._say(f"unknown command {text.split()[0]}; /help lists them", "yellow")
            else:
                return AgentAction.say(text)
