"""The streamed summary equals the reference one (``tests/summary_reference.py``: the summary as it
was built before its accumulators were made plain counters), field by field, on real runs of both
domains: support with the careful and the eager agent, tutoring with the socratic tutor, and a run
with errored episodes. And ``envs.compare``'s per-task counts, read as ``EpisodeOutcome``s, equal
the full records' counts."""

from __future__ import annotations

import pytest

from envs.records import EpisodeOutcome
from envs.report.compare import _trials, task_counts
from envs.report.summary import summarize
from envs.run.config import configure_domain
from envs.run.store import RunStore
from summary_reference import reference_summarize

RUNS = {  # the runs other modules read too (tests/conftest.py: played once a session)
    "support-careful": "CAREFUL2",
    "support-eager": "EAGER2",
    "tutoring-socratic": "SOCRATIC2",
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory, played_runs):
    d = tmp_path_factory.mktemp("ref")
    out = {}
    for name, argv in RUNS.items():
        out[name] = played_runs.copy(getattr(played_runs, argv), d / name)
    # a run with errors: the eager run's records, every third one replayed as an infrastructure
    # error and every fifth as an agent error limit (appended, so the newest record wins)
    store = RunStore(out["support-eager"])
    errd = RunStore(d / "support-errors")
    errd.episodes_path.parent.mkdir(parents=True, exist_ok=True)
    errd.episodes_path.write_bytes(store.episodes_path.read_bytes())
    (d / "support-errors" / "config.json").write_bytes((out["support-eager"] / "config.json").read_bytes())
    with open(errd.episodes_path, "a", encoding="utf-8") as f:
        for i, r in enumerate(store.iter_latest()):
            if i % 3 == 0:
                r = r.model_copy(update={"status": "error", "error": "retries exhausted", "error_role": "agent",
                                         "error_kind": "rate_limit", "termination": "error", "attempt": 2})
            elif i % 5 == 0:
                r = r.model_copy(update={"termination": "agent_error_limit", "agent_errors": 5, "attempt": 2})
            else:
                continue
            f.write(r.model_dump_json() + "\n")
    out["support-errors"] = d / "support-errors"
    return out


@pytest.mark.parametrize("name", [*RUNS, "support-errors"])
def test_summary_equals_reference_field_by_field(runs, name):
    store = RunStore(runs[name])
    cfg = store.read_config()
    domain = configure_domain(cfg, {}, False)
    new = summarize(store.iter_latest(), cfg, domain=domain).model_dump()
    ref = reference_summarize(list(store.iter_latest()), cfg, domain=domain).model_dump()
    assert new.keys() == ref.keys()
    for field in ref:
        assert new[field] == ref[field], field
    if name == "support-errors":
        assert new["errors"] > 0 and new["agent_failed"] > 0


@pytest.mark.parametrize("name", [*RUNS, "support-errors"])
def test_compare_counts_from_outcomes_equal_full_records(runs, name):
    store = RunStore(runs[name])
    light = task_counts(store.iter_latest(view=EpisodeOutcome))
    assert light == task_counts(store.iter_latest())
    assert _trials(light) == _trials(list(store.iter_latest()))


@pytest.mark.parametrize("name", [*RUNS])
def test_compare_reads_the_summary_fields_it_uses_as_written(runs, name):
    from envs.report.compare import _COMPARED_FIELDS, _compared_summary
    from envs.report.summary import read_summary, write_summary

    store = RunStore(runs[name])
    cfg = store.read_config()
    write_summary(runs[name], summarize(store.iter_latest(), cfg, domain=configure_domain(cfg, {}, False)))
    full = read_summary(runs[name])
    narrow = _compared_summary().model_validate_json((runs[name] / "summary.json").read_bytes())
    for field in _COMPARED_FIELDS:
        assert getattr(narrow, field) == getattr(full, field), field
