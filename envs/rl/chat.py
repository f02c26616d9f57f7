"""What the agent saw and did, as OpenAI chat messages (system, user, assistant with ``tool_calls``, tool).

Only the agent's view: the user's own tool calls and the situation labels are removed
(``visible_to_agent``), and hidden facts appear only where the user said them. Tool results are kept
whole (a trainer sees what the agent saw in the environment, not a prompt's clipped copy). Consecutive
tool calls are one assistant message each, as the engine records them one by one.
"""

from __future__ import annotations

from typing import Any

from envs.actors.prompts import Prompts
from envs.actors.transcript import args_text
from envs.episode.step import visible_to_agent
from envs.records import AgentEvent, ErrorEvent, Event, ToolEvent, UserEvent


def system_prompt(domain: Any, prompts: Prompts | None = None) -> str:
    """The agent's system prompt as the LLM agent is sent it in native tool mode (the policy in the domain's words)."""
    prompts = prompts or Prompts.for_domain(domain)
    return prompts.render("agent", policy=domain.policy or "(no policy)", tools="", json_help="")


def chat_messages(events: list[Event], system: str | None) -> list[dict]:
    """The episode's events as chat messages from the agent's side."""
    msgs: list[dict] = [{"role": "system", "content": system}] if system is not None else []
    for e in visible_to_agent(events):
        if isinstance(e, UserEvent):
            msgs.append({"role": "user", "content": e.content})
        elif isinstance(e, AgentEvent):
            msgs.append({"role": "assistant", "content": e.content})
        elif isinstance(e, ToolEvent) and e.side == "agent":
            msgs.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": e.call.id, "type": "function", "function": {"name": e.call.name, "arguments": args_text(e.call.arguments)}}
                    ],
                }
            )
            msgs.append({"role": "tool", "tool_call_id": e.call.id, "name": e.call.name, "content": e.output})
        elif isinstance(e, ErrorEvent) and e.role == "agent":
            # What the environment answered the agent's unusable step with (the gym env's observation).
            msgs.append({"role": "user", "content": f"[error] Your last reply could not be used: {e.message}"})
    return msgs
