"""Filesystem locations: the user cache (downloads, LLM cache) and run output."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def cache_dir() -> Path:
    """`A2ABENCH_CACHE_DIR`, else the platform's user cache directory + `a2abench`."""
    override = os.environ.get("A2ABENCH_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "a2abench"
