"""Tools: plain Python functions whose signature is the single source of truth.

A tool is a function whose first parameter is the SQLAlchemy ``Session`` of the
episode and whose other parameters are typed (``Annotated[T, Field(...)]`` or a
plain annotation, described in a Google-style ``Args:`` docstring section).
From that signature we build

* a pydantic model that validates the arguments of every call, and
* the OpenAI function-calling JSON schema shown to the model.

Calling a tool never raises: bad arguments, an unknown tool name, or a
``ToolError`` raised by the tool come back as an ``"Error: ..."`` string and
the session is rolled back, so a failed call changes nothing.
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Iterable, Literal, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo
from sqlalchemy.orm import Session

Side = Literal["agent", "user"]


class ToolError(Exception):
    """Raised by a tool for an expected refusal; the message goes back to the caller."""


@dataclass
class ToolOutcome:
    """What one call produced: the observation string and whether it failed."""

    output: str
    ok: bool
    error_kind: str | None = None  # "unknown_tool" | "bad_arguments" | "refused" | "crashed"


def _docstring_parts(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {arg: description})."""
    doc = inspect.cleandoc(doc or "")
    descr_lines: list[str] = []
    args: dict[str, str] = {}
    section = "descr"
    current: str | None = None
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:", "Parameters:"):
            section = "args"
            continue
        if stripped in ("Returns:", "Raises:", "Examples:", "Example:"):
            section = "other"
            continue
        if section == "descr":
            descr_lines.append(line)
        elif section == "args":
            m = re.match(r"^\s*(\w+)\s*(\([^)]*\))?\s*:\s*(.*)$", line)
            if m and (line.startswith("    ") or not line.startswith(" ")) and len(line) - len(line.lstrip()) <= 4:
                current = m.group(1)
                args[current] = m.group(3).strip()
            elif current and stripped:
                args[current] += " " + stripped
    return " ".join(l.strip() for l in descr_lines if l.strip()), args


class Tool:
    """One callable tool, with its argument model and JSON schema."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        side: Side = "agent",
        mutates: bool = False,
        terminal: bool = False,
        schema: dict | None = None,
    ):
        self.fn = fn
        self.name = name or fn.__name__
        self.side = side
        self.mutates = mutates
        # A terminal tool ends the episode (e.g. transfer to a human).
        self.terminal = terminal
        self.description, arg_docs = _docstring_parts(fn.__doc__ or "")
        hints = get_type_hints(fn, include_extras=True)
        params = list(inspect.signature(fn).parameters.values())[1:]  # first one is the session
        fields: dict[str, Any] = {}
        for p in params:
            ann = hints.get(p.name, Any)
            default = ... if p.default is inspect.Parameter.empty else p.default
            desc = arg_docs.get(p.name)
            if isinstance(default, FieldInfo):
                finfo = default
                if finfo.description is None and desc:
                    finfo = FieldInfo.merge_field_infos(finfo, description=desc)
            else:
                finfo = Field(default, description=desc)
            fields[p.name] = (_strict_ints(ann), finfo)
        self.args_model: type[BaseModel] = create_model(
            f"{self.name}_args",
            __config__=ConfigDict(extra="forbid", strict=False),
            **fields,
        )
        self._schema_override = schema

    def schema(self) -> dict:
        """The OpenAI function-calling schema for this tool (built once: signatures don't change)."""
        if self._schema_override is not None:
            return self._schema_override
        self._schema_override = self._build_schema()
        return self._schema_override

    def _build_schema(self) -> dict:
        params = self.args_model.model_json_schema()
        params.pop("title", None)
        for prop in params.get("properties", {}).values():
            prop.pop("title", None)
        params.setdefault("required", [])
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }

    def decode(self, arguments: dict | str | None) -> dict:
        """The arguments as a dict (a JSON string is parsed); ``ToolError`` if they are not an object.

        Never raises anything else: text nested past the parser's depth is a ``ToolError`` too
        (the caller's bad arguments, not an engine failure)."""
        if arguments is None or arguments == "":
            return {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError as e:
                raise ToolError(f"arguments for {self.name} are not valid JSON ({e.msg})") from None
            except (RecursionError, ValueError):  # nested past the parser's depth, or unencodable
                raise ToolError(f"arguments for {self.name} are nested too deeply to parse") from None
        if not isinstance(arguments, dict):
            raise ToolError(f"arguments for {self.name} must be a JSON object")
        return arguments

    def validate(self, arguments: dict | str | None) -> dict:
        """Parse and validate the arguments; raise ``ToolError`` with a clear reason."""
        arguments = self.decode(arguments)
        try:
            model = self.args_model.model_validate(arguments)
        except RecursionError:
            raise ToolError(f"invalid arguments for {self.name}: nested too deeply") from None
        except ValidationError as e:
            reasons = "; ".join(
                f"{'.'.join(str(x) for x in err['loc']) or '(arguments)'}: {err['msg']}" for err in e.errors()
            )
            raise ToolError(f"invalid arguments for {self.name}: {reasons}") from None
        out = {k: getattr(model, k) for k in self._field_names}
        for k, pattern in self._patterns.items():
            for v in out.get(k) if isinstance(out.get(k), list) else [out.get(k)]:
                if isinstance(v, str) and not pattern.search(v):
                    raise ToolError(f"invalid arguments for {self.name}: {k}: {_cut(v)!r} does not match "
                                    f"{pattern.pattern!r} (ASCII digits and letters only)")
        return out

    @cached_property
    def _field_names(self) -> tuple[str, ...]:
        """Every argument's name (a validated model has them all: missing ones take their defaults)."""
        return tuple(self.args_model.model_fields)

    @cached_property
    def _patterns(self) -> dict[str, re.Pattern]:
        """Each argument's pattern (of the string, or of a list's strings) compiled ASCII-only: the
        schema's ``\\d`` means 0-9 in the data, so full-width or Arabic-Indic digits are refused
        (pydantic's own check reads ``\\d`` as any Unicode digit)."""
        out = {}
        for k, prop in self.schema()["function"]["parameters"].get("properties", {}).items():
            pat = prop.get("pattern") or (prop.get("items") or {}).get("pattern")
            if pat:
                out[k] = re.compile(pat, re.ASCII)
        return out

    def __call__(self, session: Session, arguments: dict | str | None = None) -> ToolOutcome:
        try:
            kwargs = self.validate(arguments)
        except ToolError as e:
            return ToolOutcome(f"Error: {e}", ok=False, error_kind="bad_arguments")
        try:
            result = self.fn(session, **kwargs)
            # Commit only what there is to commit: a tool that read through the raw connection, or
            # wrote and committed there itself, left the session idle (a commit would cost more than
            # the read).
            if session.in_transaction() or session.new or session.dirty or session.deleted:
                session.commit()
        except ToolError as e:
            session.rollback()
            return ToolOutcome(f"Error: {e}", ok=False, error_kind="refused")
        except Exception as e:  # a tool bug must not take the episode down; it is recorded
            session.rollback()
            return ToolOutcome(f"Error: {e}", ok=False, error_kind=self.failure_kind(e, kwargs))
        return ToolOutcome(render_result(result), ok=True)

    def failure_kind(self, error: Exception, kwargs: dict) -> str:
        """How to count an unexpected exception: a tool crash (default), or e.g. the caller's bad arguments."""
        return "crashed"


def _cut(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _strict_ints(ann: Any) -> Any:
    """``ann`` with every ``int`` strict: an id or a count is an integer, not "90210", 90210.0 or true."""
    from typing import Annotated, Union, get_args, get_origin

    from pydantic import Strict

    if ann is int:
        return Annotated[int, Strict()]
    origin, args = get_origin(ann), get_args(ann)
    if origin is Annotated:
        return Annotated[(_strict_ints(args[0]), *ann.__metadata__)]
    if origin in (list, tuple, set, frozenset) and args:
        return origin[tuple(_strict_ints(a) for a in args)] if origin is tuple else origin[_strict_ints(args[0])]
    if origin is Union or str(origin) == "<class 'types.UnionType'>":
        return Union[tuple(_strict_ints(a) for a in args)]
    return ann


def render_result(result: Any) -> str:
    """Tool results are strings on the wire; structured values become JSON."""
    if isinstance(result, str):
        return result
    if isinstance(result, BaseModel):
        return result.model_dump_json()
    return json.dumps(result, default=str)


def tool(
    fn: Callable | None = None,
    *,
    name: str | None = None,
    side: Side = "agent",
    mutates: bool = False,
    terminal: bool = False,
):
    """Decorator marking a function as a tool (see module docstring)."""

    def wrap(f: Callable) -> Tool:
        return Tool(f, name=name, side=side, mutates=mutates, terminal=terminal)

    return wrap(fn) if fn is not None else wrap


@dataclass
class ToolSet:
    """The tools one side (agent or user) may call. The other side's tools are unknown to it."""

    side: Side
    tools: dict[str, Tool] = field(default_factory=dict)

    @classmethod
    def of(cls, side: Side, tools: Iterable[Tool]) -> "ToolSet":
        ts = cls(side)
        for t in tools:
            if t.side != side:
                raise ValueError(f"tool {t.name} is a {t.side} tool, not a {side} tool")
            if t.name in ts.tools:
                raise ValueError(f"duplicate tool name {t.name}")
            ts.tools[t.name] = t
        return ts

    def schemas(self) -> list[dict]:
        return [t.schema() for t in self.tools.values()]

    def __contains__(self, name: str) -> bool:
        return name in self.tools

    def __getitem__(self, name: str) -> Tool:
        return self.tools[name]

    def names(self) -> list[str]:
        return list(self.tools)

    def call(self, session: Session, name: str, arguments: dict | str | None) -> ToolOutcome:
        t = self.tools.get(name)
        if t is None:
            return ToolOutcome(
                f"Error: unknown tool {name!r} for the {self.side}; available: {', '.join(self.tools)}",
                ok=False,
                error_kind="unknown_tool",
            )
        return t(session, arguments)
