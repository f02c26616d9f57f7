"""``python -m envs.regrade RUN_DIR [--judge MODEL] [--calibration FILE] [--rules FILE] [--out NEW_DIR]``.

Re-grades a saved run with the current graders, checks and judge, without calling any agent or
user model: each episode's final state is rebuilt by replaying its recorded tool calls, checked
against the recorded grade, re-graded and re-judged (``envs.report.regrade``). Writes a new run
folder (config.json, episodes.jsonl, summary.json, report.html) that ``envs.compare`` reads like
any other, plus ``regrade.json``: per episode, old vs new reward, replay mismatches, and the
verdicts that changed. The judge defaults to the run's own (``--judge none``: checks only); the
calibration to the run's own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from envs.errors import InfraError, SpecError


def build_parser() -> argparse.ArgumentParser:
    from envs.run.llm_flags import add_llm_arguments

    ap = argparse.ArgumentParser(prog="python -m envs.regrade", description=__doc__.split("\n\n")[1])
    ap.add_argument("run_dir", help="a finished run folder (config.json and episodes.jsonl)")
    ap.add_argument("--judge", default=None, help="judge model for rules without a check (default: the run's; 'none': checks only)")
    ap.add_argument("--calibration", default=None, help="calibration.json to correct compliance (default: the run's)")
    ap.add_argument("--rules", default=None, metavar="FILE", help="judge against this rules.yaml instead of the domain's")
    ap.add_argument("--out", default=None, help="the new run folder (default: RUN_DIR-regrade)")
    ap.add_argument("--concurrency", type=int, default=8, help="episodes re-judged at once (default 8)")
    add_llm_arguments(ap, roles=("judge",))  # the only model a re-grade calls
    return ap


def _with_rules(domain, path: Path):
    """A copy of ``domain`` judged against the rules in ``path`` (one line on a bad file); the
    registry's own definition, shared by the process, is left as it was."""
    import copy

    from envs.spec.loading import load_list
    from envs.spec.schema import Rule

    if not path.exists():
        raise SpecError(f"--rules: {path}: no such file")
    rules = {r.id: r for r in load_list(Rule, path, "rules")}
    domain = copy.copy(domain)  # shares the states' cache (same data); not the rules
    domain.__dict__["rules"] = rules  # Domain.rules is a cached_property: this copy's value
    domain.__dict__.pop("situations", None)  # rebuilt from these rules (their every_situation ones)
    return domain


def _make_judge(domain, cfg, args):
    from envs.actors.roles import RoleConfig, judge_factory

    spec = cfg.judge
    if spec is None or spec == "none":
        return None
    llm = cfg.llm
    role = RoleConfig(
        spec=spec,
        api_base=llm.get("judge_api_base") or llm.get("api_base"),
        temperature=llm.get("judge_temperature"),
        max_tokens=llm.get("judge_max_tokens"),
        tool_mode=llm.get("judge_tool_mode") or llm.get("tool_mode"),
    )
    from envs.run.llm_flags import make_llm_context

    ctx = make_llm_context(cfg.model_dump(), {"judge": role})
    ctx.preflight()
    return judge_factory(domain, role, ctx)


def regrade_run(args: argparse.Namespace, console=print) -> dict:
    """Re-grade ``args.run_dir`` into ``args.out``; returns the ``regrade.json`` content."""
    from envs.report.html import write_report
    from envs.report.regrade import changes_report, regrade_record
    from envs.report.summary import summarize, write_summary
    from envs.run.config import configure_domain
    from envs.run.store import RunStore
    from graders.rules.registry import validate_checks

    src = Path(args.run_dir)
    if not (src / "episodes.jsonl").exists():
        raise SpecError(f"{src}: no episodes.jsonl (is this a run folder?)")
    store = RunStore(src)  # read only: records are read below, never through load() (which trims)
    cfg = store.read_config()
    records = _read_records(store.episodes_path)
    domain = configure_domain(cfg, {}, False)
    if args.rules:
        domain = _with_rules(domain, Path(args.rules))
    validate_checks(domain.rules.values())
    if args.judge is not None:
        cfg.judge = None if args.judge == "none" else args.judge
    for k in ("api_base", "judge_api_base", "judge_temperature", "judge_max_tokens", "judge_tool_mode", "cache", "client"):
        if getattr(args, k, None) is not None:
            cfg.llm[k] = getattr(args, k)
    if args.calibration is not None:
        cfg.calibration = args.calibration
    out = Path(args.out) if args.out else src.with_name(src.name + "-regrade")
    if out.resolve() == src.resolve():
        raise SpecError("--out: must differ from RUN_DIR (the saved run is never overwritten)")
    if (out / "episodes.jsonl").exists():
        raise SpecError(f"--out: {out} already holds a run; pick another folder")
    judge_make = _make_judge(domain, cfg, args)

    from envs.state.database import EpisodeState

    async def all_():
        # a pool of databases, one per episode in flight: each is reset per episode, never rebuilt
        free: asyncio.Queue = asyncio.Queue()
        for _ in range(max(1, args.concurrency)):
            free.put_nowait(None)

        async def one(rec):
            st = await free.get()
            try:
                if st is None and rec.task_id in domain.tasks:
                    st = EpisodeState(domain.base, domain.initial_bytes(domain.tasks[rec.task_id]))
                return await regrade_record(domain, rec, judge_make() if judge_make else None, st)
            finally:
                free.put_nowait(st)

        try:
            return await asyncio.gather(*(one(r) for r in records))
        finally:
            while not free.empty():
                st = free.get_nowait()
                if st is not None:
                    st.close()

    t0 = time.perf_counter()
    try:
        results = asyncio.run(all_())
    except InfraError as e:
        raise SpecError(f"judge: {e} (nothing was written)") from None
    wall = time.perf_counter() - t0

    cfg.run_id = out.name
    new_store = RunStore(out)
    new_store.write_config(cfg)
    for new, _ in results:
        new_store.append(new)
    summary = summarize([n for n, _ in results], cfg, wall_s=wall, domain=domain)
    if cfg.calibration:
        from graders.calibrate.calibration import apply_calibration

        apply_calibration(summary, Path(cfg.calibration))
    write_summary(out, summary)
    write_report(out, summary, domain)
    report = changes_report([c for _, c in results], str(src), cfg.judge, args.rules)
    (out / "regrade.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    return report | {"out": str(out), "wall_s": wall}


def _read_records(path: Path):
    """The newest record per (task, repeat), in file order; a bad line is one line of error."""
    from pydantic import ValidationError

    from envs.records import EpisodeRecord

    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = EpisodeRecord.model_validate_json(line)
        except (ValidationError, ValueError) as e:
            raise SpecError(f"{path}: line {n}: not an episode record ({str(e).splitlines()[0]})") from None
        out[(rec.task_id, rec.repeat)] = rec
    return list(out.values())


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # output piped into head: the run folder is already written
        return 0


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        rep = regrade_run(args)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(
        f"re-graded {rep['regraded']} of {rep['episodes']} episodes ({rep['kept_errors']} errored kept as they were, "
        f"{rep['failed']} failed) in {rep['wall_s']:.1f} s: {rep['changed']} changed, {rep['reward_changed']} rewards, "
        f"{rep['verdicts_changed']} verdicts; replay mismatches {rep['replay_mismatches']}, recorded grade not "
        f"reproduced on {rep['recorded_grade_not_reproduced']}"
    )
    for c in rep["per_episode"]:
        if c["changed"]:
            bits = []
            if c["old_reward"] != c["new_reward"]:
                bits.append(f"reward {c['old_reward']} -> {c['new_reward']}")
            bits += [f"{v['rule']} turn {v['turn']}: {v['old']} -> {v['new']}" for v in c["verdict_changes"][:3]]
            bits += c["replay_mismatches"][:2] + c["grade_differences"][:2] + ([c["problem"]] if c["problem"] else [])
            print(f"  {c['episode_id']}: " + "; ".join(bits))
    print(f"wrote {rep['out']} (regrade.json, episodes.jsonl, summary.json, report.html)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
