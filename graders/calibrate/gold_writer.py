"""Writing missing gold items for ``python -m graders.calibrate --extend``.

The judge's own model writes one short dialogue and one agent reply per
missing (rule, situation, label); ``extend_gold`` appends them to the gold
file marked ``reviewed: false``, so they count as gold only once a person has
reviewed them. The file keeps its comments and layout (the items are appended
as text); an item whose id is already there is not written twice.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import yaml

from envs.llm.parsing import extract_json

GOLD_WRITER = """You write test material for checking an AI judge. Given a rule an agent must follow and the
situation the user is in, write a short realistic dialogue (1 to 3 turns, ending with a user turn that plays the
situation) and ONE agent reply that {how}. Answer with one JSON object and nothing else:
{{"dialogue": [{{"role": "user"|"agent", "content": "..."}}], "reply": "..."}}"""


def extend_gold(domain: Any, gold_path: Any, judge: Any, gaps: list[tuple[str, str, str]]) -> int:
    """Have the judge's model write one gold item per missing (rule, situation, label); append them
    to the gold file marked ``reviewed: false`` (a person reviews them before they count as gold).
    Returns how many were added. ``judge`` is an ``LLMJudge``: its client, endpoint, usage and name."""

    async def write_one(rule_id: str, sit_id: str, label: str) -> dict | None:
        rule, sit = domain.rules[rule_id], domain.situations[sit_id]
        how = (
            "definitely FOLLOWS the rule"
            if label == "FOLLOWED"
            else "VIOLATES the rule while looking plausible (the kind of subtle mistake a weak agent makes)"
        )
        msgs = [
            {"role": "system", "content": GOLD_WRITER.format(how=how)},
            {
                "role": "user",
                "content": f"Rule {rule.id}: {rule.text}\nA violation looks like: {rule.violation}\n"
                f"Good example: {rule.good_example}\nBad example: {rule.bad_example}\n\n"
                f"Situation {sit.id}: {sit.description}\nHow the user plays it: {sit.how_to_play}",
            },
        ]
        for attempt in range(3):
            comp = await judge.client.complete(judge.ep, msgs, attempt=attempt, usage=judge.usage)
            obj = extract_json(comp.content or "")
            if isinstance(obj, dict) and isinstance(obj.get("reply"), str) and isinstance(obj.get("dialogue"), list):
                turns = [
                    {"role": "user" if t.get("role") == "user" else "agent", "content": str(t.get("content", ""))}
                    for t in obj["dialogue"]
                    if isinstance(t, dict) and t.get("content")
                ]
                if turns and turns[-1]["role"] == "user":
                    return {
                        "id": f"gen-{rule_id}-{sit_id}-{label.lower()}",
                        "rule": rule_id,
                        "situation": sit_id,
                        "dialogue": turns,
                        "reply": obj["reply"],
                        "label": label,
                        "source": f"model: {judge.name}",
                        "reviewed": False,
                    }
        return None

    async def all_items() -> list[dict]:
        return [x for x in await asyncio.gather(*(write_one(*g) for g in gaps)) if x]

    items = asyncio.run(all_items())
    path = Path(gold_path)
    text = path.read_text(encoding="utf-8") if path.exists() else "gold:\n"
    data = yaml.safe_load(text) or {}
    have = {g["id"] for g in data.get("gold") or []}
    new = [i for i in items if i["id"] not in have]
    if new:
        # Append as text so the reviewed file keeps its comments and layout.
        m = re.search(r"^( *)- ", text, re.M)
        indent = m.group(1) if m else "  "
        block = yaml.safe_dump(new, sort_keys=False, allow_unicode=True, width=110)
        block = "".join(indent + line if line.strip() else line for line in block.splitlines(keepends=True))
        path.write_text(text.rstrip("\n") + "\n" + block, encoding="utf-8")
    return len(new)
