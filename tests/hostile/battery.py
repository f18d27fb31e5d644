"""The hostile-frame battery of issue 34, as a child process: `a2abench run crmarena` against a
raw agent (tests/hostile/raw_server.py) that sends each frame of tests/hostile/frames.py, one
run per frame, each measured on its own.

    python -m tests.hostile.battery MODE[,MODE...] [FRAME ...]   # one JSON line per run

Modes: `lean` answers the first task-trial's call well (through httpx: the deciding call),
then sends the frame to the second, which the lean client reads; `httpx` is the same with
A2ABENCH_HTTP_CLIENT=httpx; `first` sends the frame from the very first call, the one httpx
makes to decide. Every attempt after the first good call gets the frame. Several modes run
one after the other in this one process (one start-up, one org), each run measured alike.

Per frame: the second task-trial's status and error class, the CLI's exit code, the peak RSS
of this process during the run (VmHWM, reset before each run through /proc/self/clear_refs),
and whether anything printed a traceback. The run's --timeout is 120 s: a client that waited
for a deadline instead of failing at once would show as AgentTimeout or ReplyTooSlow, never
as the expected class, so no figure here depends on speed.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import resource
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.hostile.frames import FRAMES, card, message, reply
from tests.hostile.probe_run import make_org
from tests.hostile.raw_server import Answer, Request, raw_server

ADDRESS_SPACE = 6 << 30  # a runaway decoder fails with MemoryError instead of eating the host


def _peak_mb() -> float:
    status = Path("/proc/self/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+)", status)[1]) / 1024  # type: ignore[index]


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def _answerer(frame: str, good: int) -> Any:
    def answer(request: Request) -> Answer:
        if request.method == "GET":
            return Answer(reply(card(f"http://{request.headers['host']}")), "keep")
        rid = json.loads(request.body).get("id")
        calls = sum(r.method == "POST" for r in server_requests())
        if calls <= good:
            return Answer(reply(message(rid)), "keep")
        spec = FRAMES[frame]
        return Answer(spec.build(rid), spec.then)

    holder: dict[str, Any] = {}

    def server_requests() -> list[Request]:
        return holder["server"].requests  # type: ignore[no-any-return]

    return answer, holder


@contextlib.contextmanager
def _captured(path: Path) -> Any:
    """fd 1 and 2 (Rich, logging, warnings, asyncio's own reports) into `path`."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "wb") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def run_frame(frame: str, mode: str, root: Path, db: Path, tasks: Path) -> dict[str, Any]:
    from a2abench.cli import main

    answer, holder = _answerer(frame, good=0 if mode == "first" else 1)
    out, log = root / f"{frame}.jsonl", root / f"{frame}.log"
    with raw_server(answer) as server:
        holder["server"] = server
        _reset_peak()
        with _captured(log):
            try:
                main(["run", "crmarena", "--white-agent-url", server.base,
                      "--tasks-file", str(tasks), "--crm-db", str(db), "--output", str(out),
                      "--judge-llm", "offline", "--concurrency", "1", "--retry-delay", "0.01",
                      "--timeout", "120"])
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except MemoryError:
                code = -1
        peak = _peak_mb()
        attempts = sum(r.method == "POST" for r in server.requests)
    records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    tasks_done = [r for r in records if r.get("type") == "task"]
    hit = tasks_done[-1] if len(tasks_done) == 2 else None  # the second task-trial's
    text = log.read_text(errors="replace")
    return {"frame": frame, "mode": mode, "code": code, "peak_rss_mb": round(peak, 1),
            "status": hit["status"] if hit else None,
            "error": (hit.get("error") or {}).get("error", "") if hit else None,
            "message": ((hit.get("error") or {}).get("message") or "")[:300] if hit else None,
            "traceback": "Traceback" in text, "posts": attempts,
            "log_tail": text[-600:] if "Traceback" in text or hit is None else ""}


def main(argv: list[str]) -> None:
    modes, frames = argv[0].split(","), argv[1:] or list(FRAMES)
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    with tempfile.TemporaryDirectory(prefix="a2abench-battery-") as tmp:
        root = Path(tmp)
        os.environ["A2ABENCH_CACHE_DIR"] = str(root / "cache")
        db, tasks = make_org(root, 2)
        for mode in modes:
            gc.collect()  # the last mode's cyclic garbage is not this mode's memory
            os.environ.pop("A2ABENCH_HTTP_CLIENT", None)
            if mode == "httpx":
                os.environ["A2ABENCH_HTTP_CLIENT"] = "httpx"
            (root / mode).mkdir()
            for frame in frames:
                print(json.dumps(run_frame(frame, mode, root / mode, db, tasks)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
