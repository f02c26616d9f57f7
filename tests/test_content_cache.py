"""Content-keyed caches (envs.content_key): the check report and the template are served only
while every file they came from is unchanged."""

from __future__ import annotations

import dataclasses
import shutil

from envs.domain import get_domain


def _domain_over(tmp_path):
    """support with its tasks copied to a folder this test may edit."""
    base = get_domain("support")
    tasks = tmp_path / "tasks"
    shutil.copytree(base.tasks_dir(), tasks)
    return dataclasses.replace(base, tasks_path=tasks), tasks


def test_check_report_is_served_while_the_files_are_unchanged_and_never_after(tmp_path, monkeypatch):
    from envs.spec.check import check_domain
    from envs.spec.check_cache import cached_check, check_key

    monkeypatch.setenv("SITGYM_CACHE_DIR", str(tmp_path / "cache"))
    domain, tasks = _domain_over(tmp_path)
    first = cached_check(domain, gold=False)
    assert first.ok and list((tmp_path / "cache" / "check").iterdir())
    key = check_key(domain, lint=True, gold=False)
    assert cached_check(domain, gold=False) == first  # served from the file
    assert check_key(domain, lint=False, gold=False) != key  # the flags are part of the key

    # An edit that breaks a task: a new key, and the report says so (the old "ok" is not served).
    victim = sorted(tasks.glob("*.yaml"))[0]
    victim.write_text(victim.read_text(encoding="utf-8").replace("domain: support", "domain: elsewhere", 1),
                      encoding="utf-8")
    fresh = dataclasses.replace(get_domain("support"), tasks_path=tasks)  # a new definition reads the files
    assert check_key(fresh, lint=True, gold=False) != key
    report = cached_check(fresh, gold=False)
    assert not report.ok and report == check_domain(fresh, gold=False)

    # A file added, then removed: each state has its own key; removing it gives the first key back.
    extra = tasks / "zz_extra.yaml"
    shutil.copy(victim, extra)
    assert check_key(fresh, lint=True, gold=False) != key
    extra.unlink()
    victim.write_text((get_domain("support").tasks_dir() / victim.name).read_text(encoding="utf-8"), encoding="utf-8")
    assert check_key(fresh, lint=True, gold=False) == key


def test_a_corrupt_or_unreadable_cache_entry_is_rebuilt(tmp_path, monkeypatch):
    from envs.spec.check_cache import cached_check, check_key

    monkeypatch.setenv("SITGYM_CACHE_DIR", str(tmp_path / "cache"))
    domain, _ = _domain_over(tmp_path)
    path = tmp_path / "cache" / "check" / f"support-{check_key(domain, True, False)}.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    assert cached_check(domain, gold=False).ok


def test_cached_template_is_the_built_template_and_keys_on_the_seed(tmp_path, monkeypatch):
    from envs.state.database import build_template
    from envs.state.template_cache import cached_template, template_key

    monkeypatch.setenv("SITGYM_CACHE_DIR", str(tmp_path / "cache"))
    d = get_domain("support")
    built = build_template(d.base, d.seed_fn, d.seed)
    assert cached_template(d) == built  # a miss: built and saved
    assert cached_template(d) == built  # a hit: read back
    other = dataclasses.replace(d, seed=d.seed + 1)
    assert template_key(other) != template_key(d)
    path = next((tmp_path / "cache" / "templates").iterdir())
    path.write_bytes(b"truncated")  # not a database: rebuilt, never served
    assert cached_template(d) == built


def test_a_seed_closure_is_never_cached(tmp_path, monkeypatch):
    from envs.state.template_cache import template_key

    monkeypatch.setenv("SITGYM_CACHE_DIR", str(tmp_path / "cache"))
    d = get_domain("support")
    rows = []  # data a closure holds that no file shows
    assert template_key(dataclasses.replace(d, seed_fn=lambda s, seed: d.seed_fn(s, seed) or rows)) is None
    assert template_key(d) is not None


def test_loaded_tasks_are_served_while_their_files_are_unchanged_and_never_after(tmp_path, monkeypatch):
    from envs.spec.task_cache import cached_tasks, tasks_key

    monkeypatch.setenv("SITGYM_CACHE_DIR", str(tmp_path / "cache"))
    domain, tasks = _domain_over(tmp_path)
    loaded = domain.load_tasks()
    assert cached_tasks(domain) == loaded  # loaded, then saved
    assert list((tmp_path / "cache" / "tasks").iterdir())
    assert cached_tasks(domain) == loaded  # served from the file
    key = tasks_key(domain)
    victim = sorted(tasks.glob("*.yaml"))[0]
    text = victim.read_text(encoding="utf-8")
    victim.write_text(text.replace("domain: support", "domain: elsewhere", 1), encoding="utf-8")
    assert tasks_key(domain) != key
    import pytest

    from envs.errors import SpecError

    with pytest.raises(SpecError, match="elsewhere"):  # the edit is seen, and a failure is not cached
        cached_tasks(domain)
    with pytest.raises(SpecError, match="elsewhere"):
        cached_tasks(domain)
    victim.write_text(text, encoding="utf-8")
    assert tasks_key(domain) == key and cached_tasks(domain) == loaded


def test_a_cached_initial_state_is_the_patch_applied(tmp_path, monkeypatch):
    from envs.state.database import apply_patch
    from envs.state.template_cache import cached_initial

    monkeypatch.setenv("SITGYM_CACHE_DIR", str(tmp_path / "cache"))
    domain = get_domain("support")
    domain.template()
    patched = [t for t in domain.tasks.values() if t.initial_state is not None and not t.initial_state.is_empty()][:3]
    assert patched
    for t in patched:
        direct = apply_patch(domain.base, domain.template(), t.initial_state)
        assert cached_initial(domain, t) == direct  # applied, then saved
        assert cached_initial(domain, t) == direct  # read back
    assert len(list((tmp_path / "cache" / "initial").iterdir())) == len({t.initial_state.model_dump_json() for t in patched})


def test_the_check_commands_answer_is_served_only_for_the_same_command_and_files(tmp_path, monkeypatch, capsys):
    from envs.check import main
    from envs.spec.check_output_cache import output_key

    monkeypatch.setenv("SITGYM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SITGYM_DOMAINS")  # the tests' toy domain is registered from outside the checkout
    assert main(["--domain", "support", "--no-lint"]) == 0
    first = capsys.readouterr().out
    saved = list((tmp_path / "cache" / "check-output").iterdir())
    assert len(saved) == 1
    assert main(["--domain", "support", "--no-lint"]) == 0
    assert capsys.readouterr().out == first  # served
    key = output_key(["--domain", "support", "--no-lint"])
    assert output_key(["--domain", "support"]) != key
    monkeypatch.setenv("SITGYM_SOMETHING", "1")
    assert output_key(["--domain", "support", "--no-lint"]) != key
    monkeypatch.setenv("SITGYM_DOMAINS", "some.module")
    assert output_key(["--domain", "support", "--no-lint"]) is None  # a domain from outside the checkout
