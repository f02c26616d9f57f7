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
