"""The on-disk response cache: a rerun with the same cache makes no request and replays the answers.

An entry is keyed on everything that changes the answer: model, api base,
messages, tools, params, role, episode seed, repeat and attempt (``key``).
Entries are JSON files, ``ROOT/ab/abcdef....json``, written atomically so a
killed run never leaves a torn one; an unreadable entry is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from envs.llm.endpoints import Endpoint


class ResponseCache:
    """JSON entries under ``root``, one file per key."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    @staticmethod
    def key(
        ep: Endpoint,
        messages: list[dict],
        tools: list[dict] | None,
        params: dict,
        seed: int | None,
        repeat: int | None,
        attempt: int,
    ) -> str:
        """The entry's key. A ``local:`` model is keyed on its name, not on its port of the day."""
        blob = json.dumps(
            {
                "v": 1,
                "model": ep.model if ep.local is None else f"local:{ep.local}",
                "api_base": ep.api_base if ep.local is None else None,
                "messages": messages,
                "tools": tools,
                "params": params,
                "role": ep.role,
                "seed": seed,
                "repeat": repeat,
                "attempt": attempt,
            },
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or None (absent or unreadable)."""
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError, ValueError):
            return None
        return entry if isinstance(entry, dict) else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(f".{os.getpid()}.{id(entry)}.tmp")
        tmp.write_text(json.dumps(entry), encoding="utf-8")
        os.replace(tmp, p)  # atomic: a killed run never leaves a torn entry
