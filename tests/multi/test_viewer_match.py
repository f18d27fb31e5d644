"""The HTML viewer of a multi-party run in a real browser (headless Chromium, skipped where
there is none): each match's row names its pairing, and its page shows who sat where, each
role's score and the violations with what they were."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import Chromium, find_chromium
from tests.clihelp import run_cli
from tests.multi.test_report_roles import _write

pytest.importorskip("websockets", reason="the browser test drives Chromium with the "
                                         "`websockets` package (pip install -e '.[dev]')")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(find_chromium() is None, reason="no Chromium found (install "
                                 "the `chromium` OS package, or set A2ABENCH_CHROMIUM)")]


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    with Chromium.launch() as chromium:
        yield chromium


def test_a_match_page_shows_its_seats_and_violations(tmp_path: Path, browser: Chromium) -> None:
    page = tmp_path / "roles.html"
    r = run_cli("report", str(_write(tmp_path / "m.jsonl")), "--format", "html",
                "--output", str(page))
    assert r.code == 0, r.err
    browser.open(page, "")
    browser.wait_for("document.body.dataset.ready === '1'")
    assert "Scores per role" in str(browser.evaluate("document.getElementById('roles')"
                                                     ".innerText"))
    browser.evaluate("Array.from(document.querySelectorAll('#trials tbody tr')).find(tr => "
                     "tr.innerText.includes('reference_agent+user') && "
                     "tr.cells[0].innerText === '3').click()")
    browser.wait_for("document.getElementById('trial-detail').dataset.loaded")
    seats = browser.evaluate("Array.from(document.querySelectorAll('#seats tbody tr'))"
                             ".map(tr => Array.from(tr.cells).map(td => td.innerText.trim()))")
    assert seats == [["agent", "reference_agent", "0.000", ""], ["user", "user", "0.000", ""]]
    found = str(browser.evaluate("document.getElementById('violations').innerText"))
    assert "early_stop" in found and "hung up" in found
