"""Cross-references of one task against its domain, and the replay of its gold path.

``check_task(domain, task, where)`` returns one ``FILE: field: reason`` line per problem: what
``Domain.validate_task`` refuses (tools, situations, ignored columns, policy sections,
assertion tools), plus what nothing else checked before an episode: the persona, every
expected action's arguments against its tool's schema, every user tool call's arguments
against its tool's schema, the tables and columns of ``initial_state``, the patch applying
at all, and every expected action succeeding when replayed (an action the tool refuses
would make the goal "nothing changes" and a correct agent score 0).

``replay(domain, task)`` plays the gold path on a fresh copy of the task's initial state:
the scenario's user tool calls first (what the user can read out), then the expected
actions in order; it returns each call's output, so the lint can ask what the agent could
have learnt, and when.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envs.errors import SpecError
from envs.spec.schema import Task


@dataclass
class Call:
    """One call of the gold path: whose tool, its arguments, and what it returned."""

    side: str  # "agent" | "user"
    name: str
    arguments: dict[str, Any]
    output: str
    ok: bool
    origin: str  # the task field it comes from, e.g. "expected_actions.2"


@dataclass
class GoldPath:
    user_calls: list[Call] = field(default_factory=list)
    actions: list[Call] = field(default_factory=list)
    final: Any = None  # the EpisodeState after the replay (closed by the caller), or None
    error: str | None = None  # why there is no replay (the patch did not apply)

    def close(self) -> None:
        if self.final is not None:
            self.final.close()
            self.final = None


def _tool(domain, name: str):
    if name in domain.agent_tools:
        return domain.agent_tools[name]
    if name in domain.user_tools:
        return domain.user_tools[name]
    return None


def _columns(domain, where: str, field_name: str, table: str, cols: dict) -> list[str]:
    tables = domain.base.metadata.tables
    if table not in tables:
        return [f"{where}: {field_name}.table: unknown table {table!r} (known: {', '.join(sorted(tables))})"]
    t = tables[table]
    return [f"{where}: {field_name}: table {table} has no column {c!r}" for c in cols if c not in t.c]


def check_task(domain, task: Task, where: str | Path, replayed: bool = True) -> list[str]:
    """Every problem of ``task`` against ``domain`` (see the module docstring), one line each;
    ``replayed=False`` leaves out the gold path's replay (the lint replays it once itself)."""
    problems: list[str] = []
    try:
        domain.validate_task(task, where)
    except SpecError as e:
        problems.append(str(e))
    if isinstance(task.persona, str):
        try:
            domain.persona(task)
        except SpecError as e:
            problems.append(f"{where}: {e}")
    else:
        problems += [f"{where}: {p}" for p in persona_outside_dimensions(domain, task)]
    problems += _persona_coherence(domain, task, where)
    problems += [f"{where}: {p}" for p in duplicate_ids(task.model_dump())]
    for i, a in enumerate(task.expected_actions):
        t = _tool(domain, a.name)
        if t is not None:
            problems.extend(_arguments(t, a.arguments, f"{where}: expected_actions.{i}.arguments"))
    for i, u in enumerate(task.scenario.user_tools):
        if u.tool in domain.user_tools:
            problems.extend(_arguments(domain.user_tools[u.tool], u.arguments, f"{where}: scenario.user_tools.{i}.arguments"))
    patch = task.initial_state
    for i, op in enumerate(patch.update):
        problems += _columns(domain, where, f"initial_state.update.{i}", op.table, {**op.where, **op.set})
    for i, op in enumerate(patch.insert):
        problems += _columns(domain, where, f"initial_state.insert.{i}", op.table, op.row)
    for i, op in enumerate(patch.delete):
        problems += _columns(domain, where, f"initial_state.delete.{i}", op.table, op.where)
    if problems or not replayed:
        return problems
    gold = replay(domain, task)
    try:
        problems += replay_problems(gold, where)
    finally:
        gold.close()
    return problems


def replay_problems(gold: GoldPath, where: str | Path) -> list[str]:
    """The patch not applying, and each gold call that fails when replayed, one line each."""
    if gold.error:
        return [f"{where}: initial_state: {gold.error}"]
    return [f"{where}: {c.origin}: {c.name} fails when the gold path is replayed ({c.output})" for c in gold.actions if not c.ok]


def _arguments(tool, arguments: dict, where: str) -> list[str]:
    from envs.domain.tools import ToolError

    try:
        tool.validate(arguments)
    except ToolError as e:
        return [f"{where}: {e}"]
    return []


def replay(domain, task: Task) -> GoldPath:
    """The gold path of ``task`` played on a fresh copy of its initial state (module docstring).

    Uses the domain's cached initial state only for a task the domain loaded itself (the run
    needs it anyway); any other task is patched apart, so nothing it holds reaches the caches.
    The caller closes the result (``GoldPath.close``)."""
    from envs.state.database import EpisodeState, apply_patch

    gold = GoldPath()
    try:
        own = domain.tasks.get(task.id) is task  # one the domain loaded: its cached initial state, as the run uses
    except SpecError:
        own = False
    try:
        initial = domain.initial_bytes(task) if own else apply_patch(domain.base, domain.template(), task.initial_state)
    except Exception as e:  # an integrity error or a row that matches nothing: the finding itself
        gold.error = f"the patch does not apply ({str(e).splitlines()[0]})"
        return gold
    st = EpisodeState(domain.base, initial)
    for i, u in enumerate(task.scenario.user_tools):
        out = domain.user_tools.call(st.session, u.tool, u.arguments)
        gold.user_calls.append(Call("user", u.tool, dict(u.arguments), out.output, out.ok, f"scenario.user_tools.{i}"))
    st.load(initial)  # the user's calls are what they can tell; the gold path starts from the task's state
    for i, a in enumerate(task.expected_actions):
        side = "agent" if a.name in domain.agent_tools else "user"
        tools = domain.agent_tools if side == "agent" else domain.user_tools
        out = tools.call(st.session, a.name, a.arguments)
        gold.actions.append(Call(side, a.name, dict(a.arguments), out.output, out.ok, f"expected_actions.{i}"))
    gold.final = st
    return gold


def _persona_coherence(domain, task: Task, where: str | Path) -> list[str]:
    """A persona (inline, or edited into personas.yaml) holding values its domain's dimensions
    declare incompatible: one line naming them."""
    from envs.spec.personas import incompatibilities, load_incompatible, persona_domains, personas_dir

    if task.persona is None or domain.name not in persona_domains():
        return []
    try:
        persona = domain.persona(task)
        rules = load_incompatible(domain.name)
    except SpecError:
        return []  # reported above (unknown persona) or by the dimensions' own loading
    if persona is None:
        return []
    out = []
    for r in incompatibilities(persona.dimensions, rules):
        both = " and ".join(f"{k}: {v}" for k, v in r.items())
        out.append(f"{where}: persona: {persona.id} combines {both}, which {personas_dir(domain.name) / 'dimensions.yaml'} declares incompatible")
    return out


def duplicate_ids(data, path: str = "") -> list[str]:
    """``FIELD.N.id: duplicate id ...`` for each item of a list (anywhere in a task) whose ``id`` an
    earlier item of the same list already has: two hidden facts ``email``, two rows of one table."""
    out = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += duplicate_ids(v, f"{path}.{k}" if path else str(k))
    elif isinstance(data, list):
        seen: dict = {}
        for i, item in enumerate(data):
            if isinstance(item, dict):
                key = item.get("id")
                if key is not None and not isinstance(key, (dict, list)):
                    # rows of initial_state are keyed per table
                    scope = (item.get("table"), key) if "table" in item else key
                    if scope in seen:
                        out.append(f"{path}.{i}.id: duplicate id {key!r} (also {path}.{seen[scope]})")
                    else:
                        seen[scope] = i
            out += duplicate_ids(item, f"{path}.{i}")
    return out


def persona_outside_dimensions(domain, task: Task) -> list[str]:
    """``persona.dimensions.D: ...`` for an inline persona naming a dimension or a value the domain's
    ``personas/<domain>/dimensions.yaml`` does not define (nothing when the domain ships none)."""
    from envs.spec.personas import load_dimensions, personas_dir

    p = task.persona
    if p is None or isinstance(p, str) or not (personas_dir(domain.name) / "dimensions.yaml").is_file():
        return []
    dims = load_dimensions(domain.name)
    out = []
    for d, v in p.dimensions.items():
        if d not in dims:
            out.append(f"persona.dimensions.{d}: unknown dimension (known: {', '.join(dims)})")
        elif v not in dims[d]:
            out.append(f"persona.dimensions.{d}: {v!r} is not a value of {d} (one of: {', '.join(dims[d])})")
    return out
