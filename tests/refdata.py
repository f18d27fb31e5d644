"""Where the tests find reference data, and the one pull that fills the cache when absent.

Per benchmark ("tau2", "crmarena") the first of these that holds it wins:
1. `A2ABENCH_TEST_DATA/<benchmark>` (a folder laid out like ../shared/data);
2. `../shared/data/<benchmark>` beside the project (CI);
3. the user's a2abench cache, when `a2abench data pull` left it complete and verified;
4. a pull into that cache through `a2abench.data.pull` (tried once per session).

The environment is read when this module is imported, before the autouse fixture isolates
every test's `A2ABENCH_*` variables and cache dir.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from a2abench import data
from a2abench._paths import cache_dir
from a2abench.errors import DataError

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TEST_DATA_ENV = "A2ABENCH_TEST_DATA"
# What the tests read: tau2's data files and CRMArena's task and schema dumps (no org DBs).
NEEDED = {"tau2": ("data",), "crmarena": ("reference",)}
FIX = ("a2abench data pull all --no-org-dbs (or set A2ABENCH_TEST_DATA to a folder holding "
       "tau2/ and crmarena/ laid out like ../shared/data)")


class Resolver:
    def __init__(self, environ: dict[str, str], shared: Path) -> None:
        self.environ = {k: v for k, v in environ.items() if k.startswith("A2ABENCH_")}
        self.shared = shared
        with pytest.MonkeyPatch.context() as mp:
            self._user_env(mp)
            self.cache = cache_dir()
        self.found: dict[str, Path | None] = {}
        self.pull_error: str | None = None
        self.pulled = False
        self.skipped: dict[str, int] = {}  # benchmark -> tests skipped for want of its data
        self.other_skips: dict[str, int] = {}  # any other skip's reason -> how many
        self.collecting = False  # set by conftest while pytest collects: data reads refused
        self._links: Path | None = None

    def _user_env(self, mp: pytest.MonkeyPatch) -> None:
        for name in [n for n in os.environ if n.startswith("A2ABENCH_")]:
            mp.delenv(name)
        for name, value in self.environ.items():
            mp.setenv(name, value)

    def root(self, benchmark: str) -> Path | None:
        """The folder holding `benchmark`'s reference data, or None."""
        if benchmark not in self.found:
            self.found[benchmark] = self._find(benchmark)
        return self.found[benchmark]

    def _find(self, benchmark: str) -> Path | None:
        given = self.environ.get(TEST_DATA_ENV)
        for candidate in ([Path(given) / benchmark] if given else []) + [self.shared / benchmark]:
            if candidate.is_dir():
                return candidate
        if benchmark not in NEEDED:
            return None
        cached = self._cached(benchmark)  # reads and hashes every file: once, unless pulled
        if not cached and not self.pulled:
            self._pull()
            cached = self._cached(benchmark)
        return self._linked(benchmark) if cached else None

    def _sets(self, benchmarks: tuple[str, ...]) -> list[data.FileSet]:
        wanted = [b for b in data.benchmarks() if b in benchmarks]
        return [fs for fs in data.file_sets(wanted, org_dbs=False)
                if fs.name in NEEDED[fs.benchmark]]

    def _cached(self, benchmark: str) -> bool:
        with pytest.MonkeyPatch.context() as mp:
            self._user_env(mp)
            return all(s.complete for s in data.status(self._sets((benchmark,))))

    def _pull(self) -> None:
        """Pull what every benchmark's tests need, once; remember why it failed."""
        import httpx  # here: a2abench, imported first, keeps httpx's own CLI out of it

        self.pulled = True
        timeout = httpx.Timeout(300.0, connect=5.0)  # offline: fail fast, not per file
        with pytest.MonkeyPatch.context() as mp, httpx.Client(
                timeout=timeout, follow_redirects=True) as client:
            self._user_env(mp)
            try:
                data.pull(self._sets(tuple(NEEDED)), client=client)
            except DataError as exc:
                self.pull_error = exc.message

    def _linked(self, benchmark: str) -> Path:
        """The cached copy seen through a folder of its own: tau2's `data/tau2` without the
        `src/` beside it, so tests read data exactly as from ../shared/data."""
        if self._links is None:
            self._links = Path(tempfile.mkdtemp(prefix="a2abench-refdata-"))
        link = self._links / benchmark
        if not link.exists():
            link.symlink_to(data.reference_layout(self.cache)[benchmark],
                            target_is_directory=True)
        return link

    def share(self) -> dict[str, object]:
        """What an xdist worker needs to find the data this process found (or pulled)."""
        return {"found": {b: str(p) if p else None for b, p in self.found.items()},
                "pull_error": self.pull_error}

    def adopt(self, shared: dict[str, object]) -> None:
        """Take the controller's findings: a worker never pulls on its own."""
        found = shared["found"]
        assert isinstance(found, dict)
        self.found = {b: Path(p) if p else None for b, p in found.items()}
        error = shared["pull_error"]
        self.pull_error = error if isinstance(error, str) else None
        self.pulled = True  # the controller tried; the summary line is the controller's

    def count_skip(self, reason: str) -> None:
        """Count a skipped test: by benchmark when `shared_data` skipped it (its reason names
        the benchmark first), else by its reason."""
        prefix = "reference data "
        if reason.startswith(prefix):
            benchmark = reason[len(prefix):].split("/", 1)[0].split(" ", 1)[0]
            self.skipped[benchmark] = self.skipped.get(benchmark, 0) + 1
        else:
            reason = reason.strip() or "(no reason given)"
            self.other_skips[reason] = self.other_skips.get(reason, 0) + 1

    def why(self) -> str:
        looked = ", ".join(([f"${TEST_DATA_ENV}"] if self.environ.get(TEST_DATA_ENV) else [])
                           + [str(self.shared), f"the cache {self.cache}"])
        pulled = f"; pulling failed: {self.pull_error}" if self.pull_error else ""
        return f"looked in {looked}{pulled}. Fix: {FIX}"

    def summary(self) -> list[str]:
        """The session's closing lines: every other skip's reason with its count, then the
        one line about reference data (why tests skipped and the command that fixes it, or
        where this session's pull put the data)."""
        lines = [f"{n} skipped: {reason}" for reason, n in sorted(self.other_skips.items())]
        data = self._data_line()
        return [*lines, data] if data else lines

    def _data_line(self) -> str | None:
        if not self.skipped:
            if self.pulled and self.pull_error is None:
                return (f"reference data pulled into the cache {self.cache} (as "
                        "`a2abench data pull all --no-org-dbs` does); later runs reuse it")
            return None
        missing = ", ".join(sorted(self.skipped))
        return (f"{sum(self.skipped.values())} tests skipped: no {missing} reference data"
                f"{' (pull failed: ' + self.pull_error + ')' if self.pull_error else ''}. "
                f"Fix: {FIX}")

    def cleanup(self) -> None:
        if self._links is not None:
            shutil.rmtree(self._links, ignore_errors=True)


RESOLVER = Resolver(dict(os.environ), SHARED_DATA)
