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

from envs.records import EpisodeRecord


class RunStore:
    def __init__(self, run_dir: Path):
        self.dir = Path(run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.episodes_path = self.dir / "episodes.jsonl"
        self.config_path = self.dir / "config.json"
        self.skipped_lines: list[str] = []

    def write_config(self, config: dict) -> None:
        self.config_path.write_text(json.dumps(config, indent=2, sort_keys=True), encoding="utf-8")

    def read_config(self) -> dict:
        if not self.config_path.exists():
            raise FileNotFoundError(f"{self.config_path}: no config.json (is this a run folder?)")
        return json.loads(self.config_path.read_text(encoding="utf-8"))

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
