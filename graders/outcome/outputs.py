"""Required outputs: each fact the agent must state appears in some agent message.

Both sides are normalised for case, punctuation and number formatting, so
"$1,234.50" matches "1234.5" and "Order #O-00042" matches "order o 00042".
"""

from __future__ import annotations

import re

from envs.records import AgentEvent, Event, OutputCheck

_NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _num(m: re.Match) -> str:
    s = m.group(0).replace(",", "")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return f" {s} "


def normalise(text: str) -> str:
    text = text.lower()
    text = _NUM.sub(_num, text)
    # keep decimal points inside numbers, drop other punctuation
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text)
    text = re.sub(r"[^\w.\s]", " ", text)
    return " " + " ".join(text.split()) + " "


def check_outputs(outputs: list[str], events: list[Event], mode: str = "normalised") -> list[OutputCheck]:
    """``mode="normalised"`` (default) matches whole normalised words and numbers;
    ``mode="substring"`` is tau-bench's rule (lower-cased substring, commas removed),
    kept for exact parity on imported tau-bench tasks."""
    if mode == "substring":
        agent = [(e.turn, e.content.lower().replace(",", "")) for e in events if isinstance(e, AgentEvent)]
    else:
        agent = [(e.turn, normalise(e.content)) for e in events if isinstance(e, AgentEvent)]
    results = []
    for out in outputs:
        needle = out.lower() if mode == "substring" else normalise(out)
        turn = next((t for t, txt in agent if needle in txt), None)
        results.append(OutputCheck(output=out, found=turn is not None, turn=turn))
    return results
