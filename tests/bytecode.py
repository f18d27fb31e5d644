"""A bytecode cache for the test run, even where PYTHONDONTWRITEBYTECODE is set.

That variable (common in container images) makes every xdist worker and every CLI subprocess
compile a2abench and the test modules anew: about 11 s of CPU per process, a third of the quick
loop. Imported first by tests/conftest.py, this keeps compiled files in
`.pytest_cache/pycache` instead (never beside the sources, as the variable asks); workers and
subprocesses inherit it through the environment. `A2ABENCH_TEST_BYTECODE=0` turns it off; a
PYTHONPYCACHEPREFIX already set is left alone.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

PREFIX = Path(__file__).resolve().parents[1] / ".pytest_cache" / "pycache"


def keep_bytecode() -> None:
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    if os.environ.get("A2ABENCH_TEST_BYTECODE") == "0":
        return
    PREFIX.mkdir(parents=True, exist_ok=True)
    # Modules compiled from temp folders (fresh clones, fake plugins) are never read again:
    # dropped each session, so the cache does not grow by a few hundred kB a run. A file
    # another session still uses is only compiled again.
    temp = Path(tempfile.gettempdir()).resolve()
    shutil.rmtree(PREFIX / temp.relative_to(temp.anchor), ignore_errors=True)
    sys.pycache_prefix = str(PREFIX)
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = str(PREFIX)
    del os.environ["PYTHONDONTWRITEBYTECODE"]


keep_bytecode()
