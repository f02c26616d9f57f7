"""The run's configuration (``config.json``): everything needed to resume or reproduce a run.

``RunConfig`` is what ``python -m envs.run`` writes before the first episode
and reads back on ``--resume``. Folders written before the config was typed
held the domain options as top-level keys (``taubench_data``, ``problems``):
they are read into ``domain_options`` under the option names the domains use
today, so old runs still resume.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

# Top-level keys of untyped config.json files -> the domain option they set.
# The same pairs are the runner's flag aliases (--taubench-data, --problems).
LEGACY_DOMAIN_OPTIONS = {"taubench_data": "data", "problems": "problems", "problem_tasks": "problem_tasks"}


class RunConfig(BaseModel):
    """One run's settings, as given on the command line (defaults filled in)."""

    # Unknown keys are ignored: a config written by a newer version still resumes.
    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)

    domain: str
    """The domain name (or an alias) given with --domain."""
    repeats: int = 1
    """Trials per task (pass^1..pass^repeats)."""
    tasks: list[str] | None = None
    """Task ids or globs given with --tasks; None: every task."""
    tags: list[str] | None = None
    """Tags given with --tags (a task carrying any is played); None: every task."""
    agent: str = "scripted"
    """scripted[:variant] or a model string."""
    user: str = "scripted"
    """scripted[:variant], human, or a model string."""
    judge: str | None = None
    """A model string for rules without a deterministic check; None: no judge."""
    seed: int = 0
    """The run seed; each episode's seed derives from it."""
    domain_options: dict[str, Any] = Field(default_factory=dict)
    """Options for the domain (--domain-option KEY=VALUE), validated by the domain's options model."""
    calibration: str | None = None
    """calibration.json used to correct rule compliance; may change on --resume."""
    run_id: str | None = None
    """The run folder's name."""
    llm: dict[str, Any] = Field(default_factory=dict)
    """LLM client settings (api bases, temperatures, tool modes, cache ...), by flag name."""

    @model_validator(mode="before")
    @classmethod
    def _legacy_options(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not any(k in data for k in LEGACY_DOMAIN_OPTIONS):
            return data
        data = dict(data)
        opts = dict(data.get("domain_options") or {})
        for old, new in LEGACY_DOMAIN_OPTIONS.items():
            v = data.pop(old, None)
            if v is not None:
                opts.setdefault(new, v)
        data["domain_options"] = opts
        return data


def parse_domain_options(items: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings (``--domain-option``) as {key: value}; dashes in keys become underscores."""
    from envs.errors import SpecError

    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"--domain-option: expected KEY=VALUE, got {item!r}")
        out[key.strip().replace("-", "_")] = value
    return out


def configure_domain(cfg: RunConfig, given: dict[str, str], resuming: bool):
    """The domain for ``cfg`` with its stored options and ``given`` over them; records them in ``cfg``.

    A bad option is one line, ``--domain-option KEY: reason``; on resume, an
    option that differs from the resumed run's is refused.
    """
    from envs.domain import get_domain
    from envs.errors import SpecError

    get_domain(cfg.domain)  # an unknown domain is reported as such, before its options
    try:
        stored = get_domain(cfg.domain, cfg.domain_options)
    except SpecError as e:
        raise SpecError(f"{cfg.run_id or 'config.json'}: domain_options: {e}") from None
    try:
        domain = get_domain(cfg.domain, {**cfg.domain_options, **given})
    except SpecError as e:
        raise SpecError(f"--domain-option {e}") from None
    old, new = stored.options.model_dump(mode="json"), domain.options.model_dump(mode="json")
    if resuming and old != new:
        k = next(k for k in new if old.get(k) != new[k])
        raise SpecError(f"--domain-option {k}: differs from the run being resumed ({old.get(k)!r}); drop it")
    cfg.domain_options = domain.options.model_dump(mode="json", exclude_unset=True)
    cfg.domain = domain.name  # an alias ("retail") is recorded by its domain's name, so runs compare
    return domain
