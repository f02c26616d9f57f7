"""The tutoring ``Domain``: problems from the hand-written set or a GSM8K-format file.

* Option ``problems`` (``--domain-option problems=PATH``, alias ``--problems``;
  ``domain.with_options(problems=PATH)``) loads a GSM8K-format file instead of
  the hand-written set; the problems table then holds those problems and one
  task is generated per problem for the first ``problem_tasks`` of them
  (option ``problem_tasks``, default 20).
* ``expected_actions`` may contain the student's own tool calls (the correct
  ``submit_answer`` that a solved goal presupposes): the goal replay runs
  each action on the side whose tool it names.
* Each task's ``extra`` is completed at load with the student's mind (the
  problem's steps, the wrong answer their misconception gives, the keywords
  a hint must contain to address it) for the scripted student; tutors never
  see task files.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from envs.domain import Domain
from envs.domain.tools import ToolSet
from envs.errors import SpecError
from envs.spec.schema import Task

DEFAULT_PROBLEM_TASKS = 20


class TutoringOptions(BaseModel):
    """The tutoring domain's options."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    problems: Path | None = None
    """A GSM8K-format .jsonl problem set to use instead of the hand-written problems."""
    problem_tasks: int = Field(default=DEFAULT_PROBLEM_TASKS, ge=1)
    """With ``problems``: how many of them (the first ones) get a task."""


@dataclass(frozen=True, eq=False)
class TutoringDomain(Domain):
    options_model: type[BaseModel] = TutoringOptions

    @cached_property
    def problems(self) -> dict[str, Any]:
        from .problems import load_gsm8k, load_handwritten

        src = self.options.problems
        items = load_gsm8k(src) if src else load_handwritten()
        return {p.id: p for p in items}

    # -- state --------------------------------------------------------------------------

    def build_template(self) -> bytes:
        from envs.state.database import build_template

        from .seed import seed

        problems = list(self.problems.values())
        return build_template(self.base, lambda session, s: seed(session, s, problems), self.seed)

    # -- tasks ----------------------------------------------------------------------------

    def validate_task(self, task: Task, path: Path | str) -> None:
        super().validate_task(task, path)
        pid = task.extra.get("problem_id")
        if pid not in self.problems:
            raise SpecError(f"{path}: extra.problem_id: unknown problem {pid!r}")
        code = task.extra.get("misconception")
        if code is not None:
            from .problems import misconceptions

            if code not in misconceptions():
                raise SpecError(f"{path}: extra.misconception: unknown misconception {code!r}")
            if code not in {e.code for e in self.problems[pid].common_errors}:
                raise SpecError(f"{path}: extra.misconception: {pid} has no common error {code!r}")
        chain = (task.extra.get("student") or {}).get("chain")
        if chain is not None:
            have = {e.code for e in self.problems[pid].common_errors}
            if not isinstance(chain, list) or not chain or chain[0] != code or any(c not in have for c in chain):
                raise SpecError(f"{path}: extra.student.chain: must list {pid}'s common errors, starting with extra.misconception {code!r}")

    def load_tasks(self) -> dict[str, Task]:
        if self.options.problems:
            from .taskgen import tasks_for_problems

            n = self.options.problem_tasks
            tasks = tasks_for_problems(list(self.problems.values())[:n], self.name)
            for t in tasks:
                self.validate_task(t, f"{self.options.problems}: {t.id}")
            out = {t.id: t for t in tasks}
        else:
            out = super().load_tasks()
        return {tid: self._with_mind(t) for tid, t in out.items()}

    def _with_mind(self, task: Task) -> Task:
        """Add the scripted student's mind to the task's extra (the task file stays as written)."""
        from .problems import misconceptions

        p = self.problems[task.extra["problem_id"]]
        code = task.extra.get("misconception")

        def stage(c: str | None) -> dict:
            e = next((x for x in p.common_errors if x.code == c), None)
            return {
                "misconception": c,
                "wrong_answer": e.answer if e else None,
                "wrong_expr": e.expr if e else None,
                "keywords": list(misconceptions()[c].keywords) if c else [],
            }

        chain = (task.extra.get("student") or {}).get("chain") or ([code] if code else [])
        mind = {
            "statement": p.statement,
            "about": list(p.about),
            "asides": list(p.asides),
            "answer": p.answer,
            "steps": [{"text": s.text, "expr": s.expr, "result": s.result} for s in p.steps],
            **stage(code),
            "avoid": [e.answer for e in p.common_errors if not e.coincides],
            # the misconceptions it holds, one after the other (a two-step problem may have one per step)
            "stages": [stage(c) for c in chain],
        }
        extra = dict(task.extra)
        extra["student_mind"] = mind
        return task.model_copy(update={"extra": extra})


def seed_handwritten(session, seed_value: int) -> None:
    """The seed function with the hand-written problem set (the default)."""
    from .problems import load_handwritten
    from .seed import seed

    seed(session, seed_value, load_handwritten())


def make_tutoring_domain() -> TutoringDomain:
    from .agents import SocraticTutor, TellerTutor
    from .models import Base
    from .student import ScriptedStudent
    from .tools import AGENT_TOOLS, USER_TOOLS

    from . import checks  # noqa: F401  (registers the tutoring rule checks)

    return TutoringDomain(
        name="tutoring",
        gym_id="Tutoring-v0",
        base=Base,
        seed_fn=seed_handwritten,  # build_template seeds the configured problems instead
        agent_tools=ToolSet.of("agent", AGENT_TOOLS),
        user_tools=ToolSet.of("user", USER_TOOLS),
        package_dir=Path(__file__).resolve().parent,
        scripted_agents={"socratic": SocraticTutor, "teller": TellerTutor},
        default_agent="socratic",
        scripted_users={"default": ScriptedStudent},
        seed=11,
        description="A Socratic math tutor helps a grade-school student through a multi-step word problem.",
        families=_families,
        gold_sources={"mrbench": _load_mrbench},
    )


def _load_mrbench(path: Path):
    from .mrbench import load_mrbench

    return load_mrbench(path)


def _families():
    from .families import FAMILIES

    return FAMILIES
