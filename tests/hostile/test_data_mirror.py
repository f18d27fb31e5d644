"""A hostile data mirror (issue 23 item 3): an endless body, a body over the pinned size, a
1-byte-per-interval drip and a download past the overall deadline each end in one line,
stream to disk (memory stays flat) and leave nothing half-written in the cache."""

from __future__ import annotations

import hashlib
import threading
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from a2abench._paths import cache_dir
from a2abench.errors import DataCorrupt, DataMissing
from a2abench.net import download as _download
from tests.clihelp import run_cli
from tests.waits import in_thread


@contextmanager
def mirror(mode: str, pause: float = 0.0) -> Iterator[str]:
    """endless: 64 KB chunks until the client leaves; drip: one byte every `pause` s."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            chunk = b"x" * (1 if mode == "drip" else 65536)
            try:
                while not stop.is_set():
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    if pause:
                        time.sleep(pause)
            except OSError:  # the client gave up
                pass

        def log_message(self, *args: object) -> None:
            pass

    stop = threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()


def leftovers(folder: str) -> list[Path]:
    root = cache_dir() / folder
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def item(base: str, size: int | None = None) -> _download.RemoteFile:
    return _download.RemoteFile("d/f.bin", base + "d/f.bin",
                                hashlib.sha256(b"the real bytes").hexdigest(), size=size)


def test_a_body_over_the_pinned_size_is_refused_at_once() -> None:
    # The message proves the size check ended it; the endless body would never end the call.
    with mirror("endless") as base, \
            pytest.raises(DataCorrupt, match="larger than its pinned size of 14 bytes"):
        in_thread(lambda: _download.ensure([item(base, size=14)], folder="m"))
    assert leftovers("m") == []


def test_an_endless_body_streams_to_disk_up_to_the_ceiling(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_download, "MAX_UNSIZED_BYTES", 64 << 20)
    tracemalloc.start()
    try:
        with mirror("endless") as base, pytest.raises(
                DataCorrupt, match="larger than the 67108864 bytes allowed"):
            _download.ensure([item(base)], folder="m")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, peak  # main held the whole body: 3.4 GB before MemoryError
    assert leftovers("m") == []


def test_a_drip_is_given_up_after_the_grace_period(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_download, "RATE_GRACE_S", 0.5)
    # The message proves the pace check ended it (after the 0.5 s grace, however long a loaded
    # machine took to look); the drip alone would take 28 hours.
    with mirror("drip", pause=0.01) as base, \
            pytest.raises(DataMissing, match=r"too slow \(\d+ bytes in \d+ s, under 10000"):
        in_thread(lambda: _download.ensure([item(base, size=10_000_000)], folder="m"))
    assert leftovers("m") == []


def test_the_overall_deadline_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_download, "DOWNLOAD_DEADLINE_S", 0.5)
    with mirror("endless", pause=0.01) as base, pytest.raises(
            DataMissing, match=r"not finished after 0\.5 s"):
        _download.ensure([item(base, size=1 << 40)], folder="m")
    assert leftovers("m") == []


def test_data_pull_from_an_endless_mirror_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    with mirror("endless") as base:
        monkeypatch.setenv(_download.MIRROR_ENV, base)
        result = run_cli("data", "pull", "tau2")
    assert result.code != 0
    assert "Traceback" not in result.err and "MemoryError" not in result.err
    assert "larger than its pinned size" in result.err
    assert not [p for p in cache_dir().rglob("*.part")]
