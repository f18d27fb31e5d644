"""CRMArena reference files: published task and schema dumps, pinned (`reference.json`).

The hub serves tasks through `datasets`; these are the same tasks and schemas as plain files
in public repositories at fixed commits, so an offline install can pass them as
`--tasks-file` / `--schema-file`, and the test suite can check every official task. They
are laid out in the cache as `tasks/...` and `schema/...` under `FOLDER`.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from a2abench.plugin import RemoteFile
from a2abench.plugin.provisional import raw_base

FOLDER = "crmarena/reference"


@cache
def _entries() -> dict[str, dict[str, Any]]:
    raw = json.loads(resources.files(__package__).joinpath("reference.json").read_text())
    files: dict[str, dict[str, Any]] = raw["files"]
    return files


def reference_files() -> list[RemoteFile]:
    """Every reference file, pinned by sha256 and git blob id, at its repository's commit."""
    return [RemoteFile(name, raw_base(e["repository"], e["commit"])
                                 + e["path"], sha256=e["sha256"],
                                 git_blob_sha1=e["git_blob_sha1"], size=int(e["size"]))
            for name, e in sorted(_entries().items())]
