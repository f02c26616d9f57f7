"""How templated the simulated user sounds across a run: ``cross_task_repetition``.

A person writing to support in thirty different situations does not say the same
sentence of five words or more in ten of them; a templated simulator does, and an agent
trained against it can learn its tics. The figure counts the user's sentences (every user
turn of every episode, split at sentence ends), each normalised by ``sentence_key``: case
and whitespace folded, every run of digits folded to ``0`` (so "order #W2001" and "order
#W2417" are one sentence), trailing punctuation dropped. A sentence of fewer than
``MIN_WORDS`` words is left out ("Yes, please." said everywhere is how people talk).

* ``share``: of the user sentences of ``MIN_WORDS``+ words over the run (each occurrence
  counted), the share whose key occurs in ``MIN_TASKS`` or more different tasks;
* ``max_task_share``: the largest share of the run's tasks that any one such sentence
  occurs in (with the sentence, ``max_sentence``);
* ``within_episode``: sentences of ``MIN_WORDS``+ words said a second time in the same
  episode (each repeat counted once).

Generic: it reads only the transcript's user turns, so it measures any simulated user of
any domain, scripted or LLM.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache
from typing import Iterable

from envs.actors.protocols import STOP_TOKEN
from envs.records import CrossTaskRepetition, EpisodeRecord, UserEvent

MIN_WORDS = 5
MIN_TASKS = 3
TOP = 5

_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
_DIGITS = re.compile(r"\d+")
_EDGE = re.compile(r"^[\s\"'(\[-]+|[\s.!?,;:\"')\]-]+$")


def sentences(text: str) -> list[str]:
    """The sentences of one message (split at ., ! or ? followed by space, and at line breaks)."""
    return [s.strip() for s in _SPLIT.split(text.replace(STOP_TOKEN, " ")) if s and s.strip()]


def sentence_key(sentence: str) -> str:
    """The sentence as compared across tasks: case, whitespace and digits folded, edge punctuation dropped."""
    s = _DIGITS.sub("0", " ".join(sentence.lower().split()))
    return _EDGE.sub("", s)


def long_enough(key: str) -> bool:
    return len(key.split()) >= MIN_WORDS


@lru_cache(maxsize=8192)
def _counted(text: str) -> tuple[tuple[str, str], ...]:
    """(sentence, key) of each sentence of ``text`` long enough to count. Cached by the text (a
    pure function of it; bounded): simulated users say the same message in many episodes."""
    out = []
    for s in sentences(text):
        k = sentence_key(s)
        if long_enough(k):
            out.append((s, k))
    return tuple(out)


class RepetitionAccumulator:
    """``cross_task_repetition`` built one record at a time: per distinct sentence key, its
    occurrences and the set of tasks it was said in (bounded by the distinct sentences)."""

    def __init__(self) -> None:
        self.tasks: set[str] = set()
        self.occurrences: Counter[str] = Counter()
        self.in_tasks: dict[str, set[str]] = defaultdict(set)
        self.example: dict[str, str] = {}
        self.within = 0
        self.within_examples: list[str] = []

    def add(self, r: EpisodeRecord) -> None:
        self.tasks.add(r.task_id)
        seen: set[str] = set()
        for e in r.transcript:
            if not isinstance(e, UserEvent):
                continue
            for s, k in _counted(e.content):
                self.occurrences[k] += 1
                self.in_tasks[k].add(r.task_id)
                self.example.setdefault(k, s)
                if k in seen:
                    self.within += 1
                    if len(self.within_examples) < TOP:
                        self.within_examples.append(f"{r.episode_id}: {s}")
                seen.add(k)

    def finish(self) -> CrossTaskRepetition:
        total = sum(self.occurrences.values())
        wide = {k for k, t in self.in_tasks.items() if len(t) >= MIN_TASKS}
        n_tasks = len(self.tasks)
        top = sorted(self.in_tasks, key=lambda k: (-len(self.in_tasks[k]), -self.occurrences[k], k))[:TOP]
        return CrossTaskRepetition(
            sentences=total,
            distinct=len(self.occurrences),
            repeated=sum(self.occurrences[k] for k in wide),
            repeated_distinct=len(wide),
            share=(sum(self.occurrences[k] for k in wide) / total) if total else None,
            tasks=n_tasks,
            max_tasks=len(self.in_tasks[top[0]]) if top else 0,
            max_task_share=(len(self.in_tasks[top[0]]) / n_tasks) if top and n_tasks else None,
            max_sentence=self.example[top[0]] if top else None,
            top=[f"{len(self.in_tasks[k])} tasks: {self.example[k]}" for k in top if len(self.in_tasks[k]) >= MIN_TASKS],
            within_episode=self.within,
            within_episode_examples=self.within_examples,
        )


def cross_task_repetition(recs: Iterable[EpisodeRecord]) -> CrossTaskRepetition:
    """The figure over a run's records (see the module docstring)."""
    acc = RepetitionAccumulator()
    for r in recs:
        acc.add(r)
    return acc.finish()


def describe_repetition(rep: CrossTaskRepetition | None) -> str:
    """cross_task_repetition in one line (shared by the terminal and the HTML report)."""
    if rep is None or rep.share is None:
        return ""
    line = (
        f"cross_task_repetition {rep.share:.3f} ({rep.repeated}/{rep.sentences} user sentences of 5+ words "
        f"said in 3+ tasks); widest sentence in {rep.max_tasks}/{rep.tasks} tasks"
    )
    if rep.max_sentence and rep.max_tasks >= 3:
        line += f' ("{rep.max_sentence[:80]}")'
    return line + f"; repeated within an episode: {rep.within_episode}"
