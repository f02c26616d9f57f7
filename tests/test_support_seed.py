"""The support seed holds together: every address's zip belongs to its city and state, in
the template and in every task; every task's relies_on names a section of the policy."""

from __future__ import annotations

import sqlite3

import pytest
from domains.support.seed import CITIES
from envs.domain import get_domain
from envs.errors import SpecError
from envs.spec.loading import load_one
from envs.spec.schema import Task, policy_headings

ZIPS = {(city, state): set(zips) for city, state, zips in CITIES}


@pytest.fixture(scope="module")
def domain():
    return get_domain("support")


def _addresses(db: bytes) -> list[tuple]:
    con = sqlite3.connect(":memory:")
    con.deserialize(db)
    rows = con.execute("SELECT city, state, zip FROM addresses UNION SELECT ship_city, ship_state, ship_zip FROM orders")
    return rows.fetchall()


def test_template_zips_belong_to_their_city(domain):
    rows = _addresses(domain.template())
    assert len(rows) > 100
    bad = [r for r in rows if r[2] not in ZIPS.get((r[0], r[1]), set())]
    assert bad == []


def test_task_zips_belong_to_their_city(domain):
    for task in domain.tasks.values():
        rows = [i.row for i in task.initial_state.insert if i.table in ("addresses", "orders")]
        for r in rows:
            city, state, z = (r.get("city"), r.get("state"), r.get("zip")) if "zip" in r else (
                r.get("ship_city"), r.get("ship_state"), r.get("ship_zip"))
            assert z in ZIPS.get((city, state), set()), (task.id, city, state, z)


def test_relies_on_names_policy_sections(domain, tmp_path):
    heads = policy_headings(domain.policy)
    assert {"Identity first", "Refund or replacement", "Not arrived, still in transit", "Escalation"} <= heads
    assert all(t.relies_on and set(t.relies_on) <= heads for t in domain.tasks.values())
    src = domain.tasks_dir() / "sup_in_transit_eta.yaml"
    path = tmp_path / "t.yaml"
    path.write_text(src.read_text().replace("relies_on: [", "relies_on: ['No such section', "))
    task = load_one(Task, path)
    with pytest.raises(SpecError, match=r"t\.yaml: relies_on\.0: no policy section 'No such section'"):
        domain.validate_task(task, path)
