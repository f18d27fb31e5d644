"""Values derived from a text, kept on disk between test runs (`.pytest_cache/kept/<kind>`) and
keyed by a hash of that text: an edited file is derived again, an unchanged one is read back.
For derivations that every xdist worker would otherwise repeat at collection or in a test
(parsing all of a2abench, json5's pure-Python parser)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

STORE = Path(__file__).resolve().parents[1] / ".pytest_cache" / "kept"
LIMIT = 5_000  # entries of one kind; past it the folder starts again (edits leave old ones)


def kept(kind: str, text: bytes, derive: Callable[[bytes], Any]) -> Any:
    """`derive(text)`, a JSON value, computed once per distinct text (`kind` names the
    derivation: change it when the derivation changes)."""
    folder = STORE / kind
    path = folder / f"{hashlib.sha256(text).hexdigest()}.json"
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        pass  # absent or torn: derive it again
    value = derive(text)
    if folder.is_dir() and len(os.listdir(folder)) > LIMIT:
        shutil.rmtree(folder, ignore_errors=True)  # another worker may be emptying it too
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(value, out)
    os.replace(tmp, path)  # whole or absent, whichever worker writes it
    return value
