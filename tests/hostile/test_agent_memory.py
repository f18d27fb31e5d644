"""The issue-18 probe as the user meets it: `run crmarena` in its own process, an agent that
answers every turn of 2 task-trials with a 50 MB JSON-RPC result. Before the byte cap this
took 6.5 GB peak RSS and 56 s; now the default 16 MB cap stops each reply while reading."""

from __future__ import annotations

import pytest

from tests.hostile.probe_run import probe_run


@pytest.mark.slow
def test_50_mb_replies_stay_under_300_mb_peak_rss() -> None:
    run = probe_run("oversize", tasks=2, hostile_calls=2)
    assert run.code == 0, run.stderr
    assert [t["status"] for t in run.tasks] == ["agent_error", "agent_error"]
    assert {t["error"]["error"] for t in run.tasks} == {"ReplyTooLarge"}
    assert "16 MB cap (--max-reply-bytes 16000000)" in run.tasks[0]["error"]["message"]
    assert run.peak_rss_mb < 300, f"peak RSS {run.peak_rss_mb:.0f} MB"
