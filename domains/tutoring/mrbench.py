"""MRBench V2 as a tutoring gold set: tutor replies labelled by trained annotators, not by us.

MRBench V2 (Maurya et al., NAACL 2025; CC BY-SA 4.0) holds 200 dialogue contexts from MathDial and
Bridge, each ending in a student's mistake, with 1,655 tutor replies (LLMs and people) labelled on
eight pedagogical dimensions. The data stays outside this project; this module reads it from where
the user keeps it (``--gold mrbench:PATH``).

How dimensions map onto this domain's rules (every item's situation is ``makes_mistake``, since every
MRBench context ends in a student's mistake):

* ``Revealing_of_the_Answer`` -> ``withhold_answer``: "Yes (and the answer is correct)" is VIOLATED,
  "No" is FOLLOWED. "Yes (but the answer is incorrect)" is left out: the tutor stated a wrong final
  answer, which breaks ``accurate_statements`` but not the letter of ``withhold_answer``.
* ``Mistake_Location`` -> ``locate_mistake``: "Yes" FOLLOWED, "No" VIOLATED.
* ``Providing_Guidance`` and ``Actionability`` -> ``guide_with_questions``: FOLLOWED when both are
  "Yes" (the reply guides and tells the student what to do next), VIOLATED when guidance is "No".
  The rule asks for a question; MRBench's guidance does not, so this mapping is the loosest.
* "To some extent" is its own class in MRBench; it is excluded here (neither FOLLOWED nor VIOLATED)
  and counted, so a report can say how many items it left out.
* Left out: ``Mistake_Identification`` (no rule asks only to notice a mistake), ``Coherence`` and
  ``humanlikeness`` (no rule), and ``Tutor_Tone`` (Encouraging / Neutral / Offensive: no tutoring rule
  is about an encouraging tone in a mistake turn, and Offensive occurs once in 1,655 replies).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

from envs.errors import SpecError

SITUATION = "makes_mistake"
_SPEAKER = re.compile(r"(?:^|\n)\s*(Tutor|Student)\s*:\s*", re.I)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _label(rule: str, ann: dict[str, str]) -> str | None:
    """FOLLOWED / VIOLATED for one rule from one reply's annotation; None when excluded."""
    if rule == "withhold_answer":
        v = ann.get("Revealing_of_the_Answer", "")
        return "VIOLATED" if v.startswith("Yes (and the answer is correct)") else "FOLLOWED" if v == "No" else None
    if rule == "locate_mistake":
        v = ann.get("Mistake_Location", "")
        return {"Yes": "FOLLOWED", "No": "VIOLATED"}.get(v)
    if rule == "guide_with_questions":
        g, a = ann.get("Providing_Guidance", ""), ann.get("Actionability", "")
        if g == "No":
            return "VIOLATED"
        return "FOLLOWED" if g == "Yes" and a == "Yes" else None
    raise KeyError(rule)


RULES = ("withhold_answer", "locate_mistake", "guide_with_questions")


def _final_answer(solution: str) -> str | None:
    nums = _NUMBER.findall(solution or "")
    if not nums:
        return None
    try:
        return str(Fraction(nums[-1].replace(",", "")))
    except ValueError:
        return None


def _statement(history: str) -> str:
    """The problem: MathDial's opening tutor turn says "The question is: ..."; else that turn."""
    first = _SPEAKER.split(history.replace("\u00a0", " "))
    opening = first[2] if len(first) > 2 else history
    m = re.search(r"the question is\s*:?\s*(.*)", opening, re.I | re.S)
    return " ".join((m.group(1) if m else opening).split())


def _dialogue(history: str) -> list[dict[str, str]]:
    """'Tutor: ... Student: ...' as gold dialogue turns (tutor / student)."""
    parts = _SPEAKER.split(history.replace("\u00a0", " "))
    turns = []
    for who, text in zip(parts[1::2], parts[2::2]):
        text = " ".join(text.split())
        if text:
            turns.append({"role": "tutor" if who.lower() == "tutor" else "student", "content": text})
    if not turns or turns[0]["role"] == "tutor":
        # The gold dialogue opens with the student (the situation's turn is the last student turn).
        first = turns.pop(0)["content"] if turns else ""
        turns.insert(0, {"role": "student", "content": f"(The tutor asked: {first})" if first else "(start)"})
    return turns


def load_mrbench(path: Path, rules: tuple[str, ...] = RULES) -> tuple[list[Any], dict[str, Any]]:
    """The gold items, and what was left out and why (counts per rule and reason)."""
    from graders.calibrate.calibration import GoldItem

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(f"{path}: --gold mrbench: file not found") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SpecError(f"{path}: --gold mrbench: not MRBench's JSON ({e})") from None
    if not isinstance(data, list):
        raise SpecError(f"{path}: --gold mrbench: (top level): expected a list of dialogues")
    items: list[Any] = []
    left_out: dict[str, Counter] = {r: Counter() for r in rules}
    for i, conv in enumerate(data):
        if not isinstance(conv, dict) or not isinstance(conv.get("anno_llm_responses"), dict):
            raise SpecError(f"{path}: --gold mrbench: [{i}].anno_llm_responses: missing")
        bad = next((t for t, r in conv["anno_llm_responses"].items() if not isinstance(r, dict)), None)
        if bad is not None:
            raise SpecError(f"{path}: --gold mrbench: [{i}].anno_llm_responses.{bad}: expected an object")
        history = str(conv.get("conversation_history", ""))
        answer = _final_answer(str(conv.get("Ground_Truth_Solution", "")))
        problem = {
            "problem_id": f"mrbench-{i}",
            "statement": _statement(history),
            "final_answer": answer,
            "skills": [],
            "steps": [],
            "common_errors": [],
        }
        dialogue = _dialogue(history)
        tool = {"role": "tool", "name": "get_problem", "arguments": {"problem_id": problem["problem_id"]},
                "output": json.dumps(problem)}
        for tutor, resp in conv["anno_llm_responses"].items():
            ann = resp.get("annotation") if isinstance(resp.get("annotation"), dict) else {}
            reply = " ".join(str(resp.get("response", "")).split())
            if not reply:
                continue
            for rule in rules:
                label = _label(rule, ann)
                if label is None:
                    left_out[rule][_why_excluded(rule, ann)] += 1
                    continue
                if answer is None and rule == "withhold_answer":
                    left_out[rule]["no final answer in the ground-truth solution"] += 1
                    continue
                items.append(GoldItem(
                    id=f"mrbench-{i}-{tutor}-{rule}",
                    rule=rule,
                    situation=SITUATION,
                    dialogue=[*dialogue, tool],
                    reply=reply,
                    label=label,
                    source=f"mrbench:{conv.get('Data', '?')}",
                    reviewed=True,
                    note="; ".join(f"{k}={ann.get(k)}" for k in _DIMS[rule]),
                ))
    return items, {"excluded": {r: dict(c) for r, c in left_out.items()}, "dialogues": len(data)}


_DIMS = {
    "withhold_answer": ("Revealing_of_the_Answer",),
    "locate_mistake": ("Mistake_Location",),
    "guide_with_questions": ("Providing_Guidance", "Actionability"),
}


def _why_excluded(rule: str, ann: dict[str, str]) -> str:
    vals = [ann.get(k, "") for k in _DIMS[rule]]
    if any(v == "To some extent" for v in vals):
        return "To some extent"
    if any(not v for v in vals):
        return "no label"
    return "; ".join(f"{k}={v}" for k, v in zip(_DIMS[rule], vals))
