"""A run folder (or a batch of rollouts) as JSONL a trainer reads: OpenAI chat format, one episode per line.

Each line: ``messages`` (system, user, assistant with ``tool_calls``, tool with ``tool_call_id``; only
what the agent saw), ``tools`` (the agent tools' JSON schemas), ``episode_id``, ``task_id``,
``reward`` (the weighted total), ``reward_parts`` (each part apart), ``turn_rewards``, ``termination`` and
``unfinished`` (why an episode that did not end as a conversation ends is a failed trial) and, for
rollouts, ``advantage``. Tool-call ``arguments`` are JSON text and every ``content`` is a string or
null, as the OpenAI format has them, so the file loads with Hugging Face ``datasets`` as it is
(``load_dataset("json", data_files=...)``) and matches TRL's conversational format (``messages``
plus ``tools``). ``tools`` is written as JSON text in ``tools_json`` too, for loaders that cannot
infer one schema for differently shaped tool parameters.

``--format grpo`` writes prompt-only rows instead (``grpo_rows``): one per agent turn, its ``prompt``
the conversation up to that turn (every message before the turn's first assistant message, in the same
chat-message form), with no completion, so a trainer generates the turn itself; beside it the episode's
reward parts and the turn's own. That is the prompt-only conversational type TRL's ``GRPOTrainer``
takes (its extra columns reach the reward functions as keyword arguments), and the ``prompt`` column a
verifiers dataset names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable

from envs.rl.rollout import Trajectory


def line(t: Trajectory) -> dict[str, Any]:
    """One trajectory as a JSONL record."""
    return {
        "episode_id": t.episode_id,
        "task_id": t.task_id,
        "messages": t.messages,
        "turn_rewards": [r.model_dump() for r in t.turn_rewards],
        **_shared(t),
    }


def _shared(t: Trajectory) -> dict[str, Any]:
    """The columns a trajectory's JSONL record and each of its GRPO rows carry alike."""
    return {
        "tools": t.tools,
        "tools_json": json.dumps(t.tools, ensure_ascii=False),
        "reward": t.reward.total,
        "reward_parts": t.reward.parts,
        "advantage": t.advantage,
        "status": t.status,
        "termination": t.termination,
        "unfinished": t.unfinished,
        "seed": t.seed,
        "group": t.group,
        "rollout": t.rollout,
    }


def turn_starts(messages: list[dict[str, Any]]) -> list[int]:
    """Index of each agent turn's first assistant message (a turn is the tool calls and the message that
    end with the agent's N-th message; a trailing run of tool calls with no message is a turn too)."""
    starts: list[int] = []
    open_turn = False
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        if not open_turn:
            starts.append(i)
            open_turn = True
        if not m.get("tool_calls"):
            open_turn = False
    return starts


def grpo_rows(t: Trajectory) -> list[dict[str, Any]]:
    """One prompt-only row per agent turn of a trajectory (see the module docstring)."""
    per_turn = t.reward.per_turn
    rows = []
    for n, start in enumerate(turn_starts(t.messages), 1):
        rows.append(
            {
                "prompt_id": f"{t.episode_id}@{n}",
                "episode_id": t.episode_id,
                "task_id": t.task_id,
                "turn": n,
                "prompt": t.messages[:start],
                # The dense reward earned on this turn, and from it to the episode's end.
                "turn_reward": per_turn.get(n, 0.0),
                "reward_to_go": sum((v for k, v in per_turn.items() if k >= n), 0.0),
                **_shared(t),
            }
        )
    return rows


def write_jsonl(trajectories: Iterable[Trajectory], out: Path, rows: Callable[[Trajectory], list[dict[str, Any]]] | None = None) -> int:
    """Write one line per trajectory to ``out`` (or the lines ``rows`` makes of each, e.g. ``grpo_rows``),
    atomically (a temp file renamed); returns the count of lines."""
    rows = rows or (lambda t: [line(t)])
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as f:
        for t in trajectories:
            for row in rows(t):
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
                n += 1
    tmp.replace(out)
    return n
