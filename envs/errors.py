"""The engine's two error types: bad input (``SpecError``) and a failure outside the agent (``InfraError``)."""

from __future__ import annotations


class SpecError(Exception):
    """A spec file, flag or option is malformed. ``str(e)`` is one line: file, field, reason."""


class InfraError(Exception):
    """An infrastructure failure (e.g. an LLM call that exhausted its retries).

    ``role`` names the actor (agent, user, judge) and ``kind`` the failure.
    The episode is recorded with status ``error``, never silently dropped.
    """

    def __init__(self, message: str, role: str = "engine", kind: str = "crash"):
        super().__init__(message)
        self.role = role
        self.kind = kind
