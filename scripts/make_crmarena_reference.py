"""Regenerate a2abench/benchmarks/crmarena/reference.json: the pinned reference files.

Usage: python scripts/make_crmarena_reference.py CRMARENA_GIT_DIR ENTROPIC_GIT_DIR
Each reference file (tasks and schema dumps the tests and `--tasks-file` users read) lives in a
public GitHub repository at a known commit; this script reads the bytes with `git show`, and
writes only where each file comes from and its sha256 and git blob id. No content is copied.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

CRMARENA = "SalesforceAIResearch/CRMArena"
ENTROPIC = "rkstu/entropic-crmarenapro"
# our name -> (repository, commit, path in that repository)
SOURCES = {
    # the Hugging Face CRMArenaPro b2b split, as dumped in a public repository
    "tasks/crmarenapro_b2b_tasks.json": (
        ENTROPIC, "7d30fa6fbeeb986a0474364d8c298724903df4bd", "data/crmarena_b2b_tasks.json"),
    # CRMArena's first published commit: tasks, schema with foreign keys
    "tasks/crmarena_original_tasks_natural.json": (
        CRMARENA, "028157ecab84a465faf6510aeaf87be71602dd36",
        "crm_sandbox/data/tasks_natural.json"),
    "schema/original_schema_with_dependencies.json": (
        CRMARENA, "028157ecab84a465faf6510aeaf87be71602dd36",
        "crm_sandbox/data/schema_with_dependencies.json"),
    "schema/original_dependencies.txt": (
        CRMARENA, "028157ecab84a465faf6510aeaf87be71602dd36", "crm_sandbox/data/dependencies.txt"),
    # the schema exports of CRMArena pull request 11 (the hub's schema configs)
    **{f"schema/{name}": (CRMARENA, "31996f9a809629aa8b5b320c18595ca669ff362b",
                          f"schema_exports/{name}")
       for name in ("b2b_schema.json", "b2c_schema.json", "original_schema.json")},
}


def main(crmarena: Path, entropic: Path) -> None:
    dirs = {CRMARENA: crmarena, ENTROPIC: entropic}
    files = {}
    for name, (repo, commit, path) in SOURCES.items():
        body = subprocess.run(["git", f"--git-dir={dirs[repo]}", "show", f"{commit}:{path}"],
                              check=True, capture_output=True).stdout
        files[name] = {"repository": repo, "commit": commit, "path": path, "size": len(body),
                       "sha256": hashlib.sha256(body).hexdigest(),
                       "git_blob_sha1": hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest()}
    out = Path(__file__).resolve().parents[1] / "a2abench/benchmarks/crmarena/reference.json"
    out.write_text(json.dumps({"files": files}, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
