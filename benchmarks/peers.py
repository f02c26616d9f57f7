"""tau-bench v1 and tau2-bench measured on their own retail data, through their own APIs.

    python benchmarks/peers.py v1 PATH_TO_TAU_BENCH_CHECKOUT [--n 300] [--extra-path DIR]
    python benchmarks/peers.py tau2 PATH_TO_TAU2_BENCH_CHECKOUT [--n 300] [--extra-path DIR]

Run by ``benchmarks/taubench_retail.py`` in a process of its own (the peers' imports stay out of
ours); with ``--serve`` it then measures one round of read and write for each line it reads (the
repetitions), so the caller can interleave its own rounds with the peer's on a busy machine. Prints one JSON object of medians in milliseconds: ``reset`` (a fresh copy of the data, as
their env reset does), ``read`` (one ``get_order_details`` through the env's step / get_response),
``write`` (one ``cancel_pending_order`` on a pending order, data reset before each call, untimed),
``grade`` (their reward computation for the task with the most state-changing gold actions, its gold
actions already played). ``--extra-path`` puts a folder of the peer's dependencies on the import path
after ours. Their code is never copied into sitgym; a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm would fetch prices on import

WRITE_TOOLS = {"cancel_pending_order", "exchange_delivered_order_items", "modify_pending_order_address",
               "modify_pending_order_items", "modify_pending_order_payment", "modify_user_address",
               "return_delivered_order_items"}


def median_ms(fn: Callable[[], Any], n: int, setup: Callable[[], Any] | None = None) -> float:
    times = []
    for _ in range(n):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _pending_order(orders: dict) -> str:
    return next(oid for oid, o in orders.items() if o["status"] == "pending")


def measure_v1(path: Path, n: int) -> tuple[dict, Callable[[int], dict]]:
    """tau-bench v1: ``Env.step`` with tool actions, ``data_load_func`` as reset, ``calculate_reward``."""
    sys.path.insert(0, str(path))
    from tau_bench.envs.retail.data import load_data
    from tau_bench.envs.retail.env import MockRetailDomainEnv
    from tau_bench.types import Action

    env = MockRetailDomainEnv(user_strategy="human", user_model="none", task_split="test", task_index=0)
    reset = median_ms(load_data, max(10, n // 10))
    order_id = next(a.kwargs["order_id"] for t in env.tasks for a in t.actions if a.name == "get_order_details")
    read_action = Action(name="get_order_details", kwargs={"order_id": order_id})
    pristine = load_data()
    pending = _pending_order(pristine["orders"])
    write_action = Action(name="cancel_pending_order", kwargs={"order_id": pending, "reason": "no longer needed"})

    def fresh() -> None:
        env.data = load_data()

    out = env.step(write_action)
    assert '"cancelled"' in out.observation, out.observation

    def one_round(k: int) -> dict:
        return {"read": median_ms(lambda: env.step(read_action), k),
                "write": median_ms(lambda: env.step(write_action), max(10, k // 10), setup=fresh)}

    idx = max(range(len(env.tasks)), key=lambda i: sum(a.name in WRITE_TOOLS for a in env.tasks[i].actions))
    task = env.tasks[idx]

    def played() -> None:
        env.task_index, env.task, env.actions = idx, task, []
        env.data = load_data()
        for a in task.actions:
            if a.name not in env.terminate_tools:
                env.step(a)

    grade = median_ms(lambda: env.calculate_reward(), 10, setup=played)
    fresh()
    return {"engine": "tau-bench v1", "reset": reset, "grade": grade, "graded_actions": len(task.actions)}, one_round


def measure_tau2(path: Path, n: int) -> tuple[dict, Callable[[int], dict]]:
    """tau2-bench: ``Environment.get_response``, ``get_environment`` as reset, ``EnvironmentEvaluator``."""
    sys.path.insert(0, str(path / "src"))
    os.environ.setdefault("TAU2_DATA_DIR", str(path / "data"))
    from loguru import logger

    logger.remove()  # it logs every tool call at DEBUG to stderr
    from tau2.data_model.message import AssistantMessage, ToolCall
    from tau2.domains.retail.environment import get_environment, get_tasks
    from tau2.evaluator.evaluator_env import EnvironmentEvaluator

    env = get_environment()
    reset = median_ms(get_environment, max(10, n // 30))
    tasks = get_tasks(None)
    order_id = next(a.arguments["order_id"] for t in tasks for a in (t.evaluation_criteria.actions or [])
                    if a.name == "get_order_details")
    read_call = ToolCall(id="r", name="get_order_details", arguments={"order_id": order_id})
    orders = {oid: o.model_dump() for oid, o in env.tools.db.orders.items()}
    pending = _pending_order(orders)
    write_call = ToolCall(id="w", name="cancel_pending_order", arguments={"order_id": pending, "reason": "no longer needed"})
    holder: dict = {}

    def fresh() -> None:
        holder["env"] = get_environment()

    fresh()
    res = holder["env"].get_response(write_call)
    assert not res.error and "cancelled" in res.content, res.content

    def one_round(k: int) -> dict:
        return {"read": median_ms(lambda: env.get_response(read_call), k),
                "write": median_ms(lambda: holder["env"].get_response(write_call), max(10, k // 30), setup=fresh)}

    task = max(tasks, key=lambda t: sum(a.name in WRITE_TOOLS for a in (t.evaluation_criteria.actions or [])))
    traj: list = []
    played_env = get_environment()
    for i, a in enumerate(task.evaluation_criteria.actions or []):
        tc = ToolCall(id=f"c{i}", name=a.name, arguments=a.arguments, requestor=a.requestor)
        traj.append(AssistantMessage(role="assistant", tool_calls=[tc]))
        traj.append(played_env.get_response(tc))
    result = EnvironmentEvaluator.calculate_reward(get_environment, task, traj)
    assert result.reward == 1.0, result
    grade = median_ms(lambda: EnvironmentEvaluator.calculate_reward(get_environment, task, traj), 10)
    return {"engine": "tau2-bench", "reset": reset, "grade": grade,
            "graded_actions": len(task.evaluation_criteria.actions or [])}, one_round


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine", choices=("v1", "tau2"))
    ap.add_argument("path", type=Path, help="the engine's checkout")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--extra-path", action="append", default=[], help="a folder of the engine's dependencies")
    ap.add_argument("--serve", action="store_true",
                    help="after the first line, measure one round of read and write per line read on stdin "
                         "(the caller interleaves its own rounds between them)")
    args = ap.parse_args()
    sys.path.extend(args.extra_path)
    if not args.path.is_dir():
        print(json.dumps({"error": f"{args.path}: not a directory"}))
        raise SystemExit(2)
    try:
        out, one_round = (measure_v1 if args.engine == "v1" else measure_tau2)(args.path.resolve(), args.n)
        if not args.serve:
            out.update(one_round(args.n))
    except Exception as e:  # a checkout we cannot run: one line, not a traceback
        print(json.dumps({"error": f"{args.engine} at {args.path}: {type(e).__name__}: {e}"}), flush=True)
        raise SystemExit(1) from None
    print(json.dumps(out), flush=True)
    if args.serve:
        for line in sys.stdin:
            print(json.dumps(one_round(int(line.strip() or args.n))), flush=True)


if __name__ == "__main__":
    main()
