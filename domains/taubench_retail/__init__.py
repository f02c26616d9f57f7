"""tau-bench's retail domain (Yao et al., 2024) inside sitgym, reproducing tau-bench exactly.

The state, the 115 test tasks, the policy and the tool schemas are read from
tau-bench's data at first use (option ``data``: ``--domain-option data=PATH``
or ``--taubench-data PATH``, else ``$SITGYM_TAUBENCH_DATA``, else
``../shared/data/tau-bench-retail``); none of it is copied here. Importing
this module only registers the domain; the factory builds the domain object
without reading any data either.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from envs.domain import Domain, register_domain
from envs.errors import SpecError
from envs.spec.schema import Task

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from .importer import DataSource

NAME = "taubench-retail"
GYM_ID = "TaubenchRetail-v0"


class TaubenchRetailOptions(BaseModel):
    """The domain's options."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    data: Path | None = Field(default=None, validation_alias=AliasChoices("data", "taubench_data"))
    """tau-bench retail data: a folder like ../shared/data/tau-bench-retail or a tau-bench checkout
    (``taubench_data`` is accepted too, as older configs and gymnasium callers spell it)."""


class TaubenchData:
    """One configuration's view of tau-bench's files: located, and tool schemas read, on first use."""

    def __init__(self, path: Path | None):
        self.path = path
        self._source: "DataSource | None" = None
        self._schemas: dict[str, dict] | None = None

    def source(self) -> "DataSource":
        if self._source is None:
            from .importer import locate

            self._source = locate(self.path)
        return self._source

    def tool_schemas(self) -> dict[str, dict]:
        """tau-bench's function schemas by tool name; every tool must have one."""
        if self._schemas is None:
            from .importer import read_tool_schemas
            from .tools import TOOL_FUNCTIONS

            src = self.source()
            schemas = read_tool_schemas(src)
            for name in TOOL_FUNCTIONS:
                if name not in schemas:
                    raise SpecError(f"{src.tools}: no schema for tool {name!r}")
            self._schemas = schemas
        return self._schemas

    def import_state(self, session: "Session", seed: int) -> None:
        """The domain's ``seed_fn``: the state is tau-bench's data, imported (the seed is unused)."""
        from .importer import import_data

        import_data(session, self.source())


@dataclass(frozen=True, eq=False)
class TaubenchRetailDomain(Domain):
    """A ``Domain`` whose state, tasks, policy and tool schemas come from tau-bench's files."""

    data: TaubenchData | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        # The gold agent reads this definition's tasks (a copy gets its own).
        object.__setattr__(self, "scripted_agents", {**self.scripted_agents, "gold": partial(_gold_agent, self)})

    def _configured(self, options: BaseModel) -> "TaubenchRetailDomain":
        # The tools hold the schema loader of their data: a new data path needs new tools.
        return make_domain(options)

    def source(self) -> "DataSource":
        return self.data.source()

    def tool_schemas(self) -> dict[str, dict]:
        return self.data.tool_schemas()

    def import_state(self, session: "Session", seed: int) -> None:
        self.data.import_state(session, seed)

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


def _gold_agent(domain: TaubenchRetailDomain):
    from .agents import GoldAgent

    return GoldAgent(domain)


def make_domain(options: TaubenchRetailOptions | dict | None = None) -> TaubenchRetailDomain:
    """The registry's factory: the domain for ``options``, with tools and agents; reads no data."""
    from envs.domain import parse_options
    from envs.domain.tools import ToolSet

    from .models import Base
    from .tools import make_toolset

    if not isinstance(options, TaubenchRetailOptions):
        options = parse_options(TaubenchRetailOptions, dict(options or {}), NAME)
    data = TaubenchData(options.data)
    return TaubenchRetailDomain(
        name=NAME,
        gym_id=GYM_ID,
        base=Base,
        seed_fn=data.import_state,
        agent_tools=make_toolset(data.tool_schemas),
        user_tools=ToolSet("user"),
        package_dir=Path(__file__).resolve().parent,
        default_agent="gold",
        # tau-bench's own output rule, for parity with its rewards.
        outputs_mode="substring",
        description="tau-bench retail: 16 tools, 115 test tasks, state in SQLite",
        options_model=TaubenchRetailOptions,
        options=options,
        data=data,
    )


register_domain(NAME, make_domain, gym_id=GYM_ID, aliases=("retail",))
