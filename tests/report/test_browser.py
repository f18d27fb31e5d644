"""The HTML report in a real browser: headless Chromium over the DevTools protocol opens the
demo's reports from disk, opens failed task-trials and finds their transcripts and breakdowns."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import Chromium, find_chromium
from tests.clihelp import run_cli
from tests.report.pagedata import page_data
from tests.servers import free_port

pytest.importorskip("websockets", reason="the browser test drives Chromium with the "
                                         "`websockets` package (pip install -e '.[dev]')")
pytestmark = [
    # Each worker runs the demo and starts Chromium for this module: ~4 s before a test runs.
    pytest.mark.slow,
    pytest.mark.skipif(find_chromium() is None, reason="no Chromium found (install the "
                       "`chromium` OS package, or set A2ABENCH_CHROMIUM)")]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from a2abench.benchmarks.crmarena import upstream

    root = tmp_path_factory.mktemp("viewer")
    with pytest.MonkeyPatch.context() as patch:  # upstream prompt files: a closed local port
        patch.setenv(upstream.URL_ENV, f"http://127.0.0.1:{free_port()}/")
        patch.setenv("A2ABENCH_CACHE_DIR", str(root / "cache"))  # before the autouse one runs
        r = run_cli("demo", "--output", str(root / "demo"))
    assert r.code == 0, r.err
    out = {}
    for name in ("tau2", "crmarena"):
        out[name] = root / f"{name}.html"
        r = run_cli("report", str(root / "demo" / name / "metrics.jsonl"), "--format", "html",
                    "--output", str(out[name]))
        assert r.code == 0, r.err
    # A second tau2 run that passes create_5: --compare must single that task out.
    first = root / "demo" / "tau2" / "metrics.jsonl"
    second = root / "tau2-second.jsonl"
    lines = []
    for line in first.read_text().splitlines():
        rec = json.loads(line)
        rec["run_id"] = "second-run"
        if rec["type"] == "run":
            rec["compat_key"] = {**rec["compat_key"], "agent": "second"}
        if rec["type"] == "task" and rec["task_id"] == "create_5":
            rec.update(reward=1.0, success=True)
        lines.append(json.dumps(rec))
    second.write_text("\n".join(lines) + "\n")
    out["compare"] = root / "compare.html"
    r = run_cli("report", str(first), str(second), "--compare", "--format", "html",
                "--output", str(out["compare"]))
    assert r.code == 0, r.err
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    with Chromium.launch() as chromium:
        yield chromium


def _open(browser: Chromium, page: Path, fragment: str = "") -> None:
    browser.open(page, fragment)
    browser.wait_for("document.body.dataset.ready === '1'")


def _text(browser: Chromium, selector: str) -> str:
    return str(browser.evaluate(f"document.querySelector({json.dumps(selector)}).innerText"))


def _table(browser: Chromium, selector: str) -> list[list[str]]:
    script = (f"Array.from(document.querySelectorAll({json.dumps(selector + ' tbody tr')}))"
              ".map(tr => Array.from(tr.cells).map(td => td.innerText.trim()))")
    rows: Any = browser.evaluate(script)
    return list(rows)


def _index(page: Path, **match: Any) -> int:
    meta, _ = page_data(page.read_text())
    return next(i for i, row in enumerate(meta["rows"])
                if all(row[k] == v for k, v in match.items()))


def test_a_failed_tau2_trial_shows_conversation_breakdown_and_db_diff(
        browser: Chromium, reports: dict[str, Path]) -> None:
    _open(browser, reports["tau2"])
    assert not _text(browser, "#list").startswith("null")
    rows = _table(browser, "#trials")
    assert len(rows) == 12 and [r[4] for r in rows[:2]] == ["fail", "fail"]  # failed first
    assert {r[0] for r in rows[:2]} == {"create_5", "complete_5"}
    browser.evaluate("Array.from(document.querySelectorAll('#trials tbody tr'))"
                     ".find(tr => tr.cells[0].innerText === 'complete_5').click()")
    browser.wait_for("document.getElementById('trial-detail').dataset.loaded")
    assert browser.evaluate("document.getElementById('list').hidden") is True
    conversation = _text(browser, "#transcript")
    assert "user simulator" in conversation and "Please close out task_5" in conversation
    assert "→ call transfer_to_human_agents" in conversation and "tool result" in conversation
    assert _table(browser, "#components") == [["DB", "0.000"], ["ACTION", "0.000"]]
    assert ["agent", "tasks › task_5 › status", "pending", "completed"] in _table(
        browser, "#db-diff")
    actions = _table(browser, "#action-checks")
    assert actions[0][0] == "✗" and actions[0][3] == "update_task_status"
    turns = _table(browser, "#a2a-turns")
    assert [t[:2] for t in turns] == [["1", "message"], ["2", "message"]]
    # Each A2A reply is tied to the message it became (not the fixed greeting, message #1).
    assert [t[4] for t in turns] == ["#3", "#5"]
    badges = browser.evaluate("Array.from(document.querySelectorAll('#transcript .msg'))"
                              ".map(m => m.querySelector('.badge.a2a') !== null)")
    assert badges == [False, False, True, False, True, False]
    usage = _text(browser, "#usage")
    # The demo's user is scripted: never labelled an LLM (issue 22).
    assert "A2A tokens in / out" in usage and "LLM user simulator" not in usage
    assert "scripted user (scripted-user, no LLM): calls" in usage
    # walk the failures: "next" opens the other failed task-trial (the list is failed first)
    assert "(1 of 12)" in _text(browser, "#trial-detail p")
    browser.evaluate("document.getElementById('next').click()")
    browser.wait_for("document.querySelector('#trial-detail h2')"
                     ".innerText === 'Task create_5 · trial 0'")
    assert "(2 of 12)" in _text(browser, "#trial-detail p")
    browser.evaluate("document.getElementById('back').click()")
    browser.wait_for("!document.getElementById('list').hidden")


def test_a_crmarena_trial_shows_queries_results_and_answer_vs_reference(
        browser: Chromium, reports: dict[str, Path]) -> None:
    index = _index(reports["crmarena"], task_id="5", trial=0)
    _open(browser, reports["crmarena"], f"trial={index}")
    browser.wait_for(f"document.getElementById('trial-detail').dataset.loaded === '{index}'")
    conversation = _text(browser, "#transcript")
    assert "SOSL query" in conversation or "SOQL query" in conversation
    assert "query result" in conversation and "→ answer" in conversation
    assert browser.evaluate("document.querySelectorAll('#transcript .msg.agent .badge.a2a')"
                            ".length") == 2
    verdict = dict((r[0], r[1]) for r in _table(browser, "#crm-verdict"))
    assert verdict["metric"] == "fuzzy_match" and verdict["scoring path"] == "fuzzy"
    assert ["f1", "0.000"] in _table(browser, "#components")
    assert "It encrypts all branch traffic with AES-256." in verdict["reference"]
    assert "Common questions about SecureVault Gateway." in verdict["extracted answer"]


def test_filters_and_search(browser: Chromium, reports: dict[str, Path]) -> None:
    _open(browser, reports["tau2"])

    def choose(name: str, value: str) -> str:
        browser.evaluate(f"(() => {{ const s = document.querySelector('[data-filter={name}]');"
                         f" s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change'));"
                         " })()")
        return _text(browser, "#count")

    assert choose("status", "passed") == "10 of 12 task-trials"
    assert choose("status", "failed") == "2 of 12 task-trials"
    assert choose("termination", "user_stop") == "2 of 12 task-trials"
    choose("status", "all")
    choose("termination", "all")
    browser.evaluate("(() => { const s = document.getElementById('search');"
                     " s.value = 'create_5'; s.dispatchEvent(new Event('input')); })()")
    assert _text(browser, "#count") == "1 of 12 task-trials"
    # A phrase only in one transcript: found once the transcripts are searched too.
    browser.evaluate("(() => { const s = document.getElementById('search');"
                     " s.value = 'close out task_5'; s.dispatchEvent(new Event('input')); })()")
    assert _text(browser, "#count") == "0 of 12 task-trials"
    browser.evaluate("document.getElementById('deep').click()")
    browser.wait_for("document.getElementById('count').innerText === '1 of 12 task-trials'")
    assert _table(browser, "#trials")[0][0] == "complete_5"


def test_compare_puts_runs_side_by_side_per_task(browser: Chromium,
                                                 reports: dict[str, Path]) -> None:
    _open(browser, reports["compare"])
    assert _text(browser, "#count") == "24 of 24 task-trials"
    browser.evaluate("document.getElementById('tab-tasks').click()")
    browser.wait_for("document.querySelector('.pertask')")
    browser.evaluate("document.getElementById('differs').click()")
    browser.wait_for("document.querySelectorAll('.pertask tbody tr').length === 1")
    assert _table(browser, ".pertask") == [["mock", "create_5", "0/1", "1/1"]]
    browser.evaluate("document.querySelector('.pertask td.cell.fail').click()")
    browser.wait_for("document.getElementById('trial-detail').dataset.loaded")
    assert "Task create_5 · trial 0" in _text(browser, "#trial-detail h2")


def test_recorded_text_is_shown_as_text_never_run(browser: Chromium, tmp_path: Path) -> None:
    from tests.report.test_html_data import _render, _task

    attack = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>'
    html = _render(tmp_path, [_task(
        "t-" + attack, 0, status="agent_error", reward=0.0, termination="agent_error",
        error={"error": "ProtocolError", "kind": "agent", "message": attack, "hint": "fix it"},
        transcript=[{"role": "assistant", "content": attack,
                     "tool_calls": [{"id": "c1", "name": attack, "arguments": {"q": attack}}]},
                    {"role": "tool", "id": "c1", "content": attack, "error": True}])])
    page = tmp_path / "hostile.html"
    page.write_text(html)
    _open(browser, page, "trial=0")
    browser.wait_for("document.getElementById('trial-detail').dataset.loaded === '0'")
    assert browser.evaluate("window.__pwned === undefined") is True
    assert browser.evaluate("document.querySelectorAll('#trial-detail img').length") == 0
    error = _text(browser, "#error")
    assert error.startswith("ProtocolError (agent)") and attack in error and "fix it" in error
    conversation = _text(browser, "#transcript")
    # content, tool name and tool result verbatim; the arguments as JSON (quotes escaped)
    assert conversation.count(attack) == 3 and json.dumps(attack) in conversation
    assert "tool result (c1) — error" in conversation


# Overlapping text boxes inside each summary chart, and text that leaves its chart.
_CLASHES = """(() => {
  const out = [];
  document.querySelectorAll('#summary svg').forEach((svg, n) => {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].map(t => [t.textContent,
                                                              t.getBoundingClientRect()]);
    texts.forEach(([s, r], i) => {
      if (r.left < box.left - 1 || r.right > box.right + 1) out.push(`svg ${n}: ${s} leaves it`);
      texts.slice(i + 1).forEach(([s2, r2]) => {
        const apart = r.right <= r2.left || r2.right <= r.left || r.bottom <= r2.top
                      || r2.bottom <= r.top;
        if (!apart) out.push(`svg ${n}: ${s} overlaps ${s2}`);
      });
    });
  });
  return out;
})()"""


def test_charts_stay_legible_at_64_trials_and_300_tasks(browser: Chromium,
                                                        tmp_path: Path) -> None:
    from tests.browser import ARTEFACTS
    from tests.report.runs import write_grid
    from tests.report.test_scale import LONG

    metrics = write_grid(tmp_path / "m.jsonl", 300, 64, categories=LONG)
    page = tmp_path / "big.html"
    r = run_cli("report", str(metrics), "--format", "html", "--output", str(page))
    assert r.code == 0, r.err
    _open(browser, page)
    assert browser.evaluate(_CLASHES) == []
    ticks = browser.evaluate("[...document.querySelectorAll('#summary svg')[0]"
                             ".querySelectorAll('text')].map(t => t.textContent)")
    assert "64" in ticks and "3" not in ticks  # k = 1, …, 64 labelled sparsely
    labels = browser.evaluate("[...document.querySelectorAll('#summary svg')[1]"
                              ".querySelectorAll('text')].map(t => t.textContent)")
    assert set(LONG) <= set(labels)  # category names whole
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / "report-64-trials-300-tasks.png"
    browser.screenshot(shot)
    assert shot.stat().st_size > 10_000
