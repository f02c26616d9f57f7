"""The step machine of one episode (``Episode``); the loop that drives it is ``envs.episode.loop``.

``Episode`` owns the episode's private database and the simulated user; the
agent is outside it. ``step`` takes one ``AgentAction``: tool calls run
against the shared state (agent tools only) and their results are the next
observation; a message goes to the user simulator, which draws this turn's
situation, may call user tools on the same state, then replies or stops.
The gymnasium environment wraps ``Episode``; ``run_episode`` is the loop the
runner uses. Both share this one implementation.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from envs.bounded import MAX_MESSAGE_CHARS, cap_text, clean_text
from envs.actors.protocols import STOP_TOKEN, AgentView, UserSimulator, UserTurn
from envs.domain import Domain
from envs.records import (
    AgentAction,
    AgentEvent,
    ErrorEvent,
    EpisodeId,
    Event,
    Grade,
    ToolEvent,
    UserEvent,
)
from envs.spec.schema import Task
from envs.state.database import EpisodeState

# A turn in which the agent only calls tools may not go on forever.
MAX_STEPS_PER_TURN = 30
# An agent whose replies fail this many times in a row (unparseable, empty, unknown tool,
# bad arguments) is stopped: more steps would only burn tokens.
MAX_CONSECUTIVE_AGENT_ERRORS = 5
# One action may call this many tools at most, each named in at most this many characters (OpenAI's
# own limit is 64): past either, the action is the agent's error, reported without echoing it whole.
MAX_TOOL_CALLS_PER_ACTION = 32
MAX_TOOL_NAME_CHARS = 128


@dataclass
class StepResult:
    observation: str
    kind: str  # "user" | "tool" | "error" | "end"
    terminated: bool = False
    truncated: bool = False


def episode_seed(base_seed: int, task_id: str, repeat: int) -> int:
    """A stable per-episode seed from the run seed, the task and the repeat."""
    import hashlib

    h = hashlib.sha256(f"{base_seed}:{task_id}:{repeat}".encode()).digest()
    return int.from_bytes(h[:4], "big")


def visible_to_agent(events: list[Event]) -> list[Event]:
    """Events as the agent may see them: neither the user's own tool calls nor the situation
    labels (those are the test's secret, recorded for the graders)."""
    return [
        e.model_copy(update={"situation": None}) if isinstance(e, UserEvent) else e
        for e in events
        if not (isinstance(e, ToolEvent) and e.side == "user")
    ]


def _oversized(action: AgentAction) -> str | None:
    """Why an action's tool calls are refused whole (too many, or a name past the cap), else None."""
    n = len(action.tool_calls)
    if n > MAX_TOOL_CALLS_PER_ACTION:
        return f"{n:,} tool calls in one action (at most {MAX_TOOL_CALLS_PER_ACTION}); none was run"
    for call in action.tool_calls:
        name = call.name or ""
        if len(name) > MAX_TOOL_NAME_CHARS:
            return (f"a tool name of {len(name):,} characters ({name[:40]!r}...; at most {MAX_TOOL_NAME_CHARS}); "
                    "none of the action's calls was run")
    return None


@dataclass
class Episode:
    domain: Domain
    task: Task
    user: UserSimulator
    seed: int
    repeat: int = 0
    state: EpisodeState | None = None
    # The seed sent to the agent's model when it must differ from ``seed`` (see EpisodeId.agent_seed).
    agent_seed: int | None = None
    # The seed sent to the user's model when it must differ from ``seed`` (see EpisodeId.user_seed).
    user_seed: int | None = None
    events: list[Event] = field(default_factory=list)
    turn: int = 0
    steps_this_turn: int = 0
    termination: str | None = None
    agent_errors: int = 0
    errors_in_a_row: int = 0
    # The first user turn at which the state held every change of the goal (None: never, or
    # the goal changes nothing); recorded as EpisodeRecord.goal_met_turn.
    goal_met_turn: int | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.persona = self.domain.persona(self.task)
        if self.state is None:
            self.state = EpisodeState(self.domain.base, self.domain.initial_bytes(self.task))
        else:
            self.state.load(self.domain.initial_bytes(self.task))
        self.state.new_ids.seed = self.seed  # new rows' ids differ between episodes of a task

    @property
    def done(self) -> bool:
        return self.termination is not None

    # -- the user side --------------------------------------------------------

    def _draw_situation(self) -> str | None:
        choices = self.task.scenario.situations
        return self.rng.choice(choices) if choices else None

    def _goal_changes(self) -> bool:
        return bool(list(self.domain.goal(self.task)[1]))

    def goal_met(self) -> bool:
        """Whether the state now matches the goal (graders.outcome's diff), for a goal that
        changes something; False for a goal that changes nothing (it would always hold)."""
        from graders.outcome.state_diff import diff_connection

        goal_bytes, goal_touched, _ = self.domain.goal(self.task)
        if not list(goal_touched) or not list(self.state.touched):
            return False
        # the state only changes through tool calls: none since the last check, same answer
        seen, last = getattr(self, "_goal_checked", (-1, False))
        if not any(isinstance(e, ToolEvent) for e in self.events[seen:]) and seen >= 0:
            return last
        self.state.session.commit()
        touched = goal_touched | self.state.touched
        met = not diff_connection(self.state.conn, goal_bytes, self.domain.base.metadata, touched, self.task.ignore_columns,
                                  new_after=self.domain.initial_ids(self.task))
        self._goal_checked = (len(self.events), met)
        return met

    def _call_user_tool_checked(self, name: str, arguments: dict) -> tuple[bool, str]:
        before = len(self.events)
        out = self._call_user_tool(name, arguments)
        ev = self.events[before] if len(self.events) > before else None
        return bool(getattr(ev, "ok", False)), out

    def _call_user_tool(self, name: str, arguments: dict | str | None) -> str:
        """Run a user tool; malformed ``arguments`` (text that is not a JSON object) come back as
        the tool's error for the simulator to handle, and are recorded as a failed user call."""
        from envs.records import ToolCall

        call = ToolCall(id=f"user_call_{len(self.events)}", name=name, arguments=arguments)
        out = self.domain.user_tools.call(self.state.session, name, call.arguments)
        self.events.append(
            ToolEvent(turn=self.turn, side="user", call=call, output=out.output, ok=out.ok, error_kind=out.error_kind)
        )
        return out.output

    async def _user_speaks(self, agent_message: str | None) -> UserEvent:
        sid = self._draw_situation()
        met = self.goal_met() if agent_message is not None else False
        if met and self.goal_met_turn is None:
            self.goal_met_turn = self.turn
        turn = UserTurn(
            task=self.task,
            persona=self.persona,
            situation=self.domain.situations.get(sid) if sid else None,
            situation_id=sid,
            agent_message=agent_message,
            events=self.events,
            turn=self.turn,
            rng=self.rng,
            call_tool=self._call_user_tool,
            user_tool_schemas=self.domain.user_tools.schemas(),
            episode=EpisodeId(task_id=self.task.id, repeat=self.repeat, seed=self.seed, user_seed=self.user_seed),
            words=self.domain.words,
            topics=self.domain.topics,
            replies=self.domain.replies,
            goal_met=met,
            goal_changes=self._goal_changes(),
            call_tool_checked=self._call_user_tool_checked,
            helping_tools=frozenset(n for n, t in self.domain.agent_tools.tools.items() if t.mutates),
        )
        reply = await self.user.reply(turn)
        stop = reply.stop or STOP_TOKEN in reply.content
        content = reply.content.replace(STOP_TOKEN, "").strip()
        # a situation the user could not play at this point is labelled with what it played
        played = reply.played if getattr(reply, "relabel", False) else sid
        ev = UserEvent(turn=self.turn, content=content, situation=played, stop=stop)
        self.events.append(ev)
        return ev

    async def start(self) -> str:
        """The user's opening message (turn 0)."""
        ev = await self._user_speaks(None)
        if ev.stop:
            self.termination = "user_stop"
        return ev.content

    # -- the agent side ---------------------------------------------------------

    def agent_view(self) -> AgentView:
        return AgentView(
            policy=self.domain.policy,
            tools=self.domain.agent_tools.schemas(),
            events=visible_to_agent(self.events),
            episode=EpisodeId(task_id=self.task.id, repeat=self.repeat, seed=self.seed, agent_seed=self.agent_seed),
        )

    @property
    def reply_turn(self) -> int:
        """The turn of the agent reply in progress: its tool calls and errors carry it, so a
        tool call, the verdicts on the reply it leads to and a cause naming it share one number."""
        return self.turn + 1

    async def step(self, action: AgentAction) -> StepResult:
        if self.done:
            raise RuntimeError("step() called on a finished episode; reset first")
        if action.parse_error:
            self.agent_errors += 1
            self.events.append(ErrorEvent(turn=self.reply_turn, role="agent", message=action.parse_error))
            return self._count_step(StepResult(f"Error: {action.parse_error}", kind="error"), failed=True)
        if action.tool_calls and (why := _oversized(action)):
            self.agent_errors += 1
            self.events.append(ErrorEvent(turn=self.turn, role="agent", message=why))
            return self._count_step(StepResult(f"Error: {why}", kind="error"), failed=True)
        if action.tool_calls:
            outputs = []
            failed = False
            for call in action.tool_calls:
                if not call.id:
                    call = call.model_copy(update={"id": f"call_{len(self.events)}"})
                out = self.domain.agent_tools.call(self.state.session, call.name, call.arguments)
                if not out.ok and out.error_kind in ("unknown_tool", "bad_arguments"):
                    self.agent_errors += 1
                    failed = True
                self.events.append(
                    ToolEvent(turn=self.reply_turn, call=call, output=out.output, ok=out.ok, error_kind=out.error_kind)
                )
                outputs.append({"tool_call_id": call.id, "name": call.name, "content": out.output})
                tool = self.domain.agent_tools.tools.get(call.name)
                if out.ok and tool is not None and tool.terminal:
                    self.termination = "transfer"
                    break
            res = StepResult(json.dumps(outputs), kind="tool", terminated=self.termination == "transfer")
            return res if res.terminated else self._count_step(res, failed=failed)
        content = cap_text(clean_text(action.content or ""), MAX_MESSAGE_CHARS).strip()
        if not content:
            self.agent_errors += 1
            self.events.append(ErrorEvent(turn=self.reply_turn, role="agent", message="empty action"))
            return self._count_step(
                StepResult("Error: the action had neither a message nor tool calls", kind="error"), failed=True
            )
        self.turn += 1
        self.steps_this_turn = 0
        self.errors_in_a_row = 0
        self.events.append(AgentEvent(turn=self.turn, content=content))
        if self.turn >= self.task.scenario.max_turns:
            self.termination = "max_turns"
            return StepResult("", kind="end", truncated=True)
        ev = await self._user_speaks(content)
        if ev.stop:
            self.termination = "user_stop"
        return StepResult(ev.content, kind="user", terminated=ev.stop)

    def _count_step(self, res: StepResult, failed: bool = False) -> StepResult:
        self.steps_this_turn += 1
        self.errors_in_a_row = self.errors_in_a_row + 1 if failed else 0
        if self.errors_in_a_row >= MAX_CONSECUTIVE_AGENT_ERRORS:
            self.termination = "agent_error_limit"
            res.truncated = True
        elif self.steps_this_turn >= MAX_STEPS_PER_TURN:
            self.termination = "max_steps"
            res.truncated = True
        return res

    # -- the end ----------------------------------------------------------------------

    def grade(self) -> Grade:
        from graders.outcome.grade import grade_episode

        return grade_episode(self.domain, self.task, self.state, self.events)

    def close(self) -> None:
        if self.state is not None:
            self.state.close()
