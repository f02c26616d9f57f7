"""Engine glue for the tau-bench retail tools: raw arguments, tau-bench's schemas and error strings.

``TauTool`` hands the model's arguments to the function as they are (no
coercion) and shows tau-bench's own schema; ``TauToolSet`` answers an unknown
name as tau-bench does; ``_tau`` gives a function tau-bench's qualified name so
argument errors read the same.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from sqlalchemy.orm import Session

from envs.domain.tools import Tool, ToolOutcome, ToolSet


class TauTool(Tool):
    """A tool called like tau-bench calls its tools: raw JSON arguments, no coercion.

    The schema shown to models is tau-bench's own (read from the data lazily, so building
    the domain needs no data).
    """

    def __init__(self, fn: Callable[..., Any], *, name: str, schema_loader: Callable[[], dict[str, dict]],
                 mutates: bool = False, terminal: bool = False):
        super().__init__(fn, name=name, side="agent", mutates=mutates, terminal=terminal)
        self._schema_loader = schema_loader
        self._signature = inspect.signature(fn)

    def schema(self) -> dict:
        if self._schema_override is None:
            self._schema_override = self._schema_loader()[self.name]
        return self._schema_override

    def reset_schema(self) -> None:
        self._schema_override = None

    def validate(self, arguments: dict | str | None) -> dict:
        """Only decode: tau-bench hands the model's arguments to the tool as they are."""
        return self.decode(arguments)

    def failure_kind(self, error: Exception, kwargs: dict) -> str:
        # tau-bench turns any exception into the observation f"Error: {e}"; arguments that do not
        # fit the schema make it the caller's error, otherwise it is a crash of the tool.
        return "crashed" if self._conforms(kwargs) else "bad_arguments"

    def _conforms(self, kwargs: dict) -> bool:
        """Do the arguments bind and have the schema's types? (Only classifies a failure.)"""
        try:
            self._signature.bind(None, **kwargs)
        except TypeError:
            return False
        try:
            props = self.schema()["function"]["parameters"].get("properties", {})
        except Exception:  # no schema available: classify by binding alone
            return True
        for k, v in kwargs.items():
            t = props.get(k, {}).get("type")
            if t == "string" and not isinstance(v, str):
                return False
            if t == "array" and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                return False
        return True


class TauToolSet(ToolSet):
    """tau-bench answers an unknown tool name with ``Unknown action <name>``."""

    def call(self, session: Session, name: str, arguments: dict | str | None) -> ToolOutcome:
        t = self.tools.get(name)
        if t is None:
            return ToolOutcome(f"Unknown action {name}", ok=False, error_kind="unknown_tool")
        return t(session, arguments)


def _tau(class_name: str) -> Callable[[Callable], Callable]:
    """Give a tool tau-bench's qualified name, so argument errors read the same."""

    def wrap(fn: Callable) -> Callable:
        fn.__qualname__ = f"{class_name}.invoke"
        return fn

    return wrap
