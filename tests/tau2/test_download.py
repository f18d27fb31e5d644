"""Pinned downloads against a local HTTP server (127.0.0.1, port 0), one file corrupted."""

from __future__ import annotations

import hashlib
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from a2abench._paths import cache_dir
from a2abench.benchmarks.tau2 import data, domain
from a2abench.errors import DataCorrupt, DataMissing
from a2abench.net import download as _download
from tests.tau2.tau2_support import data_root


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionResetError):  # a client's pool closing
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class FileServer:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            # Keep-alive, as the raw-file host: a connection per download worker, not per
            # file (banking's 814 files opened 814 connections, each with a server thread).
            # No Nagle: the body does not wait on the head's ACK.
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                server.requests.append(self.path)
                body = server.files.get(self.path)
                payload = body if body is not None else b"not found"
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        # A connection a client keeps open ends with that client; closing waits for none.
        self.httpd.block_on_close = False
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,),
                                       daemon=True)

    @classmethod
    @contextmanager
    def serving(cls) -> Iterator[FileServer]:
        """A started server on 127.0.0.1, shut down afterwards."""
        s = cls()
        s.thread.start()
        try:
            yield s
        finally:
            s.httpd.shutdown()
            s.httpd.server_close()


@pytest.fixture
def server() -> Iterator[FileServer]:
    with FileServer.serving() as s:
        yield s


def _remote(server: FileServer, path: str, body: bytes) -> _download.RemoteFile:
    server.files["/" + path] = body
    return _download.RemoteFile(path, server.url + path, hashlib.sha256(body).hexdigest())


def test_downloads_verifies_and_caches(server: FileServer) -> None:
    item = _remote(server, "x/a.txt", b"alpha")
    got = _download.ensure([item], folder="t")
    assert got["x/a.txt"].read_bytes() == b"alpha"
    assert got["x/a.txt"] == cache_dir() / "t" / "x" / "a.txt"
    _download.ensure([item], folder="t")
    assert server.requests == ["/x/a.txt"]  # the second call used the verified cache


def test_corrupt_download_is_rejected_and_not_cached(server: FileServer) -> None:
    item = _remote(server, "b.txt", b"beta")
    server.files["/b.txt"] = b"tampered"
    with pytest.raises(DataCorrupt, match=r"b\.txt.*sha256") as err:
        _download.ensure([item], folder="t")
    assert "not cached" in (err.value.hint or "")
    assert not (cache_dir() / "t" / "b.txt").exists()


def test_missing_remote_file_names_it_and_the_fix(server: FileServer) -> None:
    item = _download.RemoteFile("c.txt", server.url + "c.txt", "0" * 64)
    with pytest.raises(DataMissing, match=r"c\.txt.*HTTP 404") as err:
        _download.ensure([item], folder="t")
    assert "--data-dir" in (err.value.hint or "")


def test_a_damaged_cached_file_is_downloaded_again(server: FileServer) -> None:
    item = _remote(server, "d.txt", b"delta")
    target = cache_dir() / "t" / "d.txt"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"damaged")
    assert _download.ensure([item], folder="t")["d.txt"].read_bytes() == b"delta"


def test_verify_reports_missing_and_corrupt_files(tmp_path: Path) -> None:
    with pytest.raises(DataMissing, match="missing"):
        _download.verify(tmp_path / "nope", "0" * 64, hint="h")
    (tmp_path / "f").write_bytes(b"x")
    with pytest.raises(DataCorrupt, match="expected"):
        _download.verify(tmp_path / "f", "0" * 64, hint="h")


def _serve_domain(server: FileServer, name: str) -> None:
    root = data_root()
    for rel in data.data_paths(name):
        server.files["/" + rel] = (root / rel.removeprefix("data/")).read_bytes()


def test_tau2_domain_downloads_from_the_pinned_file_list(
        server: FileServer, monkeypatch: pytest.MonkeyPatch) -> None:
    _serve_domain(server, "mock")
    monkeypatch.setenv(data.URL_ENV, server.url)
    monkeypatch.setattr(domain, "_DOMAINS", {})
    d = domain.load_domain("mock")
    assert len(d.tasks()) == 10
    assert d.files.origin == "download" and d.files.describe()["matches_pinned"]
    # The server has no upstream sources: neutral fallback text, no judge prompt.
    assert d.tool_text_source == "fallback" and d.judge_prompt is None
    assert "fallback" in d.files.source_note


def test_tau2_corrupted_data_file_is_rejected(server: FileServer,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _serve_domain(server, "mock")
    server.files["/data/tau2/domains/mock/tasks.json"] = b"[]"
    with pytest.raises(DataCorrupt, match=r"mock/tasks\.json"):
        data.resolve("mock", base_url=server.url)


def test_a_failed_tau2_download_names_the_data_dir_that_works(server: FileServer) -> None:
    # Issue 35: the hint named the repository path (data/tau2/...), so a --data-dir built
    # from it pointed one folder too high. The folder it names is the one --data-dir reads.
    with pytest.raises(DataMissing, match=r"mock/db\.json.*HTTP 404") as err:
        data.resolve("mock", base_url=server.url)
    hint = err.value.hint or ""
    assert "--data-dir DIR" in hint and "data/tau2" not in hint
    layout = re.search(r"DIR/(\S+)/ holds", hint)
    assert layout is not None and layout[1] == "tau2/domains/mock"
    assert (data_root() / layout[1]).is_dir()  # data_root() is upstream's data/ folder
    data.resolve("mock", data_root())  # and --data-dir reads it


@pytest.mark.slow
def test_banking_downloads_its_814_files_concurrently(
        server: FileServer, monkeypatch: pytest.MonkeyPatch) -> None:
    _serve_domain(server, "banking_knowledge")
    monkeypatch.setenv(data.URL_ENV, server.url)
    monkeypatch.setattr(domain, "_DOMAINS", {})
    seen: list[tuple[int, int]] = []
    workers: list[object] = []
    real = data.ensure_files  # the plugin API's name for _download.ensure

    def spy(*args: object, **kwargs: object) -> object:
        kwargs["progress"] = lambda done, total: seen.append((done, total))
        workers.append(kwargs.get("workers", 1))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(data, "ensure_files", spy)
    d = domain.load_domain("banking_knowledge", retrieval_variant="bm25")
    assert len(d.tasks()) == 97 and len(d.kb.documents) == 698  # type: ignore[attr-defined]
    assert d.files.origin == "download" and d.files.describe()["matches_pinned"]
    data_requests = [r for r in server.requests if r.startswith("/data/tau2/domains/banking")]
    assert len(data_requests) == len(set(data_requests)) == 814
    assert seen and seen[-1][0] == seen[-1][1]  # progress reached the total
    assert workers[0] == 16  # the data files are fetched concurrently


def test_banking_corrupted_document_is_rejected(server: FileServer) -> None:
    _serve_domain(server, "banking_knowledge")
    doc = next(p for p in server.files if "/documents/" in p)
    server.files[doc] = b"{}"
    with pytest.raises(DataCorrupt, match=r"banking_knowledge/documents/"):
        data.resolve("banking_knowledge", base_url=server.url)
