"""Pinned, checksummed downloads into the user cache (benchmark-neutral).

A benchmark describes the files it needs as `RemoteFile`s (relative path, URL, and a pinned
sha256 and/or git blob id). `ensure` returns local paths for them: a cached copy whose checksum
matches is used as is; anything else is downloaded with httpx, verified, and written
atomically (temp file + `os.replace`), so a crashed or concurrent download never leaves a
half-written file under the final name (a power cut may: its checksum then fails on next use,
and it is fetched again).

The git blob id (`sha1(b"blob <size>\0" + bytes)`, what `git ls-tree` prints) pins files whose
bytes we have never seen but whose commit we know, e.g. CRMArena's SQLite org dumps.

Errors name the file and the fix: `DataMissing` when a file cannot be had (offline, HTTP error),
`DataCorrupt` when the bytes do not match a pinned checksum.
"""

from __future__ import annotations

import contextvars
import hashlib
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import httpx

from a2abench._paths import cache_dir
from a2abench.errors import DataCorrupt, DataMissing
from a2abench.net.coding import (
    ACCEPT_ENCODING,
    CodingError,
    decode_blocking,
    drop_redirect_body_blocking,
)
from a2abench.net.tls import verified_context

_CHUNK = 1 << 20
# Bounds of one file's download (docs/limits.md): bytes when the manifest pins no size, an
# overall deadline, and a floor on the average rate once the grace period is over (a mirror
# dripping one byte a second is given up after the grace period, not after hours).
MAX_UNSIZED_BYTES = 2 << 30
DOWNLOAD_DEADLINE_S = 3600.0
MIN_RATE = 10_000  # bytes per second, on average
RATE_GRACE_S = 60.0
RAW_HOST = "https://raw.githubusercontent.com/"
# A mirror laid out like the raw-file host (`<mirror>/<owner>/<repo>/<commit>/<path>`), for
# air-gapped installs; a benchmark's own base-URL variable wins over it.
MIRROR_ENV = "A2ABENCH_DATA_MIRROR"


def raw_base(repository: str, commit: str) -> str:
    """Base URL of `repository`'s files at `commit` (ends with "/"), honouring the mirror."""
    host = os.environ.get(MIRROR_ENV) or RAW_HOST
    host = host if host.endswith("/") else host + "/"
    return f"{host}{repository}/{commit}/"


@dataclass(frozen=True)
class RemoteFile:
    """One pinned file: where it lives under the cache folder, where to get it, and its
    sha256 and/or git blob id (at least one; every one given must match)."""

    path: str
    url: str
    sha256: str | None = None
    git_blob_sha1: str | None = None
    size: int | None = None  # bytes, when the manifest pins it: a longer body is refused

    @property
    def ceiling(self) -> int:
        """The most bytes a download of this file may bring."""
        return self.size if self.size is not None else MAX_UNSIZED_BYTES

    def __post_init__(self) -> None:
        if self.sha256 is None and self.git_blob_sha1 is None:
            raise ValueError(f"RemoteFile {self.path}: pin a sha256 or a git blob id")

    def mismatch(self, sha256: str | None, blob: str | None) -> str | None:
        """Why digests of some bytes do not match this pin (None when they do)."""
        if self.sha256 is not None and sha256 != self.sha256:
            return f"sha256 {sha256}, expected {self.sha256}"
        if self.git_blob_sha1 is not None and blob != self.git_blob_sha1:
            return f"git blob id {blob}, expected {self.git_blob_sha1}"
        return None


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def git_blob_sha1_file(path: Path) -> str:
    """Git's object id of a file's bytes: sha1 of `blob <size>\0` followed by the bytes."""
    digest = hashlib.sha1(b"blob %d\0" % path.stat().st_size)
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def matches(item: RemoteFile, path: Path) -> bool:
    """Whether the file at `path` has every digest `item` pins, in one reading of it."""
    sha = hashlib.sha256() if item.sha256 else None
    blob = hashlib.sha1(b"blob %d\0" % path.stat().st_size) if item.git_blob_sha1 else None
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            for digest in (sha, blob):
                if digest is not None:
                    digest.update(chunk)
    return item.mismatch(sha.hexdigest() if sha is not None else None,
                         blob.hexdigest() if blob is not None else None) is None


def git_blob_sha1(body: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest()


def verify(path: Path, expected: str, *, hint: str) -> None:
    """Raise `DataMissing`/`DataCorrupt` unless `path` exists with sha256 `expected`."""
    if not path.is_file():
        raise DataMissing(f"data file {path} is missing", hint=hint)
    actual = sha256_file(path)
    if actual != expected:
        raise DataCorrupt(f"data file {path} has sha256 {actual}, expected {expected}",
                          hint=hint)


def ensure(files: Iterable[RemoteFile], *, folder: str, client: httpx.Client | None = None,
           timeout: float = 60.0, hint: str | None = None, workers: int = 1,
           progress: Callable[[int, int], None] | None = None) -> dict[str, Path]:
    """Local, verified copies of `files` under `cache_dir()/folder`, downloading what is absent.

    Returns `{file.path: local path}`. A cached file with the wrong checksum is downloaded again;
    a download with the wrong checksum is rejected (never cached) with `DataCorrupt`. `hint`
    replaces the default next step in a `DataMissing` error. With `workers > 1` files are
    fetched concurrently (one shared client). `progress(done, total)` reports a download: it is
    called after each file once the first one had to be fetched (earlier verified copies count
    in `done`), and never when every file was already cached.
    """
    root = cache_dir() / folder
    items = list(files)
    own_client = client is None
    http = client or httpx.Client(timeout=timeout, follow_redirects=True,
                                  verify=verified_context(),
                                  limits=httpx.Limits(max_connections=max(workers, 1)),
                                  headers={"Accept-Encoding": ACCEPT_ENCODING},
                                  event_hooks={"request": [_check_egress],
                                               "response": [drop_redirect_body_blocking]})
    done = [0]
    fetching = [False]
    lock = threading.Lock()

    def one(item: RemoteFile) -> Path:
        path, fetched = _ensure_one(item, root, http, hint)
        with lock:
            done[0] += 1
            fetching[0] = fetching[0] or fetched
            if progress is not None and fetching[0]:
                progress(done[0], len(items))
        return path

    try:
        if workers <= 1 or len(items) <= 1:
            return {item.path: one(item) for item in items}
        from concurrent.futures import ThreadPoolExecutor

        # Worker threads start with an empty context: hand each the caller's (the run's egress
        # policy lives in a ContextVar), one copy per call since a Context runs in one thread.
        context = contextvars.copy_context()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            paths = list(pool.map(lambda item: context.copy().run(one, item), items))
        return {item.path: path for item, path in zip(items, paths, strict=True)}
    finally:
        if own_client:
            http.close()


def _check_egress(request: httpx.Request) -> None:
    """Under a run's --allow-host, downloads (and their redirects) stay on allowed hosts."""
    _check_egress_url(str(request.url))


def _check_egress_url(url: str) -> None:
    from a2abench.net.egress import egress_refusal

    refusal = egress_refusal(url, "downloading data")
    if refusal is not None:
        raise DataMissing(refusal, hint="Fetch the data once without --allow-host (it is "
                                        "cached), pass a local copy (--data-dir, --crm-db, "
                                        "--tasks-file), or allow that host.")


def _cached(item: RemoteFile, target: Path) -> bool:
    return target.is_file() and matches(item, target)


def _ensure_one(item: RemoteFile, root: Path, http: httpx.Client, hint: str | None
                ) -> tuple[Path, bool]:
    """The verified local copy, and whether it had to be downloaded."""
    target = root / item.path
    if _cached(item, target):
        return target, False
    missing = hint or (f"Check the network connection and retry, or pass --data-dir pointing "
                       f"at a local copy that holds {item.path}")
    _check_egress_url(item.url)  # a client of the caller's own: the first URL at least
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            # No fsync: every use of a cached file checks its pin first, so one a power
            # loss left torn is fetched again (846 fsyncs took a pull ~8 s of disk waits).
            sha256 = _stream(item, http, handle, missing)
        wrong = item.mismatch(sha256 if item.sha256 else None,
                              git_blob_sha1_file(Path(tmp)) if item.git_blob_sha1 else None)
        if wrong is not None:
            raise DataCorrupt(
                f"downloaded {item.path} from {item.url} has {wrong}",
                hint="The file was rejected and not cached. " + (
                    hint or "Retry later, or pass --data-dir pointing at a verified local copy"))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target, True


def _stream(item: RemoteFile, http: httpx.Client, handle: BinaryIO, missing: str) -> str:
    """Write the body of `item.url` to `handle` within the bounds; returns its sha256."""
    def failed(why: str) -> DataMissing:
        return DataMissing(f"could not download {item.path} from {item.url}: {why}",
                           hint=missing)

    digest, size, start = hashlib.sha256(), 0, time.monotonic()
    try:
        with http.stream("GET", item.url) as response:
            if response.status_code != 200:
                where = "" if str(response.url) == item.url else f" (at {response.url})"
                raise failed(f"HTTP {response.status_code}{where}")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > item.ceiling:
                raise _too_large(item)
            # As it arrives, a bounded piece at a time (a gzip bomb meets the size cap
            # after 64 kB past it): the pace is checked often.
            for chunk in decode_blocking(response.iter_raw(),
                                         response.headers.get("content-encoding")):
                size += len(chunk)
                if size > item.ceiling:
                    raise _too_large(item)
                digest.update(chunk)
                handle.write(chunk)
                _check_pace(size, time.monotonic() - start, failed)
    except httpx.HTTPError as exc:
        raise failed(str(exc) or type(exc).__name__) from exc
    except CodingError as exc:
        raise DataCorrupt(f"downloaded {item.path} from {item.url} cannot be read: {exc}",
                          hint="The file was rejected and not cached. Check the mirror, or "
                               "pass --data-dir pointing at a local copy") from None
    return digest.hexdigest()


def _too_large(item: RemoteFile) -> DataCorrupt:
    limit = (f"its pinned size of {item.size} bytes" if item.size is not None else
             f"the {MAX_UNSIZED_BYTES} bytes allowed for a file of unpinned size")
    return DataCorrupt(f"downloaded {item.path} from {item.url} is larger than {limit}",
                       hint="The file was rejected and not cached. Check the mirror, or "
                            "pass --data-dir pointing at a local copy")


def _check_pace(size: int, elapsed: float, failed: Callable[[str], DataMissing]) -> None:
    if elapsed > DOWNLOAD_DEADLINE_S:
        raise failed(f"not finished after {DOWNLOAD_DEADLINE_S:g} s ({size} bytes so far)")
    if elapsed > RATE_GRACE_S and size / elapsed < MIN_RATE:
        raise failed(f"too slow ({size} bytes in {elapsed:.0f} s, under {MIN_RATE} bytes/s)")
