"""Issue 34's hostile-server battery: every frame of tests/hostile/frames.py, sent by a raw
agent to `a2abench run crmarena` on the lean client, on httpx (A2ABENCH_HTTP_CLIENT=httpx)
and on the deciding first call, ends bounded in memory (peak RSS of the run at most 256 MB)
and in time (no deadline is waited for: see tests/hostile/battery.py), in the class the
transport-failure rule gives, with no traceback anywhere.

Before issue 34 a 2 GB bomb took httpx to 3.9 GB, broken frames ended as unscored
infrastructure errors, 2,000 codings as a harness error, a mixed-line-end head waited out
--timeout and 101 was read until the deadline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.frames import FRAMES
from tests.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
MAX_RSS_MB = 256


MODES = ("lean", "httpx", "first")


def _battery() -> dict[tuple[str, str], dict[str, Any]]:
    """Every mode's rows, by (mode, frame): one child runs them all (one start-up, not three)."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("A2ABENCH_")},
           # no upstream download: a closed loopback port, so our own wording is used
           "A2ABENCH_CRMARENA_DATA_URL": f"http://127.0.0.1:{free_port()}/",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tests.hostile.battery", ",".join(MODES)],
                          capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=1800, check=False)  # a guard against a hang, not a speed
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {(row["mode"], row["frame"]): row for row in rows}


@pytest.mark.slow
def test_every_hostile_frame_ends_bounded_in_the_class_the_rule_gives() -> None:
    rows = _battery()
    assert set(rows) == {(mode, frame) for mode in MODES for frame in FRAMES}
    wrong = {key: (row["status"], row["error"], row["message"], row["log_tail"])
             for key, row in rows.items()
             if (row["status"], row["error"]) != (FRAMES[key[1]].status, FRAMES[key[1]].error)}
    assert not wrong, wrong
    heavy = {key: row["peak_rss_mb"] for key, row in rows.items()
             if row["peak_rss_mb"] > MAX_RSS_MB}
    assert not heavy, heavy
    assert not [key for key, row in rows.items() if row["traceback"]]
    assert {row["code"] for row in rows.values()} == {0}
