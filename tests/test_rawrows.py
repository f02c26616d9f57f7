"""envs.state.rawrows: rows on the raw connection stored as the ORM stores them, tracked exactly."""

from __future__ import annotations

import datetime as dt

import pytest

from envs.domain import get_domain
from envs.state.database import EpisodeState
from envs.state.rawrows import rows_of
from graders.outcome.state_diff import diff_bytes


@pytest.fixture(scope="module")
def support():
    d = get_domain("support")
    d.template()
    return d


def _stored(st: EpisodeState, table: str, key: str, value) -> list[tuple]:
    cols = [c.name for c in st.base.metadata.tables[table].columns]
    sql = f'SELECT {", ".join(f"quote({c}), typeof({c})" for c in cols)} FROM "{table}" WHERE "{key}" = ?'
    return st.conn.execute(sql, (value,)).fetchall()


def test_an_insert_is_stored_as_the_orm_stores_it(support):
    from domains.support.models import Refund

    values = dict(id=99001, order_id="O-00001", charge_id=None, amount_cents=1234, destination="store_credit",
                  reason="damaged", status="completed", created_at=dt.datetime(2026, 6, 15, 12, 0, 0),
                  expected_post_by=dt.date(2026, 6, 22))
    orm, raw = EpisodeState(support.base, support.template()), EpisodeState(support.base, support.template())
    try:
        orm.session.add(Refund(**values))
        orm.session.commit()
        with rows_of(raw.session) as rows:
            rows.insert("refunds", **values)
        assert _stored(raw, "refunds", "id", 99001) == _stored(orm, "refunds", "id", 99001) != []
        assert raw.touched.rows == {"refunds": {(99001,)}}
        assert diff_bytes(raw.snapshot(), orm.snapshot(), support.base.metadata) == []
    finally:
        orm.close()
        raw.close()


def test_identity_autoflush_and_exact_touched(support):
    st = EpisodeState(support.base, support.template())
    try:
        before = st.snapshot()
        with rows_of(st.session) as rows:
            o = rows.first("orders", "id")
            assert rows.get("orders", o.id) is o  # one object per row
            status = o.status
            o.status = status  # assigned but equal: not a change, as for the ORM
            items = rows.select("order_items", "id", order_id=o.id)
            items[0].quantity = items[0].quantity + 1
            assert rows.select("order_items", "id", order_id=o.id)[0].quantity == items[0].quantity
            # the select above saved the change first (autoflush): the raw connection has it
            q = rows.scalar("SELECT quantity FROM order_items WHERE id = ?", items[0].id)
            assert q == items[0].quantity
        changed = {td.table: td for td in diff_bytes(st.snapshot(), before, support.base.metadata)}
        assert set(changed) == {"order_items"}
        assert st.touched.rows == {"order_items": {(items[0].id,)}}
    finally:
        st.close()


def test_an_exception_rolls_everything_back(support):
    st = EpisodeState(support.base, support.template())
    try:
        before = st.snapshot()
        with pytest.raises(RuntimeError):
            with rows_of(st.session) as rows:
                p = rows.first("products", "id")
                p.stock = p.stock + 100
                rows.save()  # written ...
                raise RuntimeError("the tool failed after writing")
        assert diff_bytes(st.snapshot(), before, support.base.metadata) == []  # ... and rolled back
        with pytest.raises(AttributeError):
            with rows_of(st.session) as rows:
                rows.insert("products", no_such_column=1)
    finally:
        st.close()


def test_pending_orm_changes_are_seen_and_orm_objects_reload(support):
    from domains.support.models import Product

    st = EpisodeState(support.base, support.template())
    try:
        p = st.session.query(Product).order_by(Product.id).first()
        p.stock = 4242  # pending in the ORM session, not flushed
        with rows_of(st.session) as rows:
            row = rows.get("products", p.id)
            assert row.stock == 4242  # entering synced the ORM first
            row.stock = 7
        assert p.stock == 7  # the ORM object was expired and reloads what was written
        assert ("products" in st.touched.rows) and (p.id,) in st.touched.rows["products"]
    finally:
        st.close()


def test_columns_read_as_the_orm_reads_them_and_unknown_names_are_refused(support):
    from domains.support.models import Order

    st = EpisodeState(support.base, support.template())
    try:
        orm = st.session.get(Order, st.session.query(Order.id).order_by(Order.id).first()[0])
        want = {c.name: getattr(orm, c.key) for c in Order.__table__.columns}
        st.session.expire_all()
        with rows_of(st.session) as rows:
            o = rows.get("orders", orm.id)
            assert {c: getattr(o, c) for c in want} == want  # plain and decoded columns alike
            with pytest.raises(AttributeError, match="no column"):
                o.no_such_column
            with pytest.raises(AttributeError, match="no column"):
                o.no_such_column = 1
            o.placed_at = o.placed_at  # a decoded column assigned its own value: no change
        assert st.touched.rows == {}
    finally:
        st.close()
