"""Shared fixtures: every test runs with a clean A2ABENCH_* environment and its own cache dir.

Reference data (upstream tau2 and CRMArena files) is found, per benchmark, in
`A2ABENCH_TEST_DATA`, then `../shared/data` beside the project, then the user's a2abench cache
(`a2abench data pull`); when none has it, it is pulled once into that cache through the
product's verified downloader. Only when that fails do the tests that need it skip, and the
session ends with one line naming the command that fixes it. Under pytest-xdist the
controller looks (and pulls) once before the workers start, hands them what it found, and
counts the skips from their reports for that one line.
"""

from __future__ import annotations

import atexit
import gc
import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import bytecode, refdata, shared_tls  # noqa: F401 (bytecode: imported for its effect, first)

_PROFILE: list[bool] = []


def _hypothesis_profile() -> None:
    """Property tests check properties, not speed: no per-example deadline (200 ms by default)
    and no "too slow" health check, both of which failed under a loaded machine (issue 35). A
    test's own @settings still sets what it names. Loaded before the first test module that
    names hypothesis is imported (its @settings inherit the profile then), not here: a process
    that collects no property test (the xdist controller, a fresh clone's nested run) does not
    import hypothesis (~0.3 s)."""
    if not _PROFILE:
        from hypothesis import HealthCheck, settings

        settings.register_profile("a2abench", deadline=None,
                                  suppress_health_check=[HealthCheck.too_slow])
        settings.load_profile("a2abench")
        _PROFILE.append(True)


def pytest_collectstart(collector: pytest.Collector) -> None:
    # Before a module is imported (pytest makes a Module node for every file of a folder it
    # walks, even those a path argument leaves out, and imports only those it collects).
    if (not _PROFILE and isinstance(collector, pytest.Module)
            and ("hypothesis" in sys.modules
                 or "hypothesis" in collector.path.read_text(encoding="utf-8"))):
        _hypothesis_profile()


def pytest_collection_finish(session: pytest.Session) -> None:
    if "hypothesis" in sys.modules:  # imported by a module that does not name it
        _hypothesis_profile()


shared_tls.share_default_contexts()
# a2a-sdk wraps each step of a request in an OpenTelemetry span, 70 of them per request its
# servers answer (the tests' agents, serve-green): no-ops with no tracing SDK configured, but
# ~20% of those servers' CPU. Read when a2a-sdk is first imported, which is after this.
os.environ.setdefault("OTEL_INSTRUMENTATION_A2A_SDK_ENABLED", "false")

# A test process keeps large caches alive (tau2 databases and corpora, orgs, the imported
# packages), and the collector's young generation (700 allocations by default) promoted
# enough to walk them whole again and again: at 10,000 its time in the tau2, CRMArena and
# multi-agent quick tests fell from 5.8 to 4.0 s of CPU (three workers). Cycles are still
# collected, only later; pytest's last collection still reports what they left unraisable.
gc.set_threshold(10_000, 10, 10)

SHARED_DATA = refdata.SHARED_DATA

_ISOLATED_PREFIXES = ("A2ABENCH_", "OPENAI_", "SALESFORCE_")
_ISOLATED_NAMES = ("CI", "NO_COLOR", "GITHUB_STEP_SUMMARY", "HF_HUB_OFFLINE")
# No test reaches the internet: a download a test did not arrange goes to a closed loopback
# port and fails at once (it had tried the raw-file host: a DNS wait of up to 5 s, or worse,
# the file). Tests of the downloader set their own mirror, or remove this one.
NO_INTERNET_MIRROR = "http://127.0.0.1:1/"


@pytest.fixture(scope="session")
def _caches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder of every test's own cache dir (`mktemp` per test lists the whole session's
    temp folder each time, which grows with the suite)."""
    return iter_caches(tmp_path_factory.mktemp("caches"))


def iter_caches(root: Path) -> Iterator[Path]:
    """Paths not created yet, as a new user's cache is not: the product makes what it
    writes into (and most tests write nothing there)."""
    for n in itertools.count():
        yield root / str(n)


def _isolate(monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    for name in list(os.environ):
        if name.startswith(_ISOLATED_PREFIXES) or name in _ISOLATED_NAMES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("A2ABENCH_CACHE_DIR", str(cache))
    monkeypatch.setenv("A2ABENCH_DATA_MIRROR", NO_INTERNET_MIRROR)


@pytest.fixture(scope="session", autouse=True)
def _session_environ(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The same isolation for module- and session-scoped fixtures, which are set up before
    `clean_environ` (a module's shared run would otherwise use the user's cache)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _isolate(monkeypatch, tmp_path_factory.mktemp("session-cache"))
        yield


@pytest.fixture(autouse=True)
def clean_environ(_caches: Iterator[Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    _isolate(monkeypatch, next(_caches))
    yield


def shared_data(*parts: str) -> Path:
    """A path in the reference data (`parts[0]` is "tau2" or "crmarena"), or skip the test.

    Only inside a test or fixture: at collection a missing copy would skip outside a test,
    which aborts the whole session on a bare clone (so it is refused there, data or not)."""
    if refdata.RESOLVER.collecting:
        raise RuntimeError(f"reference data {'/'.join(parts)} read while collecting tests: "
                           "read it inside the test (or a fixture), so a clone without the "
                           "data still collects every test")
    root = refdata.RESOLVER.root(parts[0])
    path = root.joinpath(*parts[1:]) if root is not None else None
    if path is None or not path.exists():
        pytest.skip(f"reference data {'/'.join(parts)} not found: {refdata.RESOLVER.why()}")
    return path


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[object]:
    refdata.RESOLVER.collecting = True
    try:
        return (yield)
    finally:
        refdata.RESOLVER.collecting = False


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    if _is_worker(config) and "a2abench_refdata" in config.workerinput:
        refdata.RESOLVER.adopt(config.workerinput["a2abench_refdata"])
    if _is_worker(config) and "coverage" not in sys.modules:
        atexit.register(_exit_worker)  # registered before the tests' own: runs after them


def _exit_worker() -> None:
    """An xdist worker's last step, after its results are sent, its session torn down and
    every later exit handler run: what is left is the interpreter freeing a large heap
    object by object, ~1.5 s the controller waited for at the end of every run. (Not under
    coverage, whose data is written by an exit handler of its own.)"""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """pytest collects garbage twice after the session, to report exceptions raised by
    finalizers of cycles the tests left: in an xdist worker that walked the whole heap, 1-2 s
    at the end of every run, and reported nothing (a worker's output after its session is
    dropped: a `__del__` that raises shows under `-n 0` and not under `-n 2`). A worker
    freezes what is left instead; in one process (`-n 0`) the check runs as before."""
    if _is_worker(session.config):
        gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist, in the controller, before a worker starts: find (or pull) the data once here."""
    for benchmark in refdata.NEEDED:
        refdata.RESOLVER.root(benchmark)
    node.workerinput["a2abench_refdata"] = refdata.RESOLVER.share()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores. Many tests mostly wait (timeouts, heartbeats,
    child processes): a third worker on 2 cores took the whole suite from 164 s to 130 s."""
    return (os.cpu_count() or 1) + 1


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # In the controller this sees every worker's reports: one count, one summary line.
    if report.skipped and isinstance(report.longrepr, tuple):
        refdata.RESOLVER.count_skip(str(report.longrepr[2]).removeprefix("Skipped: "))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # Every skip says why here, without `-rs`: each other reason once with its count, then
    # the one line about reference data (its reasons are long and all name the same fix).
    for line in refdata.RESOLVER.summary():
        terminalreporter.write_line(line, yellow=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    refdata.RESOLVER.cleanup()
