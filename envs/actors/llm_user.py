"""The simulated user, played by a model through ``envs.llm.client.LLMClient``.

The system prompt is the ``user`` template, filled from the domain's words,
the persona, the whole scenario (``envs.actors.scenario_text``: goal, facts,
the change of mind and its new details, the decision, when to use the user's
tools, when the goal is met) and this turn's situation: hidden facts are revealed
only when asked; the user may call the domain's user tools; it ends with the
stop token. A guard (the ``user_guard`` note) refuses one premature stop while
a change the user agreed to is pending: pending until a mutating agent tool
ran, or the agent reports it done (generic and the domain's ``done_words``) or
refuses. The episode's seed and repeat come from ``UserTurn.episode``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from envs.actors.json_actions import action_schema, parse_action, response_format_for, tools_text
from envs.actors.prompts import Prompts
from envs.actors.protocols import STOP_TOKEN, UserReply, UserTurn
from envs.actors.scenario_text import scenario_values
from envs.actors.scripted_user import CONFIRM, REFUSAL
from envs.actors.transcript import tool_messages
from envs.errors import InfraError
from envs.llm.client import LLMClient
from envs.llm.endpoints import Endpoint
from envs.records import AgentEvent, EpisodeId, ToolCall, ToolEvent, Usage, UserEvent

YES = re.compile(r"\b(yes|yeah|yep|sure|go ahead|please do|do it|confirm(?:ed)?|that's right|correct|ok(?:ay)?|proceed|sounds good)\b", re.I)
NO = re.compile(r"\b(no|don't|do not|not now|cancel that|stop)\b", re.I)


def words_regex(words: list[str]) -> re.Pattern:
    """Any of ``words`` as a whole word or phrase, case-insensitive."""
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b", re.I)


def rng_fingerprint(rng: Any) -> int:
    """A stable 31-bit id of an episode from its rng state (a function of the episode seed)."""
    import hashlib

    return int.from_bytes(hashlib.sha256(repr(rng.getstate()).encode()).digest()[:4], "big") & 0x7FFFFFFF


def persona_text(turn: UserTurn) -> str:
    p = turn.persona
    if p is None:
        return ""
    dims = ", ".join(f"{k}: {v}" for k, v in p.dimensions.items())
    return f"{p.name or p.id}. {dims}.\n{p.style}".strip()


class LLMUser:
    """The simulated user, played by a model (see the module docstring)."""

    MAX_TOOL_ROUNDS = 4
    MAX_EMPTY_RETRIES = 2

    def __init__(self, client: LLMClient, ep: Endpoint, mutating_tools: set[str] | None = None, prompts: Prompts | None = None):
        self.client = client
        self.ep = ep
        self.name = ep.spec
        self.usage = Usage()
        self.mutating = mutating_tools or set()
        self.prompts = prompts or Prompts()
        self.done = words_regex(self.prompts.words.all_done_words())
        self.pending = False  # agreed to a change the agent has not reported done
        self.pending_since = 0  # events index when the user agreed
        self.guard_used = False
        self.guard_fired = 0  # premature stops refused (for tests and reports)
        self.episode: EpisodeId | None = None

    def system_prompt(self, turn: UserTurn) -> str:
        sc = turn.task.scenario
        json_mode = self.ep.tool_mode == "json"
        return self.prompts.render(
            "user",
            persona=persona_text(turn),
            **scenario_values(sc, self.prompts.words.agent_name, turn.topics),
            how_to_play=turn.situation.how_to_play if turn.situation is not None else "",
            user_tools=tools_text(turn.user_tool_schemas) if turn.user_tool_schemas else "",
            json_help=(
                self.prompts.render(
                    "json_action", message=f"<your message to {self.prompts.words.agent_name}>",
                    no_tools="" if turn.user_tool_schemas else "yes",
                )
                if json_mode
                else ""
            ),
        )

    def messages(self, turn: UserTurn) -> list[dict]:
        json_mode = self.ep.tool_mode == "json"
        msgs: list[dict] = [
            {"role": "system", "content": self.system_prompt(turn)},
            {"role": "user", "content": self.prompts.render("user_opening")},
        ]
        for e in turn.events:
            if isinstance(e, UserEvent):
                content = e.content + (f" {STOP_TOKEN}" if e.stop else "")
                msgs.append({"role": "assistant", "content": json.dumps({"action": {"message": content}}) if json_mode else content})
            elif isinstance(e, AgentEvent):
                msgs.append({"role": "user", "content": e.content})
            elif isinstance(e, ToolEvent) and e.side == "user":
                msgs.extend(tool_messages(e.call, e.output, json_mode))
        return msgs

    def _update_pending(self, turn: UserTurn) -> None:
        """An agreed change stops being pending once a mutating tool ran, or the agent reports it done or refuses."""
        if not self.pending:
            return
        for e in turn.events[self.pending_since :]:
            if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and e.call.name in self.mutating:
                self.pending = False
                return
        msg = turn.agent_message or ""
        if self.done.search(msg) or REFUSAL.search(msg):
            self.pending = False

    async def _ask(self, turn: UserTurn, msgs: list[dict], attempt: int, tools_allowed: bool) -> tuple[str | None, list[ToolCall]]:
        json_mode = self.ep.tool_mode == "json"
        schemas = turn.user_tool_schemas if tools_allowed else []
        comp = await self.client.complete(
            self.ep,
            msgs,
            tools=(schemas or None) if not json_mode else None,
            response_format=response_format_for(action_schema(schemas), "user_action") if json_mode else None,
            seed=self.episode.seed if self.episode.user_seed is None else self.episode.user_seed,
            repeat=self.episode.repeat,
            attempt=attempt,
            usage=self.usage,
        )
        if comp.tool_calls:
            return comp.content, comp.tool_calls
        text = (comp.content or "").strip()
        if json_mode or text.startswith(("{", "```")):
            parsed = parse_action(text, {s.get("function", s)["name"] for s in schemas})
            if isinstance(parsed, list):
                return None, parsed
            if isinstance(parsed, str):
                return parsed.strip(), []
        return text, []

    async def _one_message(self, turn: UserTurn, extra: str | None = None, attempt0: int = 0) -> str:
        msgs = self.messages(turn)
        if extra:
            msgs.append({"role": "system", "content": extra})
        attempt = attempt0
        empty = 0
        rounds = 0
        while True:
            text, calls = await self._ask(turn, msgs, attempt, tools_allowed=rounds < self.MAX_TOOL_ROUNDS)
            if calls:
                rounds += 1
                empty = 0  # "in a row" means within one tool round
                for c in calls:
                    # Malformed arguments go to the tool as they are: its error is the simulator's to handle.
                    out = turn.call_tool(c.name, c.arguments)
                    cid = c.id or f"user_call_{len(turn.events)}"
                    msgs.extend(tool_messages(c.model_copy(update={"id": cid}), out, self.ep.tool_mode == "json"))
                continue
            if text and text.replace(STOP_TOKEN, "").strip() or (text and STOP_TOKEN in text):
                return text
            empty += 1
            attempt += 1
            if empty > self.MAX_EMPTY_RETRIES:
                raise InfraError(
                    f"user model {self.ep.spec}: {empty} empty or unusable replies in a row", role="user", kind="bad_reply"
                )

    async def reply(self, turn: UserTurn) -> UserReply:
        if self.episode is None:
            # A turn built without an episode id (a test, a caller of its own) is keyed by its rng.
            self.episode = turn.episode or EpisodeId(task_id=turn.task.id, repeat=turn.repeat or 0, seed=rng_fingerprint(turn.rng))
        self._update_pending(turn)
        text = await self._one_message(turn)
        if STOP_TOKEN in text and self.pending and not self.guard_used:
            self.guard_used = True
            self.guard_fired += 1
            text = await self._one_message(turn, extra=self.prompts.render("user_guard"), attempt0=10)
        stop = STOP_TOKEN in text
        # Did the user just agree to a change the agent proposed?
        if turn.agent_message and CONFIRM.search(turn.agent_message) and YES.search(text) and not NO.search(text.split(".")[0]):
            self.pending, self.pending_since, self.guard_used = True, len(turn.events), False
        return UserReply(text, stop=stop)
