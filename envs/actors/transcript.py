"""One transcript renderer, shared by the LLM user, agent and judge: events as prompt text and chat messages."""

from __future__ import annotations

import json

from envs.records import AgentEvent, ErrorEvent, Event, ToolCall, ToolEvent, UserEvent

MAX_TOOL_OUTPUT = 4000  # characters of a tool result shown back to a model


def clip(text: str, n: int = MAX_TOOL_OUTPUT) -> str:
    """``text`` cut to ``n`` characters, marked when cut."""
    return text if len(text) <= n else text[: n - 20] + " ...[truncated]"


def args_text(args: dict | str) -> str:
    """Tool-call arguments as the JSON text providers expect."""
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


def render_dialogue(events: list[Event], upto: int | None = None) -> str:
    """``events[:upto]`` one line each, "[turn N] User: ..." / "Agent: ..." / tool calls / errors."""
    lines = []
    for e in events[: None if upto is None else upto]:
        if isinstance(e, UserEvent):
            lines.append(f"[turn {e.turn}] User: {e.content}")
        elif isinstance(e, AgentEvent):
            lines.append(f"[turn {e.turn}] Agent: {e.content}")
        elif isinstance(e, ToolEvent):
            who = "Agent" if e.side == "agent" else "User"
            lines.append(f"[turn {e.turn}] {who} called {e.call.name}({args_text(e.call.arguments)}) -> {clip(e.output, 600)}")
        elif isinstance(e, ErrorEvent):
            lines.append(f"[turn {e.turn}] (error from {e.role}: {e.message})")
    return "\n".join(lines) or "(nothing yet)"


def tool_messages(call: ToolCall, output: str, json_mode: bool) -> list[dict]:
    """A tool call and its result as chat messages from the caller's side (native or JSON-action form)."""
    if json_mode:
        return [
            {"role": "assistant", "content": json.dumps({"action": {"tool": call.name, "arguments": call.arguments}}, ensure_ascii=False)},
            {"role": "user", "content": f"[tool result: {call.name}] {clip(output)}"},
        ]
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call.id, "type": "function", "function": {"name": call.name, "arguments": args_text(call.arguments)}}],
        },
        {"role": "tool", "tool_call_id": call.id, "content": clip(output)},
    ]
