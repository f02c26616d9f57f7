"""The user-side gymnasium environment: the policy plays the simulated user (``sitgym/<Domain>User-v0``).

Contract
--------
* The agent is the domain's default scripted agent (or ``agent=`` a factory of any ``Agent``, an
  LLM agent included); the policy is the user, with the task's scenario.
* ``reset(seed=..., options={"task_id": ...})`` starts an episode and returns ``""``: the user
  speaks first. ``info["prompt"]`` is what an LLM user would be sent now (its system prompt with the
  persona, the scenario and this turn's situation, then the conversation, in OpenAI chat form from
  the user's side), ``info["situation"]`` the situation to play this turn, ``info["user_tools"]``
  the user tools' JSON schemas.
* An action is the user's next move: a message (a string; ``###STOP###`` in it, or ``/stop``,
  leaves the conversation), or user tool calls as JSON (``{"tool_calls": [{"name", "arguments"}]}``),
  whose results come back as the observation (the user then still has to speak).
* The observation is what the user sees: the agent's next message (or the tool results).
* ``terminated`` when the user leaves or the agent hands over; ``truncated`` on the turn budget.
* ``reward`` is 0 until the end, then the episode's fidelity to the scenario, in [0, 1]:
  1 minus ``PENALTY`` for each problem found by the simulator checks (``graders.simulator``:
  repeated lines, spoken tool errors, unanswered questions about facts the user held, leaving
  with such a question open, the turn budget, lingering after the goal was met, contradicting
  the situation) and by two checks of the user's own: a hidden fact told before the agent asked
  for it (``leaked``), and an opening that does not pursue the scenario's request
  (``off_goal``). ``info["fidelity"]`` lists every problem with its evidence; ``info["grade"]``
  is the outcome grade (how the agent did), for reference. "Nothing invented" is not scored: no
  check here can tell an invented fact from a paraphrased one.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

import gymnasium
from gymnasium import spaces

from envs.spec.selection import select_task_ids
from envs.actors.protocols import STOP_TOKEN, UserReply, UserTurn
from envs.domain import get_domain
from envs.episode import Episode, episode_seed
from envs.gym.env import CHARSET, MAX_TEXT, _fit, pick_task, release
from envs.records import EpisodeId, EpisodeRecord, UserEvent
from envs.state.database import EpisodeState
from graders import evaluate

PENALTY = 0.25


class _PolicyUser:
    """The bridge: the episode asks it for the user's reply; the environment's ``step`` gives it."""

    name = "policy"

    def __init__(self) -> None:
        self.turn: UserTurn | None = None
        self.reply_future: asyncio.Future | None = None
        self.waiting = asyncio.Event()

    async def reply(self, turn: UserTurn) -> UserReply:
        self.turn = turn
        self.reply_future = asyncio.get_running_loop().create_future()
        self.waiting.set()
        return await self.reply_future


def fidelity(rec: EpisodeRecord, task: Any, domain: Any) -> tuple[float, list[dict]]:
    """(reward in [0, 1], problems with evidence) of a user's play of ``task``."""
    from graders.simulator import asks_about, reveals, simulator_flags

    problems = [
        {"flag": name, "turn": h.turn, "evidence": h.evidence}
        for name, hits in simulator_flags(rec, task, domain).items()
        for h in hits
    ]
    asked: set[str] = set()
    said_first = True
    for e in rec.transcript:
        if e.kind == "agent":
            asked |= {hf.id for hf in task.scenario.hidden_facts if asks_about(e.content, hf)}
        elif e.kind == "user":
            for hf in task.scenario.hidden_facts:
                if hf.id not in asked and reveals(e.content, hf.fact):
                    problems.append({"flag": "leaked", "turn": e.turn, "evidence": f"{hf.id} told before it was asked for"})
                    asked.add(hf.id)  # once per fact
            if said_first:
                said_first = False
                if not reveals(e.content, task.scenario.request):
                    problems.append({"flag": "off_goal", "turn": e.turn, "evidence": "the opening does not state the request"})
    return max(0.0, 1.0 - PENALTY * len(problems)), problems


class SitgymUserEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi"]}

    def __init__(self, domain: str, task_id: str | None = None, agent: Callable[[], Any] | None = None,
                 domain_options: dict | None = None, render_mode: str | None = None,
                 tags: list[str] | str | None = None, tasks: list[str] | str | None = None):
        self.domain = get_domain(domain, domain_options)
        # The tasks a reset draws from, as with --tags / --tasks.
        self.task_ids = select_task_ids(self.domain.tasks, tasks, tags)
        if task_id is not None and task_id not in self.domain.tasks:
            raise ValueError(f"unknown task_id {task_id!r} for domain {self.domain.name}")
        self.task_id = task_id
        self.agent_factory = agent or self.domain.scripted_agents[self.domain.default_agent]
        self.render_mode = render_mode
        self.observation_space = spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        self.action_space = spaces.Text(max_length=2_000, min_length=1, charset=CHARSET)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._state: EpisodeState | None = None
        self._ep: Episode | None = None
        self._user: _PolicyUser | None = None
        self._drive: asyncio.Task | None = None
        self._episode: EpisodeId | None = None

    # -- the loop: the episode runs as a task that pauses whenever the user must speak -------

    def _run(self, coro):
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(coro)

    async def _play(self) -> None:
        await self._ep.start()
        agent = self.agent_factory()
        while not self._ep.done:
            await self._ep.step(await agent.act(self._ep.agent_view()))

    async def _until_user_or_end(self) -> None:
        waiter = asyncio.ensure_future(self._user.waiting.wait())
        await asyncio.wait({waiter, self._drive}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if self._drive.done():
            self._drive.result()  # an engine bug surfaces here rather than hanging

    def _info(self) -> dict[str, Any]:
        from envs.actors.llm_user import LLMUser
        from envs.actors.prompts import Prompts
        from envs.llm.endpoints import Endpoint

        t = self._user.turn
        prompter = LLMUser(None, Endpoint(role="user", spec="policy", model="policy", tool_mode="native"),
                           prompts=Prompts.for_domain(self.domain))
        return {
            "task_id": self._ep.task.id,
            "situation": t.situation_id,
            "prompt": prompter.messages(t),
            "user_tools": t.user_tool_schemas,
            "turn": t.turn,
        }

    # -- gymnasium ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._cancel()
        task, ep_seed = pick_task(self, seed, options)
        task_id = task.id
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        self._user = _PolicyUser()
        self._ep = Episode(self.domain, task, self._user, ep_seed, state=self._state)
        self._episode = EpisodeId(task_id=task_id, repeat=0, seed=ep_seed)
        self._drive = self._loop.create_task(self._play())
        self._run(self._until_user_or_end())
        return "", self._info()

    def step(self, action):
        if self._ep is None or self._user is None or self._user.reply_future is None:
            raise RuntimeError("call reset() before step()")
        if self._ep.done:
            raise RuntimeError("step() called on a finished episode; reset first")
        text = action if isinstance(action, str) else json.dumps(action)
        calls = _tool_calls(text)
        if calls is not None:  # user tool calls: results back, the user still has to speak
            t = self._user.turn
            out = [{"name": c.get("name"), "content": t.call_tool(str(c.get("name")), c.get("arguments") or {})} for c in calls]
            return _fit(json.dumps(out)), 0.0, False, False, {**self._info(), "observation_kind": "tool"}
        stop = STOP_TOKEN in text or text.strip() == "/stop"
        content = text.replace(STOP_TOKEN, "").replace("/stop", "").strip()
        self._user.waiting.clear()
        self._user.reply_future.set_result(UserReply(content=content, stop=stop))
        self._run(self._until_user_or_end())
        if not self._ep.done:
            return _fit(self._user.turn.agent_message or ""), 0.0, False, False, {**self._info(), "observation_kind": "agent"}
        return self._finish()

    def _finish(self):
        ep = self._ep
        ev = self._run(evaluate(self.domain, ep.task, ep.state, ep.events, None, self._episode, termination=ep.termination))
        rec = EpisodeRecord(episode_id=f"{ep.task.id}#0", task_id=ep.task.id, domain=self.domain.name, repeat=0,
                            seed=ep.seed, transcript=list(ep.events), termination=ep.termination, reward=ev.grade.reward,
                            grade=ev.grade, goal_met_turn=getattr(ep, "goal_met_turn", None))
        reward, problems = fidelity(rec, ep.task, self.domain)
        last_agent = next((e.content for e in reversed(ep.events) if e.kind == "agent"), "")
        info = {"termination": ep.termination, "fidelity": problems, "grade": ev.grade.model_dump(),
                "transcript": [e.model_dump() for e in ep.events], "observation_kind": "end"}
        truncated = ep.termination in ("max_turns", "max_steps", "agent_error_limit")
        return _fit(last_agent), reward, not truncated, truncated, info

    def render(self):
        if self._ep is None:
            return ""
        return "\n".join(f"{e.kind}: {getattr(e, 'content', '')}" for e in self._ep.events if e.kind in ("user", "agent"))

    def _cancel(self) -> None:
        if self._drive is not None and not self._drive.done():
            self._drive.cancel()
            try:
                self._run(asyncio.gather(self._drive, return_exceptions=True))
            except RuntimeError:
                pass
        self._drive = None

    def close(self):
        self._cancel()
        release(self)


def _tool_calls(text: str) -> list[dict] | None:
    s = text.strip()
    if not s.startswith("{"):
        return None
    try:
        data = json.loads(s)
    except json.JSONDecodeError:
        return None
    calls = data.get("tool_calls") if isinstance(data, dict) else None
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else None
