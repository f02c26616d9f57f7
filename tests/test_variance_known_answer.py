"""A known-answer check of ``envs.variance``: seeded slipping scripted roles (``envs.actors.slipping``).

On a task where the slip decides the outcome (the wrapped careful agent passes without it and fails
with it), a per-episode slip of rate p makes success Bernoulli(1 - p), whose variance is p(1 - p).
The split must recover that within its interval for the slipping role, and measure (or state) zero
for the other. The tasks are chosen by playing rate 0 and rate 1, not pinned, so a change to the
tasks or the careful agent moves the selection and not the answer. Scripted only: fast, offline.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envs.records import EpisodeId, RunSummary

P = 0.3
KNOWN = P * (1 - P)
CANDIDATES = [
    "sup_ambig_one_item", "sup_ambig_whole_order", "sup_asks_for_human", "sup_cancel_before_dispatch",
    "sup_change_address", "sup_damaged_replacement", "sup_duplicate_charge", "sup_identity_name_zip_cancel",
    "sup_legal_threat_escalate", "sup_lost_parcel_refund", "sup_missing_parcel_replacement", "sup_wrong_order_number",
]


def _run(tmp: Path, name: str, agent: str, user: str, tasks: list[str], repeats: int) -> Path:
    from envs.run.cli import main

    out = tmp / name
    assert main(["--domain", "support", "--tasks", *tasks, "--repeats", str(repeats), "--agent", agent, "--user", user,
                 "--quiet", "--out", str(out)]) == 0
    return out


def _outcomes(run: Path) -> dict[str, list[int]]:
    by: dict[str, list[int]] = {}
    for line in (run / "episodes.jsonl").read_text().splitlines():
        r = json.loads(line)
        assert r["status"] == "ok", r.get("error")
        by.setdefault(r["task_id"], []).append(int(r["reward"] >= 1.0))
    return by


def _decided(tmp: Path, role: str) -> list[str]:
    """The candidates on which the slip decides the outcome: all pass at rate 0, all fail at rate 1."""
    spec = {0: {}, 1: {}}
    for rate in (0, 1):
        agent, user = ("scripted:careful@slip=%d" % rate, "scripted") if role == "agent" else ("scripted:careful", "scripted@slip=%d" % rate)
        spec[rate] = _outcomes(_run(tmp, f"{role}{rate}", agent, user, CANDIDATES, 2))
    tasks = [t for t in CANDIDATES if all(spec[0][t]) and not any(spec[1][t])]
    assert len(tasks) >= 6, f"too few tasks decided by the {role}'s slip: {tasks}"
    return tasks


def _split(tmp: Path, run: Path):
    from envs.variance.cli import main

    assert main([str(run), "--bases", "3", "--replays", "10", "--rejudge", "0", "--quiet"]) == 0
    s = RunSummary.model_validate_json((run.with_name(run.name + "-variance") / "summary.json").read_text())
    return s.variance


@pytest.mark.parametrize("role", ["user", "agent"])
def test_split_recovers_a_known_slip_variance(tmp_path, role):
    tasks = _decided(tmp_path, role)
    agent, user = ("scripted:careful@slip=0.3", "scripted") if role == "agent" else ("scripted:careful", "scripted@slip=0.3")
    rep = _split(tmp_path, _run(tmp_path, "run", agent, user, tasks, 3))
    mine, other = (rep.agent_var, rep.user_var) if role == "agent" else (rep.user_var, rep.agent_var)
    lo, hi = mine.ci95
    assert mine.by_construction is None and mine.value > 0
    assert lo <= KNOWN <= hi, f"{role} variance {mine.value:.3f} [{lo:.3f}, {hi:.3f}] misses the known {KNOWN:.3f}"
    assert other.value == 0.0 and other.ci95 == (0.0, 0.0)
    if role == "agent":
        assert other.by_construction  # a scripted user: not played, zero by construction
        assert rep.user_share.value == 0.0
    else:
        assert other.by_construction is None  # the careful agent: played with its seed varied, measured zero
        assert rep.user_share.value == 1.0
    n = sum(getattr(t, f"{role}_replays") for t in rep.per_task)
    ok = sum(getattr(t, f"{role}_successes") for t in rep.per_task)
    assert n == len(tasks) * 3 * 10 and abs(ok / n - (1 - P)) < 0.12  # the slip rate itself, within sampling


def test_each_slip_follows_its_roles_seed_only():
    from envs.actors.slipping import SlippingUser, agent_slipped

    # the agent's slip: a new episode seed or user seed with the agent's seed held changes nothing
    base = [agent_slipped(EpisodeId(task_id="t", seed=s, agent_seed=s), 0.5) for s in range(200)]
    moved = [agent_slipped(EpisodeId(task_id="t", seed=s + 1, agent_seed=s, user_seed=7), 0.5) for s in range(200)]
    assert base == moved and 60 < sum(base) < 140
    assert [agent_slipped(EpisodeId(task_id="t", seed=s), 0.0) for s in range(50)] == [False] * 50
    assert [agent_slipped(EpisodeId(task_id="t", seed=s), 1.0) for s in range(50)] == [True] * 50

    import asyncio

    from envs.domain.registry import get_domain

    dom = get_domain("support")
    task = next(t for t in dom.tasks.values() if t.scenario.hidden_facts)
    seen = []

    class Probe:
        name = "probe"

        async def reply(self, turn):
            seen.append(len(turn.task.scenario.hidden_facts))

    def play(ep: EpisodeId) -> int:
        import random

        from envs.actors.protocols import UserTurn

        u = SlippingUser(Probe(), 0.5)
        asyncio.run(u.reply(UserTurn(task=task, persona=None, situation=None, situation_id=None, agent_message=None, events=[],
                                     turn=0, rng=random.Random(0), call_tool=lambda n, a: "", episode=ep)))
        return seen[-1]

    a = [play(EpisodeId(task_id=task.id, seed=s, user_seed=s)) for s in range(60)]
    b = [play(EpisodeId(task_id=task.id, seed=s + 3, user_seed=s, agent_seed=9)) for s in range(60)]
    assert a == b and 0 in a and len(task.scenario.hidden_facts) in a


def test_bad_slip_specs_are_one_line_and_exit_2(tmp_path, capsys):
    from envs.run.cli import main

    for agent, user, why in (("scripted:careful@slip=2", "scripted", "in [0, 1]"), ("openai/x@slip=0.1", "scripted", "scripted agent only"),
                             ("scripted", "scripted@slip=lots", "not a number"), ("scripted", "scripted@often", "@slip=RATE")):
        assert main(["--domain", "support", "--tasks", CANDIDATES[0], "--repeats", "1", "--agent", agent, "--user", user,
                     "--quiet", "--out", str(tmp_path / "bad")]) == 2
        err = capsys.readouterr().out.strip().splitlines()
        assert len(err) == 1 and why in err[0], err
    assert not (tmp_path / "bad").exists()
