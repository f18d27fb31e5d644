"""The HTML report of an MCP run: the page carries each trial's MCP calls, and the
trajectory viewer marks them (in a real browser when Chromium is installed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import Chromium, find_chromium
from tests.clihelp import run_cli
from tests.mcp.demo_run import mcp_demo
from tests.report.pagedata import page_data
from tests.session_once import once_per_session


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report page of the demo over MCP (demo_run.py's): made by the first xdist worker
    that needs it and read by this session's others (two workers running one test each made
    two demos)."""
    def make() -> str:
        demo = mcp_demo(tmp_path_factory)
        root = tmp_path_factory.mktemp("mcp-viewer")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("A2ABENCH_CACHE_DIR", str(root / "cache"))
            r = run_cli("report", str(demo / "tau2" / "metrics.jsonl"),
                        "--format", "html", "--output", str(root / "tau2.html"))
        assert r.code == 0, r.err
        return str(root / "tau2.html")

    return Path(once_per_session(tmp_path_factory, "mcp-viewer-tau2", make))


@pytest.mark.slow
def test_the_page_carries_the_mcp_calls(page: Path) -> None:
    meta, blobs = page_data(page.read_text())
    calls = [b["details"]["mcp_calls"] for b in blobs]
    assert all(calls) and len(calls) == len(meta["rows"])
    for blob, indices in zip(blobs, calls, strict=True):
        assert all(blob["transcript"][i]["tool_calls"] for i in indices)
        assert all(blob["transcript"][i + 1]["role"] == "tool" for i in indices)
        replies = {t["message"] for t in blob["details"]["a2a_turns"]}
        assert not replies & set(indices)  # an MCP call is not an A2A reply


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    if find_chromium() is None:
        pytest.skip("no Chromium found (install the `chromium` OS package, or set "
                    "A2ABENCH_CHROMIUM)")
    pytest.importorskip("websockets")
    with Chromium.launch() as chromium:
        yield chromium


@pytest.mark.slow
def test_the_viewer_marks_mcp_calls(page: Path, browser: Chromium) -> None:
    _, blobs = page_data(page.read_text())
    browser.open(page, "trial=0")
    browser.wait_for("document.body.dataset.ready === '1'")
    browser.wait_for("document.getElementById('trial-detail').dataset.loaded === '0'")
    marked = browser.evaluate("Array.from(document.querySelectorAll('#transcript .msg'))"
                              ".map((m, k) => m.querySelector('.badge.mcp') ? k : -1)"
                              ".filter(k => k >= 0)")
    assert marked == blobs[0]["details"]["mcp_calls"], json.dumps(marked)
