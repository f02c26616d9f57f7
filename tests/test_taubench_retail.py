"""tau-bench retail inside sitgym, checked against tau-bench's own test vectors.

The vectors (``gold_test.json``) were computed with tau-bench's engine: for each
of the 115 test tasks, the string every gold action returns and the records the
gold actions change. Replaying the gold actions here must give the same strings
and exactly the same changed records. Needs the data (``../shared/data/
tau-bench-retail`` beside the checkout, or ``$SITGYM_TAUBENCH_DATA``); skipped
otherwise.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from envs.errors import SpecError

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "tau-bench-retail"
DATA = Path(os.environ.get("SITGYM_TAUBENCH_DATA") or DEFAULT_DATA)
HAVE_DATA = (DATA / "db" / "users.json").is_file() and (DATA / "gold_test.json").is_file()

pytestmark = pytest.mark.skipif(
    not HAVE_DATA, reason=f"tau-bench retail data not found at {DATA} (set SITGYM_TAUBENCH_DATA to the folder)"
)

MUTATING = {
    "cancel_pending_order",
    "exchange_delivered_order_items",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "modify_user_address",
    "return_delivered_order_items",
}


@pytest.fixture(scope="module")
def domain():
    from domains.taubench_retail import make_domain

    d = make_domain({"data": DATA})
    t0 = time.perf_counter()
    d.template()
    print(f"\ntemplate build: {1000 * (time.perf_counter() - t0):.0f} ms")
    return d


@pytest.fixture(scope="module")
def gold() -> list[dict]:
    return json.loads((DATA / "gold_test.json").read_text(encoding="utf-8"))


@dataclass
class Replay:
    observations: list[str]
    ok: list[bool]
    final: bytes
    dirty: set[str]


_SCRATCH: dict[int, Any] = {}


def replay(domain, task, actions) -> Replay:
    """Replay ``actions`` from the task's initial state, resetting one reused episode state
    (as the runner does; a fresh state per replay would recompile every SQL statement)."""
    from envs.state.database import EpisodeState

    st = _SCRATCH.get(id(domain))
    if st is None:
        st = _SCRATCH[id(domain)] = EpisodeState(domain.base, domain.initial_bytes(task))
    else:
        st.load(domain.initial_bytes(task))
    outs = [domain.agent_tools.call(st.session, a.name, a.arguments) for a in actions]
    return Replay([o.output for o in outs], [o.ok for o in outs], st.snapshot(), set(st.dirty_tables))


@pytest.fixture(scope="module", autouse=True)
def _close_scratch_states():
    yield
    for st in _SCRATCH.values():
        st.close()
    _SCRATCH.clear()


@pytest.fixture(scope="module")
def replays(domain) -> dict[str, Replay]:
    return {tid: replay(domain, t, t.expected_actions) for tid, t in domain.tasks.items()}


def taubench_changes(domain, before: bytes, after: bytes, ignore, tables=None) -> dict:
    """The state diff (``graders.outcome.state_diff``) of two states, in gold_test.json's shape."""
    from envs.state.database import EpisodeState
    from graders.outcome.state_diff import diff_bytes

    from domains.taubench_retail.exporter import RECORD_OF_TABLE, export_state

    ids: dict[str, set] = {"users": set(), "orders": set(), "products": set()}
    kinds: dict[tuple[str, str], str] = {}
    for td in diff_bytes(after, before, domain.base.metadata, tables, ignore):
        table, col = RECORD_OF_TABLE[td.table]
        root = table == td.table
        for r in td.unexpected:  # only after: a new record, or a new row of a record
            ids[table].add(r[col])
            if root:
                kinds[(table, r[col])] = "added"
        for r in td.missing:
            ids[table].add(r[col])
            if root:
                kinds[(table, r[col])] = "removed"
        for ch in td.changed:
            ids[table].add(ch.key[col] if col in ch.key else None)
    st = EpisodeState(domain.base, after)
    try:
        records = export_state(st.session, **{t: sorted(v) for t, v in ids.items()})
    finally:
        st.close()
    out: dict = {}
    for table, tids in ids.items():
        if not tids:
            continue
        entry: dict = {"added": {}, "changed": {}, "removed": []}
        for rid in sorted(tids):
            kind = kinds.get((table, rid), "changed")
            if kind == "removed":
                entry["removed"].append(rid)
            else:
                entry[kind][rid] = records[table][rid]
        out[table] = entry
    return out


def canon(x) -> str:
    return json.dumps(x, sort_keys=True)


# -- 1. fidelity: observations and changed records, all 115 tasks ---------------------------------------


def test_gold_replay_reproduces_taubench(domain, gold, replays):
    tasks = list(domain.tasks.values())
    assert len(tasks) == len(gold) == 115
    obs_ok = changes_ok = 0
    failures = []
    for task, g in zip(tasks, gold):
        assert task.extra["taubench_index"] == g["index"]
        r = replays[task.id]
        if r.observations == g["observations"]:
            obs_ok += 1
        else:
            i = next(i for i, (a, b) in enumerate(zip(r.observations, g["observations"])) if a != b)
            failures.append(f"{task.id} action {i}: {r.observations[i][:200]!r} != {g['observations'][i][:200]!r}")
        # Tables the replay wrote (what the grader compares); every 10th task: all tables,
        # which shows the write tracking misses nothing.
        tables = None if task.extra["taubench_index"] % 10 == 0 else r.dirty
        ours = taubench_changes(domain, domain.initial_bytes(task), r.final, task.ignore_columns, tables)
        if canon(ours) == canon(g["changes"]):
            changes_ok += 1
        else:
            failures.append(f"{task.id} changes: {canon(ours)[:300]} != {canon(g['changes'])[:300]}")
    print(f"\nobservations identical: {obs_ok}/115; changed records identical: {changes_ok}/115")
    assert not failures, "\n".join(failures[:10])
    assert obs_ok == changes_ok == 115
    assert sum(1 for g in gold if g["changes"]) == 104


# -- 2. the grader: gold earns 1, a dropped or altered action does not -------------------------------------


def goal_diff(domain, task, final: bytes, dirty: set[str]):
    """What ``graders.outcome.grade.grade_episode`` compares: the final state vs ``Domain.goal``."""
    from graders.outcome.state_diff import diff_bytes

    goal, goal_tables, _ = domain.goal(task)
    return diff_bytes(final, goal, domain.base.metadata, set(goal_tables) | dirty, task.ignore_columns)


def alterations(action, initial_user: dict) -> list[dict]:
    """Deterministic variants of a mutating action's arguments, most plausible first."""
    args = action.arguments
    out = []
    if "reason" in args:
        other = "ordered by mistake" if args["reason"] == "no longer needed" else "no longer needed"
        out.append({**args, "reason": other})
    if "zip" in args:
        out.append({**args, "zip": str(args["zip"])[:-1] + ("0" if str(args["zip"])[-1:] != "0" else "1")})
    if "payment_method_id" in args:
        for pm in initial_user.get("payment_methods", {}):
            if pm != args["payment_method_id"]:
                out.append({**args, "payment_method_id": pm})
    if isinstance(args.get("item_ids"), list) and len(args["item_ids"]) > 1:
        shorter = {**args, "item_ids": args["item_ids"][:-1]}  # one item fewer
        if "new_item_ids" in args:
            shorter["new_item_ids"] = args["new_item_ids"][:-1]
        out.append(shorter)
    if "order_id" in args:
        out.append({**args, "order_id": args["order_id"] + "0"})  # no such order: the action fails
    return out


def test_grader_rewards_gold_and_only_gold(domain, gold, replays):
    from envs.state.database import EpisodeState

    from domains.taubench_retail.exporter import export_state

    checked_drop = checked_alter = 0
    for task, g in zip(domain.tasks.values(), gold):
        r = replays[task.id]
        goal, _, _ = domain.goal(task)
        assert goal_diff(domain, task, r.final, r.dirty) == [], f"{task.id}: gold replay differs from the goal"
        if not g["changes"]:
            continue
        mutating = [i for i, a in enumerate(task.expected_actions) if a.name in MUTATING and r.ok[i]]
        assert mutating, f"{task.id}: changes state but no successful mutating action"

        # one mutating action dropped (the last one whose absence shows)
        for i in reversed(mutating):
            dropped = replay(domain, task, task.expected_actions[:i] + task.expected_actions[i + 1:])
            if goal_diff(domain, task, dropped.final, dropped.dirty):
                checked_drop += 1
                break
        else:
            pytest.fail(f"{task.id}: dropping any one mutating action still matches the goal")

        # one argument of a mutating action altered
        st = EpisodeState(domain.base, domain.initial_bytes(task))
        user = export_state(st.session, users=[task.extra["user_id"]])["users"].get(task.extra["user_id"], {})
        st.close()
        found = False
        for i in reversed(mutating):
            for alt in alterations(task.expected_actions[i], user):
                actions = copy.deepcopy(task.expected_actions)
                actions[i].arguments = alt
                altered = replay(domain, task, actions)
                if goal_diff(domain, task, altered.final, altered.dirty):
                    found = True
                    break
            if found:
                checked_alter += 1
                break
        assert found, f"{task.id}: no alteration of a mutating action changed the outcome"
    print(f"\ngold replays at the goal: 115/115; dropped action caught: {checked_drop}/104; "
          f"altered argument caught: {checked_alter}/104")
    assert checked_drop == checked_alter == 104


def test_gold_agent_through_the_episode_loop(domain):
    """The scripted ``gold`` agent, through ``run_episode``, earns reward 1 (state and outputs)."""
    from envs.episode import run_episode
    from envs.actors.scripted_user import ScriptedUser

    tasks = list(domain.tasks.values())
    picked = [t for t in tasks if t.outputs][:2] + [tasks[0], tasks[12], tasks[50]]  # outputs, exchange, transfers
    agent = domain.scripted_agents["gold"]()
    for task in picked:
        rec = asyncio.run(run_episode(domain, task, agent, ScriptedUser(), seed=0))
        assert rec.status == "ok", rec.error
        assert rec.reward == 1.0, (task.id, rec.grade)
        calls = [e.call.name for e in rec.transcript if e.kind == "tool"]
        assert calls == [a.name for a in task.expected_actions]
        if task.expected_actions[-1].name == "transfer_to_human_agents":
            assert rec.termination == "transfer"


# -- 3. export round-trip ----------------------------------------------------------------------------------


def test_export_round_trips_the_initial_state(domain):
    from envs.state.database import EpisodeState, build_template

    from domains.taubench_retail.exporter import export_state

    assert build_template(domain.base, domain.seed_fn, domain.seed) == domain.template()  # deterministic import

    st = EpisodeState(domain.base, domain.template())
    try:
        exported = export_state(st.session)
    finally:
        st.close()
    for table in ("users", "orders", "products"):
        original = json.loads((DATA / "db" / f"{table}.json").read_text(encoding="utf-8"))
        assert json.dumps(exported[table], sort_keys=True) == json.dumps(original, sort_keys=True), table
        assert json.dumps(exported[table]) == json.dumps(original), f"{table}: key order differs"


# -- 4. bad inputs: tau-bench's error strings, no state change ----------------------------------------------

ORDER = "#W2378156"  # delivered, user yusuf_rossi_9620
PENDING = "#W5918442"  # pending, one payment


def _state_after(domain, calls):
    from envs.state.database import EpisodeState

    st = EpisodeState(domain.base, domain.template())
    outs = [domain.agent_tools.call(st.session, n, a) for n, a in calls]
    data = st.snapshot()
    st.close()
    return outs, data


@pytest.mark.parametrize(
    "name,args,expected",
    [
        ("no_such_tool", {"order_id": ORDER}, "Unknown action no_such_tool"),
        ("get_order_details", {}, "Error: GetOrderDetails.invoke() missing 1 required positional argument: 'order_id'"),
        ("cancel_pending_order", {"order_id": PENDING},
         "Error: CancelPendingOrder.invoke() missing 1 required positional argument: 'reason'"),
        ("get_order_details", {"order_id": ORDER, "verbose": True},
         "Error: GetOrderDetails.invoke() got an unexpected keyword argument 'verbose'"),
        ("get_order_details", {"order_id": ["#W2378156"]}, "Error: unhashable type: 'list'"),
        ("get_order_details", {"order_id": 2378156}, "Error: order not found"),
        ("get_user_details", {"user_id": {"id": "x"}}, "Error: unhashable type: 'dict'"),
        ("find_user_id_by_email", {"email": 42}, "Error: 'int' object has no attribute 'lower'"),
        ("calculate", {"expression": 7}, "Error: 'int' object is not iterable"),
        ("calculate", {"expression": "__import__('os')"}, "Error: invalid characters in expression"),
        ("calculate", {"expression": "1/0"}, "Error: division by zero"),
        ("calculate", {"expression": "9**9**9**9"}, "Error: exponent too large to compute"),
        ("get_order_details", {"order_id": "#W2378156' OR '1'='1"}, "Error: order not found"),
        ("get_user_details", {"user_id": "x'; DROP TABLE users; --"}, "Error: user not found"),
        ("find_user_id_by_name_zip", {"first_name": "Yusuf' --", "last_name": "Rossi", "zip": "19122' OR 1=1"},
         "Error: user not found"),
        ("cancel_pending_order", {"order_id": "1 OR 1=1", "reason": "no longer needed"}, "Error: order not found"),
        ("cancel_pending_order", {"order_id": PENDING, "reason": "because"}, "Error: invalid reason"),
        ("return_delivered_order_items",
         {"order_id": ORDER, "item_ids": "1151293680", "payment_method_id": "credit_card_9513926"},
         "Error: some item not found"),
        ("exchange_delivered_order_items",
         {"order_id": ORDER, "item_ids": ["1151293680"], "new_item_ids": 7, "payment_method_id": "credit_card_9513926"},
         "Error: object of type 'int' has no len()"),
        ("exchange_delivered_order_items",
         {"order_id": ORDER, "item_ids": None, "new_item_ids": [], "payment_method_id": "credit_card_9513926"},
         "Error: 'NoneType' object is not iterable"),
        ("modify_pending_order_address",
         {"order_id": PENDING, "address1": "1 Main", "address2": "", "city": "X", "state": "Y", "country": "USA",
          "zip": 12345},
         "Error: address field 'zip' must be a string, got int"),
        ("modify_pending_order_payment", {"order_id": PENDING, "payment_method_id": "'; DELETE FROM payments; --"},
         "Error: payment method not found"),
    ],
)
def test_bad_inputs_give_taubench_errors_and_change_nothing(domain, name, args, expected):
    outs, data = _state_after(domain, [(name, args)])
    assert outs[0].output == expected
    assert not outs[0].ok
    assert _same_state(domain, data)


def _same_state(domain, data: bytes) -> bool:
    from graders.outcome.state_diff import diff_bytes

    return diff_bytes(data, domain.template(), domain.base.metadata) == []


def test_bad_json_arguments_and_schemas(domain):
    outs, data = _state_after(domain, [
        ("get_order_details", "{not json"),
        ("get_order_details", "[1, 2]"),
        ("get_order_details", json.dumps({"order_id": ORDER})),
    ])
    assert outs[0].output.startswith("Error: ") and outs[0].error_kind == "bad_arguments"
    assert outs[1].output.startswith("Error: ") and outs[1].error_kind == "bad_arguments"
    assert outs[2].ok and json.loads(outs[2].output)["order_id"] == ORDER
    assert _same_state(domain, data)
    schemas = json.loads((DATA / "tools.json").read_text(encoding="utf-8"))
    assert domain.agent_tools.schemas() == schemas  # exactly tau-bench's, in its order
    assert domain.agent_tools["transfer_to_human_agents"].terminal


def test_policy_and_tasks_come_from_the_data(domain):
    assert domain.policy == (DATA / "policy.md").read_text(encoding="utf-8")
    t = domain.tasks["retail-test-000"]
    assert t.domain == "taubench-retail" and t.scenario.goal == t.scenario.request and t.scenario.max_turns == 30
    assert t.extra == {"user_id": "yusuf_rossi_9620", "taubench_index": 0}


def test_bad_data_path_is_one_clear_line(tmp_path):
    from domains.taubench_retail import make_domain

    d = make_domain().with_options(data=str(tmp_path / "nowhere"))
    with pytest.raises(SpecError) as e:
        d.tasks
    assert "nowhere" in str(e.value) and "--taubench-data" in str(e.value) and "\n" not in str(e.value)

    # a folder with the right layout but a malformed record: file, record.field, reason
    (tmp_path / "db").mkdir()
    for f in ("orders.json", "products.json"):
        (tmp_path / "db" / f).write_text("{}")
    users = json.loads((DATA / "db" / "users.json").read_text(encoding="utf-8"))
    uid = next(iter(users))
    users[uid]["payment_methods"] = {"gift_card_1": {"source": "gift_card", "balance": "ten", "id": "gift_card_1"}}
    (tmp_path / "db" / "users.json").write_text(json.dumps(users))
    d = d.with_options(data=str(tmp_path))  # a new definition: nothing cached from the path above
    with pytest.raises(SpecError) as e:
        d.template()
    msg = str(e.value)
    assert msg.startswith(str(tmp_path / "db" / "users.json")) and f"{uid}.payment_methods.gift_card_1.balance" in msg
    assert "expected a number" in msg and "\n" not in msg


def test_registered_under_both_names():
    from envs.domain import get_domain

    assert get_domain("retail") is get_domain("taubench-retail")
    assert get_domain("retail").gym_id == "TaubenchRetail-v0"


def test_a_taubench_checkout_layout_is_understood(tmp_path, domain, gold):
    """tau_bench/envs/retail/{data/*.json, tasks_test.py, tools/*.py, wiki.md}: read, never executed."""
    import pprint
    import shutil

    from domains.taubench_retail import make_domain

    retail = tmp_path / "tau_bench" / "envs" / "retail"
    (retail / "data").mkdir(parents=True)
    (retail / "tools").mkdir()
    for f in ("users.json", "orders.json", "products.json"):
        shutil.copy(DATA / "db" / f, retail / "data" / f)
    shutil.copy(DATA / "policy.md", retail / "wiki.md")
    schemas = json.loads((DATA / "tools.json").read_text(encoding="utf-8"))
    for s in schemas:
        (retail / "tools" / f"{s['function']['name']}.py").write_text(
            "from tau_bench.envs.tool import Tool\n\n\nclass T(Tool):\n    @staticmethod\n"
            "    def invoke(data):\n        raise RuntimeError('never executed')\n\n"
            f"    @staticmethod\n    def get_info():\n        return {pprint.pformat(s)}\n"
        )
    (retail / "tools" / "__init__.py").write_text("ALL_TOOLS = []\n")
    tasks = json.loads((DATA / "tasks_test.json").read_text(encoding="utf-8"))[:3]
    body = ",\n".join(
        f"    Task(annotator='0', user_id={t['user_id']!r}, instruction={t['instruction']!r}, actions=["
        + ", ".join(f"Action(name={a['name']!r}, kwargs={a['kwargs']!r})" for a in t["actions"])
        + f"], outputs={t['outputs']!r})"
        for t in tasks
    )
    (retail / "tasks_test.py").write_text(
        f"from tau_bench.types import Task, Action\n\nTASKS_TEST = [\n{body}\n]\n", encoding="utf-8"
    )

    d = make_domain({"data": tmp_path})  # the checkout root
    first_three = list(domain.tasks.values())[:3]
    assert [t.expected_actions for t in d.tasks.values()] == [t.expected_actions for t in first_three]
    assert d.agent_tools.schemas() == schemas
    assert d.policy == domain.policy
    for task, g in zip(d.tasks.values(), gold):
        assert replay(d, task, task.expected_actions).observations == g["observations"]


def _taubench_calculate(expression):
    """tau-bench's calculate, as its source reads, wrapped as its env wraps tools (the oracle)."""
    try:
        if not all(char in "0123456789+-*/(). " for char in expression):
            return "Error: invalid characters in expression"
        try:
            return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))
        except Exception as e:
            return f"Error: {e}"
    except Exception as e:
        return f"Error: {e}"


def test_calculate_matches_taubench_on_random_expressions(domain):
    import warnings

    from hypothesis import given, settings
    from hypothesis import strategies as hs

    from envs.state.database import EpisodeState

    st = EpisodeState(domain.base, domain.template())
    exprs = hs.text(alphabet="0123456789+-*/(). \t", max_size=12).filter(lambda s: "**" not in s)
    small_pow = hs.builds(lambda a, b, c: f"{a} ** {b}{c}", hs.integers(-20, 20), hs.integers(-3, 30),
                          hs.sampled_from(["", ".5", " * 2", " / 0"]))

    @settings(max_examples=250, deadline=None, derandomize=True)
    @given(hs.one_of(exprs, small_pow))
    def check(expr):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            ours = domain.agent_tools.call(st.session, "calculate", {"expression": expr}).output
            assert ours == _taubench_calculate(expr), expr

    try:
        check()
    finally:
        st.close()


def test_paths_the_gold_actions_do_not_take(domain):
    """Refunds to gift cards, duplicate items, refusals: read off tau-bench's rules, by hand."""
    from envs.state.database import EpisodeState

    from domains.taubench_retail.exporter import export_state

    st = EpisodeState(domain.base, domain.template())
    call = lambda name, **kw: domain.agent_tools.call(st.session, name, kw)  # noqa: E731
    try:
        data = export_state(st.session)
        users, orders, products = data["users"], data["orders"], data["products"]

        # Paid by gift card, moved to a credit card: charge the card, refund the gift card at once.
        o = orders["#W6779827"]
        gc, = [p["payment_method_id"] for p in o["payment_history"]]
        out = call("modify_pending_order_payment", order_id="#W6779827", payment_method_id="credit_card_9789590")
        amount = o["payment_history"][0]["amount"]
        assert json.loads(out.output)["payment_history"] == o["payment_history"] + [
            {"transaction_type": "payment", "amount": amount, "payment_method_id": "credit_card_9789590"},
            {"transaction_type": "refund", "amount": amount, "payment_method_id": gc},
        ]
        balance = json.loads(call("get_user_details", user_id=o["user_id"]).output)["payment_methods"][gc]["balance"]
        before = users[o["user_id"]]["payment_methods"][gc]["balance"]
        assert isinstance(before, int) and balance == round(before + amount, 2) and isinstance(balance, float)
        again = call("modify_pending_order_payment", order_id="#W6779827", payment_method_id=gc)
        assert again.output == "Error: there should be exactly one payment for a pending order"

        # A pending order holding the same item twice: both lines change, the difference is not rounded.
        o = orders["#W9093821"]
        dup = "3557711149"
        line = next(i for i in o["items"] if i["item_id"] == dup)
        variants = products[line["product_id"]]["variants"].values()
        new = next(v for v in variants if v["available"] and v["item_id"] != dup)
        assert call("modify_pending_order_items", order_id="#W9093821", item_ids=[dup] * 3,
                    new_item_ids=[new["item_id"]] * 3, payment_method_id="credit_card_7422485"
                    ).output == f"Error: {dup} not found"
        out = json.loads(call("modify_pending_order_items", order_id="#W9093821", item_ids=[dup, dup],
                              new_item_ids=[new["item_id"]] * 2, payment_method_id="credit_card_7422485").output)
        diff = 0
        for _ in range(2):
            diff += new["price"] - line["price"]
        assert [i["item_id"] for i in out["items"]].count(new["item_id"]) == 2 and dup not in json.dumps(out["items"])
        assert out["payment_history"][-1] == {"transaction_type": "payment" if diff > 0 else "refund",
                                              "amount": abs(diff), "payment_method_id": "credit_card_7422485"}
        assert out["status"] == "pending (item modified)" and list(out["items"][0]) == list(o["items"][0])

        # Refusals, in tau-bench's order of checks.
        assert call("cancel_pending_order", order_id="#W1840144", reason="no longer needed").output == (
            "Error: non-pending order cannot be cancelled")
        assert call("exchange_delivered_order_items", order_id="#W1840144", item_ids=["8590708195", "8590708195"],
                    new_item_ids=["8590708195"], payment_method_id="paypal_2306935").output == (
            "Error: the number of items to be exchanged should match")
        assert call("modify_pending_order_address", order_id="#W1840144", address1="a", address2="b", city="c",
                    state="d", country="e", zip="f").output == "Error: non-pending order cannot be modified"
        poor = next(
            (oid, pid) for oid, o in orders.items() if o["status"] == "pending" and len(o["payment_history"]) == 1
            for pid, pm in users[o["user_id"]]["payment_methods"].items()
            if pm["source"] == "gift_card" and pm["balance"] < o["payment_history"][0]["amount"]
            and pid != o["payment_history"][0]["payment_method_id"]
        )
        assert call("modify_pending_order_payment", order_id=poor[0], payment_method_id=poor[1]).output == (
            "Error: insufficient gift card balance to pay for the order")
        assert call("return_delivered_order_items", order_id="#W1840144", item_ids=["8590708195"],
                    payment_method_id="credit_card_3240550").output == (
            "Error: payment method should be either the original payment method or a gift card")
    finally:
        st.close()
