"""How real the simulated users read to people: a blind rating packet, and its scores.

    python benchmarks/realism.py packet --run scripted=runs/A --run llm=runs/B [--reference people.jsonl]
                                        [--reference-tasks] [--tasks ID ...] [--per-source 20] [--seed 0] --out realism/
    python benchmarks/realism.py score --key realism/key.json ratings.csv [more.csv ...] [--json out.json]

``packet`` takes up to ``--per-source`` episodes from each run (one per task first, then more
repeats, in a seeded order; ``--tasks`` or ``--reference-tasks`` keeps only those tasks, so every
source speaks in the same situations), plus every conversation of the ``--reference`` file, and writes:

* ``packet.txt``: the conversations, shuffled, each headed only ``Conversation 017``: the
  user's and the agent's messages as a person reads them, with the domain's role names
  ("Customer:", "Support agent:"), tool calls, stop tokens and situation labels left out.
  Raters see no source, task id or model;
* ``packet.jsonl``: the same, one ``{"item": "017", "turns": [{"role": "user"|"agent", "text": ...}]}``
  per line (for a rating form);
* ``key.json``: ``{"items": {"017": {"source": "llm", "task_id": ..., "episode": ...}}, ...}``:
  what each item is. Keep it from the raters.

A source is named on the command line (``--run NAME=RUN_DIR``: a run folder with its
``episodes.jsonl``); the reference file's items are the source ``reference``.

The reference file (conversations a person wrote for the same tasks): JSON Lines, one
conversation per line::

    {"task_id": "sup_cancel_before_dispatch", "turns": [{"role": "user", "text": "hi, can you cancel ..."},
                                                        {"role": "agent", "text": "Of course. ..."}]}

``role`` is ``user`` or ``agent``; ``task_id`` is optional (kept in the key only).

``score`` reads ratings files (CSV with a header; columns ``rater,item,score``; ``score`` an
integer 1-5 answering "a real customer / student wrote this": 1 surely not, 5 surely so;
``item`` as in the packet, e.g. ``017``) and prints per source: items rated, ratings, the mean
rating with a 95% interval (a bootstrap over items, each item the mean of its raters, seeded),
and per rater the mean per source (a rater's bias shows there). A rating of an item the key
does not hold, or a score outside 1-5, is one error line (file, row) and exit 2.
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import json
import random
import re
import sys
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STOP = "###STOP###"
BOOT = 2000


def _fail(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _role_names(domain_name: str) -> tuple[str, str]:
    """("Customer", "Support agent") from the domain's words ("a customer", "a customer-support agent")."""
    from envs.domain import get_domain

    w = get_domain(domain_name).words

    def name(text: str) -> str:
        t = re.sub(r"^(?:a|an|the)\s+", "", text.strip(), flags=re.I)
        return t[:1].upper() + t[1:]

    return name(w.user_role), name(w.agent_role)


def _turns(record: dict) -> list[dict]:
    """The messages of an episode as a person reads them (no tools, no labels, no stop token)."""
    out = []
    for e in record.get("transcript", []):
        if e.get("kind") not in ("user", "agent"):
            continue
        text = " ".join(str(e.get("content", "")).replace(STOP, " ").split())
        if text:
            out.append({"role": e["kind"], "text": text})
    return out


def _episodes(run: Path) -> list[dict]:
    path = run / "episodes.jsonl"
    if not path.is_file():
        raise ValueError(f"{run}: no episodes.jsonl (is it a run folder?)")
    recs = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                recs.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}: line {i}: not JSON ({e.msg})") from None
    return [r for r in recs if r.get("status", "ok") == "ok"]


def _pick(recs: list[dict], n: int, rng: random.Random) -> list[dict]:
    """Up to ``n`` episodes, one per task before a second of any (seeded order)."""
    by_task: dict[str, list[dict]] = {}
    for r in sorted(recs, key=lambda r: (r.get("task_id", ""), r.get("repeat", 0))):
        by_task.setdefault(r.get("task_id", ""), []).append(r)
    tasks = sorted(by_task)
    rng.shuffle(tasks)
    out, depth = [], 0
    while len(out) < n and any(len(v) > depth for v in by_task.values()):
        for t in tasks:
            if len(out) < n and len(by_task[t]) > depth:
                out.append(by_task[t][depth])
        depth += 1
    return out


def _reference(path: Path) -> list[dict]:
    items = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: line {i}: not JSON ({e.msg})") from None
        turns = obj.get("turns") if isinstance(obj, dict) else None
        if not isinstance(turns, list) or not turns:
            raise ValueError(f"{path}: line {i}: turns: expected a non-empty list")
        for j, t in enumerate(turns):
            if not isinstance(t, dict) or t.get("role") not in ("user", "agent") or not str(t.get("text", "")).strip():
                raise ValueError(f"{path}: line {i}: turns.{j}: expected {{role: user|agent, text: ...}}")
        items.append({"source": "reference", "task_id": obj.get("task_id"), "episode": f"{path.name}:{i}",
                      "turns": [{"role": t["role"], "text": " ".join(str(t["text"]).split())} for t in turns]})
    return items


def packet(args) -> int:
    rng = random.Random(args.seed)
    items: list[dict] = []
    domain = args.domain
    try:
        for spec in args.run or []:
            name, sep, folder = spec.partition("=")
            if not sep or not name or not folder:
                return _fail(f"--run: expected NAME=RUN_DIR, not {spec!r}")
            if name == "reference":
                return _fail("--run: 'reference' is the name of the --reference file's source")
            recs = _episodes(Path(folder))
            if args.tasks:
                recs = [r for r in recs if any(fnmatch.fnmatchcase(r.get("task_id", ""), t) for t in args.tasks)]
            if not recs:
                return _fail(f"--run {spec}: no finished episodes")
            domain = domain or recs[0].get("domain")
            for r in _pick(recs, args.per_source, rng):
                items.append({"source": name, "task_id": r.get("task_id"), "episode": r.get("episode_id"), "turns": _turns(r)})
        if args.reference:
            items += _reference(Path(args.reference))
    except ValueError as e:
        return _fail(str(e))
    if not items:
        return _fail("nothing to rate: give --run NAME=RUN_DIR and/or --reference FILE")
    if not domain:
        return _fail("--domain: needed when only a reference file is given")
    user, agent = _role_names(domain)
    rng.shuffle(items)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    width = max(3, len(str(len(items))))
    key, text, rows = {}, [], []
    for i, it in enumerate(items, 1):
        item = f"{i:0{width}d}"
        key[item] = {k: it[k] for k in ("source", "task_id", "episode")}
        rows.append(json.dumps({"item": item, "turns": it["turns"]}, ensure_ascii=False))
        text.append(f"Conversation {item}\n" + "\n".join(
            f"{user if t['role'] == 'user' else agent}: {t['text']}" for t in it["turns"]) + "\n")
    head = (f"Each conversation below is between a {user.lower()} and a {agent.lower()}. For each, rate from 1 to 5: "
            f"\"a real {user.lower()} wrote the {user.lower()}'s messages\" (1: surely not, 5: surely so).\n\n")
    (out / "packet.txt").write_text(head + "\n".join(text), encoding="utf-8")
    (out / "packet.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    counts: dict[str, int] = {}
    for v in key.values():
        counts[v["source"]] = counts.get(v["source"], 0) + 1
    (out / "key.json").write_text(json.dumps({"domain": domain, "seed": args.seed, "sources": counts, "items": key}, indent=1),
                                  encoding="utf-8")
    print(f"wrote {out / 'packet.txt'}, {out / 'packet.jsonl'} and {out / 'key.json'} "
          f"({len(items)} conversations: {', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    return 0


def read_ratings(paths: list[str], key: dict) -> list[tuple[str, str, int]]:
    """(rater, item, score) rows; ValueError naming file and row for a bad one."""
    rows = []
    for p in paths:
        with open(p, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = {"rater", "item", "score"} - set(reader.fieldnames or [])
            if missing:
                raise ValueError(f"{p}: header: missing column(s) {', '.join(sorted(missing))} (need rater,item,score)")
            for n, row in enumerate(reader, 2):
                item = str(row["item"]).strip()
                if item not in key and item.zfill(len(next(iter(key), ""))) in key:
                    item = item.zfill(len(next(iter(key))))
                if item not in key:
                    raise ValueError(f"{p}: row {n}: item {row['item']!r} is not in the key")
                try:
                    score = int(str(row["score"]).strip())
                except ValueError:
                    score = 0
                if not 1 <= score <= 5:
                    raise ValueError(f"{p}: row {n}: score {row['score']!r}: expected an integer 1-5")
                rows.append((str(row["rater"]).strip(), item, score))
    return rows


def summarise(rows: list[tuple[str, str, int]], key: dict, seed: int = 0) -> dict:
    """Per source: items, ratings, mean with a bootstrap 95% interval over items; per rater the
    mean per source."""
    per_item: dict[str, list[int]] = {}
    for _, item, s in rows:
        per_item.setdefault(item, []).append(s)
    rng = random.Random(seed)
    out: dict = {"sources": {}, "raters": {}}
    for source in sorted({v["source"] for v in key.values()}):
        means = [mean(per_item[i]) for i in sorted(per_item) if key[i]["source"] == source]
        if not means:
            out["sources"][source] = {"items": 0, "ratings": 0, "mean": None, "ci95": None}
            continue
        boots = sorted(mean(rng.choice(means) for _ in means) for _ in range(BOOT))
        out["sources"][source] = {
            "items": len(means),
            "ratings": sum(len(per_item[i]) for i in per_item if key[i]["source"] == source),
            "mean": round(mean(means), 3),
            "ci95": [round(boots[int(0.025 * BOOT)], 3), round(boots[int(0.975 * BOOT) - 1], 3)],
        }
    for rater in sorted({r for r, _, _ in rows}):
        mine: dict[str, list[int]] = {}
        for r, item, s in rows:
            if r == rater:
                mine.setdefault(key[item]["source"], []).append(s)
        out["raters"][rater] = {src: round(mean(v), 3) for src, v in sorted(mine.items())}
    return out


def score(args) -> int:
    try:
        key = json.loads(Path(args.key).read_text(encoding="utf-8"))["items"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        return _fail(f"{args.key}: not a key.json written by 'packet' ({e})")
    try:
        rows = read_ratings(args.ratings, key)
    except (OSError, ValueError) as e:
        return _fail(str(e))
    if not rows:
        return _fail("no ratings in the given files")
    s = summarise(rows, key, args.seed)
    print(f"{'source':<12} {'items':>5} {'ratings':>7} {'mean':>6}  95% CI (bootstrap over items)")
    for src, v in s["sources"].items():
        ci = f"[{v['ci95'][0]:.2f}, {v['ci95'][1]:.2f}]" if v["ci95"] else "-"
        m = f"{v['mean']:.2f}" if v["mean"] is not None else "-"
        print(f"{src:<12} {v['items']:>5} {v['ratings']:>7} {m:>6}  {ci}")
    for rater, by in s["raters"].items():
        print(f"rater {rater}: " + ", ".join(f"{k} {v:.2f}" for k, v in by.items()))
    if args.json:
        Path(args.json).write_text(json.dumps(s, indent=1), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("packet", help="write a blind rating packet and its key")
    p.add_argument("--run", action="append", metavar="NAME=RUN_DIR", help="a source: a run folder (repeatable)")
    p.add_argument("--reference", help="person-written conversations (JSON Lines, see the docstring)")
    p.add_argument("--domain", help="the domain (default: the first run's)")
    p.add_argument("--per-source", type=int, default=20, help="episodes per run (default 20)")
    p.add_argument("--tasks", nargs="+", metavar="ID", help="only these task ids or globs from the runs (e.g. the reference's tasks)")
    p.add_argument("--reference-tasks", action="store_true",
                   help="only the tasks the --reference file's conversations are for (the same tasks for every source)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    s = sub.add_parser("score", help="per-source mean ratings with intervals")
    s.add_argument("--key", required=True)
    s.add_argument("ratings", nargs="+", help="CSV files: rater,item,score")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)
    if args.cmd == "packet" and args.per_source < 1:
        return _fail("--per-source: must be 1 or more")
    if args.cmd == "packet" and args.reference_tasks:
        if not args.reference:
            return _fail("--reference-tasks: needs --reference FILE")
        try:
            ids = sorted({it["task_id"] for it in _reference(Path(args.reference)) if it["task_id"]})
        except (OSError, ValueError) as e:
            return _fail(str(e))
        if not ids:
            return _fail(f"--reference-tasks: {args.reference} names no task_id")
        args.tasks = [*(args.tasks or []), *ids]
    return packet(args) if args.cmd == "packet" else score(args)


if __name__ == "__main__":
    sys.exit(main())
