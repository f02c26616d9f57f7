"""The fast paths of tool calls: cached record texts stay exact, idle sessions are not committed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from sqlalchemy import update

DATA = Path(os.environ.get("SITGYM_TAUBENCH_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data"
            / "tau-bench-retail")
pytestmark = pytest.mark.skipif(not (DATA / "db" / "users.json").is_file(),
                                reason=f"tau-bench retail data not found at {DATA} (set SITGYM_TAUBENCH_DATA)")


@pytest.fixture(scope="module")
def domain():
    from domains.taubench_retail import make_domain

    d = make_domain({})
    d.template()
    return d


def _pending_order(domain) -> tuple[str, str]:
    from envs.state.database import EpisodeState
    from domains.taubench_retail.exporter import export_state

    st = EpisodeState(domain.base, domain.template())
    try:
        orders = export_state(st.session)["orders"]
    finally:
        st.close()
    oid, o = next((k, o) for k, o in orders.items() if o["status"] == "pending")
    return oid, o["user_id"]


def test_cached_order_text_follows_writes_and_resets(domain):
    from envs.state.database import EpisodeState
    from domains.taubench_retail.tools.records import CACHE

    CACHE.clear()
    oid, _ = _pending_order(domain)
    init = domain.template()
    st = EpisodeState(domain.base, init)
    other = EpisodeState(domain.base, init)  # a second episode from the same bytes shares the cache
    call = lambda s, name, **kw: domain.agent_tools.call(s.session, name, kw).output  # noqa: E731
    try:
        before = call(st, "get_order_details", order_id=oid)
        assert json.loads(before)["status"] == "pending"
        assert call(st, "get_order_details", order_id=oid) == before  # from the cache
        out = call(st, "cancel_pending_order", order_id=oid, reason="no longer needed")
        assert json.loads(out)["status"] == "cancelled"
        assert call(st, "get_order_details", order_id=oid) == out  # touched: read fresh, not cached
        assert call(other, "get_order_details", order_id=oid) == before  # the other episode is untouched
        st.load(init)
        assert call(st, "get_order_details", order_id=oid) == before  # a reset forgets the touch
    finally:
        st.close()
        other.close()


def test_bulk_and_pending_orm_writes_are_seen(domain):
    """Writes that are not a tool's: a bulk ORM update, and an ORM change not yet flushed."""
    from envs.state.database import EpisodeState
    from domains.taubench_retail import models as m
    from domains.taubench_retail.tools.records import CACHE

    CACHE.clear()
    oid, uid = _pending_order(domain)
    st = EpisodeState(domain.base, domain.template())
    call = lambda name, **kw: domain.agent_tools.call(st.session, name, kw).output  # noqa: E731
    try:
        call("get_order_details", order_id=oid)
        call("get_user_details", user_id=uid)
        st.session.execute(update(m.Order).where(m.Order.id == oid).values(status="processed"))
        assert json.loads(call("get_order_details", order_id=oid))["status"] == "processed"
        st.session.get(m.User, uid).email = "changed@example.com"  # pending, not flushed
        assert json.loads(call("get_user_details", user_id=uid))["email"] == "changed@example.com"
        assert not st.session.in_transaction()  # the tool synced and left the session idle
    finally:
        st.close()


def test_a_read_leaves_no_transaction_and_a_failed_write_changes_nothing(domain):
    from envs.state.database import EpisodeState
    from graders.outcome.state_diff import diff_bytes

    oid, _ = _pending_order(domain)
    st = EpisodeState(domain.base, domain.template())
    try:
        assert domain.agent_tools.call(st.session, "get_order_details", {"order_id": oid}).ok
        assert not st.session.in_transaction()
        bad = domain.agent_tools.call(st.session, "cancel_pending_order", {"order_id": oid, "reason": "because"})
        assert bad.output == "Error: invalid reason"
        assert diff_bytes(st.snapshot(), domain.template(), domain.base.metadata) == []
    finally:
        st.close()


def test_cached_user_scan_follows_writes(domain):
    """find_user_id_by_email scans a cached (id, email) list: it must see an episode's own writes only."""
    from envs.state.database import EpisodeState
    from domains.taubench_retail import models as m
    from domains.taubench_retail.tools.records import CACHE

    CACHE.clear()
    _, uid = _pending_order(domain)
    init = domain.template()
    st, other = EpisodeState(domain.base, init), EpisodeState(domain.base, init)
    find = lambda s, email: domain.agent_tools.call(s.session, "find_user_id_by_email", {"email": email}).output  # noqa: E731
    try:
        email = st.session.get(m.User, uid).email
        assert find(st, email.upper()) == uid
        st.session.get(m.User, uid).email = "someone.new@example.com"
        assert find(st, "someone.new@example.com") == uid
        assert find(other, "someone.new@example.com") == "Error: user not found"
        assert find(other, email) == uid
    finally:
        st.close()
        other.close()


def test_record_text_matches_the_exporter_on_every_record(domain):
    """The one-pass formatter (record_text) prints every record exactly as ``json.dumps`` of the
    exporter's record: every task's initial state, then the state after its gold actions."""
    from envs.state.database import EpisodeState
    from domains.taubench_retail.exporter import export_state
    from domains.taubench_retail.tools.record_text import TEXT_OF
    from domains.taubench_retail.tools.records import touched_record

    seen: set[bytes] = set()
    formatted = fallback = after_gold = 0
    for task in domain.tasks.values():
        st = EpisodeState(domain.base, domain.initial_bytes(task))
        try:
            for phase in ("initial", "after gold"):
                if phase == "after gold":
                    for a in task.expected_actions:
                        domain.agent_tools.call(st.session, a.name, a.arguments)
                    st.sync()
                snap = st.conn.serialize()
                if snap in seen:
                    continue
                seen.add(snap)
                if phase == "initial":
                    exported = export_state(st.session)
                else:  # what the gold writes touched (the rest reads as in the initial state)
                    ids = {kind: [r[0] for r in st.conn.execute(f"SELECT id FROM {kind}")
                                  if touched_record(st.touched, kind, r[0])] for kind in TEXT_OF}
                    exported = export_state(st.session, **ids)
                for kind, records in exported.items():
                    for rid, rec in records.items():
                        text = TEXT_OF[kind](st.conn, rid)
                        if text is None:
                            fallback += 1
                            continue
                        formatted += 1
                        after_gold += phase == "after gold"
                        assert text == json.dumps(rec), f"{task.id} {phase}: {kind} {rid}"
                    assert TEXT_OF[kind](st.conn, "no-such-id") == ""
        finally:
            st.close()
    assert formatted > 10 * fallback  # the formatter is the common path, the exporter the exception
    assert after_gold > 100  # records the gold writes changed (cancelled, returned, exchanged...)
