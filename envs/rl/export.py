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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from envs.rl.rollout import Trajectory


def line(t: Trajectory) -> dict[str, Any]:
    """One trajectory as a JSONL record."""
    return {
        "episode_id": t.episode_id,
        "task_id": t.task_id,
        "messages": t.messages,
        "tools": t.tools,
        "tools_json": json.dumps(t.tools, ensure_ascii=False),
        "reward": t.reward.total,
        "reward_parts": t.reward.parts,
        "turn_rewards": [r.model_dump() for r in t.turn_rewards],
        "advantage": t.advantage,
        "status": t.status,
        "termination": t.termination,
        "unfinished": t.unfinished,
        "seed": t.seed,
        "group": t.group,
        "rollout": t.rollout,
    }


def write_jsonl(trajectories: Iterable[Trajectory], out: Path) -> int:
    """Write one line per trajectory to ``out`` (atomically: a temp file renamed); returns the count."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as f:
        for t in trajectories:
            f.write(json.dumps(line(t), ensure_ascii=False) + "\n")
            n += 1
    tmp.replace(out)
    return n
