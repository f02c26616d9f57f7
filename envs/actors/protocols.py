"""The two actors of an episode: the agent under test and the simulated user.

Both are small async protocols so scripted and LLM actors are interchangeable
and episodes can run concurrently on one asyncio loop. Scripted actors never
await anything slow.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, runtime_checkable

from envs.records import AgentAction, AgentEvent, EpisodeId, Event, ToolEvent, Usage, UserEvent, Verdict
from envs.spec.schema import Persona, Rule, Situation, Task
from envs.spec.words import DomainWords


@dataclass
class AgentView:
    """What the agent may see: the policy, its tool schemas, the transcript, and which episode it is.

    The transcript is filtered: user-tool events are the user's private business.
    ``episode`` is the episode's id; ``task_id``, ``seed`` and ``repeat`` mirror it
    (a view built from those three alone gets the id they make).
    """

    policy: str
    tools: list[dict]
    events: list[Event]
    task_id: str = ""
    seed: int = 0
    repeat: int = 0
    episode: EpisodeId | None = None

    def __post_init__(self) -> None:
        if self.episode is None:
            self.episode = EpisodeId(task_id=self.task_id, repeat=self.repeat, seed=self.seed)
        self.task_id, self.seed, self.repeat = self.episode.task_id, self.episode.seed, self.episode.repeat

    def last_user_message(self) -> str:
        for e in reversed(self.events):
            if isinstance(e, UserEvent):
                return e.content
        return ""

    def user_messages(self) -> list[str]:
        return [e.content for e in self.events if isinstance(e, UserEvent)]

    def tool_events(self) -> list[ToolEvent]:
        return [e for e in self.events if isinstance(e, ToolEvent) and e.side == "agent"]

    def since_last_agent_message(self) -> list[Event]:
        """Events after the agent's last message to the user."""
        out: list[Event] = []
        for e in reversed(self.events):
            if isinstance(e, AgentEvent):
                break
            out.append(e)
        return out[::-1]


@runtime_checkable
class Agent(Protocol):
    """The agent under test. ``act`` returns one step: a message and/or tool calls. An agent may
    also define ``episode_ended(view, termination)``, called once when the episode ends (the user's
    last message is in ``view``; a person playing the agent sees it there): optional, so not part
    of the protocol's check."""

    name: str

    async def act(self, view: AgentView) -> AgentAction: ...


@dataclass
class UserTurn:
    """What the user simulator gets each time it must speak.

    ``episode`` is the episode's id (``seed`` and ``repeat`` mirror it; a turn built
    with a seed alone gets the id it makes, one built with neither has none).
    ``words`` are the domain's (the scripted user's lines come from them).
    """

    task: Task
    persona: Persona | None
    situation: Situation | None  # drawn uniformly from the task's situations
    situation_id: str | None
    agent_message: str | None  # None on the opening turn
    events: list[Event]
    turn: int
    rng: random.Random
    call_tool: Callable[[str, dict], str]  # calls a user tool on the shared state
    user_tool_schemas: list[dict] = field(default_factory=list)
    seed: int | None = None  # the episode's seed (passed to providers that take one)
    repeat: int | None = None
    episode: EpisodeId | None = None
    words: DomainWords = field(default_factory=DomainWords)
    # The domain's topics and reply lines (envs.actors.topics / replies); None: none given.
    topics: Any = None
    replies: Any = None
    # True once the episode's state holds every change of the task's goal (False for a goal
    # that changes nothing: there it says nothing; the user decides on words, not on state).
    goal_met: bool = False
    goal_changes: bool = False  # the task's goal changes the state (so goal_met can become true)
    # Like call_tool, with whether the call succeeded: (ok, output). None: only call_tool.
    call_tool_checked: Callable[[str, dict], tuple[bool, str]] | None = None
    # The agent tools that change the state (``mutates``): one of them run is the agent doing
    # something for the user, a read is not (thanks follow help). None: any agent tool counts.
    helping_tools: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.episode is None and self.seed is not None:
            self.episode = EpisodeId(task_id=self.task.id, repeat=self.repeat or 0, seed=self.seed)
        if self.episode is not None:
            self.seed, self.repeat = self.episode.seed, self.episode.repeat


@dataclass
class UserReply:
    """The user's message. ``relabel``: the drawn situation could not be played, and the
    turn is labelled ``played`` instead (None: no situation)."""

    content: str
    stop: bool = False
    relabel: bool = False
    played: str | None = None


class UserSimulator(Protocol):
    name: str

    async def reply(self, turn: UserTurn) -> UserReply: ...


@runtime_checkable
class Judge(Protocol):
    """Judges agent replies against rules (an LLM judge; the deterministic checks need no actor).

    ``judge_turn`` returns one verdict per rule for the reply at ``events[reply_index]``;
    ``judge_question`` answers a task's ``llm_judge`` assertion over the whole episode as
    (``pass`` | ``fail`` | ``needs_review``, rationale). ``episode`` says which episode is judged
    (it keys the response cache and the seed sent to providers).
    """

    name: str

    async def judge_turn(
        self, situation: Situation, rules: list[Rule], events: list[Event], reply_index: int, episode: EpisodeId
    ) -> list[Verdict]: ...

    async def judge_question(self, question: str, events: list[Event], episode: EpisodeId) -> tuple[str, str]: ...


STOP_TOKEN = "###STOP###"


def usage_of(actor: Any) -> Usage | None:
    u = getattr(actor, "usage", None)
    return u if isinstance(u, Usage) else None
