"""Seeded slips: a scripted role made stochastic with a known slip rate, to validate ``envs.variance``.

These are **instruments for checking variance estimates, not agents or users to benchmark**. A
scripted role is deterministic given the episode seed, so its outcome has no variance; wrapped, it
slips in an episode with a known probability drawn from *its own* seed only, and its per-episode
outcome on a task where the slip decides it is Bernoulli with a known variance, ``p(1 - p)``. That is
the known answer ``envs.variance`` must recover (``tests/test_variance_known_answer.py``).

Spec syntax: a scripted role spec followed by ``@slip=RATE``, e.g. ``--agent scripted:careful@slip=0.3``
or ``--user scripted@slip=0.3`` (``RATE`` in [0, 1]).

* **agent** (``SlippingAgent``): in a slipped episode it claims the change without making it: every
  state-changing tool call (the domain's ``mutates`` tools) the wrapped agent makes is dropped, and the
  agent tells the user it is done instead. Otherwise it is the wrapped agent, call for call. The slip
  is drawn from ``EpisodeId.agent_seed`` (the episode seed when unset).
* **user** (``SlippingUser``): in a slipped episode it does not have the task's hidden facts (the
  details it was to give when asked: it has not got them to hand): asked for one, it answers as a user
  with no such fact ("I don't know"), so a task that needs one cannot be solved. All of them, not one
  drawn, so that the slip decides every task that needs any hidden fact, whichever it needs. Otherwise it is the wrapped user. The slip is drawn from
  ``EpisodeId.user_seed`` (the episode seed when unset).

Each draws from its role's seed and nothing else, so the design holding that seed (``envs.variance``'s
other arm) really holds the role. A slip changes the outcome only on tasks where it matters (a task
whose goal changes nothing survives a dropped call; a task with no hidden fact has none to withhold):
the known answer is per such task.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any, Callable

from envs.actors.protocols import AgentView, UserReply, UserTurn
from envs.errors import SpecError
from envs.records import AgentAction, EpisodeId

_SLIP = re.compile(r"^(?P<base>.*)@slip=(?P<rate>[^@]*)$")
DONE_LINE = "That's done for you."


def parse_slip(spec: str, role: str = "role") -> tuple[str, float | None]:
    """``"scripted:careful@slip=0.3"`` -> ``("scripted:careful", 0.3)``; a spec without ``@slip=`` ->
    ``(spec, None)``. A bad rate, or a slip on a role that is not scripted: SpecError (one line)."""
    m = _SLIP.match(spec)
    if m is None:
        if "@" in spec and (spec == "scripted" or spec.startswith("scripted")):
            raise SpecError(f"--{role}: {spec!r}: the only modifier is @slip=RATE (e.g. scripted:careful@slip=0.3)")
        return spec, None
    base = m["base"]
    if not (base == "scripted" or base.startswith("scripted:")):
        raise SpecError(f"--{role}: {spec!r}: @slip= wraps a scripted {role} only (an LLM role has its own sampling)")
    try:
        rate = float(m["rate"])
    except ValueError:
        raise SpecError(f"--{role}: {spec!r}: slip rate {m['rate']!r} is not a number") from None
    if not 0.0 <= rate <= 1.0:
        raise SpecError(f"--{role}: {spec!r}: slip rate must be in [0, 1]")
    return base, rate


def slips(spec: str) -> bool:
    """Whether a role spec is a seeded slipping role (stochastic, with a seed the design can vary)."""
    return _SLIP.match(spec) is not None


def _draw(seed: int, role: str, rate: float) -> bool:
    """The slip for one episode, from the role's seed alone."""
    return random.Random(f"slip:{role}:{seed}").random() < rate


def agent_slipped(episode: EpisodeId, rate: float) -> bool:
    return _draw(episode.seed if episode.agent_seed is None else episode.agent_seed, "agent", rate)


class SlippingAgent:
    """The wrapped agent, except that in a slipped episode it drops its state-changing calls and says
    it is done (see the module docstring). An instrument for ``envs.variance``, not a benchmark agent."""

    def __init__(self, inner: Any, rate: float, mutating: set[str]) -> None:
        self.inner, self.rate, self.mutating = inner, rate, mutating
        self.name = f"{getattr(inner, 'name', 'scripted')}@slip={rate:g}"
        self.slipped: bool | None = None  # drawn at the first step
        self.dropped = 0

    @property
    def usage(self):
        return getattr(self.inner, "usage", None)

    async def act(self, view: AgentView) -> AgentAction:
        if self.slipped is None:
            self.slipped = agent_slipped(view.episode, self.rate)
        action = await self.inner.act(view)
        if not self.slipped:
            return action
        kept = [c for c in action.tool_calls if c.name not in self.mutating]
        if len(kept) == len(action.tool_calls):
            return action
        self.dropped += len(action.tool_calls) - len(kept)
        content = action.content if kept else " ".join(x for x in (action.content, DONE_LINE) if x)
        return action.model_copy(update={"tool_calls": kept, "content": content})


class SlippingUser:
    """The wrapped user, except that in a slipped episode it lacks the task's hidden facts (see the
    module docstring). An instrument for ``envs.variance``, not a user to benchmark against."""

    def __init__(self, inner: Any, rate: float) -> None:
        self.inner, self.rate = inner, rate
        self.name = f"{getattr(inner, 'name', 'scripted')}@slip={rate:g}"
        self.slipped: bool | None = None  # drawn at the first turn

    @property
    def usage(self):
        return getattr(self.inner, "usage", None)

    async def reply(self, turn: UserTurn) -> UserReply:
        sc = turn.task.scenario
        if self.slipped is None:
            ep = turn.episode
            seed = (ep.seed if ep.user_seed is None else ep.user_seed) if ep is not None else (turn.seed or 0)
            self.slipped = _draw(seed, "user", self.rate)
        if self.slipped and sc.hidden_facts:
            task = turn.task.model_copy(update={"scenario": sc.model_copy(update={"hidden_facts": []})})
            turn = dataclasses.replace(turn, task=task)
        return await self.inner.reply(turn)


def wrap_agent(factory: Callable[[], Any], rate: float, domain: Any) -> Callable[[], Any]:
    mutating = {name for name, t in domain.agent_tools.tools.items() if getattr(t, "mutates", False)}
    return lambda: SlippingAgent(factory(), rate, mutating)


def wrap_user(factory: Callable[[], Any], rate: float) -> Callable[[], Any]:
    return lambda: SlippingUser(factory(), rate)
