"""The offline rule profile separates the careful agent from the eager one on R1 and R2
(deterministic checks only); every support rule has a check, so none goes unjudged
(tests/test_llm.py shows how a rule without one is reported)."""

from __future__ import annotations

import asyncio

import pytest

from envs.domain import get_domain
from envs.episode import episode_seed, run_episode
from envs.report.summary import summarize
from envs.state.database import EpisodeState
from envs.actors.scripted_user import ScriptedUser


def _profile(agent: str, task_ids: list[str], repeats: int) -> dict:
    d = get_domain("support")
    state = EpisodeState(d.base, d.template())
    recs = []

    async def play():
        for tid in task_ids:
            for r in range(repeats):
                recs.append(
                    await run_episode(
                        d, d.tasks[tid], d.scripted_agents[agent](), ScriptedUser(),
                        seed=episode_seed(0, tid, r), repeat=r, state=state,
                    )
                )

    asyncio.run(play())
    state.close()
    return summarize(recs, {"domain": "support", "repeats": repeats}, domain=d).model_dump()


@pytest.fixture(scope="module")
def profiles():
    d = get_domain("support")
    ids = sorted(t for t in d.tasks if t.startswith("sup_ambig")) + [
        "sup_lost_parcel_refund", "sup_damaged_replacement", "sup_changes_mind_cancel_to_address", "sup_duplicate_which_order"]
    return _profile("careful", ids, 6), _profile("eager", ids, 6)


def test_r1_and_r2_separate_the_agents(profiles):
    careful, eager = profiles
    for rule in ("R1", "R2"):
        c, e = careful["rules"][rule], eager["rules"][rule]
        assert c["judged"] >= 3 and e["judged"] >= 3, (rule, c["judged"], e["judged"])
        assert c["compliance"] == 1.0, (rule, c)
        assert e["compliance"] <= 0.8, (rule, e)
        # not an artefact of small numbers: the intervals do not overlap
        assert e["ci95"][1] < c["ci95"][0] or e["compliance"] == 0.0
    assert careful["pass_hat_k"]["1"] == 1.0 and eager["pass_hat_k"]["1"] < 0.5


def test_every_support_rule_has_a_check_so_nothing_goes_unjudged(profiles):
    careful, _ = profiles
    d = get_domain("support")
    assert all(r.check is not None for r in d.rules.values())
    assert careful["unjudged"] == {}
    # every rule x situation pair the domain defines appears in coverage, exercised or not
    pairs = {(r, s.id) for s in d.situations.values() for r in s.rules}
    assert pairs == {(r, s) for r, cells in careful["coverage"].items() for s in cells}
