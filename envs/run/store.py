"""The run's episode store: ``episodes.jsonl``, appended the moment an episode ends.

One JSON record per line, flushed and fsynced on write, so a run killed at
any point loses at most the episodes still being played. On resume, a torn
last line (a kill mid-write) is cut off, episodes recorded ``ok`` are kept,
and errored ones are played again (the newest record of an episode wins).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from envs.errors import SpecError
from envs.records import EpisodeRecord
from envs.run.config import RunConfig


class RunStore:
    def __init__(self, run_dir: Path):
        self.dir = Path(run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.episodes_path = self.dir / "episodes.jsonl"
        self.config_path = self.dir / "config.json"
        self.skipped_lines: list[str] = []

    def write_config(self, config: RunConfig | dict) -> None:
        """Write ``config.json`` (a dict is validated as a ``RunConfig`` first)."""
        cfg = config if isinstance(config, RunConfig) else RunConfig.model_validate(config)
        self.config_path.write_text(json.dumps(cfg.model_dump(mode="json"), indent=2, sort_keys=True), encoding="utf-8")

    def read_config(self) -> RunConfig:
        """The run's ``config.json``, old untyped ones included; SpecError when missing or malformed."""
        if not self.config_path.exists():
            raise SpecError(f"{self.config_path}: no config.json (is this a run folder?)")
        try:
            return RunConfig.model_validate_json(self.config_path.read_text(encoding="utf-8"))
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(x) for x in err["loc"]) or "config"
            raise SpecError(f"{self.config_path}: {where}: {err['msg']}") from None

    def append(self, rec: EpisodeRecord) -> None:
        line = rec.model_dump_json() + "\n"
        with open(self.episodes_path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def load(self) -> dict[tuple[str, int], EpisodeRecord]:
        """The newest record per (task, repeat); a torn tail line is removed from the file."""
        out: dict[tuple[str, int], EpisodeRecord] = {}
        if not self.episodes_path.exists():
            return out
        raw = self.episodes_path.read_bytes()
        good_end = 0
        pos = 0
        for line in raw.splitlines(keepends=True):
            pos += len(line)
            if not line.endswith(b"\n"):
                break  # torn write: dropped below
            try:
                rec = EpisodeRecord.model_validate_json(line)
            except (ValidationError, ValueError) as e:
                self.skipped_lines.append(f"{self.episodes_path}: line {line[:60]!r}: {e.__class__.__name__}")
                good_end = pos
                continue
            out[(rec.task_id, rec.repeat)] = rec
            good_end = pos
        if good_end < len(raw):
            with open(self.episodes_path, "r+b") as f:
                f.truncate(good_end)
        return out
