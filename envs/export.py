"""``python -m envs.export RUN_DIR --format openai-chat|grpo --out FILE.jsonl``: a run's episodes as training data.

``openai-chat`` (SFT): one line per episode (the newest record of each task and repeat), in the OpenAI
chat format with the reward parts and the episode id. ``grpo``: one prompt-only line per agent turn,
``prompt`` the conversation up to that turn, with the episode's reward parts and the turn's (no
completion; see ``envs.rl.export``). ``--weights outcome=1,violations=-0.1``
sets the reward parts' weights. The run folder is only read. Bad input: one line, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    import envs  # noqa: F401  (registers the domains)
    from envs.domain import get_domain
    from envs.errors import SpecError
    from envs.records import EpisodeRecord
    from envs.rl.export import grpo_rows, write_jsonl
    from envs.rl.rewards import RewardWeights
    from envs.rl.rollout import trajectory
    from envs.run.config import RunConfig

    ap = argparse.ArgumentParser(prog="python -m envs.export", description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", help="a run folder written by python -m envs.run")
    ap.add_argument("--format", choices=("openai-chat", "grpo"), default="openai-chat",
                    help="openai-chat: one conversation per episode (SFT); grpo: one prompt-only row per agent turn (default: openai-chat)")
    ap.add_argument("--out", required=True, help="the JSONL file to write")
    ap.add_argument("--weights", default=None, help="reward part weights, e.g. outcome=1,violations=-0.1 (default: outcome=1)")
    args = ap.parse_args(argv)
    run = Path(args.run_dir)
    try:
        if not (run / "config.json").is_file():
            raise SpecError(f"{run}: not a run folder (no config.json)")
        weights = RewardWeights.parse(args.weights)
        try:
            cfg = RunConfig.model_validate_json((run / "config.json").read_text(encoding="utf-8"))
        except ValueError as e:
            raise SpecError(f"{run / 'config.json'}: {str(e).splitlines()[0]}") from None
        domain = get_domain(cfg.domain, cfg.domain_options or None)
        newest: dict[tuple[str, int], EpisodeRecord] = {}
        path = run / "episodes.jsonl"
        for n, raw in enumerate(path.read_bytes().splitlines(keepends=True) if path.exists() else [], 1):
            if not raw.endswith(b"\n"):
                break  # a torn last line: an episode still being written
            try:
                rec = EpisodeRecord.model_validate_json(raw)
            except ValueError:
                print(f"{path}: line {n}: not an episode record; skipped", file=sys.stderr)
                continue
            newest[(rec.task_id, rec.repeat)] = rec
        trajs = (
            trajectory(rec, domain, weights, group=rec.task_id, rollout=rec.repeat, agent_seed=None)
            for _, rec in sorted(newest.items())
        )
        n = write_jsonl(trajs, Path(args.out), grpo_rows if args.format == "grpo" else None)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps({"episodes": len(newest), "rows": n, "format": args.format, "out": args.out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
