"""Benchmark data in the user cache: what `a2abench data pull` fetches, `data status` reports.
Every file is pinned (sha256 and/or git blob id) and fetched through `a2abench.net.download`, the
same verified downloader a run uses, so a pulled cache is exactly what a run would download.
Each benchmark's driver declares its sets (`Driver.data_sets`); the built-ins':

    tau2      data            data/tau2/... of every domain at the pinned tau2-bench commit
              sources         src/tau2/... read for upstream prose (tool text, judge prompt)
    crmarena  texts           upstream prose files (evaluator, prompts, user simulator)
              reference       task and schema dumps (usable as --tasks-file / --schema-file)
              org <name>      the published SQLite org dumps (the offline sandbox)

Base URLs: `A2ABENCH_DATA_MIRROR` replaces the raw-file host for everything;
`A2ABENCH_TAU2_DATA_URL` / `A2ABENCH_CRMARENA_DATA_URL` replace the base of one benchmark's
files at its pinned commit. CRMArena's hub tasks are cached by `datasets` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx

from a2abench._paths import cache_dir
from a2abench.errors import ConfigError
from a2abench.net import download as _download
from a2abench.net.coding import ACCEPT_ENCODING, drop_redirect_body_blocking
from a2abench.net.tls import verified_context

Benchmark = str  # a registered benchmark's name
FileState = Literal["verified", "missing", "corrupt"]
PULL_COMMAND = "a2abench data pull all"


@dataclass(frozen=True)
class FileSet:
    """A group of pinned files cached together under `cache_dir()/folder`."""

    benchmark: Benchmark
    name: str
    folder: str
    files: tuple[_download.RemoteFile, ...]
    purpose: str


@dataclass(frozen=True)
class SetStatus:
    """What the cache holds of one `FileSet`."""

    fileset: FileSet
    location: Path
    states: dict[str, FileState]  # file path -> state

    @property
    def complete(self) -> bool:
        return all(s == "verified" for s in self.states.values())

    def count(self, state: FileState) -> int:
        return sum(s == state for s in self.states.values())

    def to_dict(self) -> dict[str, object]:
        return {"benchmark": self.fileset.benchmark, "set": self.fileset.name,
                "purpose": self.fileset.purpose, "location": str(self.location),
                "files": len(self.states), "verified": self.count("verified"),
                "missing": sorted(p for p, s in self.states.items() if s == "missing"),
                "corrupt": sorted(p for p, s in self.states.items() if s == "corrupt"),
                "complete": self.complete}


def benchmarks() -> tuple[Benchmark, ...]:
    """The registered benchmarks whose drivers declare data sets, built-ins or plugins."""
    from a2abench.run.registry import get_driver, names

    return tuple(name for name in names() if get_driver(name).data_sets())


def selected(which: str) -> tuple[Benchmark, ...]:
    """A benchmark's name, or `all`, as the benchmarks to act on; ConfigError otherwise.
    A named benchmark loads only its own driver (a broken plugin elsewhere does not stop
    `data pull tau2`); `all` loads every one, and names a plugin that cannot load."""
    from a2abench.run.registry import get_driver, names

    if which == "all":
        return benchmarks()
    if which in names() and get_driver(which).data_sets():
        return (which,)
    raise ConfigError(f"unknown data set {which!r}",
                      hint=f"Choose {', '.join(benchmarks())} or all.")


def file_sets(benchmarks: Sequence[Benchmark], *, org_dbs: bool = True) -> list[FileSet]:
    """The pinned file groups of `benchmarks`, as each driver declares them (`data_sets`);
    large ones (CRMArena's org dumps) only with `org_dbs`."""
    from a2abench.run.registry import get_driver

    return [FileSet(name, s.name, s.folder, s.files, s.purpose)
            for name in benchmarks for s in get_driver(name).data_sets()
            if org_dbs or not s.large]


def _state(item: _download.RemoteFile, path: Path) -> FileState:
    if not path.is_file():
        return "missing"
    return "verified" if _download.matches(item, path) else "corrupt"


def status(sets: Sequence[FileSet]) -> list[SetStatus]:
    """Each set's files in the cache: verified, missing, or present with the wrong checksum."""
    out = []
    for fs in sets:
        root = cache_dir() / fs.folder
        out.append(SetStatus(fs, root, {f.path: _state(f, root / f.path) for f in fs.files}))
    return out


def pull(sets: Sequence[FileSet], *, client: httpx.Client | None = None,
         on_set: Callable[[FileSet], None] | None = None) -> list[SetStatus]:
    """Download and verify whatever `sets` lack; files already verified are not fetched.

    Stops at the first file that cannot be had (`DataMissing` / `DataCorrupt`); everything
    fetched before stays in the cache, so running it again continues.
    """
    http = client or httpx.Client(timeout=300.0, follow_redirects=True,
                                  verify=verified_context(),
                                  headers={"Accept-Encoding": ACCEPT_ENCODING},
                                  event_hooks={"response": [drop_redirect_body_blocking]})
    pulled: list[SetStatus] = []
    try:
        for fs in sets:
            if on_set is not None:
                on_set(fs)
            _download.ensure(fs.files, folder=fs.folder, client=http, hint=(
                f"Check the network connection (or set {_download.MIRROR_ENV} to a mirror) "
                f"and run `a2abench data pull` again; files fetched so far are kept"))
            # `ensure` returned, so every file was verified (or fetched and verified) just
            # now: no second reading of the whole set (the org dumps are hundreds of MB).
            pulled.append(SetStatus(fs, cache_dir() / fs.folder,
                                  dict.fromkeys((f.path for f in fs.files), "verified")))
    finally:
        if client is None:
            http.close()
    return pulled


def reference_layout(cache: Path | None = None) -> dict[Benchmark, Path]:
    """Where the cache holds each benchmark's files in the layout of its reference copy (the
    first of its data sets that declares a `layout`), by benchmark name."""
    from a2abench.run.registry import get_driver, names

    root = cache or cache_dir()
    found: dict[Benchmark, Path] = {}
    for name in names():
        for s in get_driver(name).data_sets():
            if s.layout is not None:
                found[name] = root / s.folder / s.layout
                break
    return found
