"""Pinned, checksummed downloads into the user cache (benchmark-neutral).

A benchmark describes the files it needs as `RemoteFile`s (relative path, URL, sha256). `ensure`
returns local paths for them: a cached copy whose checksum matches is used as is; anything else
is downloaded with httpx, verified, and written atomically (temp file + `os.replace`), so a
crashed or concurrent download never leaves a half-written file under the final name.

Errors name the file and the fix: `DataMissing` when a file cannot be had (offline, HTTP error),
`DataCorrupt` when the bytes do not match the pinned sha256.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import httpx

from a2abench._paths import cache_dir
from a2abench.errors import DataCorrupt, DataMissing

_CHUNK = 1 << 20


@dataclass(frozen=True)
class RemoteFile:
    """One pinned file: where it lives under the cache folder, where to get it, its sha256."""

    path: str
    url: str
    sha256: str


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def verify(path: Path, expected: str, *, hint: str) -> None:
    """Raise `DataMissing`/`DataCorrupt` unless `path` exists with sha256 `expected`."""
    if not path.is_file():
        raise DataMissing(f"data file {path} is missing", hint=hint)
    actual = sha256_file(path)
    if actual != expected:
        raise DataCorrupt(f"data file {path} has sha256 {actual}, expected {expected}",
                          hint=hint)


def ensure(files: Iterable[RemoteFile], *, folder: str, client: httpx.Client | None = None,
           timeout: float = 60.0) -> dict[str, Path]:
    """Local, verified copies of `files` under `cache_dir()/folder`, downloading what is absent.

    Returns `{file.path: local path}`. A cached file with the wrong checksum is downloaded again;
    a download with the wrong checksum is rejected (never cached) with `DataCorrupt`.
    """
    root = cache_dir() / folder
    own_client = client is None
    http = client or httpx.Client(timeout=timeout, follow_redirects=True)
    try:
        return {item.path: _ensure_one(item, root, http) for item in files}
    finally:
        if own_client:
            http.close()


def _ensure_one(item: RemoteFile, root: Path, http: httpx.Client) -> Path:
    target = root / item.path
    if target.is_file() and sha256_file(target) == item.sha256:
        return target
    hint = (f"Check the network connection and retry, or pass --data-dir pointing at a local "
            f"copy that holds {item.path}")
    try:
        response = http.get(item.url)
    except httpx.HTTPError as exc:
        raise DataMissing(f"could not download {item.path} from {item.url}: {exc}",
                          hint=hint) from exc
    if response.status_code != 200:
        raise DataMissing(f"could not download {item.path} from {item.url}: "
                          f"HTTP {response.status_code}", hint=hint)
    body = response.content
    actual = hashlib.sha256(body).hexdigest()
    if actual != item.sha256:
        raise DataCorrupt(
            f"downloaded {item.path} from {item.url} has sha256 {actual}, expected {item.sha256}",
            hint="The file was rejected and not cached. Retry later, or pass --data-dir "
                 "pointing at a verified local copy")
    _atomic_write(target, body)
    return target


def _atomic_write(target: Path, body: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
