"""``python -m envs.tasks``: write a domain's task families out as YAML task files.

    python -m envs.tasks --domain support --list
    python -m envs.tasks --domain support --family multi_request --count 8 --seed 0 [--out DIR]
    python -m envs.tasks --domain support --all --count 8 --seed 0
    python -m envs.tasks --domain support --shape --tags hard

``--shape`` measures the selected tasks (``--tasks`` / ``--tags``, as for envs.run): state-changing
actions per task (expected calls of tools that change the state), the share needing two or more,
and the tasks that change nothing, each with what it requires of the agent (outputs, assertions).

Each generated task is written to ``<out>/<task id>.yaml`` (default ``out``: the domain's tasks
folder), in the same shape as a hand-written task, and is checked the way the domain checks its
own on load (tools, situations, persona, columns) and its gold path replayed, before anything is
written. The same ``--seed`` writes the same files. Bad input (an unknown domain or family, a
count the data cannot supply) is one line and exit 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Keys in the order a person writes a task (the rest follow in the model's order).
_ORDER = ("id", "domain", "description", "persona", "tags", "relies_on", "catches", "scenario",
          "initial_state", "expected_actions", "outputs", "assertions", "ignore_columns", "extra")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m envs.tasks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--domain", required=True, help="domain name (support, tutoring, taubench-retail, ...)")
    ap.add_argument("--domain-option", action="append", default=[], metavar="KEY=VALUE", help="a domain option, validated by the domain (repeatable), e.g. problems=FILE.jsonl")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--list", action="store_true", help="list the domain's families and stop")
    what.add_argument("--family", nargs="+", metavar="NAME", help="the families to write (space or comma separated)")
    what.add_argument("--all", action="store_true", help="every family of the domain")
    what.add_argument("--shape", action="store_true", help="measure the selected tasks' shape and stop")
    ap.add_argument("--tasks", nargs="+", default=None, help="with --shape: task ids or globs")
    ap.add_argument("--tags", nargs="+", default=None, metavar="TAG", help="with --shape: tasks carrying any of these tags")
    ap.add_argument("--count", type=int, default=None, help="tasks per family (required unless --list)")
    ap.add_argument("--seed", type=int, default=0, help="which instances are drawn (default 0)")
    ap.add_argument("--out", default=None, help="folder to write into (default: the domain's tasks folder)")
    return ap


def families_of(domain: Any) -> dict[str, Any]:
    """The domain's families by name ({} when it has none)."""
    return dict(domain.families()) if domain.families is not None else {}


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


class _TaskDumper(yaml.SafeDumper):
    """Short lists and rows of plain values on one line (``tags: [hard]``, ``row: {id: ..., ...}``), as people write them."""


def _flow_list(d: yaml.SafeDumper, v: list) -> Any:
    return d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=bool(v) and all(map(_scalar, v)))


def _flow_dict(d: yaml.SafeDumper, v: dict) -> Any:
    flat = bool(v) and all(_scalar(x) or (isinstance(x, list) and all(map(_scalar, x))) for x in v.values())
    long_text = any(isinstance(x, str) and len(x) > 60 for x in v.values())
    return d.represent_mapping("tag:yaml.org,2002:map", v, flow_style=flat and not long_text)


_TaskDumper.add_representer(list, _flow_list)
_TaskDumper.add_representer(dict, _flow_dict)


def task_yaml(task: Any) -> str:
    """``task`` as a YAML document a person could have written (defaults left out)."""
    data = task.model_dump(mode="json", exclude_defaults=True)
    ordered = {k: data.pop(k) for k in _ORDER if k in data}
    ordered.update(data)
    head = f"# {task.id}: {task.description}\n" if task.description else ""
    return head + yaml.dump(ordered, Dumper=_TaskDumper, sort_keys=False, allow_unicode=True, width=110)


def shape(domain: Any, task_ids: list[str]) -> dict[str, Any]:
    """How much a set of tasks asks: state-changing actions per task, and what the ones that change nothing require."""
    tools = domain.agent_tools

    def changes(t: Any) -> int:
        return sum(1 for a in t.expected_actions if a.name in tools and tools[a.name].mutates)

    tasks = [domain.tasks[t] for t in task_ids]
    n = [changes(t) for t in tasks]
    none = [t for t, k in zip(tasks, n) if k == 0]
    return {
        "tasks": len(tasks),
        "mean_changes": sum(n) / len(n) if n else 0.0,
        "two_or_more": sum(k >= 2 for k in n),
        "none": len(none),
        "none_unobservable": [t.id for t in none if not (t.outputs or t.assertions)],
        "histogram": {k: n.count(k) for k in sorted(set(n))},
    }


def generate(domain: Any, names: list[str], count: int, seed: int) -> list[Any]:
    """The tasks of each family in ``names``; SpecError (one line) for an unknown family, a bad count,
    a task the domain refuses or whose gold path does not replay."""
    from envs.errors import SpecError
    from envs.spec.task_check import check_task

    fams = families_of(domain)
    if count is None or count < 1:
        raise SpecError("--count: must be at least 1")
    for n in names:
        if n not in fams:
            known = ", ".join(sorted(fams)) or "none"
            raise SpecError(f"--family: {domain.name} has no family {n!r} (families: {known})")
    out, seen = [], {}
    for n in names:
        for task in fams[n].generate(domain, count, seed):
            if task.id in seen:
                raise SpecError(f"family {n}: task id {task.id!r} also made by family {seen[task.id]}")
            seen[task.id] = n
            where = f"family {n}: task {task.id}"
            problems = check_task(domain, task, where)
            if problems:
                raise SpecError(problems[0])
            out.append(task)
    return out


def main(argv: list[str] | None = None) -> int:
    from envs.domain import get_domain
    from envs.errors import SpecError
    from envs.run.config import parse_domain_options
    from envs.spec.selection import split_items

    args = build_parser().parse_args(argv)
    try:
        domain = get_domain(args.domain, parse_domain_options(args.domain_option) or None)
        fams = families_of(domain)
        if args.list:
            if not fams:
                print(f"{domain.name}: no task families")
            for name, fam in sorted(fams.items()):
                print(f"{name}: {fam.description}")
            return 0
        if args.shape:
            from envs.spec.selection import select_task_ids

            sh = shape(domain, select_task_ids(domain.tasks, args.tasks, args.tags))
            k = sh["tasks"] or 1
            print(f"{domain.name}: {sh['tasks']} tasks; state-changing actions per task: mean {sh['mean_changes']:.2f}; "
                  f"two or more: {sh['two_or_more']}/{sh['tasks']} ({sh['two_or_more'] / k:.0%}); "
                  f"none: {sh['none']}/{sh['tasks']} ({sh['none'] / k:.0%}), "
                  f"{len(sh['none_unobservable'])} of them requiring nothing observable")
            print("  per task: " + ", ".join(f"{c} changes: {m}" for c, m in sh["histogram"].items()))
            for tid in sh["none_unobservable"]:
                print(f"  requires nothing observable: {tid}")
            return 0
        names = sorted(fams) if args.all else split_items(args.family)
        tasks = generate(domain, names, args.count, args.seed)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else domain.tasks_dir()
    out.mkdir(parents=True, exist_ok=True)
    for task in tasks:
        (out / f"{task.id}.yaml").write_text(task_yaml(task), encoding="utf-8")
    print(f"wrote {len(tasks)} tasks of {len(names)} families to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
