"""The agent under test, driven by a model through ``envs.llm.client.LLMClient``.

The system prompt is the ``agent`` template (the domain's words and its
policy; in JSON mode also the tools and the JSON action help); then the
conversation so far. A reply that is not a valid action comes back as
``AgentAction(parse_error=...)``: the engine shows it to the agent as an error
observation (the ``agent_error`` template) and counts it as the agent's error.
The episode's seed and repeat come from the view (``AgentView.episode``).
"""

from __future__ import annotations

import json

from envs.actors.json_actions import action_schema, response_format_for, to_action, tools_text
from envs.actors.prompts import Prompts
from envs.actors.protocols import AgentView
from envs.actors.transcript import tool_messages
from envs.llm.client import LLMClient
from envs.llm.endpoints import Endpoint
from envs.records import AgentAction, AgentEvent, ErrorEvent, ToolEvent, Usage, UserEvent


class LLMAgent:
    """The agent under test, driven by a model (see the module docstring)."""

    def __init__(self, client: LLMClient, ep: Endpoint, prompts: Prompts | None = None):
        self.client = client
        self.ep = ep
        self.name = ep.spec
        self.usage = Usage()
        self.prompts = prompts or Prompts()

    def system_prompt(self, view: AgentView) -> str:
        json_mode = self.ep.tool_mode == "json"
        return self.prompts.render(
            "agent",
            policy=view.policy or "(no policy)",
            tools=tools_text(view.tools) if json_mode else "",
            json_help=self.prompts.render("json_action", message="<what you say>", no_tools="") if json_mode else "",
        )

    def messages(self, view: AgentView) -> list[dict]:
        json_mode = self.ep.tool_mode == "json"
        msgs: list[dict] = [{"role": "system", "content": self.system_prompt(view)}]
        for e in view.events:
            if isinstance(e, UserEvent):
                msgs.append({"role": "user", "content": e.content})
            elif isinstance(e, AgentEvent):
                content = json.dumps({"action": {"message": e.content}}, ensure_ascii=False) if json_mode else e.content
                msgs.append({"role": "assistant", "content": content})
            elif isinstance(e, ToolEvent) and e.side == "agent":
                msgs.extend(tool_messages(e.call, e.output, json_mode))
            elif isinstance(e, ErrorEvent) and e.role == "agent":
                help_text = self.prompts.render("json_action", message="<what you say>", no_tools="") if json_mode else ""
                msgs.append(
                    {
                        "role": "user",
                        "content": self.prompts.render(
                            "agent_error", error=e.message, json_help=help_text, native="" if json_mode else "yes"
                        ),
                    }
                )
        return msgs

    async def act(self, view: AgentView) -> AgentAction:
        json_mode = self.ep.tool_mode == "json"
        names = {t.get("function", t).get("name") for t in view.tools}
        comp = await self.client.complete(
            self.ep,
            self.messages(view),
            tools=None if json_mode else (view.tools or None),
            response_format=response_format_for(action_schema(view.tools), "agent_action") if json_mode else None,
            seed=view.episode.seed if view.episode.agent_seed is None else view.episode.agent_seed,
            repeat=view.episode.repeat,
            usage=self.usage,
        )
        return to_action(comp.content, comp.tool_calls, names, json_mode)
