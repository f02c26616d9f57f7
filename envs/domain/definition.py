"""Domains and their registry.

A domain is data plus thin tools: SQLAlchemy models, a deterministic seed
function, agent tools, user tools, a policy, situations and rules, tasks, and
scripted agents. It registers itself with ``register_domain``; the engine
never imports a domain by name. Domains are discovered from the ``domains``
package and from the ``sitgym.domains`` entry-point group (third-party
domains: point the entry point at a module that calls ``register_domain``).

A ``Domain`` is a frozen definition. Its options (a data path, a problem
set) are a pydantic model the domain declares (``options_model``);
``with_options(...)`` returns a new, independently cached definition and
never changes the one it was called on. What a definition computes lazily
(the template, initial and goal states, tasks, policy) is cached on that
instance only, so a new configuration never reuses stale state.

Subclass ``Domain`` only where a domain builds its state or tasks in an
unusual way (e.g. importing another benchmark's data).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy.orm import DeclarativeBase, Session

from envs.errors import SpecError
from envs.spec.loading import load_list, load_one
from envs.spec.schema import Persona, Rule, Situation, Task, policy_headings
from envs.spec.words import DomainWords, load_words
from envs.domain.tools import ToolSet
from envs.paths import PROJECT_ROOT, data_root  # noqa: F401  (envs.domain re-exports them)

if TYPE_CHECKING:
    from envs.actors.protocols import Agent
    from envs.domain.families import TaskFamily
    from envs.state.database import Touched


class NoOptions(BaseModel):
    """The options of a domain that takes none."""

    model_config = ConfigDict(extra="forbid")


def parse_options(model: type[BaseModel], values: dict[str, Any], domain: str = "") -> BaseModel:
    """``values`` validated by ``model``; a bad one raises SpecError("KEY: reason"), one line."""
    try:
        return model.model_validate(values)
    except ValidationError as e:
        err = e.errors()[0]
        key = ".".join(str(x) for x in err["loc"]) or "?"
        if err["type"] == "extra_forbidden":
            known = ", ".join(model.model_fields) or "none"
            raise SpecError(f"{key}: unknown option of domain {domain or '?'} (known: {known})") from None
        raise SpecError(f"{key}: {err['msg']} (got {err.get('input')!r})") from None


@dataclass
class DomainCache:
    """What a domain definition computes once: template bytes, per-task initial and goal states."""

    template: bytes | None = None
    template_key: str | None = None  # the template's content key (None: not cacheable), for the initial states' keys
    initial: dict[str, bytes] = field(default_factory=dict)
    goal: dict[str, tuple[bytes, Any, list[str]]] = field(default_factory=dict)
    initial_ids: dict[str, dict[str, int]] = field(default_factory=dict)
    replay_state: Any = None  # one reused EpisodeState for goal replays


@dataclass(frozen=True, eq=False)  # eq=False: domains compare and hash by identity
class Domain:
    name: str
    gym_id: str  # e.g. "Support-v0", registered as "sitgym/Support-v0"
    base: type[DeclarativeBase]
    seed_fn: Callable[[Session, int], None]
    agent_tools: ToolSet
    user_tools: ToolSet
    package_dir: Path  # holds policy.md, situations.yaml, rules.yaml
    scripted_agents: dict[str, Callable[[], "Agent"]] = field(default_factory=dict)
    default_agent: str = ""
    # Domain-specific scripted users (e.g. a student who computes with a misconception);
    # "scripted" alone picks "default" here, else the generic envs.actors.scripted_user.ScriptedUser.
    scripted_users: dict[str, Callable[[], Any]] = field(default_factory=dict)
    seed: int = 0
    description: str = ""
    # The options this domain takes (a pydantic model; NoOptions: none), and this definition's
    # values of them; a dict given here is validated by options_model. See with_options().
    options_model: type[BaseModel] = NoOptions
    options: Any = None
    # How required outputs are matched (graders/outputs.py): "normalised" or "substring".
    outputs_mode: str = "normalised"
    # Where the task YAML files are; default: <data root>/tasks/<name>.
    tasks_path: Path | None = None
    # The domain's role words and scripted lines; default: <package_dir>/words.yaml, else neutral.
    words: DomainWords | None = None
    # Gold sets imported from elsewhere, by name: ``--gold NAME:PATH`` in graders.calibrate
    # calls ``gold_sources[NAME](Path(PATH))`` -> (gold items, {"excluded": ..., ...}).
    gold_sources: dict[str, Callable[[Path], tuple[list, dict]]] = field(default_factory=dict)
    # Task families (envs/domain/families.py), by name: a function so generators load only when asked.
    families: Callable[[], dict[str, "TaskFamily"]] | None = None
    # This definition's lazily computed states (set in __post_init__; never shared by a copy).
    cache: DomainCache = field(init=False, repr=False, default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        opts = self.options
        if not isinstance(opts, self.options_model):
            opts = parse_options(self.options_model, dict(opts or {}), self.name)
        object.__setattr__(self, "options", opts)
        object.__setattr__(self, "cache", DomainCache())
        if self.words is None:
            object.__setattr__(self, "words", load_words(self.package_dir))

    # -- configuration --------------------------------------------------------

    def with_options(self, **options: Any) -> "Domain":
        """A new definition with these options over this one's; None restores an option's default.

        Raises SpecError("KEY: reason") for an unknown option or a bad value. The
        new definition shares no cache with this one, which stays as it was.
        """
        merged = {**self.options.model_dump(exclude_unset=True), **options}
        values = {k: v for k, v in merged.items() if v is not None}
        return self._configured(parse_options(self.options_model, values, self.name))

    def _configured(self, options: BaseModel) -> "Domain":
        """Build the definition for ``options``; domains whose tools depend on them override it."""
        return dataclasses.replace(self, options=options)

    # -- state ------------------------------------------------------------------

    def build_template(self) -> bytes:
        from envs.state.database import build_template

        return build_template(self.base, self.seed_fn, self.seed)

    def template(self) -> bytes:
        """The template database, built once per process (and kept on disk while the code that
        builds it is unchanged: ``envs.state.template_cache``)."""
        if self.cache.template is None:
            from envs.state.template_cache import cached_template

            self.cache.template = cached_template(self)
        return self.cache.template

    def initial_bytes(self, task: Task) -> bytes:
        """Template + the task's initial_state patch (cached per task)."""
        initial = self.cache.initial
        if task.id not in initial:
            from envs.state.template_cache import cached_initial

            try:
                initial[task.id] = cached_initial(self, task)
            except ValueError as e:
                raise SpecError(f"task {task.id}: {e}") from None
        return initial[task.id]

    def goal(self, task: Task) -> tuple[bytes, "Touched", list[str]]:
        """The goal state: the task's expected actions replayed on a fresh copy.

        Returns (bytes, what the replay touched (iterates as table names), error
        outputs of actions that failed).
        Cached per task: annotators write actions, not rows.
        """
        cache = self.cache
        if task.id not in cache.goal:
            from envs.state.database import EpisodeState

            if cache.replay_state is None:
                cache.replay_state = EpisodeState(self.base, self.initial_bytes(task))
            st = cache.replay_state
            st.load(self.initial_bytes(task))
            cache.initial_ids[task.id] = _largest_ids(st.conn, self.base.metadata)
            problems = []
            for a in task.expected_actions:
                # Annotators may include the user's own tool calls (e.g. a student's answer).
                tools = self.agent_tools if a.name in self.agent_tools else self.user_tools
                out = tools.call(st.session, a.name, a.arguments)
                if not out.ok:
                    problems.append(f"{a.name}: {out.output}")
            cache.goal[task.id] = (st.snapshot(), st.touched.copy(), problems)
        return cache.goal[task.id]

    def initial_ids(self, task: Task) -> dict[str, int]:
        """Per table with one integer key, the largest key in the task's initial state: a row
        with a larger key is one the episode (or the goal replay) created, which the grader
        matches by content rather than by id (graders.outcome.state_diff)."""
        if task.id not in self.cache.initial_ids:
            self.cache.goal.pop(task.id, None)
            self.goal(task)
        return self.cache.initial_ids[task.id]

    # -- data -------------------------------------------------------------------------

    @cached_property
    def policy(self) -> str:
        p = self.package_dir / "policy.md"
        return p.read_text(encoding="utf-8") if p.exists() else ""

    @cached_property
    def situations(self) -> dict[str, Situation]:
        """The situations of ``situations.yaml``, each with the rules marked ``every_situation``
        added to its own (a rule that holds on every reply is judged on every reply)."""
        p = self.package_dir / "situations.yaml"
        sits = {s.id: s for s in load_list(Situation, p, "situations")} if p.exists() else {}
        try:
            every = [r.id for r in self.rules.values() if r.every_situation]
        except SpecError:
            every = []  # a broken rules.yaml is reported once, by whoever reads the rules
        if every:
            sits = {k: s.model_copy(update={"rules": [*s.rules, *(r for r in every if r not in s.rules)]})
                    for k, s in sits.items()}
        return sits

    @cached_property
    def rules(self) -> dict[str, Rule]:
        p = self.package_dir / "rules.yaml"
        return {r.id: r for r in load_list(Rule, p, "rules")} if p.exists() else {}

    @cached_property
    def topics(self):
        """The domain's topics (``topics.yaml``) as a recogniser (envs.actors.topics)."""
        from envs.actors.topics import load_topics

        return load_topics(self.package_dir)

    @cached_property
    def replies(self):
        """The scripted user's replies in each persona's register (``replies.yaml``, envs.actors.replies)."""
        from envs.actors.replies import load_replies

        return load_replies(self.package_dir)

    def tasks_dir(self) -> Path:
        return self.tasks_path or data_root() / "tasks" / self.name

    @cached_property
    def tasks(self) -> dict[str, Task]:
        """The domain's tasks (loaded once per process, and kept on disk while the files they are
        read from are unchanged: ``envs.spec.task_cache``)."""
        from envs.spec.task_cache import cached_tasks

        return cached_tasks(self)

    def load_tasks(self) -> dict[str, Task]:
        out: dict[str, Task] = {}
        d = self.tasks_dir()
        for path in sorted(d.glob("*.yaml")) + sorted(d.glob("*.yml")):
            task = load_one(Task, path)
            if task.domain != self.name:
                raise SpecError(f"{path}: domain: {task.domain!r} is not {self.name!r}")
            if task.id in out:
                raise SpecError(f"{path}: id: duplicate task id {task.id!r}")
            self.validate_task(task, path)
            out[task.id] = task
        return out

    def validate_task(self, task: Task, path: Path | str) -> None:
        """Cross-checks a task against the domain: tool names, situations, columns."""
        for i, a in enumerate(task.expected_actions):
            if a.name not in self.agent_tools and a.name not in self.user_tools:
                raise SpecError(f"{path}: expected_actions.{i}.name: unknown tool {a.name!r}")
        for i, u in enumerate(task.scenario.user_tools):
            if u.tool not in self.user_tools:
                raise SpecError(f"{path}: scenario.user_tools.{i}.tool: unknown user tool {u.tool!r}")
        self._validate_topics(task, path)
        if self.situations:
            for i, s in enumerate(task.scenario.situations):
                if s not in self.situations:
                    raise SpecError(f"{path}: scenario.situations.{i}: unknown situation {s!r}")
        tables = self.base.metadata.tables
        for i, col in enumerate(task.ignore_columns):
            t, c = col.split(".")
            if t not in tables or c not in tables[t].c:
                raise SpecError(f"{path}: ignore_columns.{i}: no column {col!r}")
        headings = policy_headings(self.policy)
        for i, h in enumerate(task.relies_on):
            if h not in headings:
                raise SpecError(f"{path}: relies_on.{i}: no policy section {h!r} in {self.name}'s policy.md")
        for i, a in enumerate(task.assertions):
            for tname in (a.tool, a.before):
                if tname and tname not in self.agent_tools and tname not in self.user_tools:
                    raise SpecError(f"{path}: assertions.{i}: unknown tool {tname!r}")

    def _validate_topics(self, task: Task, path: Path | str) -> None:
        """Topics named by the scenario exist in topics.yaml; user tool calls fit their schemas."""
        from envs.actors.user_tools import check_user_tool

        known = self.topics.names
        sc = task.scenario
        named = [(f"hidden_facts.{i}.topic", h.topic) for i, h in enumerate(sc.hidden_facts)]
        named += [(f"user_tools.{i}.topic", u.topic) for i, u in enumerate(sc.user_tools)]
        if sc.mind_change is not None:
            named.append(("mind_change.topic", sc.mind_change.topic))
        for where, topic in named:
            if topic is not None and topic not in known:
                have = ", ".join(sorted(known)) or "none: the domain has no topics.yaml"
                raise SpecError(f"{path}: scenario.{where}: unknown topic {topic!r} (known: {have})")
        for i, u in enumerate(sc.user_tools):
            bad = check_user_tool(u, self.user_tools[u.tool], self.topics, sc)
            if bad is not None:
                raise SpecError(f"{path}: scenario.user_tools.{i}.{bad[0]}: {bad[1]}")

    def persona(self, task: Task) -> Persona | None:
        from envs.spec.personas import get_persona

        if task.persona is None or isinstance(task.persona, Persona):
            return task.persona
        return get_persona(task.persona, self.name)


def _largest_ids(conn: Any, metadata: Any) -> dict[str, int]:
    out = {}
    for t in metadata.sorted_tables:
        pk = list(t.primary_key.columns)
        try:
            is_int = len(pk) == 1 and pk[0].type.python_type is int
        except NotImplementedError:  # a type with no Python equivalent: not an integer key
            is_int = False
        if is_int:
            out[t.name] = conn.execute(f'SELECT max("{pk[0].name}") FROM "{t.name}"').fetchone()[0] or 0
    return out
