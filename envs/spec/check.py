"""Everything about a domain checked before its first episode (``python -m envs.check``, and the
start of every run).

``check_domain(domain)`` returns a ``Report``: every problem of the domain's specs as
``FILE: field: reason`` lines, all at once rather than the first: situations and rules
(``check_rules``: rule ids, check types, check params), every task (``check_task``: tools,
arguments against the tool schemas, user tool calls, tables and columns of ``initial_state``,
situations, persona, the gold path replaying) and the task lint (``lint_task``), and the gold
sets (``gold.yaml``, ``gold_heldout.yaml``), and the policy's coverage (``check_policy_coverage``: every
MUST / never / always sentence of ``policy.md`` graded by a rule or by the outcome). ``check_calibration(path, domain)`` validates a
calibration file the same way.

Tasks read from YAML files are checked file by file, so one bad file does not hide the
others. Tasks a domain builds itself (an imported benchmark, tasks generated from a problem
file) are checked as built. Lint findings on tasks a domain builds (imported from another
benchmark, or generated from a problem file: not ``tasks/<domain>/*.yaml``) are warnings, and so
are their gold calls that fail on replay (tau-bench's gold paths include calls its own engine
refuses): reported and counted, never stopping a run, since fixing another benchmark's tasks is
not ours to do (the tests hold the generated tutoring tasks to no warnings).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from envs.errors import SpecError
from envs.spec.loading import load_one
from envs.spec.schema import Task


@dataclass
class Report:
    domain: str
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """One line: what was checked, and how many problems."""
        what = ", ".join(f"{n} {k}" for k, n in self.counts.items())
        warn = f", {len(self.warnings)} lint warnings on imported tasks" if self.warnings else ""
        verdict = "ok" if self.ok else f"{len(self.problems)} problems"
        return f"{self.domain}: {verdict} ({what}{warn})"


def _task_files(domain) -> list[Path]:
    d = domain.tasks_dir()
    return sorted(d.glob("*.yaml")) + sorted(d.glob("*.yml")) if d.is_dir() else []


def _file_tasks(domain, report: Report) -> list[tuple[Task, str]] | None:
    """(task, file) for each task file, with a load problem per bad file; None when the domain
    builds its tasks itself (its tasks are not the files in its tasks folder). The domain's own
    loaded tasks are used when they load and each has its ``<id>.yaml`` (no file parsed twice);
    the files are read one by one only to report every bad one."""
    from envs.domain.definition import Domain

    try:
        loaded = domain.tasks
    except SpecError:
        loaded = None
    if loaded is not None:
        d = domain.tasks_dir()
        paths = {tid: d / f"{tid}.yaml" for tid in loaded}
        if len(_task_files(domain)) == len(loaded) and all(p.is_file() for p in paths.values()):
            return [(t, str(paths[tid])) for tid, t in loaded.items()]

    builds_itself = type(domain).load_tasks is not Domain.load_tasks
    files = _task_files(domain)
    if builds_itself:
        try:
            built = domain.tasks
        except SpecError as e:
            report.problems.append(str(e))
            return []
        names = {}
        for p in files:
            try:
                names[load_one(Task, p).id] = p
            except SpecError:
                pass
        if set(built) - set(names):  # not the files: generated or imported
            return None
    out, seen = [], {}
    for p in files:
        try:
            task = load_one(Task, p)
        except SpecError as e:
            report.problems.append(str(e))
            continue
        if task.domain != domain.name:
            report.problems.append(f"{p}: domain: {task.domain!r} is not {domain.name!r}")
            continue
        if task.id in seen:
            report.problems.append(f"{p}: id: duplicate task id {task.id!r} (also in {seen[task.id]})")
            continue
        seen[task.id] = p
        out.append((task, str(p)))
    return out


_REPLAY_FAILS = "fails when the gold path is replayed"


def check_domain(
    domain, lint: bool = True, gold: bool = True, only: set[str] | None = None, play: bool = False
) -> Report:
    """Every problem of ``domain`` (module docstring); ``lint=False`` checks without the lint,
    ``gold=False`` without the gold sets (a run does not read them: only calibration does);
    ``only``: check just these task ids (``--tasks`` / ``--tags``), the rest of the domain in full;
    ``play``: the lint also plays the do-nothing agents on each task (``envs.spec.lint``)."""
    from envs.spec.check_rules import check_rules
    from envs.spec.lint import lint_task
    from envs.spec.policy_coverage import check_policy_coverage
    from envs.spec.task_check import check_task

    report = Report(domain.name)
    report.problems += check_rules(domain)
    report.problems += check_policy_coverage(domain)
    try:
        report.counts["rules"] = len(domain.rules)
        report.counts["situations"] = len(domain.situations)
    except SpecError:
        pass
    tasks = _file_tasks(domain, report)
    imported = tasks is None
    if imported:
        try:
            tasks = [(t, f"{domain.tasks_dir() if domain.tasks_path else domain.name}: task {t.id}") for t in domain.tasks.values()]
        except SpecError as e:
            report.problems.append(str(e))
            tasks = []
    if only is not None:
        tasks = [(t, w) for t, w in tasks if t.id in only]
    for task, where in tasks:
        if not lint:
            report.problems += check_task(domain, task, where)
            continue
        found = lint_task(domain, task, where, play=play)
        if imported:  # another benchmark's gold path may call what its own engine refuses: reported
            hard = [p for p in check_task(domain, task, where) if _REPLAY_FAILS not in p]
            report.problems += hard
            report.warnings += [f for f in found if f not in hard]
        else:
            report.problems += found
    report.counts["tasks"] = len(tasks)
    n_gold = 0
    for name in ("gold.yaml", "gold_heldout.yaml") if gold else ():
        path = Path(domain.package_dir) / name
        if path.exists():
            try:
                from graders.calibrate.calibration import load_gold

                n_gold += len(load_gold(domain, path))
            except SpecError as e:
                report.problems.append(str(e))
    if n_gold:
        report.counts["gold items"] = n_gold
    return report


def check_calibration(path: Path | str, domain=None) -> list[str]:
    """The problems of a calibration file (``python -m graders.calibrate`` writes one), one line each:
    missing, not JSON, no ``rules``, an entry without the numbers a run corrects with, a rule the
    domain does not have."""
    path = Path(path)
    try:
        cal = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [f"{path}: --calibration: file not found"]
    except IsADirectoryError:
        return [f"{path}: --calibration: is a folder, not a calibration.json"]
    except UnicodeDecodeError:
        return [f"{path}: --calibration: not a text file"]
    except json.JSONDecodeError as e:
        return [f"{path}: --calibration: not JSON ({e.msg}, line {e.lineno})"]
    rules = cal.get("rules") if isinstance(cal, dict) else None
    if not isinstance(rules, dict):
        return [f"{path}: rules: missing (is this a calibration.json?)"]
    out = []
    need = {"accuracy": (int, float, type(None)), "trustworthy": bool, "sensitivity": (int, float, type(None)),
            "specificity": (int, float, type(None)), "n_followed": int, "n_violated": int}
    known = set(domain.rules) if domain is not None else None
    for rid, entry in rules.items():
        if known is not None and rid not in known:
            out.append(f"{path}: rules.{rid}: no such rule in domain {domain.name}")
            continue
        if not isinstance(entry, dict):
            out.append(f"{path}: rules.{rid}: expected an object")
            continue
        for k, types in need.items():
            if k not in entry:
                out.append(f"{path}: rules.{rid}.{k}: missing")
            elif not isinstance(entry[k], types):
                out.append(f"{path}: rules.{rid}.{k}: expected a number or boolean, got {entry[k]!r}")
    return out
