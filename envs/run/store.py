"""The run's episode store: ``episodes.jsonl``, appended the moment an episode ends.

One JSON record per line, flushed and fsynced on write, so a run killed at
any point loses at most the episodes still being played. On resume, a torn
last line (a kill mid-write) is cut off, episodes recorded ``ok`` are kept,
and errored ones are played again (the newest record of an episode wins).

Every record appended can be read back: ``encode_record`` checks the line it writes
against the reader and, when the reader would refuse it (strings that are not UTF-8,
structures nested past the reader's limit), writes a cleaned copy instead; a record that
still cannot be kept is written as an ``engine:unrecordable`` error, counted, never
dropped. ``iter_latest`` streams the newest record per episode without holding them all.

The folder is one run: ``RunLock`` holds an exclusive lock on ``run.lock`` for the whole
run (a second process is told who holds it); ``write_config`` replaces ``config.json``
atomically.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Iterator

from pydantic import ValidationError

from envs.errors import SpecError
from envs.records import EpisodeRecord
from envs.run.config import RunConfig

# The fields a record's JSON starts with (``model_dump_json`` keeps the declaration order):
# read with a regex so that finding the newest record per episode parses nothing else.
_HEAD = re.compile(rb'^\{"episode_id":"(?:[^"\\]|\\.)*","task_id":"((?:[^"\\]|\\.)*)","domain":"(?:[^"\\]|\\.)*","repeat":(-?\d+),')


def encode_record(rec: EpisodeRecord) -> str:
    """One JSON line for ``rec`` that ``EpisodeRecord.model_validate_json`` reads back."""
    try:
        line = rec.model_dump_json()
        EpisodeRecord.model_validate_json(line)
        return line + "\n"
    except (ValueError, ValidationError) as e:  # PydanticSerializationError is a ValueError
        first = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    from envs.bounded import clean_text, dumps_iterative

    try:  # strings cleaned of lone surrogates; every tool call's arguments re-bounded on validation
        data = json.loads(dumps_iterative(rec.model_dump(mode="python", round_trip=True)))
        cleaned = EpisodeRecord.model_validate(data)
        line = cleaned.model_dump_json()
        EpisodeRecord.model_validate_json(line)
        return line + "\n"
    except (ValueError, ValidationError, RecursionError):
        pass
    stub = EpisodeRecord(
        episode_id=rec.episode_id, task_id=rec.task_id, domain=rec.domain, repeat=rec.repeat, seed=rec.seed,
        status="error", error_role="engine", error_kind="unrecordable", termination=rec.termination,
        error=clean_text(f"the record could not be written in a readable form ({first})"),
        agent_errors=rec.agent_errors, actors=rec.actors, started_at=rec.started_at,
    )
    return stub.model_dump_json() + "\n"


class RunLock:
    """An exclusive lock on a run folder (``run.lock``), held until ``release`` or process exit.

    The kernel drops the lock when its holder dies, so a lock left by a killed run is simply
    taken; the previous holder's line (pid, host, start time) is kept in ``previous``."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / "run.lock"
        self.fd: int | None = None
        self.previous: str = ""

    def acquire(self) -> "RunLock":
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 400, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise SpecError(f"{self.path.parent}: in use by {holder}; wait for it to finish or stop it") from None
        self.previous = os.pread(fd, 400, 0).decode("utf-8", "replace").strip()
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%dT%H:%M:%S')}\n".encode(), 0)
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is not None:
            os.ftruncate(self.fd, 0)  # a clean finish leaves no holder's line: only a killed run's stays
            os.close(self.fd)  # closing the descriptor drops the lock
            self.fd = None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


class RunStore:
    def __init__(self, run_dir: Path):
        self.dir = Path(run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.episodes_path = self.dir / "episodes.jsonl"
        self.config_path = self.dir / "config.json"
        self.skipped_lines: list[str] = []

    def write_config(self, config: RunConfig | dict) -> None:
        """Write ``config.json`` atomically (a temporary file renamed over it); a dict is validated first."""
        cfg = config if isinstance(config, RunConfig) else RunConfig.model_validate(config)
        tmp = self.config_path.with_name(f".config.json.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(cfg.model_dump(mode="json"), indent=2, sort_keys=True))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.config_path)

    def read_config(self) -> RunConfig:
        """The run's ``config.json``, old untyped ones included; SpecError when missing or malformed."""
        if not self.config_path.exists():
            raise SpecError(f"{self.config_path}: no config.json (is this a run folder?)")
        try:
            return RunConfig.model_validate_json(self.config_path.read_bytes())
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(x) for x in err["loc"]) or "config"
            raise SpecError(f"{self.config_path}: {where}: {err['msg']}") from None

    def append(self, rec: EpisodeRecord) -> None:
        """Append ``rec`` as one line that reads back (see ``encode_record``), flushed and fsynced."""
        line = encode_record(rec)
        with open(self.episodes_path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def repair_tail(self) -> None:
        """Cut a torn last line (a kill mid-write). Only the holder of the run's lock may call it."""
        if not self.episodes_path.exists():
            return
        with open(self.episodes_path, "r+b") as f:
            size = f.seek(0, os.SEEK_END)
            if size == 0:
                return
            f.seek(size - 1)
            if f.read(1) == b"\n":
                return
            pos = size
            while pos > 0:  # back to the last newline, in blocks
                step = min(1 << 16, pos)
                f.seek(pos - step)
                chunk = f.read(step)
                i = chunk.rfind(b"\n")
                if i >= 0:
                    f.truncate(pos - step + i + 1)
                    return
                pos -= step
            f.truncate(0)

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        """(offset, line) for every complete line; a torn tail line is not yielded."""
        if not self.episodes_path.exists():
            return
        with open(self.episodes_path, "rb") as f:
            pos = 0
            for line in f:
                if not line.endswith(b"\n"):
                    return
                yield pos, line
                pos += len(line)

    def _parse(self, line: bytes, view=EpisodeRecord):
        try:
            return view.model_validate_json(line)
        except (ValidationError, ValueError) as e:
            reason = str(e).splitlines()[1].strip() if "\n" in str(e) else e.__class__.__name__
            self.skipped_lines.append(f"{self.episodes_path}: line {line[:60]!r}: {reason[:160]}")
            return None

    def index(self) -> dict[tuple[str, int], int]:
        """The offset of the newest record per (task, repeat), reading only each line's head."""
        out: dict[tuple[str, int], int] = {}
        for pos, line in self._lines():
            m = _HEAD.match(line)
            if m:
                key = (json.loads(b'"' + m.group(1) + b'"'), int(m.group(2)))
            else:  # written by another version: parse it all
                rec = self._parse(line)
                if rec is None:
                    continue
                key = (rec.task_id, rec.repeat)
            out[key] = pos
        return out

    def iter_latest(self, keep=None, view=EpisodeRecord) -> Iterator[EpisodeRecord]:
        """The newest record per (task, repeat), one at a time, in file order.

        ``keep(task_id, repeat)`` selects which episodes to read; unreadable lines are
        skipped and listed in ``skipped_lines``. Memory holds the index, not the records.
        ``view`` is the model each line is read as: a narrower one (``EpisodeOutcome``) reads
        only its fields, skipping the transcript's parse."""
        idx = self.index()
        wanted = sorted(pos for key, pos in idx.items() if keep is None or keep(*key))
        if not wanted:
            return
        with open(self.episodes_path, "rb") as f:
            for pos in wanted:
                f.seek(pos)
                rec = self._parse(f.readline(), view)
                if rec is not None:
                    yield rec

    def load(self) -> dict[tuple[str, int], EpisodeRecord]:
        """The newest record per (task, repeat), all in memory; a torn tail line is removed
        from the file (call it only holding the run's lock, or on a finished run)."""
        self.repair_tail()
        return {(r.task_id, r.repeat): r for r in self.iter_latest()}

    def statuses(self) -> dict[tuple[str, int], str]:
        """The status of the newest record per (task, repeat), without keeping the records."""
        return {(r.task_id, r.repeat): r.status for r in self.iter_latest()}
