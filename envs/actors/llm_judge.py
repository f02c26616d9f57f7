"""The rule judge, played by a model: implements ``envs.actors.protocols.Judge``.

``judge_turn``: per rule a short rationale, then FOLLOWED / VIOLATED /
NOT_APPLICABLE / NEEDS_REVIEW as JSON (the ``judge`` and ``judge_turn``
templates, filled from the domain's words, the situation and the rules). An
empty or unparseable reply is retried, then NEEDS_REVIEW: never a pass.
``judge_question``: a task's ``llm_judge`` assertion, a yes/no question about
the whole transcript.

The episode being judged is an argument (``episode``): its seed and repeat key
the response cache and go to providers, whatever else ran before. ``None``
means "not an episode" (a calibration gold item): no seed is sent.
"""

from __future__ import annotations

from typing import Any

from envs.actors.prompts import Prompts
from envs.actors.json_actions import response_format_for
from envs.actors.transcript import clip, render_dialogue
from envs.llm.client import LLMClient
from envs.llm.endpoints import Endpoint
from envs.llm.parsing import extract_json
from envs.records import EpisodeId, Event, Usage, Verdict
from envs.spec.schema import Rule, Situation

VERDICTS = ("FOLLOWED", "VIOLATED", "NOT_APPLICABLE", "NEEDS_REVIEW")


def parse_verdicts(text: str | None, rule_ids: list[str]) -> dict[str, tuple[str, str]] | None:
    """{rule: (verdict, rationale)} from a judge reply; None when nothing usable is in it.

    Accepts code fences and text around the JSON, a bare list, or a dict keyed by
    rule id. Unknown rules are ignored; a rule given twice with different
    verdicts becomes NEEDS_REVIEW; unknown verdict words become NEEDS_REVIEW.
    """
    obj = extract_json(text)
    if obj is None:
        return None
    items: list[Any]
    if isinstance(obj, dict) and isinstance(obj.get("verdicts"), list):
        items = obj["verdicts"]
    elif isinstance(obj, list):
        items = obj
    elif isinstance(obj, dict) and "rule" in obj:
        items = [obj]
    elif isinstance(obj, dict):
        items = [
            ({"rule": k, **v} if isinstance(v, dict) else {"rule": k, "verdict": v}) for k, v in obj.items() if k in rule_ids
        ]
    else:
        return None
    out: dict[str, tuple[str, str]] = {}
    for it in items:
        if not isinstance(it, dict):
            continue
        rid = str(it.get("rule") or it.get("id") or it.get("rule_id") or "").strip()
        if rid not in rule_ids:
            continue
        word = str(it.get("verdict") or it.get("label") or "").strip().upper().replace(" ", "_").replace("-", "_")
        why = str(it.get("rationale") or it.get("reason") or "").strip()
        if word not in VERDICTS:
            word, why = "NEEDS_REVIEW", f"unreadable verdict {it.get('verdict')!r}. {why}".strip()
        if rid in out and out[rid][0] != word:
            out[rid] = ("NEEDS_REVIEW", f"the judge gave conflicting verdicts ({out[rid][0]}, {word})")
        elif rid not in out:
            out[rid] = (word, why)
    return out if out or not items else out


def verdicts_schema(rule_ids: list[str]) -> dict:
    """The JSON schema of a judge reply for ``rule_ids`` (JSON mode's ``response_format``)."""
    return {
        "type": "object",
        "properties": {
            "verdicts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "rule": {"enum": rule_ids},
                        "rationale": {"type": "string"},
                        "verdict": {"enum": list(VERDICTS)},
                    },
                    "required": ["rule", "rationale", "verdict"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["verdicts"],
        "additionalProperties": False,
    }


def _seed_repeat(episode: EpisodeId | None) -> tuple[int | None, int | None]:
    return (episode.seed, episode.repeat) if episode is not None else (None, None)


class LLMJudge:
    """The rule judge (see the module docstring)."""

    MAX_ATTEMPTS = 3

    def __init__(self, client: LLMClient, ep: Endpoint, prompts: Prompts | None = None):
        self.client = client
        self.ep = ep
        self.name = ep.spec
        self.usage = Usage()
        self.prompts = prompts or Prompts()

    def messages(self, situation: Situation, rules: list[Rule], events: list[Event], reply_index: int) -> list[dict]:
        rule_text = "\n\n".join(
            self.prompts.render(
                "judge_rule", id=r.id, category=r.category, text=r.text, violation=r.violation,
                good_example=r.good_example, bad_example=r.bad_example,
            )
            for r in rules
        )
        reply = events[reply_index]
        body = self.prompts.render(
            "judge_turn",
            situation_id=situation.id,
            situation=situation.description,
            rules=rule_text,
            dialogue=render_dialogue(events, reply_index),
            turn=reply.turn,
            reply=getattr(reply, "content", ""),
            rule_ids=", ".join(r.id for r in rules),
        )
        return [{"role": "system", "content": self.prompts.render("judge")}, {"role": "user", "content": body}]

    async def judge_turn(
        self, situation: Situation, rules: list[Rule], events: list[Event], reply_index: int, episode: EpisodeId | None = None
    ) -> list[Verdict]:
        ids = [r.id for r in rules]
        turn = events[reply_index].turn
        seed, repeat = _seed_repeat(episode)
        msgs = self.messages(situation, rules, events, reply_index)
        rf = response_format_for(verdicts_schema(ids), "verdicts") if self.ep.tool_mode == "json" else None
        got: dict[str, tuple[str, str]] | None = None
        last = ""
        for attempt in range(self.MAX_ATTEMPTS):
            comp = await self.client.complete(
                self.ep, msgs, response_format=rf, seed=seed, repeat=repeat, attempt=attempt, usage=self.usage
            )
            last = (comp.content or "").strip()
            got = parse_verdicts(last, ids) if last else None
            if got:
                break
        out = []
        for rid in ids:
            if got and rid in got:
                v, why = got[rid]
            elif not last:
                v, why = "NEEDS_REVIEW", f"the judge gave an empty reply {self.MAX_ATTEMPTS} times"
            elif got is None or not got:
                v, why = "NEEDS_REVIEW", f"unparseable judge reply after {self.MAX_ATTEMPTS} attempts: {clip(last, 160)!r}"
            else:
                v, why = "NEEDS_REVIEW", "the judge gave no verdict for this rule"
            out.append(Verdict(turn=turn, situation=situation.id, rule=rid, verdict=v, rationale=why, source="judge"))
        return out

    def question_messages(self, question: str, events: list[Event]) -> list[dict]:
        """What the judge is sent for an ``llm_judge`` assertion over ``events``."""
        return [
            {"role": "system", "content": self.prompts.render("judge_question")},
            {"role": "user", "content": self.prompts.render("judge_question_turn", dialogue=render_dialogue(events), question=question)},
        ]

    async def judge_question(self, question: str, events: list[Event], episode: EpisodeId | None = None) -> tuple[str, str]:
        """An ``llm_judge`` assertion: a yes/no question about the whole transcript -> (pass|fail|needs_review, evidence)."""
        msgs = self.question_messages(question, events)
        seed, repeat = _seed_repeat(episode)
        last = ""
        for attempt in range(self.MAX_ATTEMPTS):
            comp = await self.client.complete(self.ep, msgs, seed=seed, repeat=repeat, attempt=attempt, usage=self.usage)
            last = (comp.content or "").strip()
            obj = extract_json(last)
            if isinstance(obj, dict) and str(obj.get("answer", "")).lower() in ("yes", "no", "unsure"):
                ans = str(obj["answer"]).lower()
                why = str(obj.get("rationale", ""))
                return {"yes": "pass", "no": "fail"}.get(ans, "needs_review"), why
        return "needs_review", f"no usable answer from the judge: {clip(last, 160)!r}"
