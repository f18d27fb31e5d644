"""Regenerate docs/report-overview.png and docs/report-viewer.png from the demo's tau2 report.

    python scripts/report_screenshot.py [--docs docs]

Runs `a2abench demo` into a temporary directory, renders the tau2 HTML report, opens it in
headless Chromium and captures the top of the page (summary, charts, filters, task-trials),
then the page with the failed task-trial `complete_5` open.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser import Chromium  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=Path, default=ROOT / "docs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["a2abench", "demo", "--output", str(root / "demo")], check=True,
                       stdout=subprocess.DEVNULL)
        page = root / "tau2.html"
        subprocess.run(["a2abench", "report", str(root / "demo" / "tau2" / "metrics.jsonl"),
                        "--format", "html", "--output", str(page)], check=True,
                       stderr=subprocess.DEVNULL)
        with Chromium.launch() as browser:
            browser.call("Emulation.setDeviceMetricsOverride", width=1200, height=1500,
                         deviceScaleFactor=1, mobile=False)
            browser.open(page)
            browser.wait_for("document.body.dataset.ready === '1'")
            browser.screenshot(args.docs / "report-overview.png")
            browser.evaluate("Array.from(document.querySelectorAll('#trials tbody tr'))"
                             ".find(tr => tr.cells[0].innerText === 'complete_5').click()")
            browser.wait_for("document.getElementById('trial-detail').dataset.loaded")
            browser.evaluate("window.scrollTo(0, document.getElementById('viewer').offsetTop"
                             " - 10)")
            browser.wait_for("window.scrollY > 0")
            browser.screenshot(args.docs / "report-viewer.png")
    print(f"wrote {args.docs / 'report-overview.png'} and {args.docs / 'report-viewer.png'}")


if __name__ == "__main__":
    main()
