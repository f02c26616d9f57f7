"""LLM actors: the agent under test, the simulated user and the rule judge.

All three talk to models through ``envs.llm.client.LLMClient`` only. Each episode
gets fresh instances (the factories below), so ``.usage`` is per episode.

* ``LLMAgent``: the domain's policy as system prompt, the agent tool schemas,
  the conversation so far; returns a message or tool calls. A reply that is
  not a valid action comes back as ``AgentAction(parse_error=...)``: the
  engine shows it to the agent as an error observation and counts it as the
  agent's error.
* ``LLMUser``: persona + scenario + this turn's situation; hidden facts only
  when asked; may call the domain's user tools; ends with the stop token, and
  a guard refuses one premature stop while a change it agreed to is pending.
* ``LLMJudge``: per rule a short rationale, then FOLLOWED / VIOLATED /
  NOT_APPLICABLE / NEEDS_REVIEW as JSON. An empty or unparseable reply is
  retried, then NEEDS_REVIEW: never a pass.

With ``tool_mode == "json"`` (small local servers, no native tool calls) the
agent and the user answer with one JSON action, constrained by a JSON schema
built from the tool schemas (``response_format``).
"""

from __future__ import annotations

import contextvars
import json
import re
from typing import Any, Callable

from envs.actors.protocols import STOP_TOKEN, AgentView, UserReply, UserTurn
from envs.errors import InfraError
from envs.llm.client import LLMClient
from envs.llm.context import LLMContext
from envs.llm.endpoints import Endpoint
from envs.llm.parsing import extract_json, normalise_arguments, strip_fences
from envs.records import AgentAction, AgentEvent, ErrorEvent, Event, ToolCall, ToolEvent, Usage, UserEvent, Verdict

MAX_TOOL_OUTPUT = 4000  # characters of a tool result shown back to a model


def _clip(text: str, n: int = MAX_TOOL_OUTPUT) -> str:
    return text if len(text) <= n else text[: n - 20] + " ...[truncated]"


def _args_text(args: dict | str) -> str:
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


# --- JSON action mode ---------------------------------------------------------------------

_KEEP = {"type", "properties", "required", "items", "enum", "const", "anyOf", "$ref", "$defs", "additionalProperties"}


def _simplify(schema: Any) -> Any:
    """A tool's parameter schema reduced to what every JSON-schema grammar supports."""
    if isinstance(schema, list):
        return [_simplify(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for k, v in schema.items():
        if k not in _KEEP:
            continue
        if k in ("properties", "$defs"):
            out[k] = {name: _simplify(s) for name, s in v.items()}
        elif k in ("items", "anyOf"):
            out[k] = _simplify(v)
        else:
            out[k] = v
    return out


def action_schema(tools: list[dict], allow_message: bool = True) -> dict:
    """JSON schema of one action: ``{"action": {"message": ...}}`` or ``{"action": {"tool": ..., "arguments": {...}}}``."""
    variants: list[dict] = []
    if allow_message:
        variants.append(
            {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"], "additionalProperties": False}
        )
    for t in tools:
        fn = t.get("function", t)
        params = _simplify(fn.get("parameters") or {"type": "object", "properties": {}})
        params.setdefault("type", "object")
        variants.append(
            {
                "type": "object",
                "properties": {"tool": {"const": fn["name"]}, "arguments": params},
                "required": ["tool", "arguments"],
                "additionalProperties": False,
            }
        )
    return {
        "type": "object",
        "properties": {"action": {"anyOf": variants} if len(variants) > 1 else variants[0]},
        "required": ["action"],
        "additionalProperties": False,
    }


def response_format_for(schema: dict, name: str) -> dict:
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}


def tools_text(tools: list[dict]) -> str:
    lines = []
    for t in tools:
        fn = t.get("function", t)
        params = fn.get("parameters", {}).get("properties", {})
        req = set(fn.get("parameters", {}).get("required", []))
        args = ", ".join(f"{k}{'' if k in req else '?'}: {v.get('type', 'any')}" for k, v in params.items())
        lines.append(f"- {fn['name']}({args}): {fn.get('description', '')}")
    return "\n".join(lines)


JSON_ACTION_HELP = (
    "Answer with exactly one JSON object and nothing else:\n"
    '  {"action": {"message": "<what you say>"}}  to write a message, or\n'
    '  {"action": {"tool": "<tool name>", "arguments": {...}}}  to call a tool.'
)


def parse_action(text: str | None, tool_names: set[str] | None = None) -> list[ToolCall] | str | None:
    """A JSON action in ``text``: tool calls, a message (str), or None when there is none."""
    obj = extract_json(text)
    if obj is None:
        return None
    if isinstance(obj, dict) and isinstance(obj.get("action"), (dict, list)):
        obj = obj["action"]
    if isinstance(obj, dict) and isinstance(obj.get("tool_calls"), list):
        obj = obj["tool_calls"]
    items = obj if isinstance(obj, list) else [obj]
    calls: list[ToolCall] = []
    for it in items:
        if not isinstance(it, dict):
            return None
        if isinstance(it.get("function"), dict):  # OpenAI-shaped call in the content
            it = {"tool": it["function"].get("name"), "arguments": it["function"].get("arguments"), "id": it.get("id")}
        name = it.get("tool") or it.get("name") or it.get("tool_name")
        if name is None:
            if len(items) == 1 and isinstance(it.get("message"), str):
                return it["message"]
            if len(items) == 1 and isinstance(it.get("content"), str):
                return it["content"]
            return None
        if not isinstance(name, str):
            return None
        if tool_names is not None and name not in tool_names and "message" in it:
            return it["message"] if isinstance(it["message"], str) else None
        args = it.get("arguments", it.get("args", it.get("parameters", {})))
        calls.append(ToolCall(id=str(it.get("id") or ""), name=name, arguments=normalise_arguments(args)))
    return calls or None


# --- the agent -----------------------------------------------------------------------------------

AGENT_PREAMBLE = (
    "You are the agent in a conversation with a user. Follow the policy below. Use the tools to read and "
    "change data; never claim an action is done unless a tool call did it. Reply to the user in plain text."
)


class LLMAgent:
    """The agent under test, driven by a model through the LLM layer."""

    def __init__(self, client: LLMClient, ep: Endpoint):
        self.client = client
        self.ep = ep
        self.name = ep.spec
        self.usage = Usage()

    def messages(self, view: AgentView) -> list[dict]:
        json_mode = self.ep.tool_mode == "json"
        system = f"{AGENT_PREAMBLE}\n\n# Policy\n{view.policy or '(no policy)'}"
        if json_mode:
            system += f"\n\n# Tools\n{tools_text(view.tools)}\n\n{JSON_ACTION_HELP}"
        msgs: list[dict] = [{"role": "system", "content": system}]
        for e in view.events:
            if isinstance(e, UserEvent):
                msgs.append({"role": "user", "content": e.content})
            elif isinstance(e, AgentEvent):
                content = json.dumps({"action": {"message": e.content}}, ensure_ascii=False) if json_mode else e.content
                msgs.append({"role": "assistant", "content": content})
            elif isinstance(e, ToolEvent) and e.side == "agent":
                if json_mode:
                    call = {"action": {"tool": e.call.name, "arguments": e.call.arguments}}
                    msgs.append({"role": "assistant", "content": json.dumps(call, ensure_ascii=False)})
                    msgs.append({"role": "user", "content": f"[tool result: {e.call.name}] {_clip(e.output)}"})
                else:
                    msgs.append(
                        {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {"id": e.call.id, "type": "function", "function": {"name": e.call.name, "arguments": _args_text(e.call.arguments)}}
                            ],
                        }
                    )
                    msgs.append({"role": "tool", "tool_call_id": e.call.id, "content": _clip(e.output)})
            elif isinstance(e, ErrorEvent) and e.role == "agent":
                hint = JSON_ACTION_HELP if json_mode else "Reply with a message to the user or a valid tool call."
                msgs.append({"role": "user", "content": f"[error] Your last reply could not be used: {e.message}. {hint}"})
        return msgs

    async def act(self, view: AgentView) -> AgentAction:
        json_mode = self.ep.tool_mode == "json"
        EPISODE.set((view.seed, view.repeat))
        names = {t.get("function", t).get("name") for t in view.tools}
        comp = await self.client.complete(
            self.ep,
            self.messages(view),
            tools=None if json_mode else (view.tools or None),
            response_format=response_format_for(action_schema(view.tools), "agent_action") if json_mode else None,
            seed=view.seed,
            repeat=view.repeat,
            usage=self.usage,
        )
        return to_action(comp.content, comp.tool_calls, names, json_mode)


def to_action(content: str | None, calls: list[ToolCall], tool_names: set[str], json_mode: bool) -> AgentAction:
    """A model reply as an action; anything unusable becomes ``parse_error`` (the agent's error)."""
    if calls:
        nameless = [c for c in calls if not c.name]
        if nameless:
            return AgentAction(parse_error="a tool call without a tool name")
        return AgentAction(content=content or None, tool_calls=calls)
    text = (content or "").strip()
    if not text:
        return AgentAction(parse_error="empty reply (no message and no tool call)")
    if json_mode:
        parsed = parse_action(text, tool_names)
        if parsed is None:
            return AgentAction(parse_error=f"the reply is not a JSON action: {_clip(text, 200)!r}")
        if isinstance(parsed, str):
            return AgentAction(parse_error="an empty message") if not parsed.strip() else AgentAction.say(parsed.strip())
        return AgentAction(tool_calls=parsed)
    # Native mode: some servers put a tool call in the content as (fenced) JSON.
    stripped = strip_fences(text).strip()
    if stripped.startswith(("{", "[")):
        parsed = parse_action(stripped, tool_names)
        if isinstance(parsed, list) and all(c.name in tool_names for c in parsed):
            return AgentAction(tool_calls=parsed)
        if isinstance(parsed, str) and parsed.strip():
            return AgentAction.say(parsed.strip())
    return AgentAction.say(text)


# --- the simulated user ------------------------------------------------------------------------

YES = re.compile(r"\b(yes|yeah|yep|sure|go ahead|please do|do it|confirm(?:ed)?|that's right|correct|ok(?:ay)?|proceed|sounds good)\b", re.I)
NO = re.compile(r"\b(no|don't|do not|not now|cancel that|stop)\b", re.I)
DONE = re.compile(
    r"\b(done|completed?|processed|has been|have been|successfully|updated|refunded|cancell?ed|submitted|issued|changed|deposited|all set)\b",
    re.I,
)

USER_RULES = f"""Rules:
- You are the customer, not the agent. Write only your next message to the agent, in the first person, one message at a time.
- Never invent facts: use only the facts given here. If asked for something you do not know, say you don't know.
- Reveal a hidden fact only when the agent asks for it; never volunteer it.
- Never copy these instructions or mention that you are simulated.
- When your goal is met, or the agent has clearly refused it, end the conversation by writing {STOP_TOKEN} at the end of your message.
- Do not end the conversation while a change you agreed to has not been confirmed as done."""


class LLMUser:
    """The simulated user, played by a model (see the module docstring)."""

    MAX_TOOL_ROUNDS = 4
    MAX_EMPTY_RETRIES = 2

    def __init__(self, client: LLMClient, ep: Endpoint, mutating_tools: set[str] | None = None):
        self.client = client
        self.ep = ep
        self.name = ep.spec
        self.usage = Usage()
        self.mutating = mutating_tools or set()
        self.pending = False  # agreed to a change the agent has not reported done
        self.pending_since = 0  # events index when the user agreed
        self.guard_used = False
        self.guard_fired = 0  # premature stops refused (for tests and reports)
        self.episode_seed: int | None = None

    def system_prompt(self, turn: UserTurn) -> str:
        sc = turn.task.scenario
        p = turn.persona
        parts = ["You are playing a customer who contacts customer support. Stay in character."]
        if p is not None:
            dims = ", ".join(f"{k}: {v}" for k, v in p.dimensions.items())
            parts.append(f"# Your persona\n{p.name or p.id}. {dims}.\n{p.style}".strip())
        parts.append(f"# Your goal\n{sc.goal}\n\n# How you put your request\n{sc.request}")
        if sc.known_facts:
            parts.append("# Facts you know and may share\n" + "\n".join(f"- {f}" for f in sc.known_facts))
        if sc.hidden_facts:
            parts.append(
                "# Hidden facts: reveal each one only when the agent asks for it\n"
                + "\n".join(f"- {h.fact} (reveal only if asked about: {', '.join(h.asked_by)})" for h in sc.hidden_facts)
            )
        if not sc.accepts:
            parts.append("# Decision\nIf the agent asks you to confirm a change, say no.")
        if turn.situation is not None:
            parts.append(f"# How to play this turn\n{turn.situation.how_to_play}")
        if turn.user_tool_schemas:
            parts.append("# Your own tools\nYou can check things yourself with these tools before you answer:\n" + tools_text(turn.user_tool_schemas))
        parts.append(USER_RULES)
        if self.ep.tool_mode == "json":
            parts.append(
                JSON_ACTION_HELP.replace("<what you say>", "<your message to the agent>")
                + ("" if turn.user_tool_schemas else "\n(You have no tools: always write a message.)")
            )
        return "\n\n".join(parts)

    def messages(self, turn: UserTurn) -> list[dict]:
        json_mode = self.ep.tool_mode == "json"
        msgs: list[dict] = [
            {"role": "system", "content": self.system_prompt(turn)},
            {"role": "user", "content": "(The support agent is waiting for your first message.)"},
        ]
        for e in turn.events:
            if isinstance(e, UserEvent):
                content = e.content + (f" {STOP_TOKEN}" if e.stop else "")
                msgs.append({"role": "assistant", "content": json.dumps({"action": {"message": content}}) if json_mode else content})
            elif isinstance(e, AgentEvent):
                msgs.append({"role": "user", "content": e.content})
            elif isinstance(e, ToolEvent) and e.side == "user":
                msgs.extend(self._tool_messages(e.call, e.output, json_mode))
        return msgs

    @staticmethod
    def _tool_messages(call: ToolCall, output: str, json_mode: bool) -> list[dict]:
        if json_mode:
            return [
                {"role": "assistant", "content": json.dumps({"action": {"tool": call.name, "arguments": call.arguments}})},
                {"role": "user", "content": f"[tool result: {call.name}] {_clip(output)}"},
            ]
        return [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call.id, "type": "function", "function": {"name": call.name, "arguments": _args_text(call.arguments)}}],
            },
            {"role": "tool", "tool_call_id": call.id, "content": _clip(output)},
        ]

    def _update_pending(self, turn: UserTurn) -> None:
        """An agreed change stops being pending once a mutating tool ran, or the agent reports it done or refuses."""
        if not self.pending:
            return
        for e in turn.events[self.pending_since :]:
            if isinstance(e, ToolEvent) and e.side == "agent" and e.ok and e.call.name in self.mutating:
                self.pending = False
                return
        from envs.actors.scripted_user import REFUSAL

        msg = turn.agent_message or ""
        if DONE.search(msg) or REFUSAL.search(msg):
            self.pending = False

    async def _ask(self, turn: UserTurn, msgs: list[dict], attempt: int, tools_allowed: bool) -> tuple[str | None, list[ToolCall]]:
        json_mode = self.ep.tool_mode == "json"
        schemas = turn.user_tool_schemas if tools_allowed else []
        comp = await self.client.complete(
            self.ep,
            msgs,
            tools=(schemas or None) if not json_mode else None,
            response_format=response_format_for(action_schema(schemas), "user_action") if json_mode else None,
            seed=self.episode_seed,
            repeat=getattr(turn, "repeat", None),
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
                for c in calls:
                    args = c.arguments if isinstance(c.arguments, dict) else {}
                    out = turn.call_tool(c.name, args)
                    cid = c.id or f"user_call_{len(turn.events)}"
                    msgs.extend(self._tool_messages(c.model_copy(update={"id": cid}), out, self.ep.tool_mode == "json"))
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
        if self.episode_seed is None:
            self.episode_seed = turn.seed if turn.seed is not None else rng_fingerprint(turn.rng)
            if EPISODE.get() is None:
                EPISODE.set((self.episode_seed, turn.repeat))
        self._update_pending(turn)
        text = await self._one_message(turn)
        if STOP_TOKEN in text and self.pending and not self.guard_used:
            self.guard_used = True
            self.guard_fired += 1
            note = (
                "You agreed to a change that the agent has not yet confirmed as done. Do not end the conversation yet: "
                f"ask the agent to complete it or to confirm it is done. Do not write {STOP_TOKEN} in this message."
            )
            text = await self._one_message(turn, extra=note, attempt0=10)
        stop = STOP_TOKEN in text
        # Did the user just agree to a change the agent proposed?
        from envs.actors.scripted_user import CONFIRM

        if turn.agent_message and CONFIRM.search(turn.agent_message) and YES.search(text) and not NO.search(text.split(".")[0]):
            self.pending, self.pending_since, self.guard_used = True, len(turn.events), False
        return UserReply(text, stop=stop)


# The episode's (seed, repeat), visible to every actor of the episode: episodes run as
# separate asyncio tasks, each with its own context. The agent sets it from its
# view; the user (whose turns carry no seed) fingerprints the episode's rng.
EPISODE: contextvars.ContextVar[tuple[int, int | None] | None] = contextvars.ContextVar("sitgym_episode", default=None)


def rng_fingerprint(rng: Any) -> int:
    """A stable 31-bit id of an episode from its rng state (a function of the episode seed)."""
    import hashlib

    return int.from_bytes(hashlib.sha256(repr(rng.getstate()).encode()).digest()[:4], "big") & 0x7FFFFFFF


# --- the judge ---------------------------------------------------------------------------------

VERDICTS = ("FOLLOWED", "VIOLATED", "NOT_APPLICABLE", "NEEDS_REVIEW")

JUDGE_SYSTEM = """You judge one reply of an AI agent (a customer-service agent, a tutor, ...) against a list of rules.
For each rule: first a short rationale (one or two sentences, quoting the reply where useful), then a verdict:
FOLLOWED (the reply complies), VIOLATED (it breaks the rule), NOT_APPLICABLE (the rule does not apply to this reply),
or NEEDS_REVIEW (you cannot tell from what you see).
Answer with one JSON object and nothing else:
{"verdicts": [{"rule": "<rule id>", "rationale": "<why>", "verdict": "FOLLOWED|VIOLATED|NOT_APPLICABLE|NEEDS_REVIEW"}]}
with exactly one entry per rule."""


def render_dialogue(events: list[Event], upto: int | None = None) -> str:
    lines = []
    for i, e in enumerate(events[: None if upto is None else upto]):
        if isinstance(e, UserEvent):
            lines.append(f"[turn {e.turn}] User: {e.content}")
        elif isinstance(e, AgentEvent):
            lines.append(f"[turn {e.turn}] Agent: {e.content}")
        elif isinstance(e, ToolEvent):
            who = "Agent" if e.side == "agent" else "User"
            lines.append(f"[turn {e.turn}] {who} called {e.call.name}({_args_text(e.call.arguments)}) -> {_clip(e.output, 600)}")
        elif isinstance(e, ErrorEvent):
            lines.append(f"[turn {e.turn}] (error from {e.role}: {e.message})")
    return "\n".join(lines) or "(nothing yet)"


def parse_verdicts(text: str | None, rule_ids: list[str]) -> dict[str, tuple[str, str]] | None:
    """{rule: (verdict, rationale)} from a judge reply; None when nothing usable is in it.

    Accepts code fences and text around the JSON, a bare list, or a dict keyed by
    rule id. Unknown rules are ignored; a rule given twice with different
    verdicts becomes NEEDS_REVIEW; unknown verdict words become NEEDS_REVIEW.
    """
    obj = extract_json(text)
    if obj is None:
        return None
    items: list[Any]
    if isinstance(obj, dict) and isinstance(obj.get("verdicts"), list):
        items = obj["verdicts"]
    elif isinstance(obj, list):
        items = obj
    elif isinstance(obj, dict) and "rule" in obj:
        items = [obj]
    elif isinstance(obj, dict):
        items = [
            ({"rule": k, **v} if isinstance(v, dict) else {"rule": k, "verdict": v}) for k, v in obj.items() if k in rule_ids
        ]
    else:
        return None
    out: dict[str, tuple[str, str]] = {}
    for it in items:
        if not isinstance(it, dict):
            continue
        rid = str(it.get("rule") or it.get("id") or it.get("rule_id") or "").strip()
        if rid not in rule_ids:
            continue
        word = str(it.get("verdict") or it.get("label") or "").strip().upper().replace(" ", "_").replace("-", "_")
        why = str(it.get("rationale") or it.get("reason") or "").strip()
        if word not in VERDICTS:
            word, why = "NEEDS_REVIEW", f"unreadable verdict {it.get('verdict')!r}. {why}".strip()
        if rid in out and out[rid][0] != word:
            out[rid] = ("NEEDS_REVIEW", f"the judge gave conflicting verdicts ({out[rid][0]}, {word})")
        elif rid not in out:
            out[rid] = (word, why)
    return out if out or not items else out


class LLMJudge:
    """The rule judge: per-turn verdicts for the rules without a deterministic check."""

    MAX_ATTEMPTS = 3

    def __init__(self, client: LLMClient, ep: Endpoint):
        self.client = client
        self.ep = ep
        self.name = ep.spec
        self.usage = Usage()

    @property
    def seed(self) -> int | None:
        e = EPISODE.get()
        return e[0] if e else None

    @property
    def repeat(self) -> int | None:
        e = EPISODE.get()
        return e[1] if e else None

    def messages(self, situation: Any, rules: list[Any], events: list[Event], reply_index: int) -> list[dict]:
        rule_text = "\n\n".join(
            f"[RULE {r.id}] ({r.category}) {r.text}\n  A violation looks like: {r.violation}\n"
            f"  Good reply: {r.good_example}\n  Bad reply: {r.bad_example}"
            for r in rules
        )
        reply = events[reply_index]
        body = (
            f"# Situation of the user's last message: {situation.id}\n{situation.description}\n\n"
            f"# Rules\n{rule_text}\n\n"
            f"# Dialogue before the reply\n{render_dialogue(events, reply_index)}\n\n"
            f"# The reply to judge (turn {reply.turn})\nAgent: {getattr(reply, 'content', '')}\n\n"
            f"Give one verdict for each of: {', '.join(r.id for r in rules)}."
        )
        return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": body}]

    def _schema(self, rule_ids: list[str]) -> dict:
        return {
            "type": "object",
            "properties": {
                "verdicts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "rule": {"enum": rule_ids},
                            "rationale": {"type": "string"},
                            "verdict": {"enum": list(VERDICTS)},
                        },
                        "required": ["rule", "rationale", "verdict"],
                        "additionalProperties": False,
                    },
                }
            },
            "required": ["verdicts"],
            "additionalProperties": False,
        }

    async def judge_turn(
        self, situation: Any, rules: list[Any], events: list[Event], reply_index: int, episode: Any = None
    ) -> list[Verdict]:
        ids = [r.id for r in rules]
        turn = events[reply_index].turn
        msgs = self.messages(situation, rules, events, reply_index)
        rf = response_format_for(self._schema(ids), "verdicts") if self.ep.tool_mode == "json" else None
        got: dict[str, tuple[str, str]] | None = None
        last = ""
        for attempt in range(self.MAX_ATTEMPTS):
            comp = await self.client.complete(
                self.ep, msgs, response_format=rf, seed=self.seed, repeat=self.repeat, attempt=attempt, usage=self.usage
            )
            last = (comp.content or "").strip()
            got = parse_verdicts(last, ids) if last else None
            if got:
                break
        out = []
        for rid in ids:
            if got and rid in got:
                v, why = got[rid]
            elif not last:
                v, why = "NEEDS_REVIEW", f"the judge gave an empty reply {self.MAX_ATTEMPTS} times"
            elif got is None or not got:
                v, why = "NEEDS_REVIEW", f"unparseable judge reply after {self.MAX_ATTEMPTS} attempts: {_clip(last, 160)!r}"
            else:
                v, why = "NEEDS_REVIEW", "the judge gave no verdict for this rule"
            out.append(Verdict(turn=turn, situation=situation.id, rule=rid, verdict=v, rationale=why, source="judge"))
        return out

    async def judge_question(self, question: str, events: list[Event], episode: Any = None) -> tuple[str, str]:
        """An ``llm_judge`` assertion: a yes/no question about the whole transcript -> (pass|fail|needs_review, evidence)."""
        msgs = [
            {
                "role": "system",
                "content": 'You answer a yes/no question about a conversation between an AI agent and a user. Answer with one JSON object: {"rationale": "<why>", "answer": "yes" | "no" | "unsure"}',
            },
            {"role": "user", "content": f"# Conversation\n{render_dialogue(events)}\n\n# Question\n{question}"},
        ]
        last = ""
        for attempt in range(self.MAX_ATTEMPTS):
            comp = await self.client.complete(self.ep, msgs, seed=self.seed, repeat=self.repeat, attempt=attempt, usage=self.usage)
            last = (comp.content or "").strip()
            obj = extract_json(last)
            if isinstance(obj, dict) and str(obj.get("answer", "")).lower() in ("yes", "no", "unsure"):
                ans = str(obj["answer"]).lower()
                why = str(obj.get("rationale", ""))
                return {"yes": "pass", "no": "fail"}.get(ans, "needs_review"), why
        return "needs_review", f"no usable answer from the judge: {_clip(last, 160)!r}"


# --- factories (called by envs.actors.roles) ------------------------------------------------------------


def _context(llm_context: Any) -> LLMContext:
    if not isinstance(llm_context, LLMContext):
        raise TypeError("LLM roles need an LLMContext (envs.run.llm_flags.make_llm_context)")
    return llm_context


def make_llm_agent(domain: Any, role: Any, llm_context: Any) -> Callable[[], LLMAgent]:
    ctx = _context(llm_context)
    ep = ctx.endpoint("agent")
    return lambda: LLMAgent(ctx.client, ep)


def make_llm_user(domain: Any, role: Any, llm_context: Any) -> Callable[[], LLMUser]:
    ctx = _context(llm_context)
    ep = ctx.endpoint("user")
    mutating = {name for name, t in domain.agent_tools.tools.items() if getattr(t, "mutates", False)}
    return lambda: LLMUser(ctx.client, ep, mutating)


def make_llm_judge(domain: Any, role: Any, llm_context: Any) -> Callable[[], LLMJudge]:
    ctx = _context(llm_context)
    ep = ctx.endpoint("judge")
    return lambda: LLMJudge(ctx.client, ep)
