"""`a2abench data pull|status` against a loopback mirror laid out like the raw-file host, and
the test suite's own data lookup on a simulated fresh clone (no ../shared beside it)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from a2abench import data
from a2abench._paths import cache_dir
from a2abench.benchmarks.crmarena import reference, upstream
from a2abench.benchmarks.tau2 import data as tau2_data
from a2abench.net import download as _download
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.tau2.test_download import FileServer

ROOT = Path(__file__).resolve().parents[1]
TEXTS = {"crm_sandbox/env/env.py": b"# env\n", "crm_sandbox/agents/prompts.py": b"# prompts\n",
         "crm_sandbox/env/users.py": b"# users\n"}


def _serve_reference(server: FileServer) -> None:
    """The pinned tau2 data files and CRMArena reference dumps at their upstream raw paths."""
    m = tau2_data.manifest()
    tau2_root = shared_data("tau2")
    for rel in m.files:
        if rel.startswith("data/tau2/"):
            server.files[f"/{m.repository}/{m.commit}/{rel}"] = (
                tau2_root / rel.removeprefix("data/tau2/")).read_bytes()
    crm_root = shared_data("crmarena")
    entries = json.loads((ROOT / "a2abench/benchmarks/crmarena/reference.json").read_text())
    for name, e in entries["files"].items():
        server.files[f"/{e['repository']}/{e['commit']}/{e['path']}"] = (
            crm_root / name).read_bytes()


@pytest.fixture
def mirror(monkeypatch: pytest.MonkeyPatch) -> Iterator[FileServer]:
    # Started (and so closed) by `serving()` whatever happens: a skip for missing reference
    # data inside _serve_reference used to leave the bound socket open.
    with FileServer.serving() as server:
        _serve_reference(server)
        monkeypatch.setenv(_download.MIRROR_ENV, server.url)
        yield server


def _counts() -> tuple[int, int, int]:
    """How many pinned tau2 data files, tau2 sources and CRMArena reference files there are."""
    tau2_files, sources = tau2_data.pinned_files()
    return len(tau2_files), len(sources), len(reference.reference_files())


def _needed() -> list[data.FileSet]:
    return [fs for fs in data.file_sets(data.benchmarks(), org_dbs=False)
            if fs.name in ("data", "reference")]


@pytest.mark.slow
def test_pull_verifies_caches_and_is_idempotent(mirror: FileServer) -> None:
    result = data.pull(_needed())
    assert [(s.fileset.benchmark, s.fileset.name, s.complete) for s in result] == [
        ("crmarena", "reference", True), ("tau2", "data", True)]  # by name
    layout = data.reference_layout()
    assert (layout["tau2"] / "domains/airline/db.json").read_bytes() == (
        shared_data("tau2", "domains/airline/db.json").read_bytes())
    assert (layout["crmarena"] / "schema/b2b_schema.json").is_file()
    fetched = len(mirror.requests)
    n_data, _, n_reference = _counts()
    assert fetched == n_data + n_reference
    data.pull(_needed())
    assert len(mirror.requests) == fetched  # everything was verified in the cache, not fetched


@pytest.mark.slow
def test_pull_stops_at_a_missing_file_keeps_the_rest_and_status_says_so(
        mirror: FileServer) -> None:
    # The cache holds tau2's data but for three files (the whole pull is the test above's):
    # those are fetched, and kept when the pull stops at the first file the mirror lacks.
    [data_set] = [fs for fs in data.file_sets(("tau2",)) if fs.name == "data"]
    # Links to the reference copy's files, not copies of 30 MB: the cache reads through them.
    shutil.copytree(shared_data("tau2"), data.reference_layout()["tau2"],
                    copy_function=os.symlink)
    absent = data_set.files[:3]
    for item in absent:
        (cache_dir() / data_set.folder / item.path).unlink()
    # The mirror has tau2's data but not its upstream sources: exit 1 naming the file.
    res = run_cli("data", "pull", "tau2")
    assert res.code == 1
    first_source = tau2_data.pinned_files()[1][0]
    assert mirror.requests == [urlsplit(f.url).path for f in (*absent, first_source)]
    assert "Error: could not download src/tau2/" in res.err and "HTTP 404" in res.err
    assert "A2ABENCH_DATA_MIRROR" in res.err and "kept" in res.err
    status = run_cli("data", "status", "tau2", "--json")
    assert status.code == 0
    by_set = {s["set"]: s for s in status.json()}
    n_data, n_sources, _ = _counts()
    assert by_set["data"]["complete"] and by_set["data"]["verified"] == n_data
    assert not by_set["sources"]["complete"] and len(by_set["sources"]["missing"]) == n_sources


def test_status_reports_a_damaged_file_and_pull_repairs_it(mirror: FileServer) -> None:
    reference_set = [fs for fs in _needed() if fs.name == "reference"]
    data.pull(reference_set)
    damaged = data.reference_layout()["crmarena"] / "tasks/crmarenapro_b2b_tasks.json"
    damaged.write_text("[]")
    states = {s.fileset.name: s for s in data.status(reference_set)}
    assert states["reference"].states["tasks/crmarenapro_b2b_tasks.json"] == "corrupt"
    text = run_cli("data", "status", "crmarena")
    assert "crmarena reference: 7 files, 1 corrupt" in text.out
    assert "a2abench data pull all" in text.out
    assert all(s.complete for s in data.pull(reference_set))
    assert damaged.stat().st_size > 1000  # the pinned copy is back


def test_cli_pull_success_in_plain_and_json(mirror: FileServer,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # The prose files are not part of the reference copy: pin stand-ins of our own.
    real = upstream.manifest()
    monkeypatch.setattr(upstream, "manifest", lambda: upstream.Manifest(
        real.repository, real.commit, {p: _sha256(b) for p, b in TEXTS.items()}, real.orgs))
    for rel, body in TEXTS.items():
        mirror.files[f"/{real.repository}/{real.commit}/{rel}"] = body
    res = run_cli("data", "pull", "crmarena", "--no-org-dbs")
    assert res.code == 0, res.err
    assert "pulling crmarena texts (3 files)" in res.err
    assert "crmarena texts: 3 files, verified" in res.out
    assert "crmarena reference: 7 files, verified" in res.out
    assert "org" not in res.out
    listed = run_cli("data", "status", "crmarena", "--json").json()
    assert [(s["set"], s["complete"]) for s in listed] == [
        ("texts", True), ("reference", True), ("org b2b", False), ("org b2c", False),
        ("org original", False)]
    assert (cache_dir() / upstream.folder() / "crm_sandbox/env/env.py").read_bytes() == b"# env\n"


def _sha256(body: bytes) -> str:
    import hashlib

    return hashlib.sha256(body).hexdigest()


def test_a_benchmarks_own_base_url_wins_over_the_mirror(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_download.MIRROR_ENV, "http://mirror.invalid/raw")
    m = tau2_data.manifest()
    data_files, _ = tau2_data.pinned_files()
    assert data_files[0].url.startswith(f"http://mirror.invalid/raw/{m.repository}/{m.commit}/")
    monkeypatch.setenv(tau2_data.URL_ENV, "http://tau2.invalid/base")
    assert tau2_data.pinned_files()[0][0].url.startswith("http://tau2.invalid/base/data/tau2/")
    assert reference.reference_files()[0].url.startswith("http://mirror.invalid/raw/")
    monkeypatch.delenv(_download.MIRROR_ENV)
    assert upstream.org_file("b2b").url.startswith(_download.RAW_HOST)


def test_unknown_data_set_is_a_usage_error() -> None:
    res = run_cli("data", "pull", "nope")
    assert res.code == 2
    assert "Error: unknown data set 'nope'. Choose crmarena, tau2 or all." in res.err


# -- a fresh clone: the suite's own lookup (tests/refdata.py) in a subprocess ----------------

# The clone runs a probe of its own rather than benchmark tests: what is proved is the lookup
# (conftest's shared_data over tests/refdata.py), and each pytest process then pays its own
# start-up only, not the benchmark packages' imports. Each benchmark's test reads a file as
# the suite's tests do and checks its bytes; the third needs no data, so a session without
# any goes on to pass it.
PROBE = """
import hashlib

from tests.conftest import shared_data


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_tau2():  # as tests/tau2/tau2_support.data_root(): the folder holding tau2/
    assert sha256(shared_data("tau2").parent / "tau2" / {tau2_file!r}) == {tau2_sha!r}


def test_crmarena():
    assert sha256(shared_data("crmarena", {crm_file!r})) == {crm_sha!r}


def test_no_data():
    pass
"""
FRESH_TESTS = ["tests/test_fresh_clone_probe.py"]


def _dead_url() -> str:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/"


def _fresh_clone(tmp_path: Path) -> Path:
    clone = tmp_path / "clone"  # no shared/ beside it
    shutil.copytree(ROOT / "tests", clone / "tests",
                    ignore=shutil.ignore_patterns("__pycache__", "golden"))
    shutil.copy(ROOT / "pyproject.toml", clone)
    files = {"tau2_file": "domains/airline/db.json", "crm_file": "schema/b2b_schema.json"}
    (clone / FRESH_TESTS[0]).write_text(PROBE.format(
        **files, tau2_sha=_sha256(shared_data("tau2", files["tau2_file"]).read_bytes()),
        crm_sha=_sha256(shared_data("crmarena", files["crm_file"]).read_bytes())))
    return clone


def _pytest(clone: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("A2ABENCH_")}
    # Without hypothesis's plugin: the probe has no property test, and the plugin imports
    # hypothesis (~0.4 s) in every session's closing summary.
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:hypothesispytest", *args, *FRESH_TESTS], cwd=clone,
                          env={**base, **env}, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_fresh_clone_pulls_once_then_uses_the_cache_or_test_data(
        mirror: FileServer, tmp_path: Path) -> None:
    clone, cache, dead = _fresh_clone(tmp_path), tmp_path / "user-cache", _dead_url()
    # Two xdist workers: the controller pulls, once, before they start.
    first = _pytest(clone, "-n", "2", A2ABENCH_CACHE_DIR=str(cache),
                    A2ABENCH_DATA_MIRROR=mirror.url)
    assert first.returncode == 0, first.stdout + first.stderr
    n_data, _, n_reference = _counts()
    assert "skipped" not in first.stdout and len(mirror.requests) == n_data + n_reference
    assert "3 passed" in first.stdout, first.stdout
    assert "reference data pulled into the cache" in first.stdout  # the session's one line
    # Offline from now on: the cache alone serves the next run.
    cached = _pytest(clone, "-n", "0", A2ABENCH_CACHE_DIR=str(cache), A2ABENCH_DATA_MIRROR=dead)
    assert cached.returncode == 0 and "3 passed" in cached.stdout, cached.stdout
    # A2ABENCH_TEST_DATA holding one benchmark, an empty cache and no network: that one is
    # read from it; the other has nothing anywhere, so its test skips and one line names the
    # fix, in one process and under xdist (the controller tries the pull and counts the
    # worker's skips; that two workers pull nothing themselves the first run proved).
    for workers, given, missing in (("0", "tau2", "crmarena"), ("1", "crmarena", "tau2")):
        only = tmp_path / f"only-{given}"
        only.mkdir()
        (only / given).symlink_to(shared_data(given), target_is_directory=True)
        run = _pytest(clone, "-n", workers, A2ABENCH_CACHE_DIR=str(tmp_path / f"empty{workers}"),
                      A2ABENCH_DATA_MIRROR=dead, A2ABENCH_TEST_DATA=str(only))
        assert run.returncode == 0, run.stdout + run.stderr
        assert "2 passed, 1 skipped" in run.stdout, run.stdout
        lines = [line for line in run.stdout.splitlines() if "a2abench data pull all" in line]
        assert len(lines) == 1, run.stdout
        assert f"1 tests skipped: no {missing} reference data" in lines[0]
        assert "pull failed" in lines[0]


def test_reading_reference_data_while_collecting_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A read at import time skips outside a test on a bare clone, which aborts the session
    # (issue 22): refused during collection even where the data is present.
    from tests import refdata

    monkeypatch.setattr(refdata.RESOLVER, "collecting", True)
    with pytest.raises(RuntimeError, match="read while collecting tests"):
        shared_data("tau2")


def test_every_skip_states_its_reason_in_the_closing_summary(tmp_path: Path) -> None:
    # Issue 35: skips for want of an upstream checkout, a browser or the gateway's venv were
    # silent without `-rs`; each reason is now one closing line with its count.
    from tests import refdata

    resolver = refdata.Resolver({}, tmp_path / "no-shared")
    for reason in ("set TAU2_UPSTREAM_CHECKOUT to a checkout", "no Chromium found",
                   "set TAU2_UPSTREAM_CHECKOUT to a checkout", "",
                   "reference data tau2/airline not found: looked in x. Fix: y"):
        resolver.count_skip(reason)
    assert resolver.summary() == [
        "1 skipped: (no reason given)", "1 skipped: no Chromium found",
        "2 skipped: set TAU2_UPSTREAM_CHECKOUT to a checkout",
        f"1 tests skipped: no tau2 reference data. Fix: {refdata.FIX}"]
