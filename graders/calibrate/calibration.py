"""How far to trust the judge: calibration on gold dialogues.

    python -m graders.calibrate --domain support --judge MODEL [--out calibration.json]
    python -m graders.calibrate --domain support --judge checks      # the deterministic checks

A domain's gold set (``domains/<d>/gold.yaml``) holds labelled agent replies:
for a rule and a situation the rule applies to, a short dialogue, one reply,
and whether that reply FOLLOWED or VIOLATED the rule. Gold sets are files in
the repo, reviewed and versioned; ``--extend`` asks a model to write the
missing (rule, situation) pairs and appends them marked ``reviewed: false``.

The judge runs blind over the set (shuffled; it never sees the label) and
the report gives, per rule: accuracy, false VIOLATED (too strict), false
FOLLOWED (too lenient), their ratio, the NEEDS_REVIEW rate, and whether the
rule's accuracy clears the threshold (default 0.8). ``calibration.json``
also holds each rule's sensitivity and specificity, which a run given
``--calibration FILE`` uses to correct raw compliance (Rogan-Gladen).

This module is the gold set, the judge's run over it and the statistics; the command line and
the printed report are ``graders.calibrate.cli``.
"""

from __future__ import annotations

import asyncio
import json
import re
import random
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from envs.errors import SpecError
from envs.records import AgentEvent, CalibrationInfo, Event, RunSummary, ToolCall, ToolEvent, UserEvent, Verdict
from envs.spec.loading import load_list
from envs.spec.schema import Spec
from graders.statistics import rogan_gladen, rogan_gladen_ci

# -- the gold set -------------------------------------------------------------


# An output that is an error message: "Error: ...", "ToolError: ...", "ValueError: ...", "Exception: ...".
_ERROR_HEAD = re.compile(r"\s*\w*(Error|Exception)\b\s*:?", re.I)


class GoldTurn(Spec):
    role: Literal["user", "student", "agent", "tutor", "tool"]
    content: str = ""
    # role "tool": an agent tool call and its output
    name: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    output: str = ""
    ok: bool = True  # a tool call the system refused (an "Error: ..." output) is ok: false

    def refused(self) -> bool:
        """Did the system refuse this call? ``ok: false``, an ``Error: ...`` output (this engine's
        form) or one headed by an exception's name (``ToolError: ...``, ``NotFoundError: ...``),
        or a JSON object holding an ``error`` and nothing a result would hold
        (``{"error": "no customer ..."}``, the form of many other tool frameworks)."""
        if not self.ok or _ERROR_HEAD.match(self.output):
            return True
        try:
            out = json.loads(self.output)
        except ValueError:
            return False
        return isinstance(out, dict) and "error" in out and set(out) <= {"error", "code", "message", "detail", "status"}


class GoldItem(Spec):
    id: str
    rule: str
    # a situation whose rules include ``rule``; ``any`` for a rule judged in every situation
    situation: str
    dialogue: list[GoldTurn] = Field(default_factory=list)
    reply: str
    # NOT_APPLICABLE: the rule's condition does not arise on this reply (a verdict of FOLLOWED or
    # VIOLATED on it is an applicability error, which moves a compliance rate's denominator)
    label: Literal["FOLLOWED", "VIOLATED", "NOT_APPLICABLE"]
    source: str = "written"
    reviewed: bool = True
    note: str = ""

    def events(self) -> tuple[list[Event], int]:
        """The dialogue as transcript events, the reply last; returns (events, reply index)."""
        evs: list[Event] = []
        turn = 0
        n = len(self.dialogue)
        for i, t in enumerate(self.dialogue):
            if t.role in ("user", "student"):
                # the last user turn plays the item's situation
                last = all(d.role not in ("user", "student") for d in self.dialogue[i + 1 : n])
                sit = self.situation if last else None
                evs.append(UserEvent(turn=turn, content=t.content, situation=sit))
            elif t.role in ("agent", "tutor"):
                turn += 1
                evs.append(AgentEvent(turn=turn, content=t.content))
            else:
                evs.append(
                    ToolEvent(
                        turn=turn,
                        call=ToolCall(id=f"gold_{i}", name=t.name or "?", arguments=t.arguments),
                        output=t.output,
                        ok=not t.refused(),
                    )
                )
        evs.append(AgentEvent(turn=turn + 1, content=self.reply))
        return evs, len(evs) - 1


def gold_path(domain) -> Path:
    return domain.package_dir / "gold.yaml"


def load_gold(domain, path: Path | None = None) -> list[GoldItem]:
    path = path or gold_path(domain)
    if not path.exists():
        raise SpecError(f"{path}: no gold set for domain {domain.name} (write one, or use --extend with a model)")
    items = load_list(GoldItem, path, "gold")
    for i, it in enumerate(items):
        if it.rule not in domain.rules:
            raise SpecError(f"{path}: gold[{i} {it.id}].rule: unknown rule {it.rule!r}")
        if it.situation == "any" and domain.rules[it.rule].every_situation and domain.situations:
            # a rule of every situation reads the same in each: 'any' is judged in the first
            it = items[i] = it.model_copy(update={"situation": next(iter(domain.situations))})
        sit = domain.situations.get(it.situation)
        if sit is None:
            raise SpecError(f"{path}: gold[{i} {it.id}].situation: unknown situation {it.situation!r}")
        if it.rule not in sit.rules:
            raise SpecError(f"{path}: gold[{i} {it.id}]: rule {it.rule} does not apply in situation {it.situation}")
    return items


def coverage_gaps(domain, items: list[GoldItem]) -> list[tuple[str, str, str]]:
    """(rule, situation, label) triples the gold set lacks."""
    have = {(i.rule, i.situation, i.label) for i in items}
    gaps = []
    for sit in domain.situations.values():
        for r in sit.rules:
            if r in domain.rules and not domain.rules[r].every_situation:
                for label in ("FOLLOWED", "VIOLATED"):
                    if (r, sit.id, label) not in have:
                        gaps.append((r, sit.id, label))
    # a rule of every situation reads the same in each: one item per label, in any situation
    # (a gap names the first, so --extend writes an item that loads)
    first = next(iter(domain.situations), None)
    for r in domain.rules.values():
        if r.every_situation and first is not None:
            for label in ("FOLLOWED", "VIOLATED"):
                if not any(i.rule == r.id and i.label == label for i in items):
                    gaps.append((r.id, first, label))
    return gaps


# -- judges -------------------------------------------------------------------------


class CheckJudge:
    """The deterministic checks, measured like a judge (rules without one: NEEDS_REVIEW)."""

    name = "checks"

    async def judge_turn(self, situation, rules, events, reply_index) -> list[Verdict]:
        from graders.rules.checks import run_check
        from graders.rules.conditions import condition_verdict

        out = []
        for r in rules:
            na = condition_verdict(r, events, reply_index)
            if na is not None:
                out.append(Verdict(turn=events[reply_index].turn, situation=situation.id, rule=r.id, verdict=na[0], rationale=na[1]))
                continue
            if r.check is None:
                out.append(Verdict(turn=events[reply_index].turn, situation=situation.id, rule=r.id,
                                   verdict="NEEDS_REVIEW", rationale="no deterministic check", source="check"))
                continue
            v, why = run_check(r.check.type, r.check.params, events, reply_index)
            out.append(Verdict(turn=events[reply_index].turn, situation=situation.id, rule=r.id, verdict=v, rationale=why))
        return out


# -- arithmetic ---------------------------------------------------------------------


def rule_stats(pairs: list[tuple[str, str]], threshold: float = 0.8) -> dict[str, Any]:
    """Per-rule numbers from (gold label, judge verdict) pairs.

    accuracy counts every item, NOT_APPLICABLE ones too (a verdict equal to the gold label is
    right; NEEDS_REVIEW is wrong: the judge did not deliver a verdict). Applicability errors are
    counted apart: ``false_not_applicable`` (gold FOLLOWED or VIOLATED, verdict NOT_APPLICABLE) and
    ``false_applicable`` (gold NOT_APPLICABLE, verdict FOLLOWED or VIOLATED), with
    ``not_applicable_agreement`` over the gold NOT_APPLICABLE items. sensitivity = P(FOLLOWED |
    gold FOLLOWED) and specificity = P(VIOLATED | gold VIOLATED) are computed over decided
    verdicts on decided gold only, for Rogan-Gladen.
    """
    n = len(pairs)
    correct = sum(1 for g, v in pairs if g == v)
    false_violated = sum(1 for g, v in pairs if g == "FOLLOWED" and v == "VIOLATED")
    false_followed = sum(1 for g, v in pairs if g == "VIOLATED" and v == "FOLLOWED")
    decided = ("FOLLOWED", "VIOLATED")
    gold_na = [v for g, v in pairs if g == "NOT_APPLICABLE"]
    false_na = sum(1 for g, v in pairs if g in decided and v == "NOT_APPLICABLE")
    false_applicable = sum(1 for v in gold_na if v in decided)
    review = sum(1 for _, v in pairs if v not in (*decided, "NOT_APPLICABLE"))
    pos = [(g, v) for g, v in pairs if g == "FOLLOWED" and v in ("FOLLOWED", "VIOLATED")]
    neg = [(g, v) for g, v in pairs if g == "VIOLATED" and v in ("FOLLOWED", "VIOLATED")]
    se = sum(1 for _, v in pos if v == "FOLLOWED") / len(pos) if pos else None
    sp = sum(1 for _, v in neg if v == "VIOLATED") / len(neg) if neg else None
    acc = correct / n if n else None
    return {
        "items": n,
        "correct": correct,
        "accuracy": acc,
        "false_violated": false_violated,
        "false_followed": false_followed,
        # > 1: the judge errs on the strict side; < 1: on the lenient side; None: no errors of one kind.
        "strict_lenient_ratio": (false_violated / false_followed) if false_followed else None,
        "n_not_applicable": len(gold_na),
        "not_applicable_agreement": sum(1 for v in gold_na if v == "NOT_APPLICABLE") / len(gold_na) if gold_na else None,
        "false_not_applicable": false_na,
        "false_applicable": false_applicable,
        "needs_review": review,
        "needs_review_rate": review / n if n else None,
        "sensitivity": se,
        "specificity": sp,
        "n_followed": len(pos),
        "n_violated": len(neg),
        "trustworthy": acc is not None and acc >= threshold,
    }


def apply_calibration(summary: RunSummary, path: Path) -> RunSummary:
    """Add corrected compliance (and untrusted flags) to a run summary, in place; returns it.

    A rule the calibration has no numbers for stays ``calibrated: false``.
    Raises SpecError (one line) for a missing or malformed file.
    """
    try:
        cal = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(f"{path}: --calibration: file not found") from None
    except json.JSONDecodeError as e:
        raise SpecError(f"{path}: --calibration: not JSON ({e.msg}, line {e.lineno})") from None
    # the held-out numbers, when the calibration has them, are the honest ones
    src = cal.get("heldout") if isinstance(cal, dict) and isinstance(cal.get("heldout"), dict) else cal
    rules = src.get("rules") if isinstance(src, dict) else None
    if not isinstance(rules, dict):
        raise SpecError(f"{path}: rules: missing (is this a calibration.json?)")
    summary.calibration = CalibrationInfo(file=str(path), judge=cal.get("judge"), threshold=cal.get("threshold"))
    for rid, entry in summary.rules.items():
        c = rules.get(rid)
        if c is None:
            continue  # calibrated: false, or as the domain's check calibration left it
        entry.calibrated = True
        entry.judge_accuracy = c["accuracy"]
        entry.untrusted = not c["trustworthy"]
        se, sp = c["sensitivity"], c["specificity"]
        for cell in [entry, *entry.by_situation.values()]:
            n, f = cell.judged, cell.followed
            if n and se is not None and sp is not None:
                cell.corrected = rogan_gladen(f / n, se, sp)
                cell.corrected_ci95 = rogan_gladen_ci(f, n, se, sp, c["n_followed"], c["n_violated"])
            else:
                cell.corrected = None
                cell.corrected_ci95 = None
    return summary


# -- running ------------------------------------------------------------------------


async def run_calibration(domain, items: list[GoldItem], judge, seed: int = 0, concurrency: int = 8) -> list[dict]:
    """Judge every gold item blind, in shuffled order; returns one row per item."""
    order = list(items)
    random.Random(seed).shuffle(order)
    sem = asyncio.Semaphore(concurrency)

    async def one(it: GoldItem) -> dict:
        async with sem:
            events, idx = it.events()
            sit = domain.situations[it.situation]
            verdicts = await judge.judge_turn(sit, [domain.rules[it.rule]], events, idx)
            v = next((x for x in verdicts if x.rule == it.rule), None)
            return {
                "id": it.id,
                "rule": it.rule,
                "situation": it.situation,
                "label": it.label,
                "source": it.source,
                "verdict": v.verdict if v else "NEEDS_REVIEW",
                "rationale": v.rationale if v else "the judge returned no verdict for this rule",
            }

    return list(await asyncio.gather(*(one(it) for it in order)))


def report(rows: list[dict], threshold: float) -> dict:
    """Per-rule statistics. The judge's prompt shows each rule's good and bad example, so
    gold items copied from those examples are easy for it: trust is decided on the other
    items when a rule has at least two, and both accuracies are reported."""
    by_rule: dict[str, list[tuple[str, str]]] = defaultdict(list)
    written: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in rows:
        by_rule[r["rule"]].append((r["label"], r["verdict"]))
        if r.get("source") != "rule example":
            written[r["rule"]].append((r["label"], r["verdict"]))
    rules = {}
    for rid, pairs in sorted(by_rule.items()):
        st = rule_stats(pairs, threshold)
        w = written.get(rid, [])
        st["accuracy_without_rule_examples"] = rule_stats(w)["accuracy"] if w else None
        st["items_without_rule_examples"] = len(w)
        if len(w) >= 2:
            st["trustworthy"] = st["accuracy_without_rule_examples"] >= threshold
        rules[rid] = st
    overall = rule_stats([p for pairs in by_rule.values() for p in pairs], threshold)
    return {
        "threshold": threshold,
        "overall": overall,
        "rules": rules,
        "untrustworthy": [rid for rid, s in rules.items() if not s["trustworthy"]],
        "items": rows,
    }
