"""Personas are enumerated from the dimensions with all-pairs coverage, and the file is current."""

from __future__ import annotations

import itertools

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.spec.personas import all_pairs, all_personas, enumerate_personas, load_dimensions, personas_dir


def _covered(rows, dims):
    for a, b in itertools.combinations(dims, 2):
        for va in dims[a]:
            for vb in dims[b]:
                if not any(r[a] == va and r[b] == vb for r in rows):
                    return False
    return True


def test_shipped_personas_are_the_enumeration_and_cover_all_pairs():
    dims = load_dimensions()
    assert len(dims) >= 5
    expected = enumerate_personas(dims)
    shipped = all_personas()
    assert [p.model_dump() for p in shipped] == [p.model_dump() for p in expected], (
        "personas/personas.yaml is stale: run python -m envs.spec.personas --write"
    )
    assert _covered([p.dimensions for p in shipped], {k: list(v) for k, v in dims.items()})
    # far fewer personas than the full product
    full = 1
    for v in dims.values():
        full *= len(v)
    assert len(shipped) < full / 10


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(2, 4), min_size=2, max_size=6))
def test_all_pairs_covers_every_pair(sizes):
    dims = {f"d{i}": [f"v{j}" for j in range(n)] for i, n in enumerate(sizes)}
    rows = all_pairs(dims)
    assert _covered(rows, dims)
    a, b = sorted(sizes)[-2:]
    assert len(rows) >= a * b


def test_generated_file_is_valid_yaml():
    data = yaml.safe_load((personas_dir() / "personas.yaml").read_text())
    assert {p["id"] for p in data["personas"]} == {p.id for p in all_personas()}
