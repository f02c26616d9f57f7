"""Personas, per domain: enumerated from the domain's dimensions with all-pairs coverage, files current."""

from __future__ import annotations

import itertools

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.domain import get_domain
from envs.errors import SpecError
from envs.spec.personas import (
    all_pairs,
    all_personas,
    enumerate_personas,
    get_persona,
    incompatibilities,
    load_dimensions,
    load_incompatible,
    main,
    persona_domains,
    personas_dir,
)


def _covered(rows, dims, bad=()):
    for a, b in itertools.combinations(dims, 2):
        for va in dims[a]:
            for vb in dims[b]:
                if incompatibilities({a: va, b: vb}, [r for r in bad if len(r) == 2]):
                    continue
                if not any(r[a] == va and r[b] == vb for r in rows):
                    return False
    return True


def test_support_and_tutoring_ship_their_own_dimensions():
    assert {"support", "tutoring"} <= set(persona_domains())
    support, tutoring = load_dimensions("support"), load_dimensions("tutoring")
    assert {"temperament", "tech_savvy", "age_group"} <= set(support)
    assert {"grade", "confidence", "attitude", "shows_work", "verbosity"} <= set(tutoring)
    # A student's personas say nothing of orders or bank statements.
    for p in all_personas("tutoring"):
        assert not any(w in p.style.lower() for w in ("order", "bank", "customer", "refund")), p


@pytest.mark.parametrize("domain", ["support", "tutoring"])
def test_shipped_personas_are_the_enumeration_and_cover_all_pairs(domain):
    dims = load_dimensions(domain)
    assert len(dims) >= 5
    bad = load_incompatible(domain)
    expected = enumerate_personas(dims, bad)
    shipped = all_personas(domain)
    assert [p.model_dump() for p in shipped] == [p.model_dump() for p in expected], (
        f"personas/{domain}/personas.yaml is stale: run python -m envs.spec.personas --write --domain {domain}"
    )
    assert _covered([p.dimensions for p in shipped], {k: list(v) for k, v in dims.items()}, bad)
    # no shipped persona holds values its domain declares incompatible
    assert bad and not any(incompatibilities(p.dimensions, bad) for p in shipped)
    # far fewer personas than the full product
    full = 1
    for v in dims.values():
        full *= len(v)
    assert len(shipped) < full / 10


def test_support_personas_kept_their_ids_and_values():
    p = get_persona("p03", "support")
    assert p.dimensions == {
        "temperament": "calm", "verbosity": "terse", "clarity": "precise",
        "tech_savvy": "high", "memory": "reliable", "age_group": "senior",
    }
    assert [q.id for q in all_personas("support")] == [f"p{i:02d}" for i in range(1, 14)]


@pytest.mark.parametrize("domain", ["support", "tutoring"])
def test_every_task_persona_is_one_of_its_domains(domain):
    d = get_domain(domain)
    for task in d.tasks.values():
        assert isinstance(task.persona, str)
        persona = d.persona(task)
        assert persona is not None and persona.dimensions.keys() == load_dimensions(domain).keys()


def test_unknown_persona_names_the_domain_and_the_known_ids():
    with pytest.raises(SpecError, match="domain tutoring has no persona 'p99'.*p01"):
        get_persona("p99", "tutoring")
    with pytest.raises(SpecError, match="no personas/nodomain/personas.yaml"):
        get_persona("p01", "nodomain")


def test_cli_prints_one_domain_and_fails_cleanly_on_an_unknown_one(capsys):
    assert main(["--domain", "tutoring"]) == 0
    out = capsys.readouterr().out
    assert "--domain tutoring" in out and "grade:" in out and "temperament: calm" in out
    assert main(["--domain", "nodomain"]) == 2
    assert "error:" in capsys.readouterr().out


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(2, 4), min_size=2, max_size=6))
def test_all_pairs_covers_every_pair(sizes):
    dims = {f"d{i}": [f"v{j}" for j in range(n)] for i, n in enumerate(sizes)}
    rows = all_pairs(dims)
    assert _covered(rows, dims)
    a, b = sorted(sizes)[-2:]
    assert len(rows) >= a * b


@pytest.mark.parametrize("domain", ["support", "tutoring"])
def test_generated_file_is_valid_yaml(domain):
    data = yaml.safe_load((personas_dir(domain) / "personas.yaml").read_text())
    assert {p["id"] for p in data["personas"]} == {p.id for p in all_personas(domain)}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(2, 4), min_size=3, max_size=7), st.data())
def test_all_pairs_with_incompatible_values_covers_every_compatible_pair(sizes, data):
    # sparse declarations, as domains write them: each dimension in at most one incompatible pair
    dims = {f"d{i}": [f"v{j}" for j in range(n)] for i, n in enumerate(sizes)}
    names = data.draw(st.permutations(list(dims)))
    bad = [{a: data.draw(st.sampled_from(dims[a])), b: data.draw(st.sampled_from(dims[b]))}
           for a, b in zip(names[0::2], names[1::2])][: data.draw(st.integers(1, 3))]
    rows = all_pairs(dims, bad)
    assert not any(incompatibilities(r, bad) for r in rows)
    assert _covered(rows, dims, bad)


def test_declaring_an_incompatibility_changes_only_the_personas_that_broke_it():
    dims = {k: list(v) for k, v in load_dimensions("support").items()}
    before, after = all_pairs(dims), all_pairs(dims, load_incompatible("support"))
    changed = [i for i, (x, y) in enumerate(zip(before, after)) if x != y]
    assert changed == [i for i, x in enumerate(before) if incompatibilities(x, load_incompatible("support"))]


def test_check_flags_a_hand_written_persona_that_combines_incompatible_values(tmp_path):
    from envs.spec.schema import Persona, Scenario, Task
    from envs.spec.task_check import _persona_coherence

    d = get_domain("support")
    bad = Task(id="t", domain="support", persona=Persona(id="mine", dimensions={
        "temperament": "impatient", "verbosity": "chatty", "clarity": "precise", "tech_savvy": "low",
        "memory": "reliable", "age_group": "young"}), scenario=Scenario(goal="g", request="r"))
    lines = _persona_coherence(d, bad, "t.yaml")
    assert lines == [f"t.yaml: persona: mine combines temperament: impatient and verbosity: chatty, which "
                     f"{personas_dir('support') / 'dimensions.yaml'} declares incompatible"]
    ok = bad.model_copy(update={"persona": "p01"})
    assert _persona_coherence(d, ok, "t.yaml") == []


def test_an_incompatibility_naming_an_unknown_value_fails_with_file_and_field(tmp_path):
    path = tmp_path / "dimensions.yaml"
    path.write_text("dimensions:\n  a: {x: X, y: Y}\n  b: {u: U, v: V}\nincompatible:\n  - {a: x, b: w}\n")
    with pytest.raises(SpecError, match=r"dimensions.yaml: incompatible.0.b: unknown dimension or value 'w'"):
        load_incompatible(path=path)
