"""The gymnasium environment: the agent under test is the policy.

Contract
--------
* ``reset(seed=..., options={"task_id": ...})`` starts an episode on a fresh
  copy of the task's initial state and returns the simulated user's opening
  message. Without a task id (neither in ``options`` nor fixed with
  ``gymnasium.make(..., task_id=...)``) the seed picks one.
* An action is one agent step: an ``AgentAction`` (or its JSON string, or a
  dict), i.e. a message to the user and/or tool calls. A plain string that is
  not an action's JSON is taken as a message to the user.
* The observation is what the agent sees next: the user's reply, or for tool
  calls a JSON list of ``{"tool_call_id", "name", "content"}``. ``info``
  carries ``observation_kind``, the tool schemas and policy (on reset), the
  new transcript events as the agent may see them (no situation labels, no
  user-side tool calls), and at the end ``grade`` (the outcome grade as a
  dict, its diff and assertions included), ``verdicts`` (the per-reply rule
  verdicts, a list of dicts: turn, situation, rule, verdict, rationale,
  source), ``termination`` and the full ``transcript``. Both come from
  ``graders.evaluate``, the entry the runner grades through, so an episode
  played here gets the same grade and verdicts as through ``run_episode``.
* ``judge`` (optional, a ``Judge``): answers the rules without a
  deterministic check and the tasks' ``llm_judge`` assertions, as in a run
  with ``--judge``; without one those are UNJUDGED / ``needs_review``.
* ``terminated`` when the user stops or the agent transfers to a human;
  ``truncated`` on the turn budget (or too many tool calls in one turn).
* ``reward`` is 0.0 until the end, then the grader's 1.0 / 0.0.

No threads: simulated users that need I/O (LLM users) run on a private
asyncio loop owned by the environment.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

import gymnasium
from gymnasium import spaces
from pydantic import ValidationError

from envs.spec.selection import select_task_ids
from envs.actors.protocols import Judge, UserSimulator
from envs.actors.scripted_user import ScriptedUser
from envs.domain import get_domain
from envs.episode import Episode, episode_seed, visible_to_agent
from envs.records import AgentAction, EpisodeId
from envs.state.database import EpisodeState
from graders import evaluate
from graders.rules.registry import validate_checks

MAX_TEXT = 200_000
# Printable text: ASCII, Latin and general scripts, symbols, and the emoji blocks.
CHARSET = frozenset(
    "\t\n\r"
    + "".join(chr(c) for c in range(0x20, 0x7F))
    + "".join(chr(c) for c in range(0xA0, 0x3000))
    + "".join(chr(c) for c in range(0x1F300, 0x1FB00))
)


def _fit(text: str) -> str:
    """Keep an observation inside the declared space (the raw text is in info)."""
    if all(c in CHARSET for c in text) and len(text) <= MAX_TEXT:
        return text
    return "".join(c if c in CHARSET else "\N{REPLACEMENT CHARACTER}" for c in text)[:MAX_TEXT]


def parse_action(action: Any) -> AgentAction:
    """An AgentAction from the object, its dict or its JSON string (else: a message)."""
    if isinstance(action, AgentAction):
        return action
    if isinstance(action, dict):
        try:
            return AgentAction.model_validate(action)
        except ValidationError as e:
            return AgentAction(parse_error=f"invalid action: {e.errors()[0]['msg']}")
    if isinstance(action, str):
        s = action.strip()
        if s.startswith("{") or s.startswith("["):
            try:
                data = json.loads(s)
            except json.JSONDecodeError:
                return AgentAction(content=action)
            except (RecursionError, ValueError):  # nested past the parser's depth: the agent's error
                return AgentAction(parse_error="invalid action: nested too deeply to parse")
            if isinstance(data, list):
                data = {"tool_calls": data}
            if isinstance(data, dict) and ({"content", "tool_calls"} & data.keys()):
                try:
                    return AgentAction.model_validate(data)
                except ValidationError as e:
                    return AgentAction(parse_error=f"invalid action: {e.errors()[0]['msg']}")
        return AgentAction(content=action)
    return AgentAction(parse_error=f"unsupported action type {type(action).__name__}")


def pick_task(env: Any, seed: int | None, options: dict | None) -> tuple[Any, int]:
    """The task a reset plays (``options["task_id"]``, else the env's own, else drawn with the
    env's generator) and its episode seed; makes the env's reusable episode database on first use.
    Shared by the agent-side and the user-side environments."""
    task_id = (options or {}).get("task_id") or env.task_id
    if task_id is None:
        task_id = env.task_ids[int(env.np_random.integers(len(env.task_ids)))]
    if task_id not in env.domain.tasks:
        raise ValueError(f"unknown task_id {task_id!r} for domain {env.domain.name}")
    task = env.domain.tasks[task_id]
    ep_seed = int(env.np_random.integers(2**31)) if seed is None else episode_seed(seed, task_id, 0)
    if env._state is None:
        env._state = EpisodeState(env.domain.base, env.domain.initial_bytes(task))
    return task, ep_seed


def release(env: Any) -> None:
    """Close an env's episode database and its private loop (shared by both sides' ``close``)."""
    if env._state is not None:
        env._state.close()
        env._state = None
    if env._loop is not None:
        # Lets an LLM actor's HTTP session close on this loop (envs.llm.backends.openai_http).
        env._loop.run_until_complete(env._loop.shutdown_asyncgens())
        env._loop.close()
        env._loop = None


class SitgymEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        domain: str,
        task_id: str | None = None,
        user: Callable[[], UserSimulator] | None = None,
        render_mode: str | None = None,
        domain_options: dict | None = None,
        judge: Judge | None = None,
        tags: list[str] | str | None = None,
        tasks: list[str] | str | None = None,
    ):
        self.domain = get_domain(domain, domain_options)
        validate_checks(self.domain.rules.values())
        self.judge = judge
        # The tasks a reset draws from: ``tags=["hard"]`` (a tier) and ``tasks`` globs, as with --tags / --tasks.
        self.task_ids = select_task_ids(self.domain.tasks, tasks, tags)
        if task_id is not None and task_id not in self.domain.tasks:
            raise ValueError(f"unknown task_id {task_id!r} for domain {self.domain.name}")
        self.task_id = task_id
        self.user_factory = user or self.domain.scripted_users.get("default", ScriptedUser)
        self.render_mode = render_mode
        self.observation_space = spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        self.action_space = spaces.Text(max_length=2_000, min_length=1, charset=CHARSET)
        self._state: EpisodeState | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ep: Episode | None = None
        self._episode: EpisodeId | None = None
        self._seen = 0

    def _run(self, coro):
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(coro)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        task, ep_seed = pick_task(self, seed, options)
        task_id = task.id
        self._ep = Episode(self.domain, task, self.user_factory(), ep_seed, state=self._state)
        self._episode = EpisodeId(task_id=task_id, repeat=0, seed=ep_seed)
        opening = self._run(self._ep.start())
        self._seen = len(self._ep.events)
        info = {
            "task_id": task_id,
            "episode_seed": ep_seed,
            "observation_kind": "user",
            "tools": self.domain.agent_tools.schemas(),
            "policy": self.domain.policy,
            "events": [e.model_dump() for e in visible_to_agent(self._ep.events)],
        }
        return _fit(opening), info

    def step(self, action):
        if self._ep is None:
            raise RuntimeError("call reset() before step()")
        res = self._run(self._ep.step(parse_action(action)))
        new = self._ep.events[self._seen :]
        self._seen = len(self._ep.events)
        info: dict[str, Any] = {
            "observation_kind": res.kind,
            "events": [e.model_dump() for e in visible_to_agent(new)],
            "turn": self._ep.turn,
        }
        reward = 0.0
        if self._ep.done:
            ev = self._run(evaluate(self.domain, self._ep.task, self._ep.state, self._ep.events, self.judge, self._episode, termination=self._ep.termination))
            reward = ev.grade.reward
            info["grade"] = ev.grade.model_dump()
            info["verdicts"] = [v.model_dump() for v in ev.verdicts]
            info["termination"] = self._ep.termination
            # The whole record (situations, the user's own tool calls) once nothing is left to play.
            info["transcript"] = [e.model_dump() for e in self._ep.events]
        if self.render_mode == "human":
            print(self.render())
        return _fit(res.observation), reward, res.terminated, res.truncated, info

    def render(self):
        if self._ep is None:
            return ""
        lines = []
        for e in self._ep.events:
            if e.kind == "tool":
                lines.append(f"[{e.side} tool] {e.call.name}({e.call.arguments}) -> {e.output[:200]}")
            elif e.kind == "error":
                lines.append(f"[error] {e.message}")
            else:
                lines.append(f"{e.kind}: {e.content}")
        return "\n".join(lines)

    def close(self):
        release(self)
