"""The on-disk response cache: one JSON file per distinct request, written atomically.

Layout: `<root>/<first two hex digits>/<sha256>.json`. The key is the sha256 of the canonical
JSON (sorted keys, no spaces) of `{"v", "url", "body"}`, where body is the exact request body
(model, messages, tools and every argument, seed and temperature included). The API key is a
header, never part of the body, so it is in neither the key nor the file.

Writers create a unique temporary file beside the target and `os.replace` it into place, so a
reader (in this process or another) sees either no file or a whole one; concurrent writers of
the same key both write a valid answer and the last rename wins. Files that cannot be read back
as this format are logged and treated as a miss, and the next write replaces them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from a2abench._paths import cache_dir

logger = logging.getLogger("a2abench.llm")

FORMAT_VERSION = 1


def default_cache_root() -> Path:
    return cache_dir() / "llm"


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def cache_key(url: str, body: dict[str, Any]) -> str:
    """sha256 hex of the canonical request; `url` is the full chat-completions endpoint."""
    text = canonical_json({"v": FORMAT_VERSION, "url": url, "body": body})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Blocking file operations run in a worker thread so the event loop keeps going."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._write_failed = False

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    async def get(self, key: str) -> dict[str, Any] | None:
        return await asyncio.to_thread(self._read, key)

    async def put(self, key: str, response: dict[str, Any], *, model: str) -> None:
        entry = {"v": FORMAT_VERSION, "key": key, "model": model, "created": time.time(),
                 "response": response}
        await asyncio.to_thread(self._write, key, entry)

    def _read(self, key: str) -> dict[str, Any] | None:
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            logger.warning("ignoring unreadable LLM cache file %s: %s", path, exc)
            return None
        try:
            entry = json.loads(text)
        except json.JSONDecodeError as exc:
            logger.warning("ignoring corrupt LLM cache file %s (%s); it will be rewritten",
                           path, exc)
            return None
        response = entry.get("response") if isinstance(entry, dict) else None
        if (not isinstance(response, dict) or entry.get("v") != FORMAT_VERSION
                or entry.get("key") != key):
            logger.warning("ignoring LLM cache file %s: not a version-%d entry for its key; "
                           "it will be rewritten", path, FORMAT_VERSION)
            return None
        return response

    def _write(self, key: str, entry: dict[str, Any]) -> None:
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:16]}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(json.dumps(entry, ensure_ascii=False))
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            # The answer is already paid for and in hand; losing the cache entry costs only a
            # re-run. Say so once per client rather than once per call.
            level = logging.DEBUG if self._write_failed else logging.WARNING
            self._write_failed = True
            logger.log(level, "could not write the LLM cache file %s: %s (set "
                       "A2ABENCH_CACHE_DIR to a writable directory or disable the LLM cache)",
                       path, exc)


class KeyLocks:
    """One asyncio.Lock per key while anyone holds or waits for it; the dict does not grow."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)
