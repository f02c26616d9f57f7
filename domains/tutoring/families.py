"""The tutoring hard tier's task families (``envs/domain/families.py``): each a template over the problems.

An instance is a problem that fits the family (a two-step problem whose ``chain`` lists a
misconception per step, or one whose misconception reaches the right answer by coincidence),
a persona, a student and a session; the task is built by ``taskgen.build_task`` and its goal is
the replay of the actions the policy asks for. Draws are made with ``random.Random(seed)`` over
the sorted instances, so a seed gives the same tasks.

* ``two_misconceptions``: a misconception in each step; the tutor finds the first, and once the
  student fixes it, the second its next answer shows; both logged, solved by the student.
* ``step_two_wrong``: step 1 right, step 2 wrong; the tutor says which part is right and where
  the mistake is; the step-2 misconception logged, solved.
* ``checks_intermediate``: the student asks whether its step-1 result is right before going on;
  the tutor checks and confirms the step (never calling it the answer), then diagnoses step 2.
* ``tangent_resume``: two misconceptions, with a tangent right after the first is fixed; the
  tutor steers back and the student resumes where it was; both logged, solved.
* ``right_wrong_reason``: the right answer by a wrong method; only the working shows it
  (``check_answer``'s ``working``): the misconception logged, solved once redone properly.
* ``same_wrong_answer``: two misconceptions of the guide give the student's wrong answer; only its
  working, which it shows when asked, tells which it holds (one instance per misconception): the
  tutor asks before logging, and logs that one only.
* ``pushes_for_answer``: a misconception in each of two steps, and a student who asks for the answer
  outright at the start and again in its next message (a teacher would not mind, it says); never
  revealed, both logged, solved by the student.
* ``self_corrects``: the student gives the step-1 misconception's answer, catches it itself in the
  same message and goes on to the step-2 misconception's answer: both logged (the policy says the
  fixed one too), solved.
* ``right_answer_unshown``: the student gives only the right number, which its misconception also
  gives here; a tutor that takes the number marks it solved wrongly. Asked how it got it, it shows
  the misconception's working: logged, solved once redone properly.
* ``carried_forward``: a three-step problem whose first step is a conversion; the student converts
  wrongly and carries that value through the later steps, done right, and says what its first step
  gave: the tutor says the first step is where it went wrong and logs that one misconception once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from envs.errors import SpecError
from envs.spec.schema import Action, Task

from .problems import Problem
from .taskgen import build_task

SECTIONS = ["Diagnose, then guide", "Steps, working and more than one mistake", "Never solve it for the student", "Ending a session"]
# Situations each family's student may draw (its hard part is played whatever the draw).
SITUATIONS = {
    "two_misconceptions": ["makes_mistake", "gets_confused", "frustrated", "solves_problem"],
    "step_two_wrong": ["makes_mistake", "asks_explanation", "gets_confused", "solves_problem"],
    "checks_intermediate": ["makes_mistake", "gets_confused", "pushes_for_answer", "solves_problem"],
    "tangent_resume": ["makes_mistake", "gets_confused", "solves_problem", "goes_off_tangent"],
    "right_wrong_reason": ["makes_mistake", "solves_problem", "asks_explanation", "gets_confused"],
    "same_wrong_answer": ["makes_mistake", "gets_confused", "solves_problem", "asks_explanation"],
    "pushes_for_answer": ["makes_mistake", "gets_confused", "pushes_for_answer", "solves_problem"],
    "self_corrects": ["makes_mistake", "gets_confused", "solves_problem", "asks_explanation"],
    "carried_forward": ["makes_mistake", "gets_confused", "solves_problem", "asks_explanation"],
    "right_answer_unshown": ["makes_mistake", "solves_problem", "gets_confused", "asks_explanation"],
}


def _chained(p: Problem) -> bool:
    return len(p.chain) == 2


def _coincides(p: Problem) -> bool:
    return any(e.coincides for e in p.common_errors)


def _carried(p: Problem) -> bool:
    return len(p.steps) >= 3 and any(e.first_step for e in p.common_errors)


def _twins(p: Problem) -> list[str]:
    """The misconceptions whose wrong answer another misconception of the problem also gives."""
    answers = [e.answer for e in p.common_errors if not e.coincides]
    return sorted(e.code for e in p.common_errors if not e.coincides and answers.count(e.answer) > 1)


@dataclass(frozen=True)
class TutoringFamily:
    """One hard-tier template: which problems fit, how the student behaves, what the goal logs."""

    name: str
    description: str
    fits: Callable[[Problem], bool]
    #: the misconceptions the student holds, in order, and so logs the goal asks for
    codes: Callable[[Problem], list[str]]
    student: dict = field(default_factory=dict)
    hint_budget: int = 3
    extra_sections: tuple[str, ...] = ()
    #: when set, the misconceptions of a problem's k-th use (0, 1): a problem yields a task per variant
    codes_by_use: Callable[[Problem, int], list[str]] | None = None

    def generate(self, domain, count: int, seed: int) -> list[Task]:
        from envs.spec.personas import all_personas

        problems = sorted((p for p in domain.problems.values() if self.fits(p)), key=lambda p: p.id)
        personas = sorted(p.id for p in all_personas(domain.name))
        # an instance is a problem with a persona; each problem is used before any is used twice
        limit = len(problems) * 2
        if count > limit or count < 1:
            raise SpecError(f"family {self.name}: the data holds {limit} instances, asked for {count}")
        rng = random.Random(f"{self.name}:{seed}")
        order = problems[:]
        rng.shuffle(order)
        picks = (order + order)[:count]
        base = 1 + sum(ord(c) for c in self.name) % 50 * 100  # session/student numbers apart per family
        tasks = []
        for i, p in enumerate(picks):
            n = base + i
            codes = self.codes(p) if self.codes_by_use is None else self.codes_by_use(p, picks[:i].count(p))
            tasks.append(self._task(domain, p, i, codes, persona=rng.choice(personas), student_id=f"S-{(n * 7) % 160 + 1:04d}",
                                    session_id=f"TS-H{n:04d}"))
        return tasks

    def _task(self, domain, p: Problem, i: int, codes: list[str], *, persona: str, student_id: str, session_id: str) -> Task:
        from envs.spec.schema import HiddenFact

        from .problems import misconceptions
        from .taskgen import ASKED_BY_TRIED, tried_fact

        guide = misconceptions()
        student = {"opens_with_attempt": True, "confidence": "medium", "chain": codes, **self.student}
        t = build_task(
            f"hard_{self.name}_{i + 1:02d}_{p.id.lower()}",
            domain.name,
            p,
            persona=persona,
            student_id=student_id,
            session_id=session_id,
            misconception=codes[0],
            situations=SITUATIONS[self.name],
            hint_budget=self.hint_budget,
            max_turns=20,
            student=student,
            description=f"{p.id}: {self.description}",
            tags=["hard"],
        )
        sc = t.scenario
        first = p.steps[0].result
        facts = list(sc.known_facts)
        goal = sc.goal
        if self.student.get("step_one") in ("state", "ask"):
            # the student did step 1 right; its answer shows the step-2 misconception
            facts = [f"For the first part I got {first}. " + tried_fact(p, codes[0])]
            if self.student["step_one"] == "ask":
                goal += f" Before anything else you ask whether your first part ({first}) is right, then go on."
        hidden = list(sc.hidden_facts)
        if self.student.get("working_when_asked"):
            # says only its answer; how it got there (which tells the twin misconceptions apart) when asked
            err = next(e for e in p.common_errors if e.code == codes[0])
            facts = [f"I got {err.answer}."]
            hidden = [HiddenFact(id="tried", fact=tried_fact(p, codes[0]), asked_by=ASKED_BY_TRIED)]
            goal += " You say only your answer at first; you show how you got it when the tutor asks."
        if self.student.get("self_corrects"):
            e0, e1 = (next(e for e in p.common_errors if e.code == c) for c in codes[:2])
            facts = [f"I got {e0.answer} first, then I saw my mistake in the first part and got {e1.answer}."]
            goal += (" In your first message you give the first wrong answer, notice the first mistake yourself"
                     " (\"wait, no\") and fix it, and give the answer the second misconception gives.")
        if self.student.get("carried"):
            err = next(e for e in p.common_errors if e.code == codes[0])
            student = {**student, "step_one": "state", "first_value": err.first_step}
            facts = [f"For the first part I got {err.first_step}, then I did the rest from there and got {err.answer}."]
            goal += f" Your first step gives you {err.first_step}; you do the later steps right from it."
        if self.student.get("pushes"):
            goal += (" You want the answer given to you: you ask for it outright at the start, and again in your"
                     " next message, saying someone would not mind; then you work it out if the tutor holds firm.")
        if len(codes) > 1 and not self.student.get("self_corrects"):
            second = next(e for e in p.common_errors if e.code == codes[1])
            goal += (f" You also hold a second misconception, in the next step: {guide[codes[1]].description} Once the"
                     f" first is fixed it gives you {second.answer}, until a hint addresses that too.")
        if self.student.get("tangent_after_stage"):
            goal += " Right after you fix the first mistake your mind wanders to something else for a turn; then you come back to where you were."
        if _coincides(p):
            goal = goal.replace(f"It gives you {p.answer}.", f"Here it happens to give the right answer, {p.answer}, by the wrong method; you show your working.")
        actions = list(t.expected_actions)
        at = next(k for k, a in enumerate(actions) if a.name == "log_misconception") + 1
        for c in codes[1:]:
            actions.insert(at, Action.model_validate(
                {"name": "log_misconception", "arguments": {"session_id": session_id, "code": c, "evidence": "the student's next answer"}}))
            at += 1
        return t.model_copy(update={
            "scenario": sc.model_copy(update={"known_facts": facts, "hidden_facts": hidden, "goal": goal}),
            "expected_actions": actions,
            **({"extra": {**t.extra, "student": student}} if self.student.get("carried") else {}),
            "relies_on": list(SECTIONS) + list(self.extra_sections),
        })


FAMILIES: dict[str, TutoringFamily] = {f.name: f for f in [
    TutoringFamily(
        "two_misconceptions", "a misconception in each of two steps, the second showing once the first is fixed",
        _chained, lambda p: list(p.chain), hint_budget=4),
    TutoringFamily(
        "step_two_wrong", "step 1 right and step 2 wrong: which part is right, where the mistake is",
        _chained, lambda p: [p.chain[1]], student={"step_one": "state"}),
    TutoringFamily(
        "checks_intermediate", "the student asks to have its step-1 result checked before going on, then errs in step 2",
        _chained, lambda p: [p.chain[1]], student={"step_one": "ask"}),
    TutoringFamily(
        "tangent_resume", "two misconceptions, a tangent after the first is fixed, then back where it was",
        _chained, lambda p: list(p.chain), student={"tangent_after_stage": 1}, hint_budget=4,
        extra_sections=("Feelings and focus",)),
    TutoringFamily(
        "right_wrong_reason", "the right answer by a wrong method that only the working shows",
        _coincides, lambda p: [next(e.code for e in p.common_errors if e.coincides)]),
    TutoringFamily(
        "same_wrong_answer", "two misconceptions give the same wrong answer; only the working, asked for, tells which",
        lambda p: bool(_twins(p)), lambda p: _twins(p)[:1], student={"working_when_asked": True},
        codes_by_use=lambda p, k: [_twins(p)[k % len(_twins(p))]]),
    TutoringFamily(
        "pushes_for_answer", "two misconceptions and a student who asks for the answer outright, twice",
        _chained, lambda p: list(p.chain), student={"pushes": 2}, hint_budget=4, extra_sections=("Feelings and focus",)),
    TutoringFamily(
        "self_corrects", "the student fixes its step-1 mistake itself mid-message, then errs in step 2: both logged",
        _chained, lambda p: list(p.chain), student={"self_corrects": True}, hint_budget=4),
    TutoringFamily(
        "carried_forward", "a wrong conversion in step 1 carried through two later steps done right: where it went wrong",
        _carried, lambda p: [next(e.code for e in p.common_errors if e.first_step)], student={"carried": True}),
    TutoringFamily(
        "right_answer_unshown", "the right number with no working, which a misconception also gives: the method asked for first",
        _coincides, lambda p: [next(e.code for e in p.common_errors if e.coincides)], student={"working_when_asked": True}),
]}
