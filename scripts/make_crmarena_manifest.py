"""Regenerate a2abench/benchmarks/crmarena/manifest.json from a CRMArena git repository.

Usage: python scripts/make_crmarena_manifest.py GIT_DIR COMMIT
GIT_DIR is a clone (or bare repository) of SalesforceAIResearch/CRMArena holding COMMIT. The
prose files are hashed (sha256) from `git show COMMIT:path`; the org dumps are pinned by the
blob ids `git rev-parse COMMIT:path` names, so their (large) bytes need not be present.
Only paths and digests are written; no upstream content is copied.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

TEXTS = ["crm_sandbox/env/env.py", "crm_sandbox/agents/prompts.py", "crm_sandbox/env/users.py"]
ORGS = {"original": "local_data/crmarena_data.db", "b2b": "local_data/crmarenapro_b2b_data.db",
        "b2c": "local_data/crmarenapro_b2c_data.db"}


def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True,
                          capture_output=True).stdout


def main(git_dir: Path, commit: str) -> None:
    full = git(git_dir, "rev-parse", commit).decode().strip()
    texts = {}
    for rel in TEXTS:
        body = git(git_dir, "show", f"{full}:{rel}")
        texts[rel] = {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body)}
    orgs = {org: {"path": rel,
                  "git_blob_sha1": git(git_dir, "rev-parse", f"{full}:{rel}").decode().strip()}
            for org, rel in ORGS.items()}
    out = Path(__file__).resolve().parents[1] / "a2abench/benchmarks/crmarena/manifest.json"
    out.write_text(json.dumps({"repository": "SalesforceAIResearch/CRMArena", "commit": full,
                               "texts": texts, "orgs": orgs}, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
