"""``report.html`` in a real browser: headless Chromium (Debian's package) driven by playwright.

Opens a report, clicks a failed cell, checks the transcript, verdicts and row diff are shown,
applies filters, goes from a rule x situation cell to the replies judged on it, and renders
hostile agent text as text. Screenshots at 1280 and 390 px wide are saved under pytest's tmp
dir (their paths printed). Skipped, with the reason, when the browser or the driver is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from envs.report.html import write_report
from envs.report.html_data import packed_episodes, script_json
from envs.report.summary import read_summary
ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
HOSTILE = '</script><script>alert(1)</script><img src=x onerror="alert(2)"> & \u2028'


def test_embedded_json_cannot_close_its_element():
    s = script_json({"a": HOSTILE})
    assert "<" not in s and ">" not in s and "\u2028" not in s
    assert json.loads(s) == {"a": HOSTILE}
    assert set(packed_episodes([])) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def run_main(argv: list[str]) -> int:
    """``python -m envs.run`` in a child process: playwright's sync API holds this thread's
    event loop while a browser is open, so the runner's own loop cannot start here."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "envs.run", *argv], cwd=ROOT, env=env, capture_output=True).returncode


def _hostile_run(tmp: Path) -> Path:
    d = tmp / "hostile"
    assert run_main(["--domain", "toy", "--repeats", "2", "--agent", "scripted:idle", "--out", str(d), "--quiet"]) == 0
    lines = []
    for line in (d / "episodes.jsonl").read_text().splitlines():
        r = json.loads(line)
        for e in r["transcript"]:
            if e["kind"] == "agent":
                e["content"] = HOSTILE
        for v in r["verdicts"]:
            v["rationale"] = HOSTILE
        lines.append(json.dumps(r))
    (d / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    write_report(d, read_summary(d))
    return d


def test_static_page_escapes_hostile_text(tmp_path):
    page = (_hostile_run(tmp_path) / "report.html").read_text()
    assert "alert(1)" not in page and "onerror" not in page  # packed, or escaped in the index


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("no browser: /usr/bin/chromium is missing (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the report-test extra (playwright) is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def support_run(tmp_path_factory, played_runs) -> Path:
    # the eager support run test_power compares too, played once a session (tests/conftest.py)
    return played_runs.copy(played_runs.EAGER_SUP2, tmp_path_factory.mktemp("report") / "eager")


def _page(browser, run: Path, width: int, height: int):
    pg = browser.new_page(viewport={"width": width, "height": height})
    errors, dialogs = [], []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.goto((run / "report.html").as_uri())
    return pg, errors, dialogs


@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)])
def test_report_in_browser(browser, support_run, tmp_path, width, height):
    pg, errors, _ = _page(browser, support_run, width, height)
    recs = [json.loads(l) for l in (support_run / "episodes.jsonl").read_text().splitlines()]
    assert pg.locator(".cell").count() == len(recs) > 0
    n_fail = sum(1 for r in recs if r["status"] == "ok" and r["reward"] < 1)
    assert pg.locator(".cell.fail").count() == n_fail > 0
    assert pg.evaluate("document.documentElement.scrollWidth") <= width  # nothing overflows sideways

    # a failed episode: transcript, inline verdicts, the row diff
    cell = pg.locator(".cell.fail").first
    ep = recs[int(cell.get_attribute("data-ep"))]
    cell.click()
    panel = pg.locator("#sg-episode")
    panel.locator("h2").wait_for()
    assert ep["episode_id"] in panel.locator("h2").inner_text()
    first_agent = next(e for e in ep["transcript"] if e["kind"] == "agent")
    assert first_agent["content"] in panel.locator(".msg.agent").first.inner_text()
    assert panel.locator(".msg.user").count() == sum(e["kind"] == "user" for e in ep["transcript"])
    assert panel.locator(".verdict").count() == len(ep["verdicts"])
    v = ep["verdicts"][0]
    assert v["rationale"] in panel.locator(".verdict").first.inner_text()
    diff = ep["grade"]["diff"]
    if diff and diff[0]["changed"]:
        col, vals = next(iter(diff[0]["changed"][0]["columns"].items()))
        row = panel.locator(".diff tr", has_text=col).first.inner_text()
        assert str(vals["expected"] if vals["expected"] is not None else "") in row and str(vals["actual"]) in row
    shot = tmp_path / f"episode-{width}.png"
    pg.screenshot(path=str(shot))
    print(f"screenshot: {shot}")

    # filters: failed only, then one task, then a rule not followed
    pg.check("#f-failed")
    assert pg.locator(".cell:visible").count() == n_fail + sum(r["status"] == "error" for r in recs)
    task = ep["task_id"]
    pg.select_option("#f-task", label=task)
    assert pg.locator(".cell:visible").count() == sum(1 for r in recs if r["task_id"] == task and not (r["status"] == "ok" and r["reward"] >= 1))
    assert f"of {len(recs)} episodes" in pg.inner_text("#f-count")
    pg.click("text=clear")
    rule = "R4"
    pg.select_option("#f-rule", label=rule)
    want = sum(1 for r in recs if any(x["rule"] == rule and x["verdict"] in ("VIOLATED", "NEEDS_REVIEW") for x in r["verdicts"]))
    assert pg.locator(".cell:visible").count() == want > 0

    # from a rule x situation cell to the replies judged on it
    rc = pg.locator("td.rc[data-sit]").first
    r_id, sit = rc.get_attribute("data-rule"), rc.get_attribute("data-sit")
    rc.click()
    pg.locator("#sg-replies h2").wait_for()
    judged = [x for r in recs for x in r["verdicts"] if x["rule"] == r_id and x["situation"] == sit]
    assert f"{len(judged)} verdicts" in pg.inner_text("#sg-replies")
    assert pg.locator("#sg-reply-list .reply").count() == min(100, len(judged))
    pg.locator("#sg-reply-list a.ep").first.click()  # and on to that reply's episode
    pg.locator("#sg-episode h2").wait_for()
    pg.screenshot(path=str(tmp_path / f"replies-{width}.png"), full_page=True)
    assert errors == []


def test_hostile_text_is_shown_not_run(browser, tmp_path):
    run = _hostile_run(tmp_path)
    pg, errors, dialogs = _page(browser, run, 1280, 900)
    pg.locator(".cell").first.click()
    pg.locator("#sg-episode h2").wait_for()
    assert HOSTILE.strip() in pg.locator("#sg-episode .msg.agent").first.text_content()
    assert pg.locator("#sg-episode img").count() == 0
    pg.locator("th.rh").first.click()
    pg.locator("#sg-replies h2").wait_for()
    assert "alert(1)" in pg.inner_text("#sg-replies")
    pg.wait_for_timeout(200)
    assert dialogs == [] and errors == []


def _flagged_run(tmp: Path) -> tuple[Path, str]:
    """An eager support run in which one failed episode's customer repeats a line word for word
    (a simulator flag), re-summarised and reported as the runner would."""
    from envs.domain import get_domain
    from envs.records import EpisodeRecord
    from envs.report.summary import summarize, write_summary

    d = tmp / "flagged"
    assert run_main(["--domain", "support", "--repeats", "1", "--agent", "scripted:eager", "--out", str(d), "--quiet"]) == 0
    recs = [EpisodeRecord.model_validate_json(l) for l in (d / "episodes.jsonl").read_text().splitlines()]
    target = next(r for r in recs if r.reward < 1 and sum(e.kind == "user" for e in r.transcript) >= 3)
    users = [e for e in target.transcript if e.kind == "user"]
    users[2].content = users[1].content
    (d / "episodes.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in recs))
    domain = get_domain("support")
    summary = summarize(recs, json.loads((d / "config.json").read_text()), domain=domain)
    write_summary(d, summary)
    write_report(d, summary)  # the domain from the run's config.json
    return d, target.episode_id


def test_episode_view_shows_goal_cause_rule_names_and_flags(browser, tmp_path):
    from envs.domain import get_domain
    from envs.report.rule_names import short_rule_names

    run, flagged = _flagged_run(tmp_path)
    domain = get_domain("support")
    summary = read_summary(run)
    names = short_rule_names(domain.rules.values())
    causes = {c.episode_id: c for c in summary.simulator.episodes}
    recs = [json.loads(l) for l in (run / "episodes.jsonl").read_text().splitlines()]
    i = next(k for k, r in enumerate(recs) if r["episode_id"] == flagged)
    ep = recs[i]
    pg, errors, _ = _page(browser, run, 1280, 900)
    pg.locator(f".cell[data-ep='{i}']").click()
    panel = pg.locator("#sg-episode")
    panel.locator("h2").wait_for()
    task = domain.tasks[ep["task_id"]]
    assert task.scenario.goal in panel.locator("#sg-goal").inner_text()
    # the failure in words and the cause with its evidence
    assert panel.locator("#sg-why").inner_text().startswith("What failed: ")
    cause = panel.locator("#sg-cause").inner_text()
    c = causes[flagged]
    assert c.cause in cause and all(ev in cause for ev in c.evidence)
    # the simulator flag, with the user turn it fired on
    flags = panel.locator("#sg-flags").inner_text()
    assert "repeated_verbatim" in flags and "user turn 2" in flags
    # verdicts name rules by id and short name; the rules judged here, with their texts
    v = ep["verdicts"][0]
    assert f"{v['rule']} {names[v['rule']]}" in panel.locator(".verdict").first.inner_text()
    panel.locator("#sg-rules summary").click()
    rules = panel.locator("#sg-rules").inner_text()
    for rid in {x["rule"] for x in ep["verdicts"]}:
        assert domain.rules[rid].text.split()[0] in rules and names[rid] in rules
    assert " ".join(domain.rules[v["rule"]].text.split()) in " ".join(rules.split())
    # tools and verdicts share the turn of the reply they belong to
    tool_turns = {e["turn"] for e in ep["transcript"] if e["kind"] == "tool" and e["side"] == "agent"}
    agent_turns = {e["turn"] for e in ep["transcript"] if e["kind"] == "agent"}
    assert tool_turns <= agent_turns | {max(agent_turns, default=0) + 1}
    # the grid's filters know the flag and the cause
    pg.select_option("#f-flag", label="repeated_verbatim")
    assert pg.locator(".cell:visible").count() == 1
    pg.click("text=clear")
    pg.select_option("#f-cause", label="agent")
    assert pg.locator(".cell:visible").count() == sum(1 for x in causes.values() if x.cause == "agent")
    # a rule row of the matrix names the rule and carries its text
    th = pg.locator("th.rh").first
    assert names[th.get_attribute("data-rule")] in th.inner_text()
    assert th.get_attribute("title") == domain.rules[th.get_attribute("data-rule")].text
    pg.screenshot(path=str(tmp_path / "episode-view.png"), full_page=True)
    assert errors == []
