"""The episode data embedded in ``report.html``, packed for a page that opens fast.

Two blocks go into the page:

* the **index**: one short row per episode (task, repeat, pass/fail/error, termination, the
  situations played, the rules not followed, cause and simulator flags when the record has
  them), as JSON in a ``<script type="application/json">`` element. The page reads it at load
  to draw the task x repeat grid and its filters;
* the **episodes**: every record in full (transcript, grade, verdicts, usage), gzipped and
  base64-encoded, decoded by the browser (``DecompressionStream``) only when an episode or a
  rule's replies are first opened. 5,000 episodes of 6 KB each are 32 MB as JSON and about
  1.5 MB packed this way.

Agent and user text is hostile input: the JSON block has ``<``, ``>``, ``&`` and the line
separators escaped, so no text can close the element; base64 has no markup characters at all;
and the page's script renders all of it as text, never as HTML.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any, Iterable

from envs.records import EpisodeRecord

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script type="application/json">`` element."""
    s = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for k, v in _ESCAPES.items():
        s = s.replace(k, v)
    return s


def outcome(rec: EpisodeRecord) -> str:
    """``pass``, ``fail`` or ``error``: the cell's colour in the grid."""
    if rec.status == "error":
        return "error"
    return "pass" if rec.reward >= 1.0 else "fail"


def _optional(rec: EpisodeRecord, name: str) -> Any:
    """A field another part may add to the record (``cause``, ``simulator_flags``): read
    defensively, as an attribute or an extra, and only when it is JSON-like."""
    v = getattr(rec, name, None)
    if v is None and rec.model_extra:
        v = rec.model_extra.get(name)
    if v is None:
        return None
    if hasattr(v, "model_dump"):
        v = v.model_dump(mode="json")
    try:
        json.dumps(v)
    except (TypeError, ValueError):
        return str(v)
    return v


def _flags(v: Any) -> list[str]:
    """Simulator flags as a list of short strings, whatever shape they come in."""
    if not v:
        return []
    if isinstance(v, dict):
        return sorted(str(k) for k, on in v.items() if on)
    if isinstance(v, (list, tuple)):
        return [x if isinstance(x, str) else str(x.get("flag") or x.get("kind") or x.get("id") or x) if isinstance(x, dict) else str(x) for x in v]
    return [str(v)]


def _cause_label(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, dict):
        return str(v.get("who") or v.get("cause") or v.get("kind") or next(iter(v.values()), ""))
    return str(v)


def episode_index(recs: list[EpisodeRecord], context: dict[str, Any] | None = None) -> dict[str, Any]:
    """The index block: lookup tables, then one row per episode (in ``recs`` order, which is
    also the order of the full records) as
    ``[task, repeat, outcome, termination, [situations], [rules not followed], cause, [flags]]``
    with tasks, terminations, situations, rules, causes and flags as indices into the tables.
    Causes and flags come from ``context`` (``episode_context``) when the record has none."""
    ctx_causes = (context or {}).get("causes", {})
    ctx_flags = (context or {}).get("flags", {})
    tables: dict[str, dict[str, int]] = {k: {} for k in ("tasks", "terminations", "situations", "rules", "causes", "flags")}

    def ix(table: str, key: str) -> int:
        t = tables[table]
        return t.setdefault(key, len(t))

    rows = []
    for r in recs:
        sits = sorted({ix("situations", e.situation) for e in r.transcript if e.kind == "user" and e.situation})
        bad = sorted({ix("rules", v.rule) for v in r.verdicts if v.verdict in ("VIOLATED", "NEEDS_REVIEW")})
        for v in r.verdicts:
            ix("rules", v.rule)
        cause = _cause_label(_optional(r, "cause") or ctx_causes.get(r.episode_id))
        named = _flags(_optional(r, "simulator_flags")) or [h["flag"] for h in ctx_flags.get(r.episode_id, [])]
        flags = sorted({ix("flags", f) for f in named})
        rows.append(
            [
                ix("tasks", r.task_id),
                r.repeat,
                outcome(r)[0],
                ix("terminations", r.termination or "?"),
                sits,
                bad,
                -1 if cause is None else ix("causes", cause),
                flags,
            ]
        )
    return {**{k: list(v) for k, v in tables.items()}, "rows": rows}


def episode_context(recs: list[EpisodeRecord], summary: Any = None, domain: Any = None) -> dict[str, Any]:
    """What an episode's view shows beside its record, from the summary and the domain:

    * ``tasks``: per task of the run, its goal and the user's request (what "solved" meant);
    * ``rules``: per rule (the domain's, and any other judged), its short name, category and text;
    * ``causes``: per failed episode, who caused it, how strongly, by which source, with evidence;
    * ``flags``: per episode, each simulator flag that fired, with its turn and evidence;
    * ``why``: per failed episode, its failure in words, the cause first (as the terminal says it).

    Without the domain, tasks and rule texts are left out and flags come from the summary's
    episode lists (names only)."""
    tasks: dict[str, Any] = {}
    rules: dict[str, Any] = {}
    names = dict(getattr(summary, "rule_names", None) or {})
    used = {v.rule for r in recs for v in r.verdicts}
    if domain is not None:
        if not names:
            from envs.report.rule_names import short_rule_names

            names = short_rule_names(domain.rules.values())
        for tid in sorted({r.task_id for r in recs}):
            t = domain.tasks.get(tid)
            if t is not None:
                tasks[tid] = {"goal": t.scenario.goal, "request": t.scenario.request}
        for rid, rule in domain.rules.items():
            rules[rid] = {"name": names.get(rid, ""), "category": rule.category, "text": rule.text}
    for rid in used:
        rules.setdefault(rid, {"name": names.get(rid, ""), "category": "", "text": ""})
    sim = getattr(summary, "simulator", None)
    causes = {c.episode_id: c.model_dump(mode="json") for c in (sim.episodes if sim else [])}
    flags: dict[str, list[dict[str, Any]]] = {}
    if domain is not None:
        from graders.simulator import simulator_flags

        flagged = {e for f in (sim.flags.values() if sim else []) for e in f.episodes}
        for r in recs:
            if sim is not None and r.episode_id not in flagged:
                continue  # the summary saw no flag fire here: nothing to recompute
            hits = simulator_flags(r, domain.tasks.get(r.task_id), domain)
            row = [{"flag": n, "turn": h.turn, "evidence": h.evidence} for n, hs in hits.items() for h in hs]
            if row:
                flags[r.episode_id] = row
    elif sim is not None:
        for n, f in sim.flags.items():
            for e in f.episodes:
                flags.setdefault(e, []).append({"flag": n, "turn": None, "evidence": ""})
    from graders.evaluate import AGENT_FAILED
    from graders.outcome.in_words import why_failed

    why = {
        r.episode_id: why_failed(r, domain.tasks.get(r.task_id) if domain is not None else None, domain, AGENT_FAILED)
        for r in recs
        if not (r.status == "ok" and r.reward >= 1.0)
    }
    return {"tasks": tasks, "rules": rules, "causes": causes, "flags": flags, "why": why}


def episode_full(rec: EpisodeRecord) -> dict[str, Any]:
    """One record as the viewer reads it (timings left out; optional fields kept when present)."""
    d = rec.model_dump(mode="json", exclude={"timings"})
    for name in ("cause", "simulator_flags"):
        v = _optional(rec, name)
        if v is not None:
            d[name] = v
    return d


def packed_episodes(recs: list[EpisodeRecord]) -> str:
    """Every record, as a JSON list, gzipped (mtime 0: the same run gives the same page) and base64-encoded."""
    raw = json.dumps([episode_full(r) for r in recs], ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def read_episodes(run_dir: Path, tasks: Iterable[str] | None = None, repeats: int | None = None) -> tuple[list[EpisodeRecord], int]:
    """The newest record per (task, repeat) in ``run_dir/episodes.jsonl``, sorted by task and
    repeat, kept to ``tasks`` and ``repeats`` when given, and the number of lines that could not
    be read (counted, shown in the report, never dropped silently). Reads only: never trims
    the file."""
    path = Path(run_dir) / "episodes.jsonl"
    if not path.exists():
        return [], 0
    keep = set(tasks) if tasks is not None else None
    out: dict[tuple[str, int], EpisodeRecord] = {}
    bad = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                r = EpisodeRecord.model_validate_json(line)
            except ValueError:
                bad += 1
                continue
            if (keep is None or r.task_id in keep) and (repeats is None or r.repeat < repeats):
                out[(r.task_id, r.repeat)] = r
    return [out[k] for k in sorted(out)], bad
