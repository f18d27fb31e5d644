"""Headless Chromium driven over the DevTools protocol (a small synchronous client).

    with Chromium.launch() as browser:
        browser.open(path)                     # waits for the load event
        browser.wait_for("document.body.dataset.ready === '1'")
        browser.evaluate("document.title")

Used by the HTML report's browser test, `perf/report_html.py` and
`scripts/report_screenshot.py`. Chromium runs with a throw-away profile and every
background-network feature off; pages are opened from disk (file://).
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

# Where browser tests leave what a person may want to look at (screenshots); CI can keep it.
ARTEFACTS = Path(os.environ.get("A2ABENCH_TEST_ARTEFACTS")
                 or Path(__file__).resolve().parents[1] / "test-artefacts")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-dev-shm-usage", "--remote-debugging-port=0",
         "--remote-allow-origins=*", "--window-size=1280,900"]


def find_chromium() -> str | None:
    """The Chromium binary (A2ABENCH_CHROMIUM overrides), or None when none is installed."""
    explicit = os.environ.get("A2ABENCH_CHROMIUM")
    if explicit:
        return explicit
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


class Chromium:
    def __init__(self, proc: subprocess.Popen[bytes], profile: str, ws: Any,
                 stack: contextlib.ExitStack) -> None:
        self.proc, self.profile, self.ws, self._stack = proc, profile, ws, stack
        self._ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    @classmethod
    def launch(cls, timeout: float = 30.0) -> Chromium:
        from websockets.sync.client import connect

        binary = find_chromium()
        if binary is None:
            raise BrowserError("no Chromium binary found")
        profile = tempfile.mkdtemp(prefix="a2abench-chromium-")
        # TMPDIR inside the profile: Chromium's singleton socket folder
        # (org.chromium.Chromium.*) then goes with the profile instead of piling up in /tmp.
        proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env={**os.environ, "TMPDIR": profile})
        stack = contextlib.ExitStack()
        try:
            port = _devtools_port(Path(profile) / "DevToolsActivePort", proc, timeout)
            target = _page_target(port, timeout)
            ws = stack.enter_context(connect(target, max_size=None, open_timeout=timeout))
            browser = cls(proc, profile, ws, stack)
            browser.call("Page.enable")
            browser.call("Runtime.enable")
        except BaseException:
            stack.close()
            proc.kill()
            proc.wait()
            shutil.rmtree(profile, ignore_errors=True)
            raise
        return browser

    def call(self, method: str, timeout: float = 30.0, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})  # type: ignore[no-any-return]
            self.events.append(message)

    def wait_event(self, name: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for index, event in enumerate(self.events):
                if event.get("method") == name:
                    return self.events.pop(index)
            message = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            self.events.append(message)

    def evaluate(self, expression: str, timeout: float = 30.0) -> Any:
        result = self.call("Runtime.evaluate", timeout=timeout, expression=expression,
                           awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, path: Path, fragment: str = "", timeout: float = 60.0) -> None:
        self.events.clear()
        url = path.resolve().as_uri() + (f"#{fragment}" if fragment else "")
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", timeout)

    def wait_for(self, condition: str, timeout: float = 30.0) -> Any:
        """Poll a JS expression until it is truthy (inside the page, without a fixed sleep)."""
        script = ("new Promise((resolve, reject) => { const t0 = performance.now();"
                  f" const tick = () => {{ let v; try {{ v = ({condition}); }} catch (e) {{}}"
                  " if (v) resolve(v); else if (performance.now() - t0 > "
                  f"{int(timeout * 1000)}) reject(new Error('timed out: ' + "
                  f"{json.dumps(condition)})); else requestAnimationFrame(tick); }}; tick(); }})")
        return self.evaluate(script, timeout=timeout + 5)

    def screenshot(self, target: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        target.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self._stack.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _devtools_port(marker: Path, proc: subprocess.Popen[bytes], timeout: float) -> int:
    """Chromium writes its DevTools port into the profile once it listens."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BrowserError(f"Chromium exited with code {proc.returncode} at start")
        try:
            first = marker.read_text().splitlines()[0]
            return int(first)
        except (OSError, IndexError, ValueError):
            time.sleep(0.05)  # polling a file Chromium has not written yet
    raise BrowserError("Chromium did not open its DevTools port")


def _page_target(port: int, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
            pages = [t for t in json.load(r) if t.get("type") == "page"]
        if pages:
            return str(pages[0]["webSocketDebuggerUrl"])
        time.sleep(0.05)  # the first tab is not registered yet
    raise BrowserError("Chromium has no page target")
