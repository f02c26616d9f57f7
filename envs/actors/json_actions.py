"""The JSON action mode: one JSON object per reply, for servers without native tool calls.

With ``tool_mode == "json"`` (small local servers) the agent and the user answer
``{"action": {"message": ...}}`` or ``{"action": {"tool": ..., "arguments": {...}}}``,
constrained by a JSON schema built from the tool schemas (``response_format``).
``to_action`` turns any model reply (native or JSON) into an ``AgentAction``;
what cannot be used becomes ``parse_error``, the agent's error.
"""

from __future__ import annotations

from typing import Any

from envs.actors.transcript import clip
from envs.llm.parsing import extract_json, normalise_arguments, strip_fences
from envs.records import AgentAction, ToolCall

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
            return AgentAction(parse_error=f"the reply is not a JSON action: {clip(text, 200)!r}")
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
