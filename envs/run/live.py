"""What an LLM run shows while it plays: the episodes in flight and a line for each that ends.

An LLM episode takes minutes, so a bar that moves once per finished episode reads ``0/3 ... ETA
-:--:--`` for most of a run. ``InFlight`` is told when an episode starts and ends
(``run_episode(watch=...)``) and reads, whenever the display redraws, each running episode's turn
(from its step machine) and the tokens and cost its actors have spent so far (their live usage
counters). ``LiveProgress`` draws those lines under the bar; ``ended_line`` is the line printed
above it when an episode ends. Both are off with ``--quiet`` (the bar is disabled), and a run of
scripted actors keeps the plain bar (its episodes end in milliseconds).

Worker processes (``--workers``) and Ray send only finished records to the parent, so there the
per-episode lines show and the in-flight lines do not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from rich.progress import Progress
from rich.text import Text

from envs.actors.protocols import usage_of

MAX_LINES = 8  # in-flight lines under the bar; the rest are counted


@dataclass
class _Running:
    episode: Any  # envs.episode.step.Episode: its ``turn`` and ``done``
    actors: tuple
    max_turns: int
    t0: float = field(default_factory=time.perf_counter)


def spent(actors) -> tuple[int, float | None, bool]:
    """(tokens, cost, whether some cost is unknown) of ``actors`` so far, from their live usage."""
    tokens, cost, unknown = 0, 0.0, False
    for a in actors:
        u = usage_of(a) if a is not None else None
        if u is None:
            continue
        tokens += u.prompt_tokens + u.completion_tokens
        if u.cost is None:
            unknown = unknown or u.calls > 0
        else:
            cost += u.cost
    return tokens, cost, unknown


def _money(cost: float, unknown: bool) -> str:
    if unknown and not cost:
        return "cost unknown (unpriced model)"
    return f"${cost:.4f}" + (" + unpriced calls" if unknown else "")


class InFlight:
    """The episodes being played now (one asyncio loop); read by the display's refresh thread,
    which only copies what it reads."""

    def __init__(self) -> None:
        self._running: dict[str, _Running] = {}

    def started(self, episode_id: str, episode: Any, actors: tuple, max_turns: int) -> None:
        self._running[episode_id] = _Running(episode, actors, max_turns)

    def ended(self, episode_id: str) -> None:
        self._running.pop(episode_id, None)

    def __len__(self) -> int:
        return len(self._running)

    def lines(self, now: float | None = None) -> list[str]:
        """One line per episode in flight, the longest running first: its turn (or that it is
        being graded), tokens, cost and seconds so far."""
        now = time.perf_counter() if now is None else now
        items = sorted(list(self._running.items()), key=lambda kv: kv[1].t0)
        out = []
        for eid, r in items[:MAX_LINES]:
            tokens, cost, unknown = spent(r.actors)
            doing = "grading" if r.episode.done else f"turn {r.episode.turn + 1}/{r.max_turns}"
            out.append(f"  {eid}: {doing}, {tokens:,} tokens, {_money(cost, unknown)}, {now - r.t0:.0f} s")
        if len(items) > MAX_LINES:
            out.append(f"  ... and {len(items) - MAX_LINES} more in flight")
        return out


class LiveProgress(Progress):
    """A rich progress bar with the episodes in flight under it."""

    def __init__(self, *columns, in_flight: InFlight | None = None, **kw) -> None:
        self.in_flight = in_flight  # before the base class draws for the first time
        super().__init__(*columns, **kw)

    def get_renderables(self):
        yield from super().get_renderables()
        if self.in_flight is not None and len(self.in_flight):
            yield Text("\n".join(self.in_flight.lines()), no_wrap=True, overflow="ellipsis")


def ended_line(rec) -> str:
    """The line printed when an episode ends: how it ended, its turns, tokens, cost and time."""
    tokens = sum(u.prompt_tokens + u.completion_tokens for u in rec.usage.values())
    unknown = any(u.cost is None and u.calls for u in rec.usage.values())
    cost = sum(u.cost or 0.0 for u in rec.usage.values())
    turns = max((e.turn for e in rec.transcript if e.kind == "agent"), default=0)
    if rec.status == "error":
        how = f"error ({rec.error_role}:{rec.error_kind})"
    elif rec.reward >= 1.0:
        how = "solved"
    else:
        how = f"failed ({rec.termination})"
    wall = rec.timings.get("wall_s")
    tail = f", {wall:.0f} s" if wall is not None else ""
    again = f" (attempt {rec.attempt})" if rec.attempt > 1 else ""
    n = f"{turns} turn" + ("" if turns == 1 else "s")
    return f"{rec.episode_id}{again}: {how} after {n}; {tokens:,} tokens, {_money(cost, unknown)}{tail}"
