"""tau-bench's retail domain (Yao et al., 2024) inside sitgym, reproducing tau-bench exactly.

The state, the 115 test tasks, the policy and the tool schemas are read from
tau-bench's data at first use (``--taubench-data PATH``, else
``$SITGYM_TAUBENCH_DATA``, else ``../shared/data/tau-bench-retail``); none of
it is copied here. Importing this module only registers the domain; the
factory builds the domain object without reading any data either.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envs.domain import Domain, register_domain
from envs.errors import SpecError
from envs.spec.schema import Task

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from .importer import DataSource

NAME = "taubench-retail"
GYM_ID = "TaubenchRetail-v0"


class TaubenchRetailDomain(Domain):
    """A ``Domain`` whose state, tasks, policy and tool schemas come from tau-bench's files."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._source: "DataSource | None" = None
        self._schemas: dict[str, dict] | None = None

    def configure(self, **options: Any) -> None:
        """Accepts ``taubench_data`` (the CLI's ``--taubench-data``); clears every cache."""
        super().configure(**options)
        for t in self.agent_tools.tools.values():
            reset = getattr(t, "reset_schema", None)
            if reset is not None:
                reset()

    def source(self) -> "DataSource":
        if self._source is None:
            from .importer import locate

            self._source = locate(self.options.get("taubench_data"))
        return self._source

    def tool_schemas(self) -> dict[str, dict]:
        """tau-bench's function schemas by tool name; every tool must have one."""
        if self._schemas is None:
            from .importer import read_tool_schemas

            src = self.source()
            schemas = read_tool_schemas(src)
            for name in self.agent_tools.names():
                if name not in schemas:
                    raise SpecError(f"{src.tools}: no schema for tool {name!r}")
            self._schemas = schemas
        return self._schemas

    def import_state(self, session: "Session", seed: int) -> None:
        """The domain's ``seed_fn``: the state is tau-bench's data, imported (the seed is unused)."""
        from .importer import import_data

        import_data(session, self.source())

    @cached_property
    def policy(self) -> str:  # type: ignore[override]
        from .importer import read_policy

        return read_policy(self.source())

    def load_tasks(self) -> dict[str, Task]:
        from envs.spec.schema import Action, Scenario

        from .importer import read_tasks
        from .models import KEY_ORDER_COLUMNS

        src = self.source()
        out: dict[str, Task] = {}
        for i, t in enumerate(read_tasks(src)):
            task = Task(
                id=f"retail-test-{i:03d}",
                domain=NAME,
                description=f"tau-bench retail test task {t.get('index', i)}",
                persona=None,
                scenario=Scenario(
                    goal=t["instruction"],
                    request=t["instruction"],
                    situations=["cooperative"],
                    max_turns=30,
                ),
                expected_actions=[Action(name=a["name"], arguments=a.get("kwargs", {})) for a in t["actions"]],
                outputs=[str(o) for o in t.get("outputs", [])],
                # tau-bench's reward hashes dicts with sorted keys: key order is not graded.
                ignore_columns=list(KEY_ORDER_COLUMNS),
                tags=["taubench"],
                extra={"user_id": t["user_id"], "taubench_index": t.get("index", i)},
            )
            self.validate_task(task, f"{src.tasks}: [{i}]")
            out[task.id] = task
        return out


def make_domain() -> TaubenchRetailDomain:
    """The registry's factory: the domain object, with tools and agents; reads no data."""
    from envs.domain.tools import ToolSet

    from .agents import GoldAgent
    from .models import Base
    from .tools import make_toolset

    holder: list[TaubenchRetailDomain] = []
    dom = TaubenchRetailDomain(
        name=NAME,
        gym_id=GYM_ID,
        base=Base,
        seed_fn=lambda session, seed: holder[0].import_state(session, seed),
        agent_tools=make_toolset(lambda: holder[0].tool_schemas()),
        user_tools=ToolSet("user"),
        package_dir=Path(__file__).resolve().parent,
        default_agent="gold",
        # tau-bench's own output rule, for parity with its rewards.
        outputs_mode="substring",
        description="tau-bench retail: 16 tools, 115 test tasks, state in SQLite",
    )
    holder.append(dom)
    dom.scripted_agents = {"gold": lambda: GoldAgent(dom)}
    return dom


register_domain(NAME, make_domain, gym_id=GYM_ID, aliases=("retail",))
