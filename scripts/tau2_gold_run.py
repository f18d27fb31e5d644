"""Run `a2abench run tau2` with the test suite's gold-replay agent and gold user (no LLM).

    python scripts/tau2_gold_run.py --domain airline --data-dir ../shared/data \
        --mode gold --output /tmp/airline-gold.jsonl

Modes: gold (replays each task's gold actions), silent (never acts). The output is then
compared with upstream's own evaluator by scripts/tau2_upstream_rescore.py; docs/fidelity.md
records the result. Development tool: it imports the test helpers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    from a2abench.benchmarks.tau2 import load_domain
    from a2abench.cli import main as cli
    from tests.fakes.llm_server import FakeLLMServer
    from tests.servers import serve
    from tests.tau2 import gold_agent

    parser = argparse.ArgumentParser()
    parser.add_argument("--domain", default="airline")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--mode", default="gold", choices=["gold", "silent"])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--max-tasks", type=int, default=None)
    args = parser.parse_args()
    domain = load_domain(args.domain, data_dir=args.data_dir)
    tasks = {t.id: t for t in domain.tasks(max_tasks=args.max_tasks)}
    server = FakeLLMServer(handler=gold_agent.gold_user(tasks))
    with server.running(), serve(lambda b: gold_agent.app(b, tasks, args.mode)[0]) as base:
        argv = ["run", "tau2", "--white-agent-url", base, "--domain", args.domain,
                "--data-dir", str(args.data_dir), "--user-llm", "gold-user",
                "--user-llm-base-url", server.base_url, "--output", str(args.output),
                "--concurrency", "8"]
        if args.max_tasks:
            argv += ["--max-tasks", str(args.max_tasks)]
        try:
            cli(argv)
        except SystemExit as exc:
            return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
