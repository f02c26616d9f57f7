"""Task selection by tag (``--tags``) everywhere, and ``python -m envs.tasks`` writing task families."""

from __future__ import annotations

import gymnasium
import pytest

from envs.domain import get_domain
from envs.errors import SpecError
from envs.spec.loading import load_one
from envs.spec.schema import Task
from envs.spec.selection import select_task_ids


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def test_tags_select_the_tier_and_combine_with_globs(support):
    tier = select_task_ids(support.tasks, None, ["ambiguous"])
    assert tier and all("ambiguous" in support.tasks[t].tags for t in tier)
    assert len(tier) < len(support.tasks)
    both = select_task_ids(support.tasks, ["sup_*"], ["no_change"])
    assert both and all(t.startswith("sup_") and "no_change" in support.tasks[t].tags for t in both)
    # any of several tags, comma or space separated
    either = select_task_ids(support.tasks, None, ["cancel,address"])
    assert set(either) == {t for t, k in support.tasks.items() if {"cancel", "address"} & set(k.tags)}


def test_bad_tags_are_one_line(support):
    with pytest.raises(SpecError, match=r"^--tags: no task carries tag 'nope' \(tags: .*\)$"):
        select_task_ids(support.tasks, None, ["nope"])
    with pytest.raises(SpecError, match="^--tags: no task selected by --tasks carries"):
        select_task_ids(support.tasks, ["sup_cancel_before_dispatch"], ["no_change"])


@pytest.mark.parametrize("module", ["envs.run.cli", "envs.check", "envs.rollout"])
def test_unknown_tag_exits_2_with_one_line(module, capsys, tmp_path):
    import importlib

    argv = ["--domain", "support", "--tags", "nope"]
    if module == "envs.rollout":
        argv += ["--out", str(tmp_path / "r.jsonl")]
    if module == "envs.run.cli":
        argv += ["--out", str(tmp_path / "run")]
    rc = importlib.import_module(module).main(argv)
    out = capsys.readouterr()
    lines = [x for x in (out.out + out.err).splitlines() if x.strip()]
    assert rc == 2 and len(lines) == 1 and "--tags: no task carries tag 'nope'" in lines[0]
    assert not (tmp_path / "run" / "episodes.jsonl").exists()


def test_run_and_check_play_only_the_tagged_tasks(tmp_path, capsys):
    import json

    from envs.check import main as check_main
    from envs.run.cli import main as run_main

    assert check_main(["--domain", "support", "--tags", "no_change", "--no-lint"]) == 0
    n = len(select_task_ids(get_domain("support").tasks, None, ["no_change"]))
    assert f"{n} tasks" in capsys.readouterr().out
    assert run_main(["--domain", "support", "--tags", "no_change", "--quiet", "--out", str(tmp_path / "r")]) == 0
    played = {json.loads(x)["task_id"] for x in (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()}
    assert len(played) == n


def test_gym_envs_take_tags():
    import envs  # noqa: F401  (registers the envs)

    env = gymnasium.make("sitgym/Support-v0", tags=["no_change"]).unwrapped
    assert env.task_ids and all("no_change" in env.domain.tasks[t].tags for t in env.task_ids)
    env.close()
    user_env = gymnasium.make("sitgym/SupportUser-v0", tags="no_change", tasks=["sup_c*"]).unwrapped
    assert user_env.task_ids and all(t.startswith("sup_c") for t in user_env.task_ids)
    with pytest.raises(SpecError, match="--tags"):
        gymnasium.make("sitgym/Support-v0", tags=["nope"])


# -- python -m envs.tasks ----------------------------------------------------------------------


def test_tasks_cli_lists_and_writes_families_that_load_like_hand_written(tmp_path, capsys):
    from envs.tasks import main

    assert main(["--domain", "toy", "--list"]) == 0
    assert capsys.readouterr().out.startswith("top_up: ")
    assert main(["--domain", "toy", "--family", "top_up", "--count", "3", "--seed", "5", "--out", str(tmp_path / "a")]) == 0
    files = sorted((tmp_path / "a").glob("*.yaml"))
    assert len(files) == 3
    toy = get_domain("toy")
    for f in files:
        task = load_one(Task, f)
        toy.validate_task(task, f)
        assert f.stem == task.id and task.tags == ["hard"]
        _, _, failed = toy.goal(task)
        assert not failed
    # reproducible from the seed; another seed draws other instances
    main(["--domain", "toy", "--family", "top_up", "--count", "3", "--seed", "5", "--out", str(tmp_path / "b")])
    main(["--domain", "toy", "--family", "top_up", "--count", "3", "--seed", "6", "--out", str(tmp_path / "c")])
    assert [f.read_text() for f in files] == [f.read_text() for f in sorted((tmp_path / "b").glob("*.yaml"))]
    assert {f.name for f in files} != {f.name for f in (tmp_path / "c").glob("*.yaml")}


@pytest.mark.parametrize("argv, says", [
    (["--family", "nope", "--count", "2"], "--family: toy has no family 'nope' (families: top_up)"),
    (["--family", "top_up", "--count", "100000"], "family top_up: the data holds"),
    (["--family", "top_up", "--count", "0"], "--count: must be at least 1"),
])
def test_tasks_cli_bad_input_is_one_line_and_writes_nothing(argv, says, tmp_path, capsys):
    from envs.tasks import main

    assert main(["--domain", "toy", *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]
    assert not list(tmp_path.glob("*.yaml"))
