"""Task families: a hard task written once as a template and instantiated over the seeded data.

A family reads the domain's template database (or its problem set) to find instances that fit
(customers with two similar orders, a refund at the window's boundary, a two-step problem), and
builds one ``Task`` per instance. Its goal is what every task's goal is: the replay of the
``expected_actions`` it writes, so a generated task is graded exactly like a hand-written one and
passes the same lint. ``python -m envs.tasks --domain D --family NAME --count N`` writes them.

A domain offers its families through ``Domain.families`` (a function returning them by name,
called only when asked, so a run that plays tasks never imports a generator).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from envs.domain.definition import Domain
    from envs.spec.schema import Task


@runtime_checkable
class TaskFamily(Protocol):
    """One template of tasks, instantiated over a domain's data."""

    #: the family's id (``--family NAME``; generated task ids hold it, e.g. ``hard_NAME_01``)
    name: str
    #: one line: what the conversation holds and what makes it hard
    description: str

    def generate(self, domain: "Domain", count: int, seed: int) -> list["Task"]:
        """``count`` tasks of this family, the same for the same ``seed``.

        Instances are drawn from ``domain``'s data (never invented rows the tools cannot show,
        unless the task's ``initial_state`` adds them). Raises ``envs.errors.SpecError`` with one
        line ("family NAME: the data holds N instances, asked for M") when the data cannot supply
        ``count`` distinct instances.
        """
        ...
