"""``--backend ray`` plays by the run's limits as the local backend does (one implementation,
``envs.run.limits.RunLimits``): for each limit flag, a local run and a Ray run on the same stub
server give the same terminations and attempts. A local Ray instance listens on loopback only."""

from __future__ import annotations

import json
import os

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (the ray extra: pip install -e '.[ray]')")

from envs.records import EpisodeRecord  # noqa: E402
from envs.run.cli import main  # noqa: E402
from envs.run.ray_backend import PASSED_ENV, init_ray  # noqa: E402
from fake_llm_server import FakeLLMServer, Reply, default_agent  # noqa: E402

FAST = ["--request-timeout", "30", "--max-retries", "2", "--request-backoff", "0.01"]  # generous: the fake server answers at once, a busy machine may not schedule it for seconds
AGENT, USER, PRICED = "openai/fake-agent", "openai/fake-user", "openai/gpt-4o-mini"


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    if ray.is_initialized():
        ray.shutdown()
    init_ray(None, {k: os.environ[k] for k in PASSED_ENV if k in os.environ})
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def server():
    srv = FakeLLMServer(models=("gpt-4o-mini",)).start()
    yield srv
    srv.stop()


def run(server, tmp_path, name, *extra, agent=AGENT, repeats=1, backend="local", faults=(), latency=0.0):
    server.reset()
    server.latency = latency
    server.behaviours["gpt-4o-mini"] = default_agent
    if faults:
        server.queue("fake-agent", *faults)
    out = tmp_path / name
    argv = ["--domain", "toy", "--repeats", str(repeats), "--agent", agent, "--user", USER, "--quiet", "--api-base", server.url,
            "--out", str(out), "--concurrency", "1", *FAST, *extra]
    if backend == "ray":
        argv += ["--backend", "ray", "--workers", "1"]
    assert main(argv) == 0
    recs = [EpisodeRecord.model_validate_json(l) for l in (out / "episodes.jsonl").read_text().splitlines() if l.strip()]
    return [(r.task_id, r.repeat, r.attempt, r.status, r.termination, r.reward) for r in recs], \
        json.loads((out / "summary.json").read_text())


FAULT = Reply.error(500)
CASES = {
    "max-tokens-per-episode": dict(extra=("--max-tokens-per-episode", "40"), expect="budget_tokens"),
    "max-cost-per-episode": dict(extra=("--max-cost-per-episode", "0.0000001"), agent=PRICED, expect="budget_cost"),
    "retry-errors": dict(extra=("--retry-errors", "2", "--retry-backoff", "0.01"), faults=(FAULT,) * 6, expect="user_stop"),
    "retry-errors-0": dict(extra=("--retry-errors", "0"), faults=(FAULT,) * 3, expect="error"),
    "max-cost": dict(extra=("--max-cost", "0.0000001"), agent=PRICED, repeats=3, expect="user_stop"),
}


@pytest.mark.parametrize("flag", sorted(CASES))
def test_each_limit_flag_means_the_same_on_ray(server, tmp_path, flag):
    c = CASES[flag]
    kw = dict(agent=c.get("agent", AGENT), repeats=c.get("repeats", 1), faults=c.get("faults", ()))
    local, s_local = run(server, tmp_path, "local", *c["extra"], **kw)
    on_ray, s_ray = run(server, tmp_path, "ray", *c["extra"], backend="ray", **kw)
    assert on_ray == local, (flag, local, on_ray)
    assert local[-1][4] == c["expect"], local
    for k in ("retried", "retried_ok", "not_played", "budget_stops", "errors", "episodes"):
        assert s_ray[k] == s_local[k], (flag, k, s_local[k], s_ray[k])


def test_the_time_budget_means_the_same_on_ray(tmp_path):
    slow = FakeLLMServer().start()
    try:
        local, _ = run(slow, tmp_path, "local", "--max-seconds-per-episode", "0.6", latency=0.4)
        on_ray, _ = run(slow, tmp_path, "ray", "--max-seconds-per-episode", "0.6", backend="ray", latency=0.4)
    finally:
        slow.stop()
    assert on_ray == local and local[0][4] == "budget_seconds"


def _listening(pids: set[int]) -> list[tuple[int, str]]:
    """(pid, local address in /proc/net/tcp hex) of every listening TCP socket the processes hold."""
    inodes = {}
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if link.startswith("socket:["):
                    inodes[link[8:-1]] = pid
        except OSError:
            continue
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in open(table).read().splitlines()[1:]:
            parts = line.split()
            if parts[3] == "0A" and parts[9] in inodes:  # 0A: LISTEN
                out.append((inodes[parts[9]], parts[1].rsplit(":", 1)[0]))
    return out


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                ppid = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(p))
    seen, todo = set(), [root]
    while todo:
        p = todo.pop()
        seen.add(p)
        todo += children.get(p, [])
    return seen


LOOPBACK_V4 = "0100007F"  # 127.0.0.1, little-endian hex as /proc/net/tcp writes it
LOOPBACK_V6 = ("00000000000000000000000001000000", "0000000000000000FFFF00000100007F")  # ::1, ::ffff:127.0.0.1


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads Linux's /proc/net/tcp")
def test_a_local_ray_instance_opens_no_socket_off_loopback():
    @ray.remote
    def ping():
        return os.getpid()

    ray.get([ping.remote() for _ in range(2)])  # the workers are up
    procs = _descendants(os.getpid())
    socks = _listening(procs)
    ray_socks = [(pid, a) for pid, a in socks if pid != os.getpid()]
    assert len(ray_socks) >= 3, socks  # the GCS, the raylet, the workers: found and checked
    off = [(pid, open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0].decode(), a) for pid, a in socks
           if a != LOOPBACK_V4 and a not in LOOPBACK_V6]
    assert off == [], off
    assert ray.util.get_node_ip_address() == "127.0.0.1"
